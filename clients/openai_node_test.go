package clients

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/openaitest"
	"github.com/recallhq/recall/internal/testkit/testenv"
)

// nodeUpstreamKey is the model API key the openai-node suite's client
// sends. The live Recall has no GATEWAY_UPSTREAM_API_KEY, so the gateway
// forwards it upstream as it is, and reads the tenant's Recall key from
// X-Recall-Key instead.
const nodeUpstreamKey = "sk-node-upstream-0123456789"

// gatewayScript is what the fake model upstream answers the openai-node
// suite (clients/openai-node/test), by model: each test of the suite asks
// models of its own, so that the tests may run in any order or at the same
// time. The suite asserts on these replies as its client reads them.
var gatewayScript = []modelScript{
	{"film-bot", []openaitest.Reply{
		{ToolCalls: []openaitest.ToolCall{{ID: "call_films_1", Function: openaitest.FunctionCall{Name: "search_films", Arguments: `{"query":"science fiction"}`}}}},
		{Content: "Here are three science-fiction films:\n1. Dune (2021), spice and sandworms\n2. Arrival (2016), language as time\n3. Blade Runner 2049 (2017), replicants and memory"},
		{Content: "Blade Runner 2049 it is: a slow, beautiful sequel."},
	}},
	{"stream-bot", []openaitest.Reply{
		{ToolCalls: []openaitest.ToolCall{{ID: "call_dramas_1", Function: openaitest.FunctionCall{Name: "search_films", Arguments: `{"genre":"drama"}`}}}},
		// 250 ms apart, so that a stream the gateway held back would show.
		{Chunks: []string{"Two", " dramas:\n", "1. Past Lives\n", "2. Aftersun"}, ChunkDelay: 250 * time.Millisecond},
	}},
	{"runner-bot", []openaitest.Reply{
		{ToolCalls: []openaitest.ToolCall{{ID: "call_animated_1", Function: openaitest.FunctionCall{Name: "search_films", Arguments: `{"genre":"animation"}`}}}},
		{Chunks: []string{"Two", " animated films:\n", "1. Spirited Away\n", "2. The Iron Giant"}, ChunkDelay: 100 * time.Millisecond},
	}},
	{"rate-limited", []openaitest.Reply{
		{Status: http.StatusTooManyRequests, Message: "Rate limit reached for requests", RetryAfter: "20"},
		{Status: http.StatusTooManyRequests, Message: "Rate limit reached for requests", RetryAfter: "20"},
		{Content: "Tonight: Past Lives at eight."},
	}},
}

// modelScript is what a scripted fake model answers one model's requests,
// in order.
type modelScript struct {
	model   string
	replies []openaitest.Reply
}

// scriptedUpstream is a fake model server answering a script model by
// model: the upstream of the live Recall's gateway (gatewayScript), or the
// model a framework suite calls directly.
type scriptedUpstream struct {
	*openaitest.Server
	mu   sync.Mutex
	left map[string][]openaitest.Reply
}

// newScriptedUpstream starts the fake model server; it lists the script's
// models, and answers a model with no reply left with a 500 that says so.
func newScriptedUpstream(t *testing.T, script []modelScript) *scriptedUpstream {
	u := &scriptedUpstream{left: map[string][]openaitest.Reply{}}
	var models []string
	for _, s := range script {
		u.left[s.model] = append([]openaitest.Reply(nil), s.replies...)
		models = append(models, s.model)
	}
	u.Server = openaitest.New(t, openaitest.WithModels(models...))
	u.Respond(func(r openaitest.Request) openaitest.Reply {
		u.mu.Lock()
		defer u.mu.Unlock()
		q := u.left[r.Model]
		if len(q) == 0 {
			return openaitest.Reply{Status: http.StatusInternalServerError, Message: fmt.Sprintf("no reply scripted for model %q", r.Model)}
		}
		u.left[r.Model] = q[1:]
		return q[0]
	})
	return u
}

// unanswered counts the scripted replies no request has taken, by model.
func (u *scriptedUpstream) unanswered() map[string]int {
	u.mu.Lock()
	defer u.mu.Unlock()
	out := map[string]int{}
	for m, q := range u.left {
		if len(q) > 0 {
			out[m] = len(q)
		}
	}
	return out
}

// scriptModels are the models the fake upstream lists, in the script's order.
func scriptModels() []string {
	var out []string
	for _, s := range gatewayScript {
		out = append(out, s.model)
	}
	return out
}

