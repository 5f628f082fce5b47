package openaitest_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/openaitest"
)

// streamChat starts a streamed chat completion of one user message, asking
// for the usage chunk when includeUsage is set.
func streamChat(ctx context.Context, c *openai.Client, includeUsage bool) (*openai.ChatCompletionStream, error) {
	req := openai.ChatCompletionRequest{
		Model:    "m",
		Messages: []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: "films?"}},
	}
	if includeUsage {
		req.StreamOptions = &openai.StreamOptions{IncludeUsage: true}
	}
	return c.CreateChatCompletionStream(ctx, req)
}

// readStream receives every chunk of a stream until [DONE], failing the test
// on any other error.
func readStream(t *testing.T, stream *openai.ChatCompletionStream) []openai.ChatCompletionStreamResponse {
	t.Helper()
	defer func() { require.NoError(t, stream.Close()) }()
	var chunks []openai.ChatCompletionStreamResponse
	for {
		chunk, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return chunks
		}
		require.NoError(t, err)
		chunks = append(chunks, chunk)
	}
}

// requireEnvelope checks what every chunk of one stream shares: the object
// type, and the id, created time and model of the first chunk; the first
// chunk says who speaks.
func requireEnvelope(t *testing.T, chunks []openai.ChatCompletionStreamResponse) {
	t.Helper()
	require.NotEmpty(t, chunks)
	first := chunks[0]
	require.NotEmpty(t, first.ID)
	require.NotZero(t, first.Created)
	require.Equal(t, "m", first.Model)
	require.Equal(t, openai.ChatMessageRoleAssistant, first.Choices[0].Delta.Role)
	for i, c := range chunks {
		require.Equal(t, "chat.completion.chunk", c.Object, "chunk %d", i)
		require.Equal(t, first.ID, c.ID, "chunk %d", i)
		require.Equal(t, first.Created, c.Created, "chunk %d", i)
		require.Equal(t, first.Model, c.Model, "chunk %d", i)
	}
}

func TestStreamContent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		reply      *openaitest.Reply // nil leaves the server's default answer
		wantPieces []string
		wantFinish openai.FinishReason
	}{
		{
			name:       "scripted chunks",
			reply:      &openaitest.Reply{Chunks: []string{"Du", "ne is by", " Frank Herbert."}},
			wantPieces: []string{"Du", "ne is by", " Frank Herbert."},
			wantFinish: openai.FinishReasonStop,
		},
		{
			name:       "content split by words",
			reply:      &openaitest.Reply{Content: "Dune is by Frank Herbert."},
			wantPieces: []string{"Dune", " is", " by", " Frank", " Herbert", "."},
			wantFinish: openai.FinishReasonStop,
		},
		{
			name:       "text without spaces",
			reply:      &openaitest.Reply{Content: "三体是刘慈欣写的科幻小说"},
			wantPieces: []string{"三体是刘慈欣写的", "科幻小说"},
			wantFinish: openai.FinishReasonStop,
		},
		{
			name:       "scripted finish reason",
			reply:      &openaitest.Reply{Content: "cut short", FinishReason: "length"},
			wantPieces: []string{"cut", " short"},
			wantFinish: openai.FinishReasonLength,
		},
		{
			name:       "empty content",
			reply:      &openaitest.Reply{},
			wantFinish: openai.FinishReasonStop,
		},
		{
			name:       "default answer",
			wantPieces: []string{"{}"},
			wantFinish: openai.FinishReasonStop,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := openaitest.New(t)
			if tt.reply != nil {
				s.Enqueue(*tt.reply)
			}
			stream, err := streamChat(t.Context(), client(s), false)
			require.NoError(t, err)
			chunks := readStream(t, stream)

			requireEnvelope(t, chunks)
			// The role chunk, a chunk per piece, the finish chunk.
			require.Len(t, chunks, len(tt.wantPieces)+2)
			var pieces []string
			for i, c := range chunks {
				require.Nil(t, c.Usage, "chunk %d", i)
				require.Len(t, c.Choices, 1, "chunk %d", i)
				require.Empty(t, c.Choices[0].Delta.ToolCalls, "chunk %d", i)
				if i == len(chunks)-1 {
					require.Equal(t, tt.wantFinish, c.Choices[0].FinishReason)
					require.Equal(t, openai.ChatCompletionStreamChoiceDelta{}, c.Choices[0].Delta)
					continue
				}
				require.Empty(t, c.Choices[0].FinishReason, "chunk %d", i)
				if i > 0 {
					pieces = append(pieces, c.Choices[0].Delta.Content)
				}
			}
			require.Equal(t, tt.wantPieces, pieces)

			reqs := s.ChatRequests()
			require.Len(t, reqs, 1)
			require.True(t, reqs[0].Stream)
			require.False(t, reqs[0].IncludeUsage)
			require.Contains(t, string(reqs[0].Body), `"stream":true`)
		})
	}
}

