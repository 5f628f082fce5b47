// Package clients holds the Python and TypeScript clients (clients/python,
// clients/typescript) and the packages that give framework apps memory
// (clients/ai-sdk for the Vercel AI SDK, clients/langchain for LangChain.js
// and LangGraph.js); its test runs their own test
// suites, the agent example built on the Python client, and the chat
// gateway driven by the official openai npm package (clients/openai-node),
// against one live Recall.
package clients

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/openaitest"
	"github.com/recallhq/recall/internal/testkit/testenv"
)

// tenants are the tenants the suites run as, one each, with their API keys:
// the live Recall runs with API_KEYS, so every suite sends its key too.
var tenants = map[string]string{
	"python":      "py-clients-key-0123456789",
	"typescript":  "ts-clients-key-0123456789",
	"agent":       "agent-example-key-0123456789",
	"openai-node": "openai-node-key-0123456789",
	"ai-sdk":      "ai-sdk-clients-key-0123456789",
	"langchain":   "langchain-clients-key-0123456789",
}

// TestClients starts one Recall (`recall run` on its own database and
// ports, its gateway in front of a fake model upstream) and runs each suite
// against it as its own tenant.
func TestClients(t *testing.T) {
	t.Parallel()
	var keys []string
	for tenant, key := range tenants {
		keys = append(keys, tenant+":"+key)
	}
	up := newScriptedUpstream(t, gatewayScript)
	// WEBHOOK_ALLOW_PRIVATE: the suites' webhook receivers listen on 127.0.0.1.
	live := testenv.StartRecall(t, "API_KEYS="+strings.Join(keys, ","), "GATEWAY_UPSTREAM_URL="+up.URL()+"/v1", "GATEWAY_UPSTREAM_API_KEY=",
		"WEBHOOK_ALLOW_PRIVATE=true")
	env := func(tenant string) []string {
		return []string{"RECALL_URL=" + live.URL, "RECALL_TENANT=" + tenant, "RECALL_API_KEY=" + tenants[tenant]}
	}

	// The TypeScript client is compiled once, before the suites start: its
	// own tests run from dist/, and the framework packages import it from
	// there (their dependency on it is a link to clients/typescript).
	if _, err := os.Stat("typescript/node_modules/.bin/tsc"); err != nil {
		t.Fatalf("the TypeScript compiler is not installed (%v): run `make test-deps` (scripts/ensure-node-deps.sh)", err)
	}
	run(t, "typescript", nil, "node_modules/.bin/tsc", "-p", "tsconfig.json")

	t.Run("python", func(t *testing.T) {
		t.Parallel()
		out := run(t, "python", env("python"), "python3", "-m", "unittest", "discover", "-s", "tests", "-t", ".", "-v")
		t.Log(out)
	})

	t.Run("typescript", func(t *testing.T) {
		t.Parallel()
		tests, err := filepath.Glob("typescript/dist/test/*.test.js")
		if err != nil || len(tests) == 0 {
			t.Fatalf("no compiled tests in typescript/dist/test (%v)", err)
		}
		for i, f := range tests {
			tests[i] = strings.TrimPrefix(f, "typescript/")
		}
		out := run(t, "typescript", env("typescript"), "node", append([]string{"--test", "--test-reporter=spec"}, tests...)...)
		t.Log(out)
	})

	t.Run("agent", func(t *testing.T) {
		t.Parallel()
		testAgent(t, live, env("agent"))
	})

	t.Run("openai-node", func(t *testing.T) {
		t.Parallel()
		testOpenAINode(t, live, up, env("openai-node"))
	})

	t.Run("ai-sdk", func(t *testing.T) {
		t.Parallel()
		testAISDK(t, env("ai-sdk"))
	})

	t.Run("langchain", func(t *testing.T) {
		t.Parallel()
		testLangChain(t, env("langchain"))
	})
}