// testOpenAINode runs the openai-node suite (the official openai npm
// package, as a chat backend uses it) against the live Recall's gateway,
// then checks what only the upstream saw: the model API key forwarded and
// Recall's headers kept back, the memory merged into the system message of
// the film bot's last request with the real ref of the item the user
// picked, the streamed requests streamed, and nothing refused sent on.
func testOpenAINode(t *testing.T, live *testenv.Live, up *scriptedUpstream, recallEnv []string) {
	if _, err := os.Stat("openai-node/node_modules/openai/package.json"); err != nil {
		t.Fatalf("the openai npm package is not installed (%v): run `make test-deps` (scripts/ensure-node-deps.sh)", err)
	}
	tests, err := filepath.Glob("openai-node/test/*.test.mjs")
	if err != nil || len(tests) == 0 {
		t.Fatalf("no tests in openai-node/test (%v)", err)
	}
	for i, f := range tests {
		tests[i] = strings.TrimPrefix(f, "openai-node/")
	}
	env := append(recallEnv, "RECALL_GATEWAY_URL="+live.GatewayURL, "OPENAI_API_KEY="+nodeUpstreamKey,
		"RECALL_UPSTREAM_MODELS="+strings.Join(scriptModels(), ","))
	// The files run at the same time: they mostly wait on the gateway, and
	// the script's models keep them apart.
	out := run(t, "openai-node", env, "node", append([]string{"--test", "--test-reporter=spec", fmt.Sprintf("--test-concurrency=%d", len(tests))}, tests...)...)
	t.Log(out)

	require.Empty(t, up.unanswered(), "every scripted reply was asked for")
	byModel := map[string][]openaitest.Request{}
	models := 0
	var retrieved []string
	for _, r := range up.Requests() {
		require.Equal(t, "Bearer "+nodeUpstreamKey, r.Header.Get("Authorization"), "%s: the caller's model API key is forwarded", r.Path)
		for _, h := range []string{"X-Recall-Key", "X-Recall-User-Id", "X-Recall-Session-Id", "X-Tenant-Id"} {
			require.Empty(t, r.Header.Get(h), "%s: Recall's %s stays with Recall", r.Path, h)
		}
		if r.Path == "/v1/models" {
			models++
			continue
		}
		if strings.HasPrefix(r.Path, "/v1/models/") {
			retrieved = append(retrieved, r.RawPath)
			continue
		}
		require.Equal(t, "/v1/chat/completions", r.Path, "nothing but chat completions and the models reached the upstream")
		byModel[r.Model] = append(byModel[r.Model], r)
	}
	require.Equal(t, 2, models, "both model lists were the upstream's")
	require.Equal(t, []string{"/v1/models/" + scriptModels()[0], "/v1/models/org%2Fnot-served"}, retrieved, "one model at a time, an id with a slash as one segment")
	for _, m := range scriptModels() {
		require.Len(t, byModel[m], len(gatewayScriptFor(m)), "requests for %s", m)
	}
	require.Len(t, byModel, len(gatewayScript), "nothing refused reached the upstream (malformed, unauthorized)")

	// The film bot: the tool's results went up as the client sent them, and
	// the request with "3" carried, merged into its system message, the
	// real ref of the third film the reply listed (not the tool's third).
	film := byModel["film-bot"]
	tool := film[1].Messages[3]
	require.Equal(t, "tool", tool.Role)
	require.Equal(t, "call_films_1", tool.ToolCallID)
	var results struct {
		Films []struct {
			Ref   string `json:"ref"`
			Title string `json:"title"`
		} `json:"films"`
	}
	require.NoError(t, json.Unmarshal([]byte(tool.Content), &results))
	var ref string
	for _, f := range results.Films {
		if f.Title == "Blade Runner 2049" {
			ref = f.Ref
		}
	}
	require.NotEmpty(t, ref, "the tool returned Blade Runner 2049: %s", tool.Content)
	require.NotEqual(t, ref, results.Films[2].Ref, "the tool's order is not the list's, so that the test tells them apart")
	last := film[2].Messages
	require.Len(t, last, 6, "system, question, call, result, list, pick: the memory is merged, not a message of its own")
	require.Equal(t, openaitest.Message{Role: "user", Content: "3"}, last[5])
	require.Equal(t, "system", last[0].Role)
	t.Logf("system message of the request with \"3\":\n%s", last[0].Content)
	require.True(t, strings.HasPrefix(last[0].Content, "You recommend films.\n\n"), "the memory follows the caller's system message")
	require.Contains(t, last[0].Content, fmt.Sprintf("picks item 3 of the list just shown: %q (ref: %s)", "Blade Runner 2049", ref))

	for _, m := range []string{"stream-bot", "runner-bot"} {
		for i, r := range byModel[m] {
			require.True(t, r.Stream, "%s request %d asked for a stream", m, i)
		}
	}
	// runTools sent the tool's result back, after the call it answers (the
	// request has no system message of its own: the memory's comes first).
	runner := byModel["runner-bot"][1].Messages
	require.Equal(t, []string{"system", "user", "assistant", "tool"}, roles(runner))
	require.Equal(t, "call_animated_1", runner[3].ToolCallID)
	require.Contains(t, runner[3].Content, "/film/spirited-away")
	rl := byModel["rate-limited"]
	require.Equal(t, []bool{false, true, false}, []bool{rl[0].Stream, rl[1].Stream, rl[2].Stream})

	// Nothing was stored twice later either: the film session still holds
	// its four messages, the session with the errors its one exchange.
	require.Len(t, messages(t, live.URL, recallEnv, "node-film"), 4)
	require.Len(t, messages(t, live.URL, recallEnv, "node-errors"), 2)
}

// roles are the messages' roles, in order.
func roles(msgs []openaitest.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.Role
	}
	return out
}

// gatewayScriptFor is the script's replies for a model.
func gatewayScriptFor(model string) []openaitest.Reply {
	for _, s := range gatewayScript {
		if s.model == model {
			return s.replies
		}
	}
	return nil
}
