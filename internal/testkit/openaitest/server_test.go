package openaitest_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/openaitest"
)

// client returns a go-openai client for s, the way production code builds one.
func client(s *openaitest.Server) *openai.Client {
	cfg := openai.DefaultConfig("test-key")
	cfg.BaseURL = s.URL() + "/v1"
	return openai.NewClientWithConfig(cfg)
}

func chat(ctx context.Context, c *openai.Client, text string) (openai.ChatCompletionResponse, error) {
	return c.CreateChatCompletion(ctx, openai.ChatCompletionRequest{
		Model:     "m",
		MaxTokens: 42,
		Messages: []openai.ChatCompletionMessage{
			{Role: openai.ChatMessageRoleSystem, Content: "be brief"},
			{Role: openai.ChatMessageRoleUser, Content: text},
		},
	})
}

func TestChatReplies(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		script     func(s *openaitest.Server)
		want       []string // contents of three successive answers
		wantStatus int      // of the first answer, when it fails
	}{
		{
			name:   "default",
			script: func(*openaitest.Server) {},
			want:   []string{"{}", "{}", "{}"},
		},
		{
			name: "queue, then default",
			script: func(s *openaitest.Server) {
				s.Enqueue(openaitest.Reply{Content: "a"}, openaitest.Reply{Content: "b"})
				s.SetDefault(openaitest.Reply{Content: "z"})
			},
			want: []string{"a", "b", "z"},
		},
		{
			name: "computed default",
			script: func(s *openaitest.Server) {
				s.Respond(func(r openaitest.Request) openaitest.Reply {
					return openaitest.Reply{Content: strings.ToUpper(r.Messages[1].Content)}
				})
			},
			want: []string{"Q0", "Q1", "Q2"},
		},
		{
			name:       "error envelope",
			script:     func(s *openaitest.Server) { s.Enqueue(openaitest.Reply{Status: 401, Message: "bad key"}) },
			wantStatus: 401,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := openaitest.New(t)
			tt.script(s)
			c := client(s)
			if tt.wantStatus != 0 {
				_, err := chat(t.Context(), c, "q0")
				apiErr, ok := errors.AsType[*openai.APIError](err)
				require.True(t, ok, "error %v", err)
				require.Equal(t, tt.wantStatus, apiErr.HTTPStatusCode)
				require.Equal(t, "bad key", apiErr.Message)
				return
			}
			for i, want := range tt.want {
				resp, err := chat(t.Context(), c, "q"+string(rune('0'+i)))
				require.NoError(t, err)
				require.Len(t, resp.Choices, 1)
				require.Equal(t, want, resp.Choices[0].Message.Content)
			}
		})
	}
}

func TestRecordsRequests(t *testing.T) {
	t.Parallel()
	s := openaitest.New(t)
	_, err := chat(t.Context(), client(s), "hello")
	require.NoError(t, err)

	reqs := s.ChatRequests()
	require.Len(t, reqs, 1)
	r := reqs[0]
	require.Equal(t, "/v1/chat/completions", r.Path)
	require.Equal(t, "m", r.Model)
	require.Equal(t, 42, r.MaxTokens)
	require.Nil(t, r.Temperature)
	require.Equal(t, []openaitest.Message{{Role: "system", Content: "be brief"}, {Role: "user", Content: "hello"}}, r.Messages)
	require.Equal(t, "Bearer test-key", r.Header.Get("Authorization"))
	require.Equal(t, 1, s.MaxInFlight())
}

// A server that does not record still answers, and its Respond function
// still sees what was asked.
func TestWithoutRecording(t *testing.T) {
	t.Parallel()
	s := openaitest.New(t, openaitest.WithoutRecording())
	s.Respond(func(r openaitest.Request) openaitest.Reply {
		return openaitest.Reply{Content: strings.ToUpper(r.Messages[1].Content)}
	})
	for _, q := range []string{"one", "two"} {
		resp, err := chat(t.Context(), client(s), q)
		require.NoError(t, err)
		require.Equal(t, strings.ToUpper(q), resp.Choices[0].Message.Content)
	}
	require.Empty(t, s.Requests())
	require.Empty(t, s.ChatRequests())
	require.Equal(t, 1, s.MaxInFlight())
}

