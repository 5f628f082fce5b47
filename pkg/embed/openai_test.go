package embed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/caarlos0/env/v11"
	"github.com/cenkalti/backoff/v4"
	"github.com/stretchr/testify/require"
)

// embeddingsRequest is the body of POST /embeddings as the fake server
// decodes it.
type embeddingsRequest struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	Dimensions     *int     `json:"dimensions"`
	EncodingFormat string   `json:"encoding_format"`
	auth           string
}

type embeddingData struct {
	Object    string    `json:"object"`
	Index     *int      `json:"index,omitempty"`
	Embedding []float32 `json:"embedding"`
}

// reply answers one request; the fake server plays a script of them.
type reply func(w http.ResponseWriter, r *http.Request, req embeddingsRequest)

// fakeNativeDim is the fake model's dimension when none is requested.
const fakeNativeDim = 8

// fakeVector is what the fake model returns for text: a hashing vector,
// scaled so that the client's re-normalisation is exercised.
func fakeVector(text string, dim int) []float32 {
	v := NewHashing(dim).Vector(text)
	for i := range v {
		v[i] *= 2.5
	}
	return v
}

// wantVector is what Embed should return for text.
func wantVector(text string, dim int) []float32 {
	return NewHashing(dim).Vector(text)
}

func requestDim(req embeddingsRequest) int {
	if req.Dimensions != nil {
		return *req.Dimensions
	}
	return fakeNativeDim
}

// ok answers like a healthy endpoint, listing the data in reverse order so
// that clients must use the indices.
func ok(w http.ResponseWriter, _ *http.Request, req embeddingsRequest) {
	data := make([]embeddingData, len(req.Input))
	for i, text := range req.Input {
		data[i] = embeddingData{Object: "embedding", Index: &i, Embedding: fakeVector(text, requestDim(req))}
	}
	slices.Reverse(data)
	writeData(w, req, data)
}

// withData answers 200 with data built from the request.
func withData(build func(req embeddingsRequest) []embeddingData) reply {
	return func(w http.ResponseWriter, _ *http.Request, req embeddingsRequest) {
		writeData(w, req, build(req))
	}
}

func writeData(w http.ResponseWriter, req embeddingsRequest, data []embeddingData) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"object": "list",
		"data":   data,
		"model":  req.Model,
		"usage":  map[string]int{"prompt_tokens": len(req.Input), "total_tokens": len(req.Input)},
	})
}

// fail answers with an OpenAI-style error and the given headers.
func fail(code int, headers ...string) reply {
	return func(w http.ResponseWriter, _ *http.Request, _ embeddingsRequest) {
		for i := 0; i+1 < len(headers); i += 2 {
			w.Header().Set(headers[i], headers[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_ = json.NewEncoder(w).Encode(map[string]any{
			"error": map[string]any{"message": http.StatusText(code), "type": "test_error"},
		})
	}
}

// hang never answers; the client's per-attempt timeout must end the request.
func hang(_ http.ResponseWriter, r *http.Request, _ embeddingsRequest) {
	<-r.Context().Done()
}

// fakeServer speaks the OpenAI embeddings protocol, plays script one reply
// per request (ok once it runs out) and records every request.
type fakeServer struct {
	url string

	mu       sync.Mutex
	script   []reply
	requests []embeddingsRequest
}

func newFakeServer(t *testing.T, script ...reply) *fakeServer {
	t.Helper()
	f := &fakeServer{script: script}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
			http.NotFound(w, r)
			return
		}
		var req embeddingsRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		req.auth = r.Header.Get("Authorization")
		f.mu.Lock()
		n := len(f.requests)
		f.requests = append(f.requests, req)
		next := reply(ok)
		if n < len(f.script) {
			next = f.script[n]
		}
		f.mu.Unlock()
		next(w, r, req)
	}))
	t.Cleanup(srv.Close)
	f.url = srv.URL + "/v1"
	return f
}

func (f *fakeServer) Requests() []embeddingsRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.requests)
}

// waits records the backoff waits an OpenAI embedder asked for; its timers
// fire at once, so retry tests take no wall-clock time.
type waits struct {
	mu      sync.Mutex
	list    []time.Duration
	onStart func()
}

func (w *waits) List() []time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.list)
}

type instantTimer struct {
	w *waits
	c chan time.Time
}

