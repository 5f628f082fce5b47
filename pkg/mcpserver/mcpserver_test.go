package mcpserver_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/client"
	"github.com/recallhq/recall/pkg/contract"
	"github.com/recallhq/recall/pkg/mcpserver"
)

const (
	tenant = "acme"
	key    = "acme-key-0123456789"
)

// TestMCP drives the tools with the SDK's own client over both transports,
// against one live Recall with keys on: stdio (the built `recall mcp`,
// bound to a user, forget_user allowed) and streamable HTTP (the API's /mcp,
// not bound).
func TestMCP(t *testing.T) {
	t.Parallel()
	l := testenv.StartRecall(t, "API_KEYS="+tenant+":"+key+",other:other-key-0123456789")
	api, err := client.New(l.URL, client.WithTenant(tenant), client.WithKey(key))
	require.NoError(t, err)

	t.Run("stdio", func(t *testing.T) {
		t.Parallel()
		cmd := exec.Command(l.Bin, "mcp")
		cmd.Env = append(l.Env, "RECALL_URL="+l.URL, "RECALL_TENANT="+tenant, "RECALL_API_KEY="+key,
			"RECALL_USER_ID=u-stdio", "MCP_ALLOW_FORGET=true")
		cs := connect(t, &mcp.CommandTransport{Command: cmd})
		s := agent{t: t, cs: cs, api: api, user: "u-stdio", session: "s-stdio", bound: true, log: &strings.Builder{}}
		s.exercise()
		s.forget()
		t.Logf("MCP session over stdio (recall mcp, bound to u-stdio), the calls made once (polls left out):\n%s", s.log)
	})

	t.Run("http", func(t *testing.T) {
		t.Parallel()
		// As a host connects by default: it also asks for the standalone
		// event stream (GET), which a stateless server declines with 405.
		cs := connect(t, &mcp.StreamableClientTransport{Endpoint: l.URL + "/mcp",
			HTTPClient: &http.Client{Transport: headers{"X-Tenant-ID": tenant, "Authorization": "Bearer " + key}}})
		s := agent{t: t, cs: cs, api: api, user: "u-http", session: "s-http"}
		s.exercise()
		require.NotContains(t, s.toolNames(), "forget_user", "not offered unless MCP_ALLOW_FORGET")
	})

	t.Run("http bound by X-User-ID", func(t *testing.T) {
		t.Parallel()
		cs := connect(t, &mcp.StreamableClientTransport{Endpoint: l.URL + "/mcp", DisableStandaloneSSE: true,
			HTTPClient: &http.Client{Transport: headers{"X-Tenant-ID": tenant, "Authorization": "Bearer " + key, "X-User-ID": "u-bound"}}})
		s := agent{t: t, cs: cs, api: api, user: "u-bound", session: "s-bound", bound: true}
		res := s.call("get_context", map[string]any{"user_id": "u-http", "session_id": "s-http"})
		s.requireToolError(res, "user_id")
	})

	t.Run("http keys", func(t *testing.T) {
		t.Parallel()
		init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
		for _, c := range []struct {
			name   string
			hdr    map[string]string
			status int
		}{
			{"no key", map[string]string{"X-Tenant-ID": tenant}, http.StatusUnauthorized},
			{"another tenant's key", map[string]string{"X-Tenant-ID": tenant, "Authorization": "Bearer other-key-0123456789"}, http.StatusForbidden},
			{"no tenant", map[string]string{"Authorization": "Bearer " + key}, http.StatusBadRequest},
			{"the tenant's key", map[string]string{"X-Tenant-ID": tenant, "Authorization": "Bearer " + key}, http.StatusOK},
		} {
			req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, l.URL+"/mcp", strings.NewReader(init))
			require.NoError(t, err)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			for k, v := range c.hdr {
				req.Header.Set(k, v)
			}
			res, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			res.Body.Close()
			require.Equal(t, c.status, res.StatusCode, c.name)
		}
	})
}