func TestRawReplies(t *testing.T) {
	t.Parallel()
	s := openaitest.New(t)
	s.Enqueue(
		openaitest.Reply{Status: 429, RetryAfter: "7"},
		openaitest.Reply{Status: 502, Body: "bad gateway"},
	)
	for _, want := range []struct {
		status     int
		retryAfter string
		body       string
	}{
		{429, "7", `"type":"rate_limit_error"`},
		{502, "", "bad gateway"},
	} {
		resp, err := http.Post(s.URL()+"/chat/completions", "application/json", strings.NewReader(`{"model":"m"}`))
		require.NoError(t, err)
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
		require.Equal(t, want.status, resp.StatusCode)
		require.Equal(t, want.retryAfter, resp.Header.Get("Retry-After"))
		require.Contains(t, string(body), want.body)
	}
}

func TestHeldRepliesEndPromptly(t *testing.T) {
	t.Parallel()
	never := make(chan struct{})
	tests := []struct {
		name  string
		reply openaitest.Reply
		// end makes the held reply stop: it cancels the client or closes
		// the server.
		end func(cancel context.CancelFunc, s *openaitest.Server)
	}{
		{"delay, client gone", openaitest.Reply{Delay: time.Minute}, func(cancel context.CancelFunc, _ *openaitest.Server) { cancel() }},
		{"wait, client gone", openaitest.Reply{Wait: never}, func(cancel context.CancelFunc, _ *openaitest.Server) { cancel() }},
		{"delay, server closed", openaitest.Reply{Delay: time.Minute}, func(_ context.CancelFunc, s *openaitest.Server) { s.Close() }},
		{"wait, server closed", openaitest.Reply{Wait: never}, func(_ context.CancelFunc, s *openaitest.Server) { s.Close() }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := openaitest.New(t)
			s.Enqueue(tt.reply)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			done := make(chan error, 1)
			go func() {
				_, err := chat(ctx, client(s), "slow")
				done <- err
			}()
			require.Eventually(t, func() bool { return s.InFlight() == 1 }, 2*time.Second, time.Millisecond)
			tt.end(cancel, s)
			select {
			case err := <-done:
				require.Error(t, err)
			case <-time.After(2 * time.Second):
				t.Fatal("held reply did not end")
			}
			require.Eventually(t, func() bool { return s.InFlight() == 0 }, 2*time.Second, time.Millisecond)
		})
	}
}

func TestEmbeddings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		opts     []openaitest.Option
		req      openai.EmbeddingRequestStrings
		wantDims int
	}{
		{"default dimensions", nil, openai.EmbeddingRequestStrings{Input: []string{"三体", "Dune"}, Model: "e"}, openaitest.DefaultDimensions},
		{"server dimensions", []openaitest.Option{openaitest.WithDimensions(1536)}, openai.EmbeddingRequestStrings{Input: []string{"三体"}, Model: "e"}, 1536},
		{"requested dimensions", nil, openai.EmbeddingRequestStrings{Input: []string{"三体"}, Model: "e", Dimensions: 32}, 32},
		{
			"base64",
			nil,
			openai.EmbeddingRequestStrings{Input: []string{"a", "b"}, Model: "e", EncodingFormat: openai.EmbeddingEncodingFormatBase64},
			openaitest.DefaultDimensions,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := openaitest.New(t, tt.opts...)
			resp, err := client(s).CreateEmbeddings(t.Context(), tt.req)
			require.NoError(t, err)
			require.Len(t, resp.Data, len(tt.req.Input))
			for i, text := range tt.req.Input {
				got := resp.Data[i].Embedding
				require.Equal(t, i, resp.Data[i].Index)
				require.Equal(t, openaitest.Vector(text, tt.wantDims), got)
				var norm float64
				for _, x := range got {
					norm += float64(x) * float64(x)
				}
				require.InDelta(t, 1, math.Sqrt(norm), 1e-5)
			}
			reqs := s.Requests()
			require.Len(t, reqs, 1)
			require.Equal(t, tt.req.Input, reqs[0].Input)
			require.Equal(t, "e", reqs[0].Model)
		})
	}
}