func (t *instantTimer) Start(d time.Duration) {
	t.w.mu.Lock()
	t.w.list = append(t.w.list, d)
	onStart := t.w.onStart
	t.w.mu.Unlock()
	if onStart != nil {
		onStart()
		return
	}
	t.c <- time.Now()
}

func (t *instantTimer) Stop()               {}
func (t *instantTimer) C() <-chan time.Time { return t.c }

// setup returns an embedder talking to a fake server that plays script, and
// the record of its backoff waits.
func setup(t *testing.T, cfg Config, script ...reply) (*OpenAI, *fakeServer, *waits) {
	t.Helper()
	f := newFakeServer(t, script...)
	cfg.BaseURL = f.url
	if cfg.Model == "" {
		cfg.Model = "test-embed"
	}
	o, err := NewOpenAI(cfg)
	require.NoError(t, err)
	w := &waits{}
	o.newTimer = func() backoff.Timer { return &instantTimer{w: w, c: make(chan time.Time, 1)} }
	return o, f, w
}

func texts(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("text number %d 第%d本书", i, i)
	}
	return out
}

func TestOpenAIBatching(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		n, batch  int
		wantSizes []int
	}{
		{"150 inputs in batches of 64", 150, 64, []int{64, 64, 22}},
		{"exactly one batch", 64, 64, []int{64}},
		{"one input", 1, 64, []int{1}},
		{"batch of one", 3, 1, []int{1, 1, 1}},
		{"default batch", 100, 0, []int{64, 36}},
		{"no inputs", 0, 64, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o, f, _ := setup(t, Config{APIKey: "sk-test", Batch: tt.batch, MaxRetries: 3})
			in := texts(tt.n)
			got, err := o.Embed(t.Context(), in)
			require.NoError(t, err)
			require.Len(t, got, tt.n)
			for i, text := range in {
				require.InDeltaSlice(t, wantVector(text, fakeNativeDim), got[i], 1e-6, "input %d", i)
				require.InDelta(t, 1, dot(got[i], got[i]), 1e-6)
			}
			reqs := f.Requests()
			var sizes []int
			var sent []string
			for _, r := range reqs {
				sizes = append(sizes, len(r.Input))
				sent = append(sent, r.Input...)
				require.Equal(t, "test-embed", r.Model)
				require.Equal(t, "Bearer sk-test", r.auth)
				require.Equal(t, "float", r.EncodingFormat)
				require.Nil(t, r.Dimensions, "dimensions sent although not configured")
			}
			require.Equal(t, tt.wantSizes, sizes)
			if tt.n > 0 {
				require.Equal(t, in, sent, "inputs sent out of order")
			} else {
				require.Empty(t, sent)
			}
		})
	}
}

