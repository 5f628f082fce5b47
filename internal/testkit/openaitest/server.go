// Package openaitest is a fake OpenAI-compatible HTTP server for tests.
//
// Recall talks to language models and embedding models through the OpenAI
// protocol, so that any compatible endpoint (OpenAI, Azure, Ollama, vLLM,
// Zhipu, Qwen...) can be configured. Tests need the same protocol without a
// network, a key or a bill, and they need to script what goes wrong: rate
// limits, server errors, slow answers and answers that are not what the
// prompt asked for. Server answers chat completions from a queue of scripted
// replies, as one JSON answer or as a stream of server-sent events when the
// client asks for one, embeddings with deterministic vectors and the model
// list with the models it was given (and each of them, GET /v1/models/{model}),
// and records every request, to a route it serves or not, so that tests can
// assert what the client sent.
//
// A Server is meant to be shared by every package that speaks the protocol
// (the extractor, the summarizer, the embedder), so it knows nothing about
// what those packages put in their prompts.
package openaitest

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// DefaultDimensions is the length of embedding vectors when neither the
// server options nor the request ask for another: small enough to read in a
// failing test, large enough for distinct texts to get distinct vectors.
const DefaultDimensions = 8

// Reply scripts one answer of the server. The zero value is a 200 whose
// assistant content is empty; the answer the server gives when nothing is
// scripted has "{}" as content.
type Reply struct {
	// ID is the completion's id, in the answer and every chunk; empty means
	// "chatcmpl-fake". Real servers give each completion its own, and
	// clients that keep messages by id (LangGraph's message list replaces a
	// message with the same id) need them apart.
	ID string
	// Status is the HTTP status; 0 means 200.
	Status int
	// Content is the assistant message of a successful chat completion. It
	// is sent verbatim, so a test can send fenced, truncated or plain text.
	// A streamed answer sends it in several pieces: words with the spaces
	// before them, and runs of more than a few characters without a space
	// (JSON, Chinese) cut into short pieces.
	Content string
	// Chunks, when not empty, are the exact pieces in which a streamed
	// answer sends the content, for tests that need to know where the
	// pieces break. The content is then their concatenation, in a streamed
	// and a JSON answer alike, and Content is not used.
	Chunks []string
	// ChunkDelay is a pause before every chunk of a streamed answer but the
	// first, so a test can see chunks arrive one by one and measure the time
	// to the first token. Like Delay, it ends early when the client goes
	// away or the server is closed. A JSON answer ignores it.
	ChunkDelay time.Duration
	// LingerAfterDone keeps a streamed answer's connection open this long
	// after its "data: [DONE]", as an upstream (or a proxy before it) that
	// ends its body late: a client has the whole answer and may go away
	// before the body ends. It ends early when the client goes away or
	// the server is closed; the body then ends as usual.
	LingerAfterDone time.Duration
	// ToolCalls, when not empty, makes the answer an assistant message that
	// calls these tools (content null unless Content is set), as a model
	// answers a request that offered tools. A streamed answer sends each
	// call's arguments in several fragments.
	ToolCalls []ToolCall
	// FinishReason is the choice's finish_reason; empty means "stop", or
	// "tool_calls" when the reply has ToolCalls. Set it to "length" to act
	// out an answer cut off by max_tokens.
	FinishReason string
	// Message is the error message of a failed request, sent in the
	// OpenAI error envelope; empty means the status text.
	Message string
	// Body, when not empty, replaces the whole response body, for answers
	// that are not even the protocol's JSON.
	Body string
	// RetryAfter is sent as the Retry-After header when not empty, as
	// rate-limited and overloaded servers do.
	RetryAfter string
	// Header holds more response headers, such as retry-after-ms, which
	// Azure and OpenAI send next to Retry-After.
	Header http.Header
	// Data, when not nil, is the data of a successful embeddings answer in
	// place of the deterministic vectors, for answers that break the
	// protocol's promises: a wrong count, missing or repeated indices, mixed
	// lengths, vectors that are not of unit length.
	Data []Embedding
	// Delay holds the answer back, to trigger client timeouts; a streamed
	// answer sends nothing, not even its headers, until it is over. The
	// wait ends early when the client goes away or the server is closed, so
	// a slow reply never keeps a test running.
	Delay time.Duration
	// Wait, when not nil, holds the answer back until it is closed (or the
	// client goes away), so a test can keep requests in flight for as long
	// as it needs without guessing durations.
	Wait <-chan struct{}
}