// A `recall mcp` whose RECALL_URL answers nothing fails each tool call in
// about RECALL_CONNECT_TIMEOUT (2 s), saying where it looked: an agent must
// not sit through a chat backend's 15 s of retries on every call, and its
// user can only fix the URL if they are shown it.
func TestMCPUnreachable(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	dead := "http://" + ln.Addr().String()
	require.NoError(t, ln.Close())

	cmd := exec.Command(testenv.RecallBin(t), "mcp")
	cmd.Env = append(os.Environ(), "RECALL_URL="+dead, "RECALL_TENANT="+tenant, "RECALL_USER_ID=u-1", "RECALL_SESSION_ID=s-1")
	cs := connect(t, &mcp.CommandTransport{Command: cmd})
	for _, call := range []mcp.CallToolParams{
		{Name: "get_context", Arguments: map[string]any{"message": "hello"}},
		{Name: "remember", Arguments: map[string]any{"role": "user", "content": "hello"}},
	} {
		start := time.Now()
		res, err := cs.CallTool(t.Context(), &call)
		took := time.Since(start)
		require.NoError(t, err, call.Name)
		require.True(t, res.IsError, "%s: %s", call.Name, text(res))
		require.Equal(t, "Recall at "+dead+" is not reachable: connection refused", text(res), call.Name)
		require.Less(t, took, 5*time.Second, call.Name)
		t.Logf("%s failed after %v: %s", call.Name, took.Round(time.Millisecond), text(res))
	}
}