func TestOpenAIRetries(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		cfg          Config
		script       []reply
		wantRequests int
		wantErr      string          // a part of the error message, when one is expected
		minWaits     []time.Duration // lower bound of each recorded wait
	}{
		{
			name:         "429 with Retry-After then success",
			cfg:          Config{MaxRetries: 3},
			script:       []reply{fail(429, "Retry-After", "3")},
			wantRequests: 2,
			minWaits:     []time.Duration{3 * time.Second},
		},
		{
			name:         "429 with retry-after-ms then success",
			cfg:          Config{MaxRetries: 3},
			script:       []reply{fail(429, "Retry-After-Ms", "1500", "Retry-After", "2")},
			wantRequests: 2,
			minWaits:     []time.Duration{1500 * time.Millisecond},
		},
		{
			name:         "429 without Retry-After then success",
			cfg:          Config{MaxRetries: 3},
			script:       []reply{fail(429)},
			wantRequests: 2,
			minWaits:     []time.Duration{retryInitial / 2},
		},
		{
			name:         "500 then success",
			cfg:          Config{MaxRetries: 3},
			script:       []reply{fail(500)},
			wantRequests: 2,
			minWaits:     []time.Duration{retryInitial / 2},
		},
		{
			name:         "503 twice then success",
			cfg:          Config{MaxRetries: 3},
			script:       []reply{fail(503), fail(502)},
			wantRequests: 3,
			minWaits:     []time.Duration{retryInitial / 2, retryInitial / 2},
		},
		{
			name:         "timeout then success",
			cfg:          Config{Timeout: 50 * time.Millisecond, MaxRetries: 3},
			script:       []reply{hang},
			wantRequests: 2,
			minWaits:     []time.Duration{retryInitial / 2},
		},
		{
			name:         "retries exhausted",
			cfg:          Config{MaxRetries: 2},
			script:       []reply{fail(500), fail(500), fail(500), fail(500)},
			wantRequests: 3,
			wantErr:      "3 attempts",
			minWaits:     []time.Duration{0, 0},
		},
		{
			name:         "no retries configured",
			cfg:          Config{MaxRetries: 0},
			script:       []reply{fail(500)},
			wantRequests: 1,
			wantErr:      "500",
		},
		{
			name:         "400 is not retried",
			cfg:          Config{MaxRetries: 3},
			script:       []reply{fail(400)},
			wantRequests: 1,
			wantErr:      "400",
		},
		{
			name:         "401 is not retried",
			cfg:          Config{MaxRetries: 3},
			script:       []reply{fail(401)},
			wantRequests: 1,
			wantErr:      "401",
		},
		{
			name:         "Retry-After beyond the limit fails at once",
			cfg:          Config{MaxRetries: 3},
			script:       []reply{fail(429, "Retry-After", "3600")},
			wantRequests: 1,
			wantErr:      "retry after 1h0m0s",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o, f, w := setup(t, tt.cfg, tt.script...)
			got, err := o.Embed(t.Context(), []string{"三体", "Dune"})
			require.Len(t, f.Requests(), tt.wantRequests)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				require.Nil(t, got)
			} else {
				require.NoError(t, err)
				require.InDeltaSlice(t, wantVector("三体", fakeNativeDim), got[0], 1e-6)
				require.InDeltaSlice(t, wantVector("Dune", fakeNativeDim), got[1], 1e-6)
			}
			recorded := w.List()
			require.Len(t, recorded, len(tt.minWaits))
			for i, least := range tt.minWaits {
				require.GreaterOrEqual(t, recorded[i], least, "wait %d", i)
				require.LessOrEqual(t, recorded[i], maxRetryAfter, "wait %d", i)
			}
		})
	}
}

// TestOpenAICancelStopsRetries cancels the caller's context while the client
// waits to retry: it must return at once with the context's error.
func TestOpenAICancelStopsRetries(t *testing.T) {
	t.Parallel()
	o, f, w := setup(t, Config{MaxRetries: 5}, fail(503), fail(503), fail(503))
	ctx, cancel := context.WithCancel(t.Context())
	w.onStart = cancel
	_, err := o.Embed(ctx, []string{"三体"})
	require.ErrorIs(t, err, context.Canceled)
	require.Len(t, f.Requests(), 1)
}

func TestOpenAIBadResponses(t *testing.T) {
	t.Parallel()
	idx := func(i int) *int { return &i }
	vec := func(n int) []float32 { return fakeVector("x", n) }
	tests := []struct {
		name     string
		cfg      Config
		data     func(req embeddingsRequest) []embeddingData
		mismatch bool
	}{
		{
			name: "fewer vectors than inputs",
			data: func(req embeddingsRequest) []embeddingData {
				return []embeddingData{{Index: idx(0), Embedding: vec(8)}}
			},
		},
		{
			name: "more vectors than inputs",
			data: func(req embeddingsRequest) []embeddingData {
				return []embeddingData{{Index: idx(0), Embedding: vec(8)}, {Index: idx(1), Embedding: vec(8)}, {Index: idx(2), Embedding: vec(8)}}
			},
		},
		{
			name: "mixed dimensions",
			data: func(req embeddingsRequest) []embeddingData {
				return []embeddingData{{Index: idx(0), Embedding: vec(8)}, {Index: idx(1), Embedding: vec(12)}}
			},
			mismatch: true,
		},
		{
			name: "not the requested dimension",
			cfg:  Config{Dimensions: 16},
			data: func(req embeddingsRequest) []embeddingData {
				return []embeddingData{{Index: idx(0), Embedding: vec(8)}, {Index: idx(1), Embedding: vec(8)}}
			},
			mismatch: true,
		},
		{
			name: "empty vector",
			data: func(req embeddingsRequest) []embeddingData {
				return []embeddingData{{Index: idx(0), Embedding: vec(8)}, {Index: idx(1), Embedding: []float32{}}}
			},
		},
		{
			name: "repeated index",
			data: func(req embeddingsRequest) []embeddingData {
				return []embeddingData{{Index: idx(1), Embedding: vec(8)}, {Index: idx(1), Embedding: vec(8)}}
			},
		},
		{
			name: "index out of range",
			data: func(req embeddingsRequest) []embeddingData {
				return []embeddingData{{Index: idx(0), Embedding: vec(8)}, {Index: idx(2), Embedding: vec(8)}}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := tt.cfg
			cfg.MaxRetries = 3
			o, f, _ := setup(t, cfg, withData(tt.data))
			_, err := o.Embed(t.Context(), []string{"三体", "Dune"})
			require.ErrorIs(t, err, ErrBadResponse)
			require.Equal(t, tt.mismatch, errors.Is(err, ErrDimensionMismatch), "%v", err)
			require.Len(t, f.Requests(), 1, "a bad response must not be retried")
		})
	}
}