func TestStreamToolCalls(t *testing.T) {
	t.Parallel()
	calls := []openaitest.ToolCall{
		{ID: "call_a", Function: openaitest.FunctionCall{Name: "search_films", Arguments: `{"query":"science fiction","year":1965}`}},
		{Function: openaitest.FunctionCall{Name: "rate_film", Arguments: `{"ref":"/f/1","stars":5}`}},
	}
	want := []openai.ToolCall{
		{ID: "call_a", Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: "search_films", Arguments: calls[0].Function.Arguments}},
		{ID: "call_1", Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: "rate_film", Arguments: calls[1].Function.Arguments}},
	}
	for _, content := range []string{"", "Let me look that up."} {
		t.Run("content "+content, func(t *testing.T) {
			t.Parallel()
			s := openaitest.New(t)
			s.Enqueue(openaitest.Reply{Content: content, ToolCalls: calls})
			stream, err := streamChat(t.Context(), client(s), false)
			require.NoError(t, err)
			chunks := readStream(t, stream)
			requireEnvelope(t, chunks)

			// Reassemble the calls from their fragments as a client does:
			// the head fragment of a call brings its id, type and name, the
			// others only more arguments.
			var got []openai.ToolCall
			var text strings.Builder
			fragments := map[int]int{}
			for _, c := range chunks[:len(chunks)-1] {
				delta := c.Choices[0].Delta
				text.WriteString(delta.Content)
				require.LessOrEqual(t, len(delta.ToolCalls), 1, "one fragment a chunk")
				for _, f := range delta.ToolCalls {
					require.NotNil(t, f.Index)
					i := *f.Index
					fragments[i]++
					if f.ID != "" {
						require.Len(t, got, i, "call %d starts after the calls before it", i)
						require.NotEmpty(t, f.Function.Name)
						got = append(got, f)
						continue
					}
					require.Len(t, got, i+1, "fragment of call %d after its head", i)
					require.Empty(t, f.Function.Name)
					got[i].Function.Arguments += f.Function.Arguments
				}
			}
			for i := range got {
				got[i].Index = nil
			}
			require.Equal(t, want, got)
			require.Equal(t, content, text.String())
			require.Greater(t, fragments[0], 2, "head and several pieces of arguments")
			require.Greater(t, fragments[1], 2, "head and several pieces of arguments")

			last := chunks[len(chunks)-1].Choices[0]
			require.Equal(t, openai.FinishReasonToolCalls, last.FinishReason)
			require.Equal(t, openai.ChatCompletionStreamChoiceDelta{}, last.Delta)
		})
	}
}

func TestStreamUsage(t *testing.T) {
	t.Parallel()
	for _, includeUsage := range []bool{false, true} {
		t.Run(map[bool]string{false: "not asked", true: "asked"}[includeUsage], func(t *testing.T) {
			t.Parallel()
			s := openaitest.New(t)
			s.Enqueue(openaitest.Reply{Content: "Dune, by Frank Herbert."})
			stream, err := streamChat(t.Context(), client(s), includeUsage)
			require.NoError(t, err)
			chunks := readStream(t, stream)
			requireEnvelope(t, chunks)

			finish := len(chunks) - 1
			if includeUsage {
				finish = len(chunks) - 2
				last := chunks[len(chunks)-1]
				require.Empty(t, last.Choices)
				require.Equal(t, &openai.Usage{PromptTokens: 1, CompletionTokens: 1, TotalTokens: 2}, last.Usage)
			}
			require.Equal(t, openai.FinishReasonStop, chunks[finish].Choices[0].FinishReason)
			for _, c := range chunks[:finish+1] {
				require.Nil(t, c.Usage)
				require.Len(t, c.Choices, 1)
			}
			require.Equal(t, includeUsage, s.ChatRequests()[0].IncludeUsage)
		})
	}
}

