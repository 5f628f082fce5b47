package clients

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/openaitest"
)

// filmList is the film bots' numbered list: three of the films the suites'
// search_films tool returns, in another order than the tool's, so that
// "3" is told apart from the tool's third.
const filmList = "Here are three science-fiction films:\n1. Dune (2021), spice and sandworms\n2. Arrival (2016), language as time\n3. Blade Runner 2049 (2017), replicants and memory"

// aiSDKScript is what the fake model answers the ai-sdk suite
// (clients/ai-sdk/test), by model: each test asks models of its own, so
// that the files may run at the same time.
var aiSDKScript = []modelScript{
	{"sdk-film", []openaitest.Reply{
		{ToolCalls: []openaitest.ToolCall{{ID: "call_sdk_films", Function: openaitest.FunctionCall{Name: "search_films", Arguments: `{"query":"science fiction"}`}}}},
		{Content: filmList},
		{Content: "Blade Runner 2049 it is: a slow, beautiful sequel."},
	}},
	{"sdk-stream", []openaitest.Reply{
		{ToolCalls: []openaitest.ToolCall{{ID: "call_sdk_dramas", Function: openaitest.FunctionCall{Name: "search_films", Arguments: `{"genre":"drama"}`}}}},
		// 100 ms apart, so that an answer held back for Recall would show.
		{Chunks: []string{"Two", " dramas:\n", "1. Past Lives\n", "2. Aftersun"}, ChunkDelay: 100 * time.Millisecond},
		{Chunks: []string{"Aftersun", " it is."}},
	}},
	{"sdk-prefs", []openaitest.Reply{
		{Content: "Noted: no horror films."},
		{Content: "How about Paddington 2?"},
	}},
	{"sdk-example", []openaitest.Reply{
		{Content: "Nice to meet you, Ada."},
		{Content: "In Lisbon."},
	}},
	{"sdk-errors", []openaitest.Reply{
		{Content: "Still here without memory."},
		{Chunks: []string{"Still", " streaming."}},
		{Content: "Nothing remembered."},
	}},
}

// langchainScript is what the fake model answers the langchain suite
// (clients/langchain/test), by model. A graph run's replies have ids of
// their own, as a real model's do: LangGraph keeps messages by id.
var langchainScript = []modelScript{
	{"lc-film", []openaitest.Reply{
		{ID: "chatcmpl-lc-1", ToolCalls: []openaitest.ToolCall{{ID: "call_lc_films", Function: openaitest.FunctionCall{Name: "search_films", Arguments: `{"query":"science fiction"}`}}}},
		{ID: "chatcmpl-lc-2", Content: filmList},
		{ID: "chatcmpl-lc-3", Content: "Blade Runner 2049 it is: a slow, beautiful sequel."},
	}},
	{"lc-history", []openaitest.Reply{
		{Content: "Start with Portrait of a Lady on Fire."},
	}},
	{"lc-example", []openaitest.Reply{
		{Content: "Nice to meet you, Ada."},
		{Content: "In Lisbon."},
	}},
}

// testAISDK runs the ai-sdk suite: the real `ai` and
// `@ai-sdk/openai-compatible` packages, the model faked, Recall live. The
// suite asserts on what the model received (through RECALL_MODEL_REQUESTS)
// and on what Recall stored; here, that every scripted reply was asked for.
func testAISDK(t *testing.T, recallEnv []string) {
	for _, pkg := range []string{"ai", "@ai-sdk/openai-compatible", "@recallhq/client"} {
		if _, err := os.Stat(filepath.Join("ai-sdk/node_modules", pkg, "package.json")); err != nil {
			t.Fatalf("the ai-sdk suite's npm packages are not installed (%v): run `make test-deps` (scripts/ensure-node-deps.sh)", err)
		}
	}
	model := newScriptedUpstream(t, aiSDKScript)
	out := runNodeSuite(t, "ai-sdk", append(recallEnv, modelEnv(t, model)...))
	t.Log(out)
	require.Empty(t, model.unanswered(), "every scripted reply was asked for")
}

// testLangChain runs the langchain suite: the real @langchain/core,
// @langchain/langgraph and @langchain/openai, the model faked, Recall live.
func testLangChain(t *testing.T, recallEnv []string) {
	for _, pkg := range []string{"@langchain/core", "@langchain/langgraph", "@langchain/openai", "@recallhq/client"} {
		if _, err := os.Stat(filepath.Join("langchain/node_modules", pkg, "package.json")); err != nil {
			t.Fatalf("the langchain suite's npm packages are not installed (%v): run `make test-deps` (scripts/ensure-node-deps.sh)", err)
		}
	}
	model := newScriptedUpstream(t, langchainScript)
	out := runNodeSuite(t, "langchain", append(recallEnv, modelEnv(t, model)...))
	t.Log(out)
	require.Empty(t, model.unanswered(), "every scripted reply was asked for")
}

// runNodeSuite runs the test files of dir/test with node's test runner,
// all at the same time (they mostly wait on the model and on Recall's
// workers, and their models and sessions keep them apart).
func runNodeSuite(t *testing.T, dir string, env []string) string {
	t.Helper()
	tests, err := filepath.Glob(dir + "/test/*.test.mjs")
	if err != nil || len(tests) == 0 {
		t.Fatalf("no tests in %s/test (%v)", dir, err)
	}
	for i, f := range tests {
		tests[i] = strings.TrimPrefix(f, dir+"/")
	}
	return run(t, dir, env, "node", append([]string{"--test", "--test-reporter=spec", fmt.Sprintf("--test-concurrency=%d", len(tests))}, tests...)...)
}

// modelEnv is how a suite reaches the fake model: its API root
// (RECALL_MODEL_URL, an OpenAI-compatible base URL), and
// RECALL_MODEL_REQUESTS, a route that answers the chat requests the model
// received for ?model=, so that the suite can assert on the prompts its
// framework sent.
func modelEnv(t *testing.T, model *scriptedUpstream) []string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		want := r.URL.Query().Get("model")
		out := []receivedRequest{}
		for _, req := range model.ChatRequests() {
			if req.Model != want {
				continue
			}
			var tools []string
			for _, tool := range req.Tools {
				tools = append(tools, tool.Function.Name)
			}
			out = append(out, receivedRequest{Model: req.Model, Stream: req.Stream, Messages: req.Messages, Tools: tools})
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(srv.Close)
	return []string{"RECALL_MODEL_URL=" + model.URL() + "/v1", "RECALL_MODEL_REQUESTS=" + srv.URL + "/requests"}
}

// receivedRequest is a chat request as a suite reads it back: the messages
// as the model got them, and the names of the tools offered.
type receivedRequest struct {
	Model    string               `json:"model"`
	Stream   bool                 `json:"stream"`
	Messages []openaitest.Message `json:"messages"`
	Tools    []string             `json:"tools"`
}