// testAgent runs examples/agent against the fake model and the live Recall:
// the user asks for films, the model calls search_films, the list is shown;
// then, in a new process that remembers nothing itself, the user answers
// "3", and the model must be handed item 3's real ref from Recall.
func testAgent(t *testing.T, live *testenv.Live, recallEnv []string) {
	model := openaitest.New(t)
	model.Enqueue(
		openaitest.Reply{ToolCalls: []openaitest.ToolCall{{ID: "call_1", Function: openaitest.FunctionCall{Name: "search_films", Arguments: `{"query": "science fiction"}`}}}},
		openaitest.Reply{Content: "Here are some science-fiction films you might enjoy."},
		openaitest.Reply{Content: "A fine choice."},
	)
	pythonPath, err := filepath.Abs("python")
	require.NoError(t, err)
	const user, session = "agent-user", "agent-session-1"
	env := append(recallEnv, "RECALL_USER_ID="+user, "RECALL_SESSION_ID="+session, "PYTHONPATH="+pythonPath,
		"OPENAI_BASE_URL="+model.URL()+"/v1", "OPENAI_API_KEY=test-model-key", "MODEL=film-model")
	agent := func(input string) string {
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "python3", "agent.py")
		cmd.Dir = "../examples/agent"
		cmd.Env = append(os.Environ(), env...)
		cmd.Stdin = strings.NewReader(input)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		require.NoError(t, err, "agent.py with %q:\n%s%s", input, out, stderr.String())
		t.Logf("agent.py < %q:\n%s", input, out)
		return string(out)
	}

	shown := agent("Can you recommend some science fiction films?\n")
	// The turns reach the session through the ingest worker; a person takes
	// longer than that to answer.
	var msgs []storedMessage
	require.Eventually(t, func() bool {
		msgs = messages(t, live.URL, recallEnv, session)
		return len(msgs) == 2
	}, 30*time.Second, 50*time.Millisecond)
	asked, answered := msgs[0], msgs[1]
	require.Equal(t, "user", asked.Role)
	require.Equal(t, "Can you recommend some science fiction films?", asked.Content)
	require.Equal(t, "assistant", answered.Role)
	require.Len(t, answered.ToolCalls, 1)
	require.Equal(t, "search_films", answered.ToolCalls[0].Name)
	require.Equal(t, "ok", answered.ToolCalls[0].Status)
	require.JSONEq(t, `{"query": "science fiction"}`, string(answered.ToolCalls[0].Arguments))
	require.GreaterOrEqual(t, len(answered.Items), 3, "the list shown is stored")
	third := answered.Items[2]
	require.True(t, strings.HasPrefix(third.Ref, "/film/"), third.Ref)
	require.Contains(t, shown, "3. "+third.Title+" ("+third.Ref+")", "the user saw the stored list")
	require.JSONEq(t, string(answered.ToolCalls[0].Result), `{"films": `+string(mustJSON(t, answered.Items))+`}`)

	agent("3\n")
	reqs := model.ChatRequests()
	require.Len(t, reqs, 3)
	require.Equal(t, "search_films", reqs[0].Tools[0].Function.Name)
	require.Equal(t, "Bearer test-model-key", reqs[0].Header.Get("Authorization"))
	// The second call carried the tool call and its result back.
	require.Equal(t, "call_1", reqs[1].Messages[2].ToolCalls[0].ID)
	require.Equal(t, "tool", reqs[1].Messages[3].Role)
	require.Contains(t, reqs[1].Messages[3].Content, third.Ref)

	last := reqs[2].Messages
	require.Equal(t, openaitest.Message{Role: "user", Content: "3"}, last[len(last)-1])
	system := last[0].Content
	t.Logf("system prompt of the turn \"3\":\n%s", system)
	require.Equal(t, "system", last[0].Role)
	// From Recall's context: the list with its refs, and the earlier turns.
	require.Contains(t, system, `3. "`+third.Title+`" — ref: `+third.Ref)
	require.Contains(t, system, "User: Can you recommend some science fiction films?")
	// From Recall's selection route: item 3 itself.
	require.Contains(t, system, `The user picked item 3 of the list they were shown: "`+third.Title+`" (ref: `+third.Ref+`)`)

	require.Eventually(t, func() bool {
		msgs = messages(t, live.URL, recallEnv, session)
		return len(msgs) == 4
	}, 30*time.Second, 50*time.Millisecond)
	require.JSONEq(t, `{"selection": {"n": 3, "ref": "`+third.Ref+`"}}`, string(msgs[2].Metadata))
	require.Equal(t, "A fine choice.", msgs[3].Content)
}

// storedMessage is the part of a stored message the agent test reads.
type storedMessage struct {
	Role      string          `json:"role"`
	Content   string          `json:"content"`
	Metadata  json.RawMessage `json:"metadata"`
	ToolCalls []struct {
		Name      string          `json:"name"`
		Status    string          `json:"status"`
		Arguments json.RawMessage `json:"arguments"`
		Result    json.RawMessage `json:"result"`
	} `json:"tool_calls"`
	Items []struct {
		Ref   string          `json:"ref"`
		Title string          `json:"title"`
		Attrs json.RawMessage `json:"attrs"`
	} `json:"items"`
}

// messages reads a session's messages through the API, as the tenant of env;
// a session not stored yet has none.
func messages(t *testing.T, base string, env []string, session string) []storedMessage {
	t.Helper()
	vars := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, base+"/v1/sessions/"+url.PathEscape(session)+"/messages", nil)
	require.NoError(t, err)
	req.Header.Set("X-Tenant-ID", vars["RECALL_TENANT"])
	req.Header.Set("Authorization", "Bearer "+vars["RECALL_API_KEY"])
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return nil
	}
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var page struct {
		Messages []storedMessage `json:"messages"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&page))
	return page.Messages
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

// run runs a command in dir with env on top of the test's environment, and
// fails the test with its output when it fails; it returns the output.
func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s (in %s): %v\n%s", name, strings.Join(args, " "), dir, err, out)
	}
	return string(out)
}