// TestStreamWire pins the bytes of a stream, which clients other than
// go-openai (and gateways passing a stream on) read.
func TestStreamWire(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		reply openaitest.Reply
		body  string
		// want are the events' data: chunks without their created time,
		// then [DONE].
		want []string
	}{
		{
			name:  "content and usage",
			reply: openaitest.Reply{Chunks: []string{"Hi", " there"}},
			body:  `{"model":"m","stream":true,"stream_options":{"include_usage":true}}`,
			want: []string{
				`{"id":"chatcmpl-fake","object":"chat.completion.chunk","model":"m","usage":null,"choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}]}`,
				`{"id":"chatcmpl-fake","object":"chat.completion.chunk","model":"m","usage":null,"choices":[{"index":0,"delta":{"content":"Hi"},"logprobs":null,"finish_reason":null}]}`,
				`{"id":"chatcmpl-fake","object":"chat.completion.chunk","model":"m","usage":null,"choices":[{"index":0,"delta":{"content":" there"},"logprobs":null,"finish_reason":null}]}`,
				`{"id":"chatcmpl-fake","object":"chat.completion.chunk","model":"m","usage":null,"choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]}`,
				`{"id":"chatcmpl-fake","object":"chat.completion.chunk","model":"m","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`,
				`[DONE]`,
			},
		},
		{
			name:  "tool call",
			reply: openaitest.Reply{ToolCalls: []openaitest.ToolCall{{ID: "call_x", Function: openaitest.FunctionCall{Name: "f", Arguments: `{"q":"sci-fi"}`}}}},
			body:  `{"model":"m","stream":true}`,
			want: []string{
				`{"id":"chatcmpl-fake","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":null,"refusal":null,"tool_calls":[{"index":0,"id":"call_x","type":"function","function":{"name":"f","arguments":""}}]},"logprobs":null,"finish_reason":null}]}`,
				`{"id":"chatcmpl-fake","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"q\":\"sc"}}]},"logprobs":null,"finish_reason":null}]}`,
				`{"id":"chatcmpl-fake","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"i-fi\"}"}}]},"logprobs":null,"finish_reason":null}]}`,
				`{"id":"chatcmpl-fake","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"tool_calls"}]}`,
				`[DONE]`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := openaitest.New(t)
			s.Enqueue(tt.reply)
			resp, err := http.Post(s.URL()+"/v1/chat/completions", "application/json", strings.NewReader(tt.body))
			require.NoError(t, err)
			raw, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			require.NoError(t, resp.Body.Close())
			require.Equal(t, http.StatusOK, resp.StatusCode)
			require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))

			body := string(raw)
			require.True(t, strings.HasSuffix(body, "\n\n"), "events end with a blank line")
			events := strings.Split(strings.TrimSuffix(body, "\n\n"), "\n\n")
			require.Len(t, events, len(tt.want))
			var created any
			for i, ev := range events {
				data, ok := strings.CutPrefix(ev, "data: ")
				require.True(t, ok, "event %d: %q", i, ev)
				if tt.want[i] == "[DONE]" {
					require.Equal(t, "[DONE]", data)
					continue
				}
				var chunk map[string]any
				require.NoError(t, json.Unmarshal([]byte(data), &chunk), "event %d", i)
				if i == 0 {
					created = chunk["created"]
					require.NotZero(t, created)
				}
				require.Equal(t, created, chunk["created"], "event %d", i)
				delete(chunk, "created")
				got, err := json.Marshal(chunk)
				require.NoError(t, err)
				require.JSONEq(t, tt.want[i], string(got), "event %d", i)
			}
		})
	}
}

// recvWithin receives the next chunk of stream, failing the test when none
// comes (and no error either) within d, so a stream held by mistake fails
// the test instead of hanging it.
func recvWithin(t *testing.T, stream *openai.ChatCompletionStream, d time.Duration) (openai.ChatCompletionStreamResponse, error) {
	t.Helper()
	type result struct {
		chunk openai.ChatCompletionStreamResponse
		err   error
	}
	done := make(chan result, 1)
	go func() {
		chunk, err := stream.Recv()
		done <- result{chunk, err}
	}()
	select {
	case r := <-done:
		return r.chunk, r.err
	case <-time.After(d):
		t.Fatalf("no chunk within %v", d)
		return openai.ChatCompletionStreamResponse{}, nil
	}
}