func TestVector(t *testing.T) {
	t.Parallel()
	require.Equal(t, openaitest.Vector("三体", 16), openaitest.Vector("三体", 16))
	require.NotEqual(t, openaitest.Vector("三体", 16), openaitest.Vector("活着", 16))
	require.Len(t, openaitest.Vector("x", 3), 3)
	require.Empty(t, openaitest.Vector("x", 0))
}

func TestEmbeddingsErrors(t *testing.T) {
	t.Parallel()
	s := openaitest.New(t)
	s.EnqueueEmbeddings(openaitest.Reply{Status: 503})
	c := client(s)
	req := openai.EmbeddingRequestStrings{Input: []string{"x"}, Model: "e"}

	_, err := c.CreateEmbeddings(t.Context(), req)
	apiErr, ok := errors.AsType[*openai.APIError](err)
	require.True(t, ok, "error %v", err)
	require.Equal(t, 503, apiErr.HTTPStatusCode)

	resp, err := c.CreateEmbeddings(t.Context(), req)
	require.NoError(t, err)
	require.Equal(t, openaitest.Vector("x", openaitest.DefaultDimensions), resp.Data[0].Embedding)
	require.Empty(t, s.ChatRequests())
}

func TestHeaders(t *testing.T) {
	t.Parallel()
	s := openaitest.New(t)
	h := http.Header{}
	h.Set("Retry-After-Ms", "1500")
	s.Enqueue(openaitest.Reply{Status: 429, RetryAfter: "2", Header: h})
	s.EnqueueEmbeddings(openaitest.Reply{Status: 503, Header: h})
	for _, path := range []string{"/v1/chat/completions", "/v1/embeddings"} {
		resp, err := http.Post(s.URL()+path, "application/json", strings.NewReader(`{"model":"m","input":"x"}`))
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
		require.Equal(t, "1500", resp.Header.Get("Retry-After-Ms"), path)
	}
}

func TestEmbeddingsData(t *testing.T) {
	t.Parallel()
	idx := func(i int) *int { return &i }
	s := openaitest.New(t)
	// Scripted data first, then data computed from the request.
	s.EnqueueEmbeddings(
		openaitest.Reply{Data: []openaitest.Embedding{{Index: idx(1), Embedding: []float32{3, 4}}, {Index: idx(0), Embedding: []float32{1, 2}}}},
		openaitest.Reply{Data: []openaitest.Embedding{{Embedding: []float32{1}}}},
	)
	s.RespondEmbeddings(func(r openaitest.Request) openaitest.Reply {
		return openaitest.Reply{Data: []openaitest.Embedding{{Index: idx(0), Embedding: []float32{float32(len(r.Input))}}}}
	})
	req := openai.EmbeddingRequestStrings{Input: []string{"a", "b"}, Model: "e", EncodingFormat: openai.EmbeddingEncodingFormatFloat}

	resp, err := client(s).CreateEmbeddings(t.Context(), req)
	require.NoError(t, err)
	require.Len(t, resp.Data, 2)
	require.Equal(t, 1, resp.Data[0].Index)
	require.Equal(t, []float32{3, 4}, resp.Data[0].Embedding)
	require.Equal(t, "float", s.Requests()[0].EncodingFormat)

	raw, err := http.Post(s.URL()+"/v1/embeddings", "application/json", strings.NewReader(`{"model":"m","input":"x"}`))
	require.NoError(t, err)
	body, err := io.ReadAll(raw.Body)
	require.NoError(t, err)
	require.NoError(t, raw.Body.Close())
	require.NotContains(t, string(body), `"index"`, "a nil index is left out")

	resp, err = client(s).CreateEmbeddings(t.Context(), req)
	require.NoError(t, err)
	require.Len(t, resp.Data, 1)
	require.Equal(t, []float32{2}, resp.Data[0].Embedding)
}

