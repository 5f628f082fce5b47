package llm

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/caarlos0/env/v11"
	"github.com/cenkalti/backoff/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/openaitest"
	"github.com/recallhq/recall/pkg/envconfig"
)

// bundle is what a client test needs: the client, the fake server it talks
// to and the record of the waits between its attempts.
type bundle struct {
	c     *Client
	srv   *openaitest.Server
	waits *waits
}

// setup starts a fake server and a client pointed at it, with the env
// defaults unless tweak changes them. The client's timers fire at once and
// record what they were asked to wait, so retry tests take no wall-clock
// time.
func setup(t *testing.T, tweak func(*Config)) bundle {
	t.Helper()
	srv := openaitest.New(t)
	cfg := envconfig.Defaults[Config]()
	cfg.BaseURL = srv.URL() + "/v1"
	cfg.APIKey = "test-key"
	cfg.Model = "test-model"
	if tweak != nil {
		tweak(&cfg)
	}
	c, err := New("test", cfg, nil, nil)
	require.NoError(t, err)
	w := &waits{}
	c.newTimer = func() backoff.Timer { return &instantTimer{w: w, c: make(chan time.Time, 1)} }
	return bundle{c: c, srv: srv, waits: w}
}

// waits records the waits a client asked for between attempts.
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

// accept is a parser that takes any answer.
func accept(string) error { return nil }

// headers builds response headers from name, value pairs.
func headers(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	return h
}

// TestRetryAfterRule checks the one wait rule, min(RetryMax, max(backoff,
// Retry-After)), on both endpoints: the server's wish is honoured up to
// RetryMax, and a longer one is cut to RetryMax and retried.
func TestRetryAfterRule(t *testing.T) {
	t.Parallel()
	cfg := envconfig.Defaults[Config]()
	initial, retryMax := cfg.RetryInitial, cfg.RetryMax
	tests := []struct {
		name     string
		header   http.Header
		min, max time.Duration
	}{
		{"Retry-After honoured", headers("Retry-After", "3"), 3 * time.Second, 3 * time.Second},
		{"fractional Retry-After honoured", headers("Retry-After", "2.5"), 2500 * time.Millisecond, 2500 * time.Millisecond},
		{"retry-after-ms wins", headers("Retry-After-Ms", "1500", "Retry-After", "2"), 1500 * time.Millisecond, 1500 * time.Millisecond},
		{"Retry-After as a date", headers("Retry-After", time.Now().Add(5*time.Second).UTC().Format(http.TimeFormat)), 3 * time.Second, 5 * time.Second},
		{"Retry-After beyond RetryMax is capped", headers("Retry-After", "3600"), retryMax, retryMax},
		{"retry-after-ms beyond RetryMax is capped", headers("Retry-After-Ms", "90000"), retryMax, retryMax},
		{"shorter than the backoff: the backoff", headers("Retry-After-Ms", "1"), initial / 2, initial * 3 / 2},
		{"no Retry-After: the backoff", nil, initial / 2, initial * 3 / 2},
	}
	endpoints := []struct {
		name string
		call func(t *testing.T, b bundle, reply openaitest.Reply) int // returns requests sent
	}{
		{"chat", func(t *testing.T, b bundle, reply openaitest.Reply) int {
			b.srv.Enqueue(reply)
			require.NoError(t, b.c.Complete(t.Context(), "system", "user", accept))
			return len(b.srv.ChatRequests())
		}},
		{"embeddings", func(t *testing.T, b bundle, reply openaitest.Reply) int {
			b.srv.EnqueueEmbeddings(reply)
			vecs, err := b.c.Embed(t.Context(), []string{"三体"}, EmbedOptions{})
			require.NoError(t, err)
			require.Equal(t, [][]float32{openaitest.Vector("三体", openaitest.DefaultDimensions)}, vecs)
			return len(b.srv.Requests())
		}},
	}
	for _, ep := range endpoints {
		for _, status := range []int{http.StatusTooManyRequests, http.StatusServiceUnavailable} {
			for _, tt := range tests {
				t.Run(ep.name+"/"+strconv.Itoa(status)+"/"+tt.name, func(t *testing.T) {
					t.Parallel()
					b := setup(t, nil)
					requests := ep.call(t, b, openaitest.Reply{Status: status, Header: tt.header})
					require.Equal(t, 2, requests)
					got := b.waits.List()
					require.Len(t, got, 1)
					require.GreaterOrEqual(t, got[0], tt.min)
					require.LessOrEqual(t, got[0], tt.max)
				})
			}
		}
	}
}