// Embedding is one item of an embeddings answer's data. A nil Index leaves
// the field out, as some compatible servers do.
type Embedding struct {
	Index     *int
	Embedding []float32
}

// Message is one chat message as the client sent it. A null content (an
// assistant message that only calls tools) reads as "".
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
	// ToolCalls are the calls of an assistant message the client sends back
	// in the conversation; ToolCallID is the call a tool message answers.
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

// ToolCall is a function call of an assistant message, in the protocol's
// shape: {"id", "type": "function", "function": {"name", "arguments"}}. A
// scripted call with an empty Type is sent as "function", and one with an
// empty ID as "call_<n>", n its position in the reply, because clients match
// tool results (and the fragments of a streamed call) to calls by id.
type ToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function FunctionCall `json:"function"`
}

// FunctionCall names the tool called; Arguments are a JSON text, as the
// protocol carries them.
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Tool is a tool a chat request offers the model.
type Tool struct {
	Type     string       `json:"type"`
	Function ToolFunction `json:"function"`
}

// ToolFunction is the function a Tool offers: its name, what it does and
// the JSON Schema of its arguments.
type ToolFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// Request is what the server received, kept for assertions. Every request
// is kept, a route the server does not serve too (answered 404), so that a
// test can tell that nothing reached it.
type Request struct {
	// Method is the request's method.
	Method string
	// Path is the URL path, decoded, such as /v1/chat/completions.
	Path string
	// RawPath is the path as it came on the wire, its escapes as they
	// were (/v1/models/org%2Fmodel where Path is /v1/models/org/model).
	RawPath string
	// Query is the raw query, without its '?'.
	Query string
	// Header holds the request headers, for checking authentication.
	Header http.Header
	// Body is the raw request body.
	Body []byte

	// Model is the requested model, for both endpoints.
	Model string
	// Messages are the chat messages, in order.
	Messages []Message
	// Tools are the tools a chat request offers.
	Tools []Tool
	// MaxTokens and MaxCompletionTokens are the two spellings of the
	// output limit; clients send one of them.
	MaxTokens           int
	MaxCompletionTokens int
	// Temperature is nil when the client left it to the server.
	Temperature *float64
	// ResponseFormat is the requested response_format type, such as
	// json_object, or empty.
	ResponseFormat string
	// Stream tells that the client asked for a streamed answer.
	Stream bool
	// IncludeUsage is stream_options.include_usage: the client asked for a
	// last chunk that carries the token usage.
	IncludeUsage bool

	// Input holds the texts of an embeddings request.
	Input []string
	// Dimensions is the dimensions field of an embeddings request.
	Dimensions int
	// EncodingFormat is the encoding_format of an embeddings request, such
	// as float, or empty.
	EncodingFormat string
}

// Option configures a Server.
type Option func(*Server)

// DefaultModel is the one model the server lists when no WithModels option
// names others.
const DefaultModel = "fake-model"

// WithModels sets the models that GET /v1/models lists, in this order, for
// code that checks or offers what an endpoint serves. Without models the list
// is empty.
func WithModels(ids ...string) Option {
	return func(s *Server) { s.models = append([]string(nil), ids...) }
}

// WithDimensions sets the embedding length used when a request does not ask
// for one, to match the vector columns of the code under test.
func WithDimensions(n int) Option {
	return func(s *Server) { s.dims = n }
}

// WithoutRecording keeps the server from recording the requests it answers:
// Requests and ChatRequests stay empty, while a Respond function still sees
// each request and InFlight still counts them. It is for load tests, where
// keeping every request would hold the whole load in memory and make the
// fake itself slower as the load goes on.
func WithoutRecording() Option {
	return func(s *Server) { s.unrecorded = true }
}

// Server is a running fake endpoint. Its methods are safe for concurrent use,
// because the clients under test call it from many goroutines.
type Server struct {
	srv    *httptest.Server
	done   chan struct{}
	dims   int
	models []string
	// unrecorded: requests are not kept (WithoutRecording).
	unrecorded bool

	mu           sync.Mutex
	chat         []Reply
	embed        []Reply
	respond      func(Request) Reply
	respondEmbed func(Request) Reply
	requests     []Request
	inFlight     int
	maxInFlight  int
	// held counts the requests whose reply was held back (Delay, Wait);
	// holding is closed and replaced when one is, waking whoever waits for
	// the next.
	held    int
	holding chan struct{}
}