// TestStreamChunkDelay: with a long ChunkDelay the first chunk reaches the
// client while the server still holds the rest, and the pause ends as soon
// as the client goes away or the server closes.
func TestStreamChunkDelay(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		end  func(cancel context.CancelFunc, s *openaitest.Server)
	}{
		{"client gone", func(cancel context.CancelFunc, _ *openaitest.Server) { cancel() }},
		{"server closed", func(_ context.CancelFunc, s *openaitest.Server) { s.Close() }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := openaitest.New(t)
			s.Enqueue(openaitest.Reply{Chunks: []string{"Dune", " is", " long"}, ChunkDelay: time.Hour})
			// The deadline fails the test if even the headers are held.
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
			defer cancel()
			stream, err := streamChat(ctx, client(s), false)
			require.NoError(t, err)
			defer stream.Close()

			first, err := recvWithin(t, stream, 2*time.Second)
			require.NoError(t, err)
			require.Equal(t, openai.ChatMessageRoleAssistant, first.Choices[0].Delta.Role)
			require.Equal(t, 1, s.InFlight(), "the rest of the stream is still held")

			tt.end(cancel, s)
			_, err = recvWithin(t, stream, 2*time.Second)
			require.Error(t, err)
			require.NotErrorIs(t, err, io.EOF, "the stream did not finish")
			require.Eventually(t, func() bool { return s.InFlight() == 0 }, 2*time.Second, time.Millisecond)
		})
	}
}

// TestStreamLingerAfterDone: the client has every chunk and [DONE] while
// the server holds the body open, and the linger ends when the client goes
// away.
func TestStreamLingerAfterDone(t *testing.T) {
	t.Parallel()
	s := openaitest.New(t)
	s.Enqueue(openaitest.Reply{Chunks: []string{"Dune", " is", " long"}, LingerAfterDone: time.Hour})
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	stream, err := streamChat(ctx, client(s), false)
	require.NoError(t, err)
	n := 0
	for {
		chunk, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		if n++; n == 5 {
			require.Equal(t, "stop", string(chunk.Choices[0].FinishReason))
		}
	}
	require.Equal(t, 5, n)
	require.Equal(t, 1, s.InFlight(), "the body is held open after [DONE]")
	require.NoError(t, stream.Close())
	require.Eventually(t, func() bool { return s.InFlight() == 0 }, 2*time.Second, time.Millisecond,
		"the linger ends when the client goes away")
}

// TestStreamChunkDelaySpacing: a short ChunkDelay comes before every chunk
// but the first, and every chunk still arrives.
func TestStreamChunkDelaySpacing(t *testing.T) {
	t.Parallel()
	const delay = 20 * time.Millisecond
	s := openaitest.New(t)
	s.Enqueue(openaitest.Reply{Chunks: []string{"a", "b", "c"}, ChunkDelay: delay})
	start := time.Now()
	stream, err := streamChat(t.Context(), client(s), true)
	require.NoError(t, err)
	chunks := readStream(t, stream)
	elapsed := time.Since(start)

	// Role, three pieces, finish, usage: six chunks and five pauses.
	require.Len(t, chunks, 6)
	for i, want := range []string{"a", "b", "c"} {
		require.Equal(t, want, chunks[i+1].Choices[0].Delta.Content)
	}
	require.GreaterOrEqual(t, elapsed, 5*delay)
}

// TestStreamErrors: OpenAI answers a failed streaming request before any
// stream starts, with the JSON error envelope and its status.
func TestStreamErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		reply       openaitest.Reply
		wantMessage string
	}{
		{"rate limited", openaitest.Reply{Status: 429, Message: "slow down", RetryAfter: "3", ChunkDelay: time.Hour}, "slow down"},
		{"server error", openaitest.Reply{Status: 500, Chunks: []string{"never", " sent"}}, "Internal Server Error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := openaitest.New(t)
			s.Enqueue(tt.reply, tt.reply)

			_, err := streamChat(t.Context(), client(s), true)
			apiErr, ok := errors.AsType[*openai.APIError](err)
			require.True(t, ok, "error %v", err)
			require.Equal(t, tt.reply.Status, apiErr.HTTPStatusCode)
			require.Equal(t, tt.wantMessage, apiErr.Message)

			resp, err := http.Post(s.URL()+"/chat/completions", "application/json", strings.NewReader(`{"model":"m","stream":true}`))
			require.NoError(t, err)
			var body struct {
				Error struct {
					Message string `json:"message"`
				} `json:"error"`
			}
			require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
			require.NoError(t, resp.Body.Close())
			require.Equal(t, tt.reply.Status, resp.StatusCode)
			require.Equal(t, "application/json", resp.Header.Get("Content-Type"))
			require.Equal(t, tt.reply.RetryAfter, resp.Header.Get("Retry-After"))
			require.Equal(t, tt.wantMessage, body.Error.Message)

			for _, r := range s.ChatRequests() {
				require.True(t, r.Stream)
			}
		})
	}
}