func connect(t *testing.T, tr mcp.Transport) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "recall-test", Version: "1"}, nil)
	cs, err := c.Connect(t.Context(), tr, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// agent is an MCP client session acting for one user in one session, as an
// agent would.
type agent struct {
	t             *testing.T
	cs            *mcp.ClientSession
	api           *client.Client
	user, session string
	bound         bool
	// log, when set, keeps a transcript of the tools listed and the calls
	// made (not the polls).
	log *strings.Builder
}

// args adds user_id to a call's arguments unless the server is bound.
func (a agent) args(kv map[string]any) map[string]any {
	if !a.bound {
		kv["user_id"] = a.user
	}
	return kv
}

func (a agent) call(name string, args map[string]any) *mcp.CallToolResult {
	a.t.Helper()
	res, err := a.cs.CallTool(a.t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	require.NoError(a.t, err, name)
	if a.log != nil {
		in, _ := json.Marshal(args)
		fmt.Fprintf(a.log, "-> tools/call %s %s\n<- isError=%v %s\n", name, in, res.IsError, text(res))
	}
	return res
}

// ok calls a tool that must succeed, and decodes its structured content.
func (a agent) ok(name string, args map[string]any, out any) string {
	a.t.Helper()
	res := a.call(name, args)
	require.False(a.t, res.IsError, "%s: %s", name, text(res))
	if out != nil {
		b, err := json.Marshal(res.StructuredContent)
		require.NoError(a.t, err)
		require.NoError(a.t, json.Unmarshal(b, out))
	}
	return text(res)
}

// eventually calls a tool until it succeeds and check holds (the workers
// are behind the API by a few milliseconds).
func (a agent) eventually(name string, args map[string]any, check func(text string, structured []byte) bool) {
	a.t.Helper()
	require.Eventually(a.t, func() bool {
		res, err := a.cs.CallTool(a.t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil || res.IsError {
			return false
		}
		b, _ := json.Marshal(res.StructuredContent)
		return check(text(res), b)
	}, 20*time.Second, 50*time.Millisecond, name)
}

func (a agent) requireToolError(res *mcp.CallToolResult, arg string) {
	a.t.Helper()
	require.True(a.t, res.IsError, "want a tool error, got %s", text(res))
	require.Contains(a.t, text(res), arg, "the error names the argument")
}

func (a agent) toolNames() []string {
	a.t.Helper()
	var names []string
	for tool, err := range a.cs.Tools(a.t.Context(), nil) {
		require.NoError(a.t, err)
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	if a.log != nil {
		fmt.Fprintf(a.log, "-> tools/list\n<- %s\n", strings.Join(names, ", "))
	}
	return names
}

// stored is how many messages the session holds, read over the API.
func (a agent) stored() int64 {
	s, err := a.api.Session(a.t.Context(), a.session, 0)
	if client.IsNotFound(err) {
		return 0
	}
	require.NoError(a.t, err)
	return s.MessageCount
}

// exercise lists the tools and calls each, with good and bad arguments.
func (a agent) exercise() {
	t := a.t
	want := []string{"get_attributes", "get_context", "get_interests", "get_profile", "recommend", "remember", "search_memory", "select_item", "set_preference", "unseen_items"}
	if a.bound {
		want = append(want, "forget_user")
		slices.Sort(want)
	}
	got := a.toolNames()
	require.Subset(t, got, want)
	// Tools (what `recall mcp -h` lists) is what a server offers.
	var listed []string
	for _, tool := range mcpserver.Tools() {
		if !tool.Forget || a.bound {
			listed = append(listed, tool.Name)
		}
	}
	require.ElementsMatch(t, got, listed)
	for tool, err := range a.cs.Tools(t.Context(), nil) {
		require.NoError(t, err)
		require.NotEmpty(t, tool.Description, tool.Name)
		schema, err := json.Marshal(tool.InputSchema)
		require.NoError(t, err)
		require.Contains(t, string(schema), `"type":"object"`, tool.Name)
		if tool.Name != "forget_user" {
			require.Contains(t, string(schema), `"user_id"`, tool.Name)
		}
	}

	// Nothing known of the user yet: advice an agent can follow with its
	// tools, not an error pointing at an HTTP route.
	out := a.ok("recommend", a.args(map[string]any{"k": 3}), nil)
	require.Contains(t, out, "call recommend again after a few more turns")
	require.NotContains(t, out, "/profile/refresh")
	// Nothing gathered yet: no time is written as year 1.
	for _, tool := range []string{"get_interests", "get_profile"} {
		var empty map[string]any
		out = a.ok(tool, a.args(map[string]any{}), &empty)
		require.NotContains(t, out, "0001-01-01", tool)
		require.NotContains(t, empty, "at", tool)
		require.Equal(t, a.user, empty["user_id"], tool)
		require.Equal(t, []any{}, empty["facts"], tool)
	}
	var noAttrs client.Attributes
	a.ok("get_attributes", a.args(map[string]any{}), &noAttrs)
	require.Equal(t, a.user, noAttrs.UserID)
	require.Empty(t, noAttrs.Current)

	a.ok("remember", a.args(map[string]any{"session_id": a.session, "role": "user",
		"content": "Recommend some science fiction like 《三体》"}), nil)
	a.ok("remember", a.args(map[string]any{"session_id": a.session, "role": "assistant", "content": "Here are three:",
		"tool_calls": []any{map[string]any{"name": "search_books", "arguments": map[string]any{"q": "science fiction"}, "result": map[string]any{"total": 3}}},
		"items": []any{
			map[string]any{"ref": "/book/823D", "title": "The Three-Body Problem", "attrs": map[string]any{"author": "Liu Cixin"}},
			map[string]any{"ref": "/book/77A1", "title": "Ball Lightning", "attrs": map[string]any{"url": "https://example.com/77A1"}},
			map[string]any{"ref": "/book/19F0", "title": "Dune"},
		}}), nil)
	a.eventually("get_context", a.args(map[string]any{"session_id": a.session, "message": "tell me about the second one"}),
		func(text string, _ []byte) bool { return strings.Contains(text, "ref: /book/77A1") })

	// As of a moment before the session began, none of it is remembered.
	out = a.ok("get_context", a.args(map[string]any{"session_id": a.session, "message": "tell me about the second one",
		"at": "2020-01-01T00:00:00Z"}), nil)
	require.NotContains(t, out, "/book/77A1")

	var sel client.Selection
	out = a.ok("select_item", a.args(map[string]any{"session_id": a.session, "n": 2}), &sel)
	require.Equal(t, "/book/77A1", sel.Ref())
	require.Contains(t, out, "ref: /book/77A1")
	require.JSONEq(t, `{"ref":"/book/77A1","title":"Ball Lightning","attrs":{"url":"https://example.com/77A1"}}`, string(sel.Item), "the item as it was sent")

	a.eventually("search_memory", a.args(map[string]any{"query": "science fiction"}), func(text string, _ []byte) bool {
		return strings.Contains(text, "Here are three")
	})
	// A query that names a time says which it read.
	out = a.ok("search_memory", a.args(map[string]any{"query": "science fiction in the past two weeks"}), nil)
	require.Contains(t, out, "(the time the query names) comes first")
	require.Contains(t, out, "Here are three")
	// As of a moment before the session began, the search finds none of it.
	out = a.ok("search_memory", a.args(map[string]any{"query": "science fiction", "at": "2020-01-01T00:00:00Z"}), nil)
	require.NotContains(t, out, "Here are three")
	a.eventually("unseen_items", a.args(map[string]any{"refs": []string{"/book/19F0", "/book/NEW"}}), func(_ string, b []byte) bool {
		var u client.Unseen
		return json.Unmarshal(b, &u) == nil && slices.Equal(u.Unseen, []string{"/book/NEW"})
	})
	var u client.Unseen
	a.ok("unseen_items", a.args(map[string]any{"refs": []string{"/book/NEW"}, "mark_notified": true}), &u)
	require.Equal(t, 1, u.Marked)
	a.eventually("get_interests", a.args(map[string]any{}), func(_ string, b []byte) bool {
		var p client.Interests
		return json.Unmarshal(b, &p) == nil && len(p.Facts) > 0 && !p.At.IsZero()
	})
	// get_profile answers get_interests' answer and, under attributes,
	// get_attributes' current values.
	var in, prof map[string]any
	a.ok("get_interests", a.args(map[string]any{"limit": 1}), &in)
	a.ok("get_profile", a.args(map[string]any{"limit": 1}), &prof)
	require.ElementsMatch(t, append(slices.Collect(maps.Keys(in)), "attributes"), slices.Collect(maps.Keys(prof)))
	require.Equal(t, in["user_id"], prof["user_id"])
	require.Len(t, in["facts"], 1)
	require.Len(t, prof["facts"], 1)
	a.eventually("recommend", a.args(map[string]any{"k": 3}), func(_ string, b []byte) bool {
		var r client.Recommendations
		return json.Unmarshal(b, &r) == nil && r.K == 3
	})

	// What the user asked for reaches every later context.
	a.ok("set_preference", a.args(map[string]any{"key": "reply_language", "value": "English"}), nil)
	a.ok("set_preference", a.args(map[string]any{"key": "requests", "value": "never suggest recipes with peanuts"}), nil)
	a.eventually("get_attributes", a.args(map[string]any{}), func(_ string, b []byte) bool {
		var p client.Attributes
		return json.Unmarshal(b, &p) == nil && len(p.Current) == 2 && p.Current[0].Key == "reply_language"
	})
	a.eventually("get_profile", a.args(map[string]any{}), func(_ string, b []byte) bool {
		var p struct {
			Attributes []contract.AttributeValue `json:"attributes"`
		}
		return json.Unmarshal(b, &p) == nil && len(p.Attributes) == 2 && p.Attributes[0].Key == "reply_language"
	})
	a.eventually("get_context", a.args(map[string]any{"session_id": "a-new-session", "message": "any dessert ideas for the weekend?"}),
		func(text string, _ []byte) bool {
			return strings.Contains(text, "reply in: English") && strings.Contains(text, "never suggest recipes with peanuts")
		})

	// Bad arguments: a tool error naming the argument in Recall's own words
	// ("role: unknown role ..."), as the API answers them, and nothing stored.
	before := a.stored()
	require.Equal(t, int64(2), before)
	for _, c := range []struct {
		tool, want string
		args       map[string]any
	}{
		{"remember", `role: unknown role "bot": one of user, assistant, system, tool`, a.args(map[string]any{"session_id": a.session, "role": "bot", "content": "x"})},
		{"remember", "role: required: one of user, assistant, system, tool", a.args(map[string]any{"session_id": a.session, "content": "x"})},
		{"remember", "role: want a string, got a JSON number", a.args(map[string]any{"session_id": a.session, "role": 5, "content": "x"})},
		{"remember", "content: ", a.args(map[string]any{"session_id": a.session, "role": "user"})},
		{"remember", "items[0].ref: ", a.args(map[string]any{"session_id": a.session, "role": "assistant", "items": []any{map[string]any{"title": "no ref"}}})},
		{"remember", "metadata: ", a.args(map[string]any{"session_id": a.session, "role": "user", "content": "x", "metadata": "not an object"})},
		{"remember", "occurred_at: ", a.args(map[string]any{"session_id": a.session, "role": "user", "content": "x", "occurred_at": "yesterday"})},
		{"remember", "colour: unknown argument; known: ", a.args(map[string]any{"session_id": a.session, "role": "user", "content": "x", "colour": "red"})},
		{"remember", "items[0].url: unknown field", a.args(map[string]any{"session_id": a.session, "role": "assistant", "items": []any{map[string]any{"ref": "/a", "url": "u"}}})},
		{"remember", "tool_calls[0].argumnets: unknown field", a.args(map[string]any{"session_id": a.session, "role": "assistant", "content": "x",
			"tool_calls": []any{map[string]any{"name": "search", "argumnets": map[string]any{}}}})},
		{"remember", `session_id: ".." cannot be an id`, a.args(map[string]any{"session_id": "..", "role": "user", "content": "x"})},
		{"remember", "session_id: ", a.args(map[string]any{"role": "user", "content": "x"})},
		{"select_item", "n: want a whole number from 1", a.args(map[string]any{"session_id": a.session, "n": 0})},
		{"select_item", "n: ", a.args(map[string]any{"session_id": a.session, "n": 4})},
		{"select_item", "session_id: ", a.args(map[string]any{"session_id": "nobody's", "n": 1})},
		{"search_memory", "query: ", a.args(map[string]any{})},
		{"search_memory", "k: ", a.args(map[string]any{"query": "x", "k": 500})},
		{"search_memory", "at: ", a.args(map[string]any{"query": "x", "at": "yesterday"})},
		{"get_context", "lang: ", a.args(map[string]any{"session_id": a.session, "lang": "fr"})},
		{"get_context", "budget: ", a.args(map[string]any{"session_id": a.session, "budget": -1})},
		{"get_context", "at: want an RFC 3339 time", a.args(map[string]any{"session_id": a.session, "at": "yesterday"})},
		{"unseen_items", "refs: ", a.args(map[string]any{"refs": []string{}})},
		{"get_profile", "limit: ", a.args(map[string]any{"limit": 501})},
		{"get_interests", "limit: ", a.args(map[string]any{"limit": 501})},
		{"recommend", "k: ", a.args(map[string]any{"k": 101})},
		{"set_preference", "key: ", a.args(map[string]any{"key": "shoe_size", "value": "42"})},
		{"set_preference", "op: ", a.args(map[string]any{"key": "tone", "value": "casual", "op": "append"})},
	} {
		res := a.call(c.tool, c.args)
		require.True(t, res.IsError, "%s %v: want a tool error, got %s", c.tool, c.args, text(res))
		require.True(t, strings.HasPrefix(text(res), c.want), "%s %v: want %q..., got %q", c.tool, c.args, c.want, text(res))
	}
	if a.bound {
		res := a.call("remember", map[string]any{"user_id": "someone-else", "session_id": a.session, "role": "user", "content": "x"})
		a.requireToolError(res, "user_id")
		res = a.call("select_item", map[string]any{"user_id": "someone-else", "session_id": a.session, "n": 1})
		a.requireToolError(res, "user_id")
	} else {
		for _, tool := range []string{"get_interests", "get_attributes", "get_profile"} {
			a.requireToolError(a.call(tool, map[string]any{}), "user_id")
		}
		// Another user's session is not this user's list.
		res := a.call("select_item", map[string]any{"user_id": "someone-else", "session_id": a.session, "n": 1})
		a.requireToolError(res, "session_id")
	}
	// Give the workers time to store anything that was (wrongly) accepted.
	a.ok("remember", a.args(map[string]any{"session_id": a.session, "role": "user", "content": "last"}), nil)
	require.Eventually(t, func() bool { return a.stored() == before+1 }, 20*time.Second, 50*time.Millisecond)
}

// forget calls forget_user and checks the user is gone.
func (a agent) forget() {
	out := a.ok("forget_user", map[string]any{}, nil)
	require.Contains(a.t, out, `"user_id":"`+a.user+`"`)
	require.Equal(a.t, int64(0), a.stored())
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// headers is a transport that sets headers on every request, as an agent
// host configured with them does.
type headers map[string]string

func (h headers) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h {
		r.Header.Set(k, v)
	}
	return http.DefaultTransport.RoundTrip(r)
}