// New starts a server that is closed when the test ends. Until a test says
// otherwise, every chat completion answers 200 with "{}" as content, every
// embeddings request answers with Vector of each input and the model list
// holds DefaultModel. Each route answers with and without the /v1 prefix,
// for clients configured with either form of the API root; any other path
// is recorded and answered 404, as the API answers an unknown URL.
func New(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s := &Server{done: make(chan struct{}), dims: DefaultDimensions, models: []string{DefaultModel}, holding: make(chan struct{})}
	for _, o := range opts {
		o(s)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.handleChat)
	mux.HandleFunc("POST /chat/completions", s.handleChat)
	mux.HandleFunc("POST /v1/embeddings", s.handleEmbeddings)
	mux.HandleFunc("POST /embeddings", s.handleEmbeddings)
	mux.HandleFunc("GET /v1/models", s.handleModels)
	mux.HandleFunc("GET /models", s.handleModels)
	mux.HandleFunc("GET /v1/models/{model...}", s.handleModel)
	mux.HandleFunc("GET /models/{model...}", s.handleModel)
	mux.HandleFunc("/", s.handleUnknown)
	s.srv = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// URL is the server's root. go-openai wants the API root, which is
// URL() + "/v1".
func (s *Server) URL() string { return s.srv.URL }

// Close releases delayed replies and stops the server. Tests rarely need it,
// because New registers it as a cleanup; calling it twice is harmless.
func (s *Server) Close() {
	s.mu.Lock()
	select {
	case <-s.done:
		s.mu.Unlock()
		return
	default:
		close(s.done)
	}
	s.mu.Unlock()
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// Enqueue appends chat completion replies; each request takes the next one,
// and the default answers once the queue is empty.
func (s *Server) Enqueue(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.chat = append(s.chat, replies...)
}

// EnqueueEmbeddings appends embeddings replies. Only the status, message,
// body, data, headers and delays of these replies are used: a 200 answers
// with the deterministic vectors, unless Data or Body replaces them.
func (s *Server) EnqueueEmbeddings(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.embed = append(s.embed, replies...)
}

// SetDefault sets the chat reply used when the queue is empty.
func (s *Server) SetDefault(r Reply) {
	s.Respond(func(Request) Reply { return r })
}

// Respond sets a function that computes the chat reply when the queue is
// empty, for tests whose answers depend on what was asked.
func (s *Server) Respond(fn func(Request) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.respond = fn
}

// RespondEmbeddings sets a function that computes the embeddings reply when
// the queue is empty, for tests whose answers depend on what was asked (data
// in another order, vectors of another length).
func (s *Server) RespondEmbeddings(fn func(Request) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.respondEmbed = fn
}

// Requests returns a copy of every request received so far, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// ChatRequests returns the chat completion requests received so far.
func (s *Server) ChatRequests() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if strings.HasSuffix(r.Path, "/chat/completions") {
			out = append(out, r)
		}
	}
	return out
}

// InFlight is the number of requests being answered right now.
func (s *Server) InFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.inFlight
}

// MaxInFlight is the largest number of requests that were ever answered at
// the same time, for checking a client's concurrency limit.
func (s *Server) MaxInFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maxInFlight
}

// TimeoutWhenHeld stands in for context.WithTimeout in a client under test
// (llm.Client.SetAttemptTimeout): the context it returns ends, with the
// cause context.DeadlineExceeded, as soon as the server holds back the reply
// (Delay, Wait) of a request that came after it was made, whatever the
// timeout. A short real timeout also abandons a request the server holds,
// but on a loaded machine it can run out before the request is even sent,
// so the server would not see every attempt; this one ends an attempt once
// the server has it and is stalling, so a test of timeouts can count the
// attempts at the server, and a reply that is not held is answered.
func (s *Server) TimeoutWhenHeld(ctx context.Context, _ time.Duration) (context.Context, context.CancelFunc) {
	s.mu.Lock()
	before := s.held
	s.mu.Unlock()
	actx, cancel := context.WithCancelCause(ctx)
	go func() {
		for {
			s.mu.Lock()
			n, next := s.held, s.holding
			s.mu.Unlock()
			if n > before {
				cancel(context.DeadlineExceeded)
				return
			}
			select {
			case <-next:
			case <-actx.Done():
				return
			}
		}
	}()
	return actx, func() { cancel(context.Canceled) }
}