// TestOpenAIDimensionStable checks that a model whose dimension changes
// between calls is caught rather than mixed.
func TestOpenAIDimensionStable(t *testing.T) {
	t.Parallel()
	twelve := withData(func(req embeddingsRequest) []embeddingData {
		out := make([]embeddingData, len(req.Input))
		for i, text := range req.Input {
			out[i] = embeddingData{Index: &i, Embedding: fakeVector(text, 12)}
		}
		return out
	})
	o, _, _ := setup(t, Config{MaxRetries: 3}, ok, twelve)
	require.Equal(t, 0, o.Dimension())
	_, err := o.Embed(t.Context(), []string{"三体"})
	require.NoError(t, err)
	require.Equal(t, fakeNativeDim, o.Dimension())
	_, err = o.Embed(t.Context(), []string{"Dune"})
	require.ErrorIs(t, err, ErrDimensionMismatch)
	require.Equal(t, fakeNativeDim, o.Dimension())
}

func TestOpenAIDimensionsParameter(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		dims      int
		wantDim   int // before and after the call
		wantModel string
	}{
		{"passed through", 16, 16, "test-embed@16"},
		{"not set", 0, fakeNativeDim, "test-embed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o, f, _ := setup(t, Config{Dimensions: tt.dims, MaxRetries: 3})
			require.Equal(t, tt.wantModel, o.Model())
			if tt.dims > 0 {
				require.Equal(t, tt.wantDim, o.Dimension())
			}
			got, err := o.Embed(t.Context(), []string{"三体"})
			require.NoError(t, err)
			require.Len(t, got[0], tt.wantDim)
			require.Equal(t, tt.wantDim, o.Dimension())
			reqs := f.Requests()
			require.Len(t, reqs, 1)
			if tt.dims > 0 {
				require.NotNil(t, reqs[0].Dimensions)
				require.Equal(t, tt.dims, *reqs[0].Dimensions)
			} else {
				require.Nil(t, reqs[0].Dimensions)
			}
		})
	}
}

func TestOpenAIEmptyTexts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		dims        int
		in          []string
		wantSent    []string
		wantZeroLen int // length of the vectors for empty texts
	}{
		{"mixed, dimension configured", 4, []string{"", "三体", "  \n"}, []string{"三体"}, 4},
		{"mixed, dimension learned", 0, []string{"", "三体", "  \n"}, []string{"三体"}, fakeNativeDim},
		{"only empty, dimension configured", 4, []string{"", " "}, nil, 4},
		{"only empty, dimension unknown", 0, []string{"", " "}, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o, f, _ := setup(t, Config{Dimensions: tt.dims, MaxRetries: 3})
			got, err := o.Embed(t.Context(), tt.in)
			require.NoError(t, err)
			require.Len(t, got, len(tt.in))
			var sent []string
			for _, r := range f.Requests() {
				sent = append(sent, r.Input...)
			}
			require.Equal(t, tt.wantSent, sent)
			for i, text := range tt.in {
				if slices.Contains(tt.wantSent, text) {
					continue
				}
				require.Len(t, got[i], tt.wantZeroLen, "input %d", i)
				require.Zero(t, dot(got[i], got[i]))
			}
		})
	}
}

// TestOpenAIMissingIndices covers servers that leave out the index field:
// data is then taken in input order.
func TestOpenAIMissingIndices(t *testing.T) {
	t.Parallel()
	noIndex := withData(func(req embeddingsRequest) []embeddingData {
		out := make([]embeddingData, len(req.Input))
		for i, text := range req.Input {
			out[i] = embeddingData{Embedding: fakeVector(text, fakeNativeDim)}
		}
		return out
	})
	o, _, _ := setup(t, Config{MaxRetries: 3}, noIndex)
	in := []string{"三体", "Dune", "jazz"}
	got, err := o.Embed(t.Context(), in)
	require.NoError(t, err)
	for i, text := range in {
		require.InDeltaSlice(t, wantVector(text, fakeNativeDim), got[i], 1e-6)
	}
}