// TestRetryMaxCapsEveryWait checks that no wait exceeds RetryMax, however the
// jittered backoff grows.
func TestRetryMaxCapsEveryWait(t *testing.T) {
	t.Parallel()
	b := setup(t, func(c *Config) {
		c.MaxRetries = 8
		c.RetryInitial = 100 * time.Millisecond
		c.RetryMax = 400 * time.Millisecond
	})
	b.srv.SetDefault(openaitest.Reply{Status: 500})
	err := b.c.Complete(t.Context(), "s", "u", accept)
	require.Equal(t, ReasonServerError, Reason(err))
	got := b.waits.List()
	require.Len(t, got, 8)
	for i, d := range got {
		require.LessOrEqual(t, d, 400*time.Millisecond, "wait %d", i)
	}
	require.GreaterOrEqual(t, got[len(got)-1], 200*time.Millisecond, "late waits grow to the cap, less the jitter")
}

// TestEmbedRetries covers which embeddings failures are retried, and how
// the waits between them honour the server.
func TestEmbedRetries(t *testing.T) {
	t.Parallel()
	retryInitial := envconfig.Defaults[Config]().RetryInitial
	never := make(chan struct{})
	type R = openaitest.Reply
	tests := []struct {
		name         string
		tweak        func(*Config)
		timeout      bool // attempts end when the server holds them
		script       []R
		wantRequests int
		wantErr      string          // a part of the error message, when one is expected
		minWaits     []time.Duration // lower bound of each recorded wait
	}{
		{
			name:         "429 with Retry-After then success",
			script:       []R{{Status: 429, RetryAfter: "3"}},
			wantRequests: 2,
			minWaits:     []time.Duration{3 * time.Second},
		},
		{
			name:         "429 with retry-after-ms then success",
			script:       []R{{Status: 429, RetryAfter: "2", Header: headers("Retry-After-Ms", "1500")}},
			wantRequests: 2,
			minWaits:     []time.Duration{1500 * time.Millisecond},
		},
		{
			name:         "429 without Retry-After then success",
			script:       []R{{Status: 429}},
			wantRequests: 2,
			minWaits:     []time.Duration{retryInitial / 2},
		},
		{
			name:         "500 then success",
			script:       []R{{Status: 500}},
			wantRequests: 2,
			minWaits:     []time.Duration{retryInitial / 2},
		},
		{
			name:         "503 twice then success",
			script:       []R{{Status: 503}, {Status: 502}},
			wantRequests: 3,
			minWaits:     []time.Duration{retryInitial / 2, retryInitial / 2},
		},
		{
			name:         "409 then success",
			script:       []R{{Status: 409}},
			wantRequests: 2,
			minWaits:     []time.Duration{retryInitial / 2},
		},
		{
			// The attempt ends once the server holds it (TimeoutWhenHeld):
			// a real 50 ms could end it before it is sent.
			name:         "timeout then success",
			timeout:      true,
			script:       []R{{Wait: never}},
			wantRequests: 2,
			minWaits:     []time.Duration{retryInitial / 2},
		},
		{
			name:         "retries exhausted",
			tweak:        func(c *Config) { c.MaxRetries = 2 },
			script:       []R{{Status: 500}, {Status: 500}, {Status: 500}, {Status: 500}},
			wantRequests: 3,
			wantErr:      "3 attempts",
			minWaits:     []time.Duration{0, 0},
		},
		{
			name:         "no retries configured",
			tweak:        func(c *Config) { c.MaxRetries = 0 },
			script:       []R{{Status: 500}},
			wantRequests: 1,
			wantErr:      "500",
		},
		{
			name:         "400 is not retried",
			script:       []R{{Status: 400}},
			wantRequests: 1,
			wantErr:      "400",
		},
		{
			name:         "401 is not retried",
			script:       []R{{Status: 401}},
			wantRequests: 1,
			wantErr:      "401",
		},
		{
			name:         "Retry-After beyond RetryMax waits RetryMax",
			script:       []R{{Status: 429, RetryAfter: "3600"}},
			wantRequests: 2,
			minWaits:     []time.Duration{envconfig.Defaults[Config]().RetryMax},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, tt.tweak)
			if tt.timeout {
				b.c.SetAttemptTimeout(b.srv.TimeoutWhenHeld)
			}
			b.srv.EnqueueEmbeddings(tt.script...)
			got, err := b.c.Embed(t.Context(), []string{"三体", "Dune"}, EmbedOptions{})
			require.Len(t, b.srv.Requests(), tt.wantRequests)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				require.Nil(t, got)
			} else {
				require.NoError(t, err)
				require.Equal(t, openaitest.Vector("三体", openaitest.DefaultDimensions), got[0])
				require.Equal(t, openaitest.Vector("Dune", openaitest.DefaultDimensions), got[1])
			}
			recorded := b.waits.List()
			require.Len(t, recorded, len(tt.minWaits))
			for i, least := range tt.minWaits {
				require.GreaterOrEqual(t, recorded[i], least, "wait %d", i)
				require.LessOrEqual(t, recorded[i], b.c.cfg.RetryMax, "wait %d", i)
			}
		})
	}
}