// Vector is the embedding the server returns for text: a unit vector of dims
// components derived from a hash of the text, so equal texts get equal
// vectors in every run and tests can compute what to expect.
func Vector(text string, dims int) []float32 {
	v := make([]float32, dims)
	var norm float64
	for i := range v {
		h := fnv.New64a()
		_, _ = h.Write([]byte(text))
		_, _ = h.Write([]byte{byte(i), byte(i >> 8), byte(i >> 16), byte(i >> 24)})
		x := float64(h.Sum64())/math.MaxUint64*2 - 1
		v[i] = float32(x)
		norm += x * x
	}
	if norm > 0 {
		n := math.Sqrt(norm)
		for i := range v {
			v[i] = float32(float64(v[i]) / n)
		}
	}
	return v
}

// begin records a request and counts it in flight; the returned function
// ends it.
func (s *Server) begin(req Request) func() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.unrecorded {
		s.requests = append(s.requests, req)
	}
	s.inFlight++
	s.maxInFlight = max(s.maxInFlight, s.inFlight)
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.inFlight--
	}
}

// next pops the next scripted reply of queue, or computes the default. The
// default function runs without the lock, so it may call the server.
func (s *Server) next(queue *[]Reply, req Request, fallback func(Request) Reply) Reply {
	s.mu.Lock()
	if len(*queue) > 0 {
		r := (*queue)[0]
		*queue = (*queue)[1:]
		s.mu.Unlock()
		return r
	}
	s.mu.Unlock()
	if fallback != nil {
		return fallback(req)
	}
	return Reply{Content: "{}"}
}