func TestNew(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		cfg        Config
		hashingDim int
		wantModel  string
		wantDim    int
		wantErr    bool
	}{
		{"no model: hashing", Config{}, 0, "hashing-v1-256", 256, false},
		{"no model, key set: still hashing", Config{APIKey: "sk", BaseURL: "http://x/v1"}, 64, "hashing-v1-64", 64, false},
		{"model: openai", Config{Model: "bge-m3", Batch: 8}, 64, "bge-m3", 0, false},
		{"model and dimensions", Config{Model: "text-embedding-3-small", Dimensions: 256}, 0, "text-embedding-3-small@256", 256, false},
		{"negative dimensions", Config{Model: "m", Dimensions: -1}, 0, "", 0, true},
		{"negative batch", Config{Model: "m", Batch: -1}, 0, "", 0, true},
		{"negative retries", Config{Model: "m", MaxRetries: -1}, 0, "", 0, true},
		{"negative timeout", Config{Model: "m", Timeout: -time.Second}, 0, "", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e, err := New(tt.cfg, tt.hashingDim)
			if tt.wantErr {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.wantModel, e.Model())
			require.Equal(t, tt.wantDim, e.Dimension())
		})
	}
	_, err := NewOpenAI(Config{})
	require.Error(t, err)
}

// TestConfigFromEnv checks that the env tags and DefaultConfig agree, and
// that every variable is read.
func TestConfigFromEnv(t *testing.T) {
	t.Parallel()
	var defaults Config
	require.NoError(t, env.ParseWithOptions(&defaults, env.Options{Environment: map[string]string{}}))
	require.Equal(t, DefaultConfig, defaults)

	var cfg Config
	require.NoError(t, env.ParseWithOptions(&cfg, env.Options{Environment: map[string]string{
		"EMBED_BASE_URL":    "http://localhost:11434/v1",
		"EMBED_API_KEY":     "sk-secret",
		"EMBED_MODEL":       "nomic-embed-text",
		"EMBED_DIMENSIONS":  "512",
		"EMBED_TIMEOUT":     "5s",
		"EMBED_BATCH":       "16",
		"EMBED_MAX_RETRIES": "1",
	}}))
	require.Equal(t, Config{
		BaseURL: "http://localhost:11434/v1", APIKey: "sk-secret", Model: "nomic-embed-text",
		Dimensions: 512, Timeout: 5 * time.Second, Batch: 16, MaxRetries: 1,
	}, cfg)
	logged := cfg.LogValue().String()
	require.NotContains(t, logged, "sk-secret")
	require.Contains(t, logged, "nomic-embed-text")
}

func TestParseRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name    string
		headers map[string]string
		want    time.Duration
	}{
		{"none", nil, 0},
		{"seconds", map[string]string{"Retry-After": "7"}, 7 * time.Second},
		{"zero", map[string]string{"Retry-After": "0"}, 0},
		{"negative", map[string]string{"Retry-After": "-3"}, 0},
		{"garbage", map[string]string{"Retry-After": "soon"}, 0},
		{"http date", map[string]string{"Retry-After": now.Add(90 * time.Second).Format(http.TimeFormat)}, 90 * time.Second},
		{"http date in the past", map[string]string{"Retry-After": now.Add(-time.Minute).Format(http.TimeFormat)}, 0},
		{"milliseconds win", map[string]string{"Retry-After-Ms": "250", "Retry-After": "1"}, 250 * time.Millisecond},
		{"bad milliseconds fall back", map[string]string{"Retry-After-Ms": "x", "Retry-After": "2"}, 2 * time.Second},
		{"huge seconds are clamped", map[string]string{"Retry-After": strconv.Itoa(1 << 40)}, retryAfterCeiling},
		{"huge milliseconds are clamped", map[string]string{"Retry-After-Ms": "1e300"}, retryAfterCeiling},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := http.Header{}
			for k, v := range tt.headers {
				h.Set(k, v)
			}
			require.Equal(t, tt.want, parseRetryAfter(h, now))
		})
	}
}