// TestAttemptTimeout: Config.Timeout ends an attempt the server holds, as a
// timeout. It counts attempts at the client, not at the server: a request
// abandoned before a loaded machine sent it is an attempt all the same.
func TestAttemptTimeout(t *testing.T) {
	t.Parallel()
	b := setup(t, func(c *Config) { c.Timeout = 50 * time.Millisecond; c.MaxRetries = 1 })
	b.srv.SetDefault(openaitest.Reply{Delay: time.Minute})
	start := time.Now()
	err := b.c.Complete(t.Context(), "s", "u", func(string) error { return nil })
	var le *Error
	require.ErrorAs(t, err, &le)
	require.Equal(t, ReasonTimeout, le.Reason)
	require.Equal(t, 2, le.Attempts)
	require.Less(t, time.Since(start), 30*time.Second, "the server's minute is not waited out")
	require.Eventually(t, func() bool { return b.srv.InFlight() == 0 }, 10*time.Second, 5*time.Millisecond)
}

// TestEmbedCancelStopsRetries cancels the caller's context while the client
// waits to retry: it must return at once with the context's error.
func TestEmbedCancelStopsRetries(t *testing.T) {
	t.Parallel()
	b := setup(t, func(c *Config) { c.MaxRetries = 5 })
	b.srv.EnqueueEmbeddings(openaitest.Reply{Status: 503}, openaitest.Reply{Status: 503}, openaitest.Reply{Status: 503})
	ctx, cancel := context.WithCancel(t.Context())
	b.waits.onStart = cancel
	_, err := b.c.Embed(ctx, []string{"三体"}, EmbedOptions{})
	require.ErrorIs(t, err, context.Canceled)
	require.Len(t, b.srv.Requests(), 1)
}

func TestEmbedBatches(t *testing.T) {
	t.Parallel()
	idx := func(i int) *int { return &i }
	tests := []struct {
		name      string
		n         int
		opts      EmbedOptions
		replies   []openaitest.Reply
		wantSizes []int
		wantDims  int
		wantErr   error
	}{
		{name: "batches in order", n: 5, opts: EmbedOptions{Batch: 2}, wantSizes: []int{2, 2, 1}, wantDims: openaitest.DefaultDimensions},
		{name: "no batch: one request", n: 5, wantSizes: []int{5}, wantDims: openaitest.DefaultDimensions},
		{name: "dimensions sent", n: 3, opts: EmbedOptions{Batch: 2, Dimensions: 16}, wantSizes: []int{2, 1}, wantDims: 16},
		{
			name:    "a later batch of another length",
			n:       3,
			opts:    EmbedOptions{Batch: 2},
			replies: []openaitest.Reply{{}, {Data: []openaitest.Embedding{{Index: idx(0), Embedding: make([]float32, 12)}}}},
			wantErr: ErrDimensionMismatch,
		},
		{
			name:    "not the requested length",
			n:       1,
			opts:    EmbedOptions{Dimensions: 16},
			replies: []openaitest.Reply{{Data: []openaitest.Embedding{{Index: idx(0), Embedding: make([]float32, 8)}}}},
			wantErr: ErrDimensionMismatch,
		},
		{
			name:    "fewer vectors than inputs",
			n:       2,
			replies: []openaitest.Reply{{Data: []openaitest.Embedding{{Index: idx(0), Embedding: []float32{1}}}}},
			wantErr: ErrBadEmbeddings,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, nil)
			b.srv.EnqueueEmbeddings(tt.replies...)
			in := make([]string, tt.n)
			for i := range in {
				in[i] = "text " + strconv.Itoa(i)
			}
			got, err := b.c.Embed(t.Context(), in, tt.opts)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				require.ErrorIs(t, err, ErrBadEmbeddings)
				require.Equal(t, ReasonMalformed, Reason(err))
				require.Len(t, b.srv.Requests(), len(tt.replies), "a bad response is not retried")
				return
			}
			require.NoError(t, err)
			var sizes []int
			for _, r := range b.srv.Requests() {
				sizes = append(sizes, len(r.Input))
				require.Equal(t, "test-model", r.Model)
				require.Equal(t, "float", r.EncodingFormat)
				require.Equal(t, tt.opts.Dimensions, r.Dimensions)
			}
			require.Equal(t, tt.wantSizes, sizes)
			for i, text := range in {
				require.Equal(t, openaitest.Vector(text, tt.wantDims), got[i])
			}
		})
	}
}