// TestToolCalls: a scripted reply calls a tool, the client sends the call and
// its result back, and the server records both and the tools offered.
func TestToolCalls(t *testing.T) {
	t.Parallel()
	s := openaitest.New(t)
	s.Enqueue(
		openaitest.Reply{ToolCalls: []openaitest.ToolCall{{ID: "call_1", Function: openaitest.FunctionCall{Name: "search_films", Arguments: `{"query":"sci-fi"}`}}}},
		openaitest.Reply{Content: "Here they are."},
	)
	c := client(s)
	tools := []openai.Tool{{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
		Name: "search_films", Description: "find films", Parameters: json.RawMessage(`{"type":"object"}`),
	}}}
	msgs := []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: "films?"}}
	resp, err := c.CreateChatCompletion(t.Context(), openai.ChatCompletionRequest{Model: "m", Messages: msgs, Tools: tools})
	require.NoError(t, err)
	choice := resp.Choices[0]
	require.Equal(t, openai.FinishReasonToolCalls, choice.FinishReason)
	require.Empty(t, choice.Message.Content)
	require.Len(t, choice.Message.ToolCalls, 1)
	call := choice.Message.ToolCalls[0]
	require.Equal(t, "call_1", call.ID)
	require.Equal(t, openai.ToolTypeFunction, call.Type)
	require.Equal(t, "search_films", call.Function.Name)
	require.Equal(t, `{"query":"sci-fi"}`, call.Function.Arguments)

	msgs = append(msgs, choice.Message, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: "call_1", Content: `[{"ref":"/f/1"}]`})
	resp, err = c.CreateChatCompletion(t.Context(), openai.ChatCompletionRequest{Model: "m", Messages: msgs, Tools: tools})
	require.NoError(t, err)
	require.Equal(t, "Here they are.", resp.Choices[0].Message.Content)
	require.Equal(t, openai.FinishReasonStop, resp.Choices[0].FinishReason)

	reqs := s.ChatRequests()
	require.Len(t, reqs, 2)
	require.Equal(t, "search_films", reqs[0].Tools[0].Function.Name)
	require.JSONEq(t, `{"type":"object"}`, string(reqs[0].Tools[0].Function.Parameters))
	sent := reqs[1].Messages
	require.Len(t, sent, 3)
	require.Equal(t, "assistant", sent[1].Role)
	require.Equal(t, []openaitest.ToolCall{{ID: "call_1", Type: "function", Function: openaitest.FunctionCall{Name: "search_films", Arguments: `{"query":"sci-fi"}`}}}, sent[1].ToolCalls)
	require.Equal(t, openaitest.Message{Role: "tool", Content: `[{"ref":"/f/1"}]`, ToolCallID: "call_1"}, sent[2])
}

func TestModels(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		opts []openaitest.Option
		want []string
	}{
		{"default", nil, []string{openaitest.DefaultModel}},
		{"scripted", []openaitest.Option{openaitest.WithModels("gpt-4o-mini", "text-embedding-3-small")}, []string{"gpt-4o-mini", "text-embedding-3-small"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := openaitest.New(t, tt.opts...)
			list, err := client(s).ListModels(t.Context())
			require.NoError(t, err)
			var ids []string
			for _, m := range list.Models {
				ids = append(ids, m.ID)
				require.Equal(t, "model", m.Object)
				require.NotZero(t, m.CreatedAt)
				require.NotEmpty(t, m.OwnedBy)
			}
			require.Equal(t, tt.want, ids)

			reqs := s.Requests()
			require.Len(t, reqs, 1)
			require.Equal(t, "/v1/models", reqs[0].Path)
			require.Equal(t, "Bearer test-key", reqs[0].Header.Get("Authorization"))
			require.Empty(t, s.ChatRequests())
		})
	}
}