// chatBody is the part of a chat completion request the server reads.
type chatBody struct {
	Model               string    `json:"model"`
	Messages            []Message `json:"messages"`
	Tools               []Tool    `json:"tools"`
	MaxTokens           int       `json:"max_tokens"`
	MaxCompletionTokens int       `json:"max_completion_tokens"`
	Temperature         *float64  `json:"temperature"`
	ResponseFormat      *struct {
		Type string `json:"type"`
	} `json:"response_format"`
	Stream        bool `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

// completion is a successful chat answer worked out once from its Reply, so
// that the JSON answer and the stream say the same thing.
type completion struct {
	// id, created and model are the same in the answer and every chunk.
	id      string
	created int64
	model   string
	// content is the whole assistant content; pieces are the parts a
	// stream sends it in.
	content string
	pieces  []string
	// calls are the tool calls with their defaults filled in.
	calls  []ToolCall
	finish string
}

// newCompletion fills in the defaults of reply: the content from Chunks, the
// tool calls' type and id, the finish reason.
func newCompletion(req Request, reply Reply) completion {
	c := completion{
		id:      cmp.Or(reply.ID, "chatcmpl-fake"),
		created: time.Now().Unix(),
		model:   req.Model,
		content: reply.Content,
		pieces:  reply.Chunks,
		finish:  cmp.Or(reply.FinishReason, "stop"),
	}
	if len(reply.Chunks) > 0 {
		c.content = strings.Join(reply.Chunks, "")
	} else {
		c.pieces = splitText(reply.Content)
	}
	if len(reply.ToolCalls) > 0 {
		c.calls = make([]ToolCall, len(reply.ToolCalls))
		for i, call := range reply.ToolCalls {
			call.Type = cmp.Or(call.Type, "function")
			call.ID = cmp.Or(call.ID, fmt.Sprintf("call_%d", i))
			c.calls[i] = call
		}
		c.finish = cmp.Or(reply.FinishReason, "tool_calls")
	}
	return c
}

// chatUsage is the token usage of every chat answer: the fake does not count
// tokens, but clients and gateways that pass usage on need one to be there.
func chatUsage() map[string]int {
	return map[string]int{"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
}

func (s *Server) handleChat(w http.ResponseWriter, r *http.Request) {
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	req := received(r, raw)
	var body chatBody
	decodeErr := json.Unmarshal(raw, &body)
	if decodeErr == nil {
		req.Model = body.Model
		req.Messages = body.Messages
		req.Tools = body.Tools
		req.MaxTokens = body.MaxTokens
		req.MaxCompletionTokens = body.MaxCompletionTokens
		req.Temperature = body.Temperature
		if body.ResponseFormat != nil {
			req.ResponseFormat = body.ResponseFormat.Type
		}
		req.Stream = body.Stream
		req.IncludeUsage = body.StreamOptions != nil && body.StreamOptions.IncludeUsage
	}
	defer s.begin(req)()
	if decodeErr != nil {
		writeError(w, Reply{Status: http.StatusBadRequest, Message: "invalid JSON body: " + decodeErr.Error()})
		return
	}

	s.mu.Lock()
	respond := s.respond
	s.mu.Unlock()
	reply := s.next(&s.chat, req, respond)
	if s.answered(w, r, reply) {
		return
	}
	c := newCompletion(req, reply)
	if req.Stream {
		s.writeStream(w, r, streamChunks(c, req.IncludeUsage), reply.ChunkDelay)
		s.pause(r, reply.LingerAfterDone)
		return
	}
	// OpenAI sends content null, not "", when the model only calls tools.
	msg := map[string]any{"role": "assistant", "content": c.content, "refusal": nil}
	if len(c.calls) > 0 {
		msg["tool_calls"] = c.calls
		if c.content == "" {
			msg["content"] = nil
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"id":      c.id,
		"object":  "chat.completion",
		"created": c.created,
		"model":   c.model,
		"choices": []map[string]any{{
			"index":         0,
			"message":       msg,
			"logprobs":      nil,
			"finish_reason": c.finish,
		}},
		"usage": chatUsage(),
	})
}

// embeddingsBody is the part of an embeddings request the server reads.
type embeddingsBody struct {
	Model          string          `json:"model"`
	Input          json.RawMessage `json:"input"`
	EncodingFormat string          `json:"encoding_format"`
	Dimensions     int             `json:"dimensions"`
}

func (s *Server) handleEmbeddings(w http.ResponseWriter, r *http.Request) {
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	req := received(r, raw)
	var body embeddingsBody
	decodeErr := json.Unmarshal(raw, &body)
	if decodeErr == nil {
		req.Model, req.Dimensions, req.EncodingFormat = body.Model, body.Dimensions, body.EncodingFormat
		req.Input, decodeErr = inputTexts(body.Input)
	}
	defer s.begin(req)()
	if decodeErr != nil {
		writeError(w, Reply{Status: http.StatusBadRequest, Message: decodeErr.Error()})
		return
	}

	s.mu.Lock()
	respond := s.respondEmbed
	s.mu.Unlock()
	if respond == nil {
		respond = func(Request) Reply { return Reply{} }
	}
	reply := s.next(&s.embed, req, respond)
	if s.answered(w, r, reply) {
		return
	}
	dims := s.dims
	if body.Dimensions > 0 {
		dims = body.Dimensions
	}
	items := reply.Data
	if items == nil {
		items = make([]Embedding, len(req.Input))
		for i, text := range req.Input {
			items[i] = Embedding{Index: &i, Embedding: Vector(text, dims)}
		}
	}
	data := make([]map[string]any, len(items))
	for i, it := range items {
		var emb any = it.Embedding
		if body.EncodingFormat == "base64" {
			emb = encodeBase64(it.Embedding)
		}
		data[i] = map[string]any{"object": "embedding", "embedding": emb}
		if it.Index != nil {
			data[i]["index"] = *it.Index
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"object": "list",
		"data":   data,
		"model":  req.Model,
		"usage":  map[string]int{"prompt_tokens": len(req.Input), "total_tokens": len(req.Input)},
	})
}

// modelCreated is the creation time of every listed model: a fixed time, so
// that the list is the same in every run.
const modelCreated = 1700000000

// handleModels lists the server's models in the shape of OpenAI's GET
// /v1/models. It answers every request the same way; the request is recorded
// like the others.
func (s *Server) handleModels(w http.ResponseWriter, r *http.Request) {
	defer s.begin(received(r, nil))()
	data := make([]map[string]any, len(s.models))
	for i, id := range s.models {
		data[i] = modelObject(id)
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data})
}

// handleModel answers GET /v1/models/{model} as OpenAI does: the model, or
// 404 model_not_found. The model is the rest of the decoded path, so that
// an id with a slash (org/model) is found whether the client escaped it
// (org%2Fmodel, as the openai npm package does) or not.
func (s *Server) handleModel(w http.ResponseWriter, r *http.Request) {
	defer s.begin(received(r, nil))()
	_, model, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/v1"), "/models/")
	for _, id := range s.models {
		if id == model {
			writeJSON(w, http.StatusOK, modelObject(id))
			return
		}
	}
	writeJSON(w, http.StatusNotFound, map[string]any{"error": map[string]any{
		"message": fmt.Sprintf("The model '%s' does not exist", model),
		"type":    "invalid_request_error", "param": "model", "code": "model_not_found",
	}})
}

func modelObject(id string) map[string]any {
	return map[string]any{"id": id, "object": "model", "created": modelCreated, "owned_by": "openaitest"}
}

// handleUnknown records a request to a route the server does not serve and
// answers it as OpenAI answers an unknown URL: 404, invalid_request_error.
func (s *Server) handleUnknown(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	req := received(r, body)
	defer s.begin(req)()
	writeJSON(w, http.StatusNotFound, map[string]any{"error": map[string]any{
		"message": fmt.Sprintf("Invalid URL (%s %s)", r.Method, req.RawPath),
		"type":    "invalid_request_error", "param": nil, "code": nil,
	}})
}

// received is what is recorded of r, its body read as raw.
func received(r *http.Request, raw []byte) Request {
	rawPath, _, _ := strings.Cut(r.RequestURI, "?")
	return Request{Method: r.Method, Path: r.URL.Path, RawPath: rawPath, Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: raw}
}

// answered holds the request as reply scripts and writes its headers, then
// writes a reply that is not a success (a raw body, an error status); it
// reports whether nothing more is to be written.
func (s *Server) answered(w http.ResponseWriter, r *http.Request, reply Reply) bool {
	if !s.hold(r, reply) {
		return true
	}
	writeHeaders(w, reply)
	if reply.Body != "" {
		writeRaw(w, reply.Status, reply.Body)
		return true
	}
	if reply.Status != 0 && reply.Status != http.StatusOK {
		writeError(w, reply)
		return true
	}
	return false
}

// hold waits out a reply's Delay and Wait. It reports false when the client
// went away or the server closed first, in which case nothing is written.
func (s *Server) hold(r *http.Request, reply Reply) bool {
	if reply.Delay > 0 || reply.Wait != nil {
		s.mu.Lock()
		s.held++
		close(s.holding)
		s.holding = make(chan struct{})
		s.mu.Unlock()
	}
	if !s.pause(r, reply.Delay) {
		return false
	}
	if reply.Wait != nil {
		select {
		case <-reply.Wait:
		case <-r.Context().Done():
			return false
		case <-s.done:
			return false
		}
	}
	return true
}

// pause waits for d, or not at all when d is not positive. It reports false
// when the client went away or the server closed first.
func (s *Server) pause(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-r.Context().Done():
		return false
	case <-s.done:
		return false
	}
}

// inputTexts accepts the string and array-of-strings forms of input; token
// arrays are not supported because nothing in Recall sends them.
func inputTexts(raw json.RawMessage) ([]string, error) {
	var one string
	if err := json.Unmarshal(raw, &one); err == nil {
		return []string{one}, nil
	}
	var many []string
	if err := json.Unmarshal(raw, &many); err != nil {
		return nil, fmt.Errorf("input must be a string or an array of strings")
	}
	return many, nil
}

// encodeBase64 encodes a vector the way the API does for
// encoding_format=base64: little-endian float32s.
func encodeBase64(v []float32) string {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return base64.StdEncoding.EncodeToString(b)
}

// writeHeaders sets a reply's Retry-After and other headers.
func writeHeaders(w http.ResponseWriter, r Reply) {
	if r.RetryAfter != "" {
		w.Header().Set("Retry-After", r.RetryAfter)
	}
	for k, vs := range r.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
}

// writeError writes the OpenAI error envelope.
func writeError(w http.ResponseWriter, r Reply) {
	status := r.Status
	msg := r.Message
	if msg == "" {
		msg = http.StatusText(status)
	}
	typ := "invalid_request_error"
	switch {
	case status == http.StatusTooManyRequests:
		typ = "rate_limit_error"
	case status >= 500:
		typ = "server_error"
	}
	writeJSON(w, status, map[string]any{
		"error": map[string]any{"message": msg, "type": typ, "code": nil},
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeRaw(w http.ResponseWriter, status int, body string) {
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}