// TestComplete covers what Complete does with answers, whatever the caller
// asks: a parser's refusal and a cut-off answer are retried as malformed, a
// refused request is not, and the caller's cancellation is returned as such.
func TestComplete(t *testing.T) {
	t.Parallel()
	type R = openaitest.Reply
	tests := []struct {
		name         string
		replies      []R
		wantReason   string // "" means success
		wantAttempts int
	}{
		{name: "accepted", replies: []R{{Content: `{"ok":true}`}}, wantAttempts: 1},
		{name: "refused by the parser, then accepted", replies: []R{{Content: "no"}, {Content: `{"ok":true}`}}, wantAttempts: 2},
		{name: "cut off, then accepted", replies: []R{{Content: `{"ok":`, FinishReason: "length"}, {Content: `{"ok":true}`}}, wantAttempts: 2},
		{name: "always refused by the parser", replies: []R{{Content: "no"}, {Content: "no"}, {Content: "no"}, {Content: "no"}}, wantReason: ReasonMalformed, wantAttempts: 4},
		{name: "request refused", replies: []R{{Status: 404, Message: "model not found"}}, wantReason: ReasonRejected, wantAttempts: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, nil)
			b.srv.Enqueue(tt.replies...)
			var got string
			err := b.c.Complete(t.Context(), "system", "user", func(content string) error {
				if content != `{"ok":true}` {
					return errors.New("not ok")
				}
				got = content
				return nil
			})
			require.Len(t, b.srv.ChatRequests(), tt.wantAttempts)
			if tt.wantReason == "" {
				require.NoError(t, err)
				require.Equal(t, `{"ok":true}`, got)
				return
			}
			var e *Error
			require.ErrorAs(t, err, &e)
			require.Equal(t, tt.wantReason, e.Reason)
			require.Equal(t, tt.wantAttempts, e.Attempts)
			require.Equal(t, tt.wantReason, Reason(err))
		})
	}

	t.Run("caller gone", func(t *testing.T) {
		t.Parallel()
		b := setup(t, nil)
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		err := b.c.Complete(ctx, "s", "u", accept)
		require.ErrorIs(t, err, context.Canceled)
		require.Equal(t, ReasonError, Reason(err))
		require.Empty(t, b.srv.Requests())
	})
}

func TestErrorMessage(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	require.Equal(t, "llm: rate_limited after 1 attempt: boom", (&Error{Reason: ReasonRateLimited, Attempts: 1, Err: boom}).Error())
	require.Equal(t, "llm: timeout after 4 attempts: boom", (&Error{Reason: ReasonTimeout, Attempts: 4, Err: boom}).Error())
	require.ErrorIs(t, &Error{Err: boom}, boom)
	require.Equal(t, ReasonError, Reason(boom))
}

func TestParseRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name    string
		headers map[string]string
		want    time.Duration
	}{
		{"absent", nil, 0},
		{"seconds", map[string]string{"Retry-After": "3"}, 3 * time.Second},
		{"fractional seconds", map[string]string{"Retry-After": "0.5"}, 500 * time.Millisecond},
		{"zero", map[string]string{"Retry-After": "0"}, 0},
		{"negative", map[string]string{"Retry-After": "-4"}, 0},
		{"not a number", map[string]string{"Retry-After": "NaN"}, 0},
		{"http date", map[string]string{"Retry-After": now.Add(7 * time.Second).Format(http.TimeFormat)}, 7 * time.Second},
		{"date in the past", map[string]string{"Retry-After": now.Add(-time.Hour).Format(http.TimeFormat)}, 0},
		{"garbage", map[string]string{"Retry-After": "soon"}, 0},
		{"milliseconds win", map[string]string{"Retry-After-Ms": "250", "Retry-After": "3"}, 250 * time.Millisecond},
		{"bad milliseconds fall back", map[string]string{"Retry-After-Ms": "x", "Retry-After": "2"}, 2 * time.Second},
		{"huge seconds are clamped", map[string]string{"Retry-After": strconv.Itoa(1 << 40)}, retryAfterCeiling},
		{"infinite seconds are clamped", map[string]string{"Retry-After": "Inf"}, retryAfterCeiling},
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

func TestAnswerBody(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"plain", ` {"a":1} `, `{"a":1}`},
		{"json fence", "```json\n{\"a\":1}\n```", `{"a":1}`},
		{"bare fence", "```\n{\"a\":1}\n```", `{"a":1}`},
		{"one-line fence", "```json {\"a\":1}```", `{"a":1}`},
		{"think block then fence", "<think>hmm</think>\n```json\n{\"a\":1}\n```", `{"a":1}`},
		{"unclosed think kept", "<think>hmm {\"a\":1}", "<think>hmm {\"a\":1}"},
		{"unclosed fence kept", "```json\n{\"a\":1}", "```json\n{\"a\":1}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, AnswerBody(tt.in))
		})
	}
}