// TestModelsWire pins the list's JSON, on both paths, and an empty list.
func TestModelsWire(t *testing.T) {
	t.Parallel()
	tests := []struct {
		path string
		opts []openaitest.Option
		want string
	}{
		{"/v1/models", nil, `{"object":"list","data":[{"id":"fake-model","object":"model","created":1700000000,"owned_by":"openaitest"}]}`},
		{"/models", []openaitest.Option{openaitest.WithModels("a")}, `{"object":"list","data":[{"id":"a","object":"model","created":1700000000,"owned_by":"openaitest"}]}`},
		{"/v1/models", []openaitest.Option{openaitest.WithModels()}, `{"object":"list","data":[]}`},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			t.Parallel()
			s := openaitest.New(t, tt.opts...)
			resp, err := http.Get(s.URL() + tt.path)
			require.NoError(t, err)
			body, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			require.NoError(t, resp.Body.Close())
			require.Equal(t, http.StatusOK, resp.StatusCode)
			require.Equal(t, "application/json", resp.Header.Get("Content-Type"))
			require.JSONEq(t, tt.want, string(body))
			require.Equal(t, tt.path, s.Requests()[0].Path)
		})
	}
}

// TestChatWire pins the JSON of non-streamed answers: a tool call comes with
// its id, type and arguments as a JSON string, and content null.
func TestChatWire(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		reply openaitest.Reply
		want  string
	}{
		{
			name:  "content",
			reply: openaitest.Reply{Content: "Dune."},
			want: `{"id":"chatcmpl-fake","object":"chat.completion","model":"m",
				"choices":[{"index":0,"message":{"role":"assistant","content":"Dune.","refusal":null},"logprobs":null,"finish_reason":"stop"}],
				"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`,
		},
		{
			name:  "own id",
			reply: openaitest.Reply{ID: "chatcmpl-2", Content: "Dune."},
			want: `{"id":"chatcmpl-2","object":"chat.completion","model":"m",
				"choices":[{"index":0,"message":{"role":"assistant","content":"Dune.","refusal":null},"logprobs":null,"finish_reason":"stop"}],
				"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`,
		},
		{
			name:  "chunks",
			reply: openaitest.Reply{Chunks: []string{"Du", "ne."}, ChunkDelay: time.Hour},
			want: `{"id":"chatcmpl-fake","object":"chat.completion","model":"m",
				"choices":[{"index":0,"message":{"role":"assistant","content":"Dune.","refusal":null},"logprobs":null,"finish_reason":"stop"}],
				"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`,
		},
		{
			name: "tool calls",
			reply: openaitest.Reply{ToolCalls: []openaitest.ToolCall{
				{ID: "call_x", Function: openaitest.FunctionCall{Name: "search_films", Arguments: `{"query":"sci-fi"}`}},
				{Function: openaitest.FunctionCall{Name: "rate_film", Arguments: `{"stars":5}`}},
			}},
			want: `{"id":"chatcmpl-fake","object":"chat.completion","model":"m",
				"choices":[{"index":0,"message":{"role":"assistant","content":null,"refusal":null,"tool_calls":[
					{"id":"call_x","type":"function","function":{"name":"search_films","arguments":"{\"query\":\"sci-fi\"}"}},
					{"id":"call_1","type":"function","function":{"name":"rate_film","arguments":"{\"stars\":5}"}}
				]},"logprobs":null,"finish_reason":"tool_calls"}],
				"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`,
		},
		{
			name: "tool call with content",
			reply: openaitest.Reply{Content: "Looking.", ToolCalls: []openaitest.ToolCall{
				{ID: "call_x", Type: "function", Function: openaitest.FunctionCall{Name: "f", Arguments: `{}`}},
			}},
			want: `{"id":"chatcmpl-fake","object":"chat.completion","model":"m",
				"choices":[{"index":0,"message":{"role":"assistant","content":"Looking.","refusal":null,"tool_calls":[
					{"id":"call_x","type":"function","function":{"name":"f","arguments":"{}"}}
				]},"logprobs":null,"finish_reason":"tool_calls"}],
				"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := openaitest.New(t)
			s.Enqueue(tt.reply)
			resp, err := http.Post(s.URL()+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"m","stream":false}`))
			require.NoError(t, err)
			var body map[string]any
			require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
			require.NoError(t, resp.Body.Close())
			require.Equal(t, "application/json", resp.Header.Get("Content-Type"))
			require.NotZero(t, body["created"])
			delete(body, "created")
			got, err := json.Marshal(body)
			require.NoError(t, err)
			require.JSONEq(t, tt.want, string(got))
			require.False(t, s.ChatRequests()[0].Stream)
		})
	}
}

