package embed

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/caarlos0/env/v11"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/openaitest"
	"github.com/recallhq/recall/pkg/envconfig"
)

// fakeNativeDim is the fake model's dimension when none is requested.
const fakeNativeDim = openaitest.DefaultDimensions

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

func requestDim(req openaitest.Request) int {
	if req.Dimensions > 0 {
		return req.Dimensions
	}
	return fakeNativeDim
}

// ok answers like a healthy endpoint, listing the data in reverse order so
// that clients must use the indices.
func ok(req openaitest.Request) openaitest.Reply {
	data := make([]openaitest.Embedding, len(req.Input))
	for i, text := range req.Input {
		data[i] = openaitest.Embedding{Index: &i, Embedding: fakeVector(text, requestDim(req))}
	}
	slices.Reverse(data)
	return openaitest.Reply{Data: data}
}

// setup returns an embedder talking to a fake server that plays script, one
// reply per request, and answers like ok once it runs out. tweak adjusts the
// env defaults.
func setup(t *testing.T, tweak func(*Config), script ...openaitest.Reply) (*OpenAI, *openaitest.Server) {
	t.Helper()
	srv := openaitest.New(t)
	srv.RespondEmbeddings(ok)
	srv.EnqueueEmbeddings(script...)
	cfg := envconfig.Defaults[Config]()
	cfg.Model = "test-embed"
	if tweak != nil {
		tweak(&cfg)
	}
	cfg.BaseURL = srv.URL() + "/v1"
	o, err := NewOpenAI(cfg)
	require.NoError(t, err)
	return o, srv
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
			o, f := setup(t, func(c *Config) {
				c.APIKey = "sk-test"
				if tt.batch > 0 {
					c.Batch = tt.batch
				}
			})
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
				require.Equal(t, "Bearer sk-test", r.Header.Get("Authorization"))
				require.Equal(t, "float", r.EncodingFormat)
				require.NotContains(t, string(r.Body), "dimensions", "dimensions sent although not configured")
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

func TestOpenAIBadResponses(t *testing.T) {
	t.Parallel()
	idx := func(i int) *int { return &i }
	vec := func(n int) []float32 { return fakeVector("x", n) }
	tests := []struct {
		name     string
		dims     int
		data     []openaitest.Embedding
		mismatch bool
	}{
		{
			name: "fewer vectors than inputs",
			data: []openaitest.Embedding{{Index: idx(0), Embedding: vec(8)}},
		},
		{
			name: "more vectors than inputs",
			data: []openaitest.Embedding{{Index: idx(0), Embedding: vec(8)}, {Index: idx(1), Embedding: vec(8)}, {Index: idx(2), Embedding: vec(8)}},
		},
		{
			name:     "mixed dimensions",
			data:     []openaitest.Embedding{{Index: idx(0), Embedding: vec(8)}, {Index: idx(1), Embedding: vec(12)}},
			mismatch: true,
		},
		{
			name:     "not the requested dimension",
			dims:     16,
			data:     []openaitest.Embedding{{Index: idx(0), Embedding: vec(8)}, {Index: idx(1), Embedding: vec(8)}},
			mismatch: true,
		},
		{
			name: "empty vector",
			data: []openaitest.Embedding{{Index: idx(0), Embedding: vec(8)}, {Index: idx(1), Embedding: []float32{}}},
		},
		{
			name: "repeated index",
			data: []openaitest.Embedding{{Index: idx(1), Embedding: vec(8)}, {Index: idx(1), Embedding: vec(8)}},
		},
		{
			name: "index out of range",
			data: []openaitest.Embedding{{Index: idx(0), Embedding: vec(8)}, {Index: idx(2), Embedding: vec(8)}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o, f := setup(t, func(c *Config) { c.Dimensions = tt.dims }, openaitest.Reply{Data: tt.data})
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
	zero := 0
	eight := openaitest.Reply{Data: []openaitest.Embedding{{Index: &zero, Embedding: fakeVector("三体", fakeNativeDim)}}}
	twelve := openaitest.Reply{Data: []openaitest.Embedding{{Index: &zero, Embedding: fakeVector("Dune", 12)}}}
	o, _ := setup(t, nil, eight, twelve)
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
			o, f := setup(t, func(c *Config) { c.Dimensions = tt.dims })
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
				require.Equal(t, tt.dims, reqs[0].Dimensions)
			} else {
				require.NotContains(t, string(reqs[0].Body), "dimensions")
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
			o, f := setup(t, func(c *Config) { c.Dimensions = tt.dims })
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
	in := []string{"三体", "Dune", "jazz"}
	var data []openaitest.Embedding
	for _, text := range in {
		data = append(data, openaitest.Embedding{Embedding: fakeVector(text, fakeNativeDim)})
	}
	o, _ := setup(t, nil, openaitest.Reply{Data: data})
	got, err := o.Embed(t.Context(), in)
	require.NoError(t, err)
	for i, text := range in {
		require.InDeltaSlice(t, wantVector(text, fakeNativeDim), got[i], 1e-6)
	}
}

func TestNew(t *testing.T) {
	t.Parallel()
	with := func(tweak func(*Config)) Config {
		cfg := envconfig.Defaults[Config]()
		tweak(&cfg)
		return cfg
	}
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
		{"model: openai", with(func(c *Config) { c.Model, c.Batch = "bge-m3", 8 }), 64, "bge-m3", 0, false},
		{"model and dimensions", with(func(c *Config) { c.Model, c.Dimensions = "text-embedding-3-small", 256 }), 0, "text-embedding-3-small@256", 256, false},
		{"negative dimensions", with(func(c *Config) { c.Model, c.Dimensions = "m", -1 }), 0, "", 0, true},
		{"negative batch", with(func(c *Config) { c.Model, c.Batch = "m", -1 }), 0, "", 0, true},
		{"zero batch", with(func(c *Config) { c.Model, c.Batch = "m", 0 }), 0, "", 0, true},
		{"negative retries", with(func(c *Config) { c.Model, c.MaxRetries = "m", -1 }), 0, "", 0, true},
		{"negative timeout", with(func(c *Config) { c.Model, c.Timeout = "m", -time.Second }), 0, "", 0, true},
		{"zero timeout", with(func(c *Config) { c.Model, c.Timeout = "m", 0 }), 0, "", 0, true},
		{"zero retry initial", with(func(c *Config) { c.Model, c.RetryInitial = "m", 0 }), 0, "", 0, true},
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

// TestConfigFromEnv checks the env tags' defaults, which envconfig.Defaults
// reads for code that builds a Config, and that every variable is read.
func TestConfigFromEnv(t *testing.T) {
	t.Parallel()
	var defaults Config
	require.NoError(t, env.ParseWithOptions(&defaults, env.Options{Environment: map[string]string{}}))
	require.Equal(t, Config{Timeout: 20 * time.Second, Batch: 64, MaxRetries: 3, RetryInitial: 500 * time.Millisecond, RetryMax: 10 * time.Second}, defaults)
	require.Equal(t, defaults, envconfig.Defaults[Config]())

	var cfg Config
	require.NoError(t, env.ParseWithOptions(&cfg, env.Options{Environment: map[string]string{
		"EMBED_BASE_URL":      "http://localhost:11434/v1",
		"EMBED_API_KEY":       "sk-secret",
		"EMBED_MODEL":         "nomic-embed-text",
		"EMBED_DIMENSIONS":    "512",
		"EMBED_TIMEOUT":       "5s",
		"EMBED_BATCH":         "16",
		"EMBED_MAX_RETRIES":   "1",
		"EMBED_RETRY_INITIAL": "1s",
		"EMBED_RETRY_MAX":     "30s",
	}}))
	require.Equal(t, Config{
		BaseURL: "http://localhost:11434/v1", APIKey: "sk-secret", Model: "nomic-embed-text",
		Dimensions: 512, Timeout: 5 * time.Second, Batch: 16, MaxRetries: 1,
		RetryInitial: time.Second, RetryMax: 30 * time.Second,
	}, cfg)
	logged := cfg.LogValue().String()
	require.NotContains(t, logged, "sk-secret")
	require.Contains(t, logged, "nomic-embed-text")
}