func TestConfig(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		env     map[string]string
		want    Config
		enabled bool
	}{
		{
			name: "defaults",
			env:  map[string]string{},
			want: Config{
				Timeout: 20 * time.Second, MaxRetries: 3, MaxConcurrency: 4, MaxTokens: 300,
				RetryInitial: 500 * time.Millisecond, RetryMax: 10 * time.Second,
			},
		},
		{
			name: "everything set",
			env: map[string]string{
				"LLM_BASE_URL": "http://localhost:11434/v1", "LLM_API_KEY": "k", "LLM_MODEL": "qwen2.5:7b",
				"LLM_TIMEOUT": "5s", "LLM_MAX_RETRIES": "0", "LLM_MAX_CONCURRENCY": "8", "LLM_MAX_TOKENS": "500",
				"LLM_TEMPERATURE": "0.2", "LLM_RETRY_INITIAL": "1s", "LLM_RETRY_MAX": "30s",
			},
			want: Config{
				BaseURL: "http://localhost:11434/v1", APIKey: "k", Model: "qwen2.5:7b",
				Timeout: 5 * time.Second, MaxRetries: 0, MaxConcurrency: 8, MaxTokens: 500, Temperature: 0.2,
				RetryInitial: time.Second, RetryMax: 30 * time.Second,
			},
			enabled: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := env.ParseAsWithOptions[Config](env.Options{Environment: tt.env})
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
			require.Equal(t, tt.enabled, got.Enabled())
		})
	}
	require.Equal(t, tests[0].want, envconfig.Defaults[Config]())
}

func TestNew(t *testing.T) {
	t.Parallel()
	valid := envconfig.Defaults[Config]()
	valid.Model = "m"
	tests := []struct {
		name    string
		tweak   func(*Config)
		wantErr string
	}{
		{"defaults and a model", func(*Config) {}, ""},
		{"no model", func(c *Config) { c.Model = " " }, "LLM_MODEL"},
		{"zero timeout", func(c *Config) { c.Timeout = 0 }, "LLM_TIMEOUT"},
		{"negative retries", func(c *Config) { c.MaxRetries = -1 }, "LLM_MAX_RETRIES"},
		{"negative concurrency", func(c *Config) { c.MaxConcurrency = -1 }, "LLM_MAX_CONCURRENCY"},
		{"no concurrency cap", func(c *Config) { c.MaxConcurrency = 0 }, ""},
		{"negative max tokens", func(c *Config) { c.MaxTokens = -1 }, "LLM_MAX_TOKENS"},
		{"zero retry initial", func(c *Config) { c.RetryInitial = 0 }, "LLM_RETRY_INITIAL"},
		{"retry max below initial", func(c *Config) { c.RetryMax = time.Millisecond }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := valid
			tt.tweak(&cfg)
			c, err := New("test", cfg, nil, nil)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.GreaterOrEqual(t, c.cfg.RetryMax, c.cfg.RetryInitial, "RetryMax is raised to RetryInitial")
			require.Equal(t, cfg.MaxConcurrency == 0, c.sem == nil)
		})
	}

	t.Run("metrics shared on one registry", func(t *testing.T) {
		t.Parallel()
		reg := prometheus.NewRegistry()
		first, err := New("extract", valid, reg, nil)
		require.NoError(t, err)
		second, err := New("extract", valid, reg, nil)
		require.NoError(t, err, "a second client on the same registry shares the metrics")
		require.Same(t, first.metrics.requests, second.metrics.requests)
		other, err := New("summarize", valid, reg, nil)
		require.NoError(t, err)
		require.NotSame(t, first.metrics.requests, other.metrics.requests)
		names := map[string]bool{}
		families, err := reg.Gather()
		require.NoError(t, err)
		for _, f := range families {
			names[f.GetName()] = true
		}
		for _, want := range []string{
			"recall_extract_llm_requests_total", "recall_extract_llm_fallbacks_total", "recall_extract_llm_request_seconds",
			"recall_summarize_llm_requests_total", "recall_summarize_llm_fallbacks_total",
		} {
			require.True(t, names[want], want)
		}
	})
}