// One model is found by its id, an id with a slash whether the client
// escaped it or not; an unknown one is OpenAI's 404 model_not_found.
func TestModel(t *testing.T) {
	t.Parallel()
	s := openaitest.New(t, openaitest.WithModels("llama3:8b", "org/model"))
	tests := []struct {
		path   string
		status int
		want   string
	}{
		{"/v1/models/llama3:8b", http.StatusOK, `{"id":"llama3:8b","object":"model","created":1700000000,"owned_by":"openaitest"}`},
		{"/v1/models/org%2Fmodel", http.StatusOK, `{"id":"org/model","object":"model","created":1700000000,"owned_by":"openaitest"}`},
		{"/models/org/model", http.StatusOK, `{"id":"org/model","object":"model","created":1700000000,"owned_by":"openaitest"}`},
		{"/v1/models/gpt-9", http.StatusNotFound, `{"error":{"message":"The model 'gpt-9' does not exist","type":"invalid_request_error","param":"model","code":"model_not_found"}}`},
	}
	for _, tt := range tests {
		resp, err := http.Get(s.URL() + tt.path)
		require.NoError(t, err)
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
		require.Equal(t, tt.status, resp.StatusCode, tt.path)
		require.JSONEq(t, tt.want, string(body), tt.path)
	}
	reqs := s.Requests()
	require.Len(t, reqs, len(tests))
	require.Equal(t, "/v1/models/org/model", reqs[1].Path)
	require.Equal(t, "/v1/models/org%2Fmodel", reqs[1].RawPath)
}

// A route the server does not serve is answered as OpenAI answers an
// unknown URL, and recorded with its path as it came, so that a test can
// tell what reached the server at all.
func TestUnknownRoutesAreRecorded(t *testing.T) {
	t.Parallel()
	s := openaitest.New(t)
	req, err := http.NewRequest(http.MethodPost, s.URL()+"/internal/admin?x=1", strings.NewReader(`{"drop":true}`))
	require.NoError(t, err)
	req.URL.Opaque = "/internal/%61dmin" // sent as it is
	req.Header.Set("Authorization", "Bearer sk-someone")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
	require.JSONEq(t, `{"error":{"message":"Invalid URL (POST /internal/%61dmin)","type":"invalid_request_error","param":null,"code":null}}`, string(body))

	reqs := s.Requests()
	require.Len(t, reqs, 1)
	require.Equal(t, openaitest.Request{Method: "POST", Path: "/internal/admin", RawPath: "/internal/%61dmin", Query: "x=1",
		Header: reqs[0].Header, Body: []byte(`{"drop":true}`)}, reqs[0])
	require.Equal(t, "Bearer sk-someone", reqs[0].Header.Get("Authorization"))
	require.Empty(t, s.ChatRequests())
}
