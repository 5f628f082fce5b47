package extract

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/openaitest"
	"github.com/recallhq/recall/pkg/envconfig"
	"github.com/recallhq/recall/pkg/llm"
)

// llmBundle is what an LLM test needs: the extractor, the fake server it
// talks to and the registry its metrics are on.
type llmBundle struct {
	llm *LLM
	srv *openaitest.Server
	reg *prometheus.Registry
}

// setupLLM starts a fake server and an LLM pointed at it, with delays small
// enough to keep the suite fast. tweak adjusts the config before use.
func setupLLM(t *testing.T, tweak func(*llm.Config)) llmBundle {
	t.Helper()
	srv := openaitest.New(t)
	cfg := envconfig.Defaults[llm.Config]()
	cfg.BaseURL = srv.URL() + "/v1"
	cfg.APIKey = "test-key"
	cfg.Model = "test-model"
	cfg.Timeout = 2 * time.Second
	cfg.MaxRetries = 2
	cfg.MaxConcurrency = 4
	cfg.MaxTokens = 123
	cfg.RetryInitial = time.Millisecond
	cfg.RetryMax = 20 * time.Millisecond
	if tweak != nil {
		tweak(&cfg)
	}
	reg := prometheus.NewRegistry()
	l, err := NewLLM(cfg, reg, nil)
	require.NoError(t, err)
	return llmBundle{llm: l, srv: srv, reg: reg}
}

// Outcomes of one request, the label of recall_extract_llm_requests_total.
const (
	outcomeOK        = "ok"
	outcomeRetry     = "retry"
	outcomeMalformed = "malformed"
	outcomeError     = "error"
)

// requests returns the value of the requests metric for outcome.
func (b llmBundle) requests(outcome string) int {
	return b.counter("recall_extract_llm_requests_total", "outcome", outcome)
}

// fallbacks returns the value of the fallbacks metric for reason.
func (b llmBundle) fallbacks(reason string) int {
	return b.counter("recall_extract_llm_fallbacks_total", "reason", reason)
}

// counter reads the counter name{label=value} from the bundle's registry;
// -1 when it is not there, which no assertion expects.
func (b llmBundle) counter(name, label, value string) int {
	families, err := b.reg.Gather()
	if err != nil {
		return -1
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == label && l.GetValue() == value {
					return int(m.GetCounter().GetValue())
				}
			}
		}
	}
	return -1
}

// staticExtractor answers with fixed facts and counts its calls, standing in
// for the rules where what they find does not matter.
type staticExtractor struct {
	facts []Fact
	err   error
	mu    sync.Mutex
	calls int
}

func (s *staticExtractor) Extract(context.Context, Input) ([]Fact, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	return s.facts, s.err
}

func (s *staticExtractor) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

const goodAnswer = `{"books":["《三体》","三体"],"authors":["刘慈欣"," Frank  Herbert "],` +
	`"films":["The Godfather"],"music":[],"people":["葛优"],"genres":["科幻"],` +
	`"topics":["人工智能"],"places":["北京"]}`

var goodFacts = []Fact{
	{Kind: KindBookTitle, Value: "三体", Display: "三体"},
	{Kind: KindAuthor, Value: "刘慈欣", Display: "刘慈欣"},
	{Kind: KindAuthor, Value: "frank herbert", Display: "Frank Herbert"},
	{Kind: KindFilm, Value: "the godfather", Display: "The Godfather"},
	{Kind: KindPerson, Value: "葛优", Display: "葛优"},
	{Kind: KindGenre, Value: "科幻", Display: "科幻"},
	{Kind: KindTopic, Value: "人工智能", Display: "人工智能"},
}

func TestParseLLMAnswer(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("长", MaxFactRunes+1)
	tests := []struct {
		name    string
		content string
		want    []Fact
		wantErr bool
	}{
		{name: "every kind, normalized and deduped", content: goodAnswer, want: goodFacts},
		{
			name:    "minimal schema",
			content: `{"books":["Dune"],"authors":["Frank Herbert"],"topics":["ecology"]}`,
			want: []Fact{
				{Kind: KindBookTitle, Value: "dune", Display: "Dune"},
				{Kind: KindAuthor, Value: "frank herbert", Display: "Frank Herbert"},
				{Kind: KindTopic, Value: "ecology", Display: "ecology"},
			},
		},
		{name: "json fence", content: "```json\n{\"books\":[\"三体\"]}\n```", want: []Fact{{Kind: KindBookTitle, Value: "三体", Display: "三体"}}},
		{name: "bare fence", content: "  ```\n{\"genres\":[\"jazz\"]}\n```  ", want: []Fact{{Kind: KindGenre, Value: "jazz", Display: "jazz"}}},
		{name: "one-line fence", content: "```json {\"music\":[\"Yesterday\"]}```", want: []Fact{{Kind: KindMusic, Value: "yesterday", Display: "Yesterday"}}},
		{name: "think block", content: "<think>the user reads</think>\n{\"books\":[\"活着\"]}", want: []Fact{{Kind: KindBookTitle, Value: "活着", Display: "活着"}}},
		{name: "empty object", content: `{}`},
		{name: "empty arrays", content: `{"books":[],"authors":[],"topics":[]}`},
		{name: "null array counts as empty", content: `{"books":null,"topics":["history"]}`, want: []Fact{{Kind: KindTopic, Value: "history", Display: "history"}}},
		{name: "unknown keys ignored", content: `{"places":["北京"],"Books":["x"],"note":"hi"}`},
		{name: "blank and over-long names dropped", content: `{"books":["", "  ", "《》", "` + long + `", "ok"]}`, want: []Fact{{Kind: KindBookTitle, Value: "ok", Display: "ok"}}},
		{name: "same value in two kinds kept", content: `{"books":["三体"],"films":["三体"]}`, want: []Fact{{Kind: KindBookTitle, Value: "三体", Display: "三体"}, {Kind: KindFilm, Value: "三体", Display: "三体"}}},
		{name: "plain text", content: "The user likes 三体.", wantErr: true},
		{name: "array", content: `["三体"]`, wantErr: true},
		{name: "null", content: `null`, wantErr: true},
		{name: "empty", content: ``, wantErr: true},
		{name: "string instead of array", content: `{"books":"三体"}`, wantErr: true},
		{name: "objects instead of strings", content: `{"books":[{"title":"三体"}]}`, wantErr: true},
		{name: "numbers instead of strings", content: `{"topics":[42]}`, wantErr: true},
		{name: "trailing text", content: `{"books":["三体"]} hope this helps`, wantErr: true},
		{name: "unclosed fence", content: "```json\n{\"books\":[\"三体\"]", wantErr: true},
		{name: "truncated", content: `{"books":["三体"`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := parseLLMAnswer(tt.content)
			if tt.wantErr {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestLLMExtract(t *testing.T) {
	t.Parallel()
	type R = openaitest.Reply
	malformed := R{Content: "Sure! The user likes 三体."}
	tests := []struct {
		name         string
		replies      []R
		want         []Fact
		wantReason   string // "" means success
		wantRequests int
		wantOutcomes map[string]int
	}{
		{
			name:         "good answer",
			replies:      []R{{Content: goodAnswer}},
			want:         goodFacts,
			wantRequests: 1,
			wantOutcomes: map[string]int{outcomeOK: 1},
		},
		{
			name:         "fenced answer",
			replies:      []R{{Content: "```json\n" + goodAnswer + "\n```"}},
			want:         goodFacts,
			wantRequests: 1,
			wantOutcomes: map[string]int{outcomeOK: 1},
		},
		{
			name:         "nothing found",
			replies:      []R{{Content: `{"books":[],"authors":[],"topics":[]}`}},
			wantRequests: 1,
			wantOutcomes: map[string]int{outcomeOK: 1},
		},
		{
			name:         "malformed then good",
			replies:      []R{malformed, {Content: goodAnswer}},
			want:         goodFacts,
			wantRequests: 2,
			wantOutcomes: map[string]int{outcomeMalformed: 1, outcomeOK: 1},
		},
		{
			name:         "body not JSON then good",
			replies:      []R{{Body: "<html>bad gateway</html>"}, {Content: goodAnswer}},
			want:         goodFacts,
			wantRequests: 2,
			wantOutcomes: map[string]int{outcomeMalformed: 1, outcomeOK: 1},
		},
		{
			name:         "no choices then good",
			replies:      []R{{Body: `{"id":"x","choices":[]}`}, {Content: goodAnswer}},
			want:         goodFacts,
			wantRequests: 2,
			wantOutcomes: map[string]int{outcomeMalformed: 1, outcomeOK: 1},
		},
		{
			name:         "cut off by max_tokens then good",
			replies:      []R{{Content: `{"books":["三`, FinishReason: "length"}, {Content: goodAnswer}},
			want:         goodFacts,
			wantRequests: 2,
			wantOutcomes: map[string]int{outcomeMalformed: 1, outcomeOK: 1},
		},
		{
			name:         "500 then good",
			replies:      []R{{Status: 500}, {Content: goodAnswer}},
			want:         goodFacts,
			wantRequests: 2,
			wantOutcomes: map[string]int{outcomeRetry: 1, outcomeOK: 1},
		},
		{
			name:         "503 without JSON body then good",
			replies:      []R{{Status: 503, Body: "upstream overloaded"}, {Content: goodAnswer}},
			want:         goodFacts,
			wantRequests: 2,
			wantOutcomes: map[string]int{outcomeRetry: 1, outcomeOK: 1},
		},
		{
			name:         "429 then good",
			replies:      []R{{Status: 429, RetryAfter: "0"}, {Content: goodAnswer}},
			want:         goodFacts,
			wantRequests: 2,
			wantOutcomes: map[string]int{outcomeRetry: 1, outcomeOK: 1},
		},
		{
			name:         "always malformed",
			replies:      []R{malformed, malformed, malformed},
			wantReason:   llm.ReasonMalformed,
			wantRequests: 3,
			wantOutcomes: map[string]int{outcomeMalformed: 3},
		},
		{
			name:         "always 502",
			replies:      []R{{Status: 502}, {Status: 502}, {Status: 502}},
			wantReason:   llm.ReasonServerError,
			wantRequests: 3,
			wantOutcomes: map[string]int{outcomeRetry: 3},
		},
		{
			name:         "always 429",
			replies:      []R{{Status: 429}, {Status: 429}, {Status: 429}},
			wantReason:   llm.ReasonRateLimited,
			wantRequests: 3,
			wantOutcomes: map[string]int{outcomeRetry: 3},
		},
		{name: "400 not retried", replies: []R{{Status: 400}}, wantReason: llm.ReasonRejected, wantRequests: 1, wantOutcomes: map[string]int{outcomeError: 1}},
		{name: "401 not retried", replies: []R{{Status: 401, Message: "invalid api key"}}, wantReason: llm.ReasonRejected, wantRequests: 1, wantOutcomes: map[string]int{outcomeError: 1}},
		{name: "403 not retried", replies: []R{{Status: 403}}, wantReason: llm.ReasonRejected, wantRequests: 1, wantOutcomes: map[string]int{outcomeError: 1}},
		{name: "404 not retried", replies: []R{{Status: 404, Message: "model not found"}}, wantReason: llm.ReasonRejected, wantRequests: 1, wantOutcomes: map[string]int{outcomeError: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setupLLM(t, nil)
			b.srv.SetDefault(openaitest.Reply{Status: 500, Message: "queue exhausted"})
			b.srv.Enqueue(tt.replies...)

			got, err := b.llm.Extract(t.Context(), Input{Text: "我在读刘慈欣的《三体》, and I loved The Godfather."})
			if tt.wantReason == "" {
				require.NoError(t, err)
				require.Equal(t, tt.want, got)
			} else {
				var le *llm.Error
				require.ErrorAs(t, err, &le)
				require.Equal(t, tt.wantReason, le.Reason)
				require.Equal(t, tt.wantRequests, le.Attempts)
				require.Equal(t, tt.wantReason, llm.Reason(err))
			}
			require.Len(t, b.srv.ChatRequests(), tt.wantRequests)
			for _, o := range []string{outcomeOK, outcomeRetry, outcomeMalformed, outcomeError} {
				require.Equal(t, tt.wantOutcomes[o], b.requests(o), "outcome %s", o)
			}
		})
	}
}

func TestLLMBlankText(t *testing.T) {
	t.Parallel()
	b := setupLLM(t, nil)
	got, err := b.llm.Extract(t.Context(), Input{Text: " \n\t "})
	require.NoError(t, err)
	require.Empty(t, got)
	require.Empty(t, b.srv.Requests())
}

func TestLLMRequest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		tweak   func(*llm.Config)
		replies []openaitest.Reply
		check   func(t *testing.T, reqs []openaitest.Request)
	}{
		{
			name: "model, limits, prompt and JSON mode",
			check: func(t *testing.T, reqs []openaitest.Request) {
				require.Len(t, reqs, 1)
				r := reqs[0]
				require.Equal(t, "/v1/chat/completions", r.Path)
				require.Equal(t, "Bearer test-key", r.Header.Get("Authorization"))
				require.Equal(t, "test-model", r.Model)
				require.Equal(t, 123, r.MaxTokens)
				require.Zero(t, r.MaxCompletionTokens)
				require.NotNil(t, r.Temperature, "a zero temperature must still be sent")
				require.InDelta(t, 0, *r.Temperature, 1e-9)
				require.Equal(t, "json_object", r.ResponseFormat)
				require.Len(t, r.Messages, 2)
				require.Equal(t, "system", r.Messages[0].Role)
				require.Contains(t, r.Messages[0].Content, `{"books":[],"authors":[]`)
				require.Contains(t, r.Messages[0].Content, `"topics":[]}`)
				require.Equal(t, "user", r.Messages[1].Role)
				require.Equal(t, "最近在读《三体》", r.Messages[1].Content)
			},
		},
		{
			name: "configured temperature and base URL without /v1",
			tweak: func(c *llm.Config) {
				c.BaseURL = strings.TrimSuffix(c.BaseURL, "/v1")
				c.Temperature = 0.5
				c.MaxTokens = 0 // the server's limit; the default lives in LLM_MAX_TOKENS's tag
			},
			check: func(t *testing.T, reqs []openaitest.Request) {
				require.Len(t, reqs, 1)
				require.Equal(t, "/chat/completions", reqs[0].Path)
				require.Zero(t, reqs[0].MaxTokens)
				require.NotContains(t, string(reqs[0].Body), "max_tokens")
				require.NotNil(t, reqs[0].Temperature)
				require.InDelta(t, 0.5, *reqs[0].Temperature, 1e-6)
			},
		},
		{
			name:  "reasoning model gets max_completion_tokens",
			tweak: func(c *llm.Config) { c.Model = "o3-mini" },
			check: func(t *testing.T, reqs []openaitest.Request) {
				require.Len(t, reqs, 1)
				require.Equal(t, "o3-mini", reqs[0].Model)
				require.Zero(t, reqs[0].MaxTokens)
				require.Equal(t, 123, reqs[0].MaxCompletionTokens)
				require.Nil(t, reqs[0].Temperature)
			},
		},
		{
			name: "response_format refused once, then left out",
			replies: []openaitest.Reply{{
				Status:  400,
				Message: "Unrecognized request argument supplied: response_format",
			}},
			check: func(t *testing.T, reqs []openaitest.Request) {
				require.Len(t, reqs, 3)
				require.Equal(t, "json_object", reqs[0].ResponseFormat)
				require.Empty(t, reqs[1].ResponseFormat)
				require.Empty(t, reqs[2].ResponseFormat)
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setupLLM(t, tt.tweak)
			b.srv.Enqueue(tt.replies...)
			b.srv.SetDefault(openaitest.Reply{Content: `{"books":["三体"]}`})
			for range 2 {
				got, err := b.llm.Extract(t.Context(), Input{Text: "最近在读《三体》"})
				require.NoError(t, err)
				require.Equal(t, []Fact{{Kind: KindBookTitle, Value: "三体", Display: "三体"}}, got)
				if len(tt.replies) == 0 {
					break
				}
			}
			tt.check(t, b.srv.ChatRequests())
		})
	}
}

func TestLLMRetryAfter(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		retryAfter string
		retryMax   time.Duration
		min, max   time.Duration
	}{
		{name: "honoured", retryAfter: "1", retryMax: 5 * time.Second, min: time.Second, max: 3 * time.Second},
		{name: "capped by RetryMax", retryAfter: "30", retryMax: 50 * time.Millisecond, min: 0, max: 2 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setupLLM(t, func(c *llm.Config) { c.RetryMax = tt.retryMax })
			b.srv.Enqueue(openaitest.Reply{Status: 429, RetryAfter: tt.retryAfter}, openaitest.Reply{Content: goodAnswer})

			start := time.Now()
			got, err := b.llm.Extract(t.Context(), Input{Text: "三体"})
			elapsed := time.Since(start)
			require.NoError(t, err)
			require.Equal(t, goodFacts, got)
			require.Len(t, b.srv.ChatRequests(), 2)
			require.GreaterOrEqual(t, elapsed, tt.min)
			require.Less(t, elapsed, tt.max)
		})
	}
}

// TestLLMAttemptTimeout: a server that holds every answer has each attempt
// abandoned at Config.Timeout, and the rules answer once the retries are
// spent. Each attempt's timeout ends it once the server holds its request
// (a 50 ms real timer can run out before a loaded machine sends it, and the
// server would see fewer attempts than were made).
func TestLLMAttemptTimeout(t *testing.T) {
	t.Parallel()
	b := setupLLM(t, func(c *llm.Config) { c.Timeout = 50 * time.Millisecond })
	b.srv.SetDefault(openaitest.Reply{Delay: 10 * time.Second, Content: goodAnswer})
	var timeouts []time.Duration
	b.llm.client.SetAttemptTimeout(func(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
		timeouts = append(timeouts, d)
		return b.srv.TimeoutWhenHeld(ctx, d)
	})
	rules := &staticExtractor{facts: []Fact{{Kind: KindTopic, Value: "rules", Display: "rules"}}}

	got, err := b.llm.WithFallback(rules).Extract(t.Context(), Input{Text: "三体"})
	require.NoError(t, err)
	require.Equal(t, rules.facts, got)
	require.Equal(t, []time.Duration{50 * time.Millisecond, 50 * time.Millisecond, 50 * time.Millisecond}, timeouts,
		"every attempt is bounded by Config.Timeout")
	require.Len(t, b.srv.ChatRequests(), 3)
	require.Equal(t, 3, b.requests(outcomeRetry))
	require.Equal(t, 1, b.fallbacks(llm.ReasonTimeout))
	// The server sees each abandoned request end.
	require.Eventually(t, func() bool { return b.srv.InFlight() == 0 }, 10*time.Second, 5*time.Millisecond)
}

func TestLLMFallbackToRules(t *testing.T) {
	t.Parallel()
	rules, err := NewRules(RulesOptions{SkipChinese: true})
	require.NoError(t, err)
	in := Input{Text: "I just finished reading Dune by Frank Herbert, and now I'm into jazz."}
	want, err := rules.Extract(t.Context(), in)
	require.NoError(t, err)
	require.NotEmpty(t, want)
	for i := range want {
		want[i].Source = "rules" // answered by the fallback, and marked so
	}

	malformed := openaitest.Reply{Content: "not json"}
	tests := []struct {
		name         string
		replies      []openaitest.Reply
		wantReason   string
		wantRequests int
	}{
		{"always malformed", []openaitest.Reply{malformed, malformed, malformed}, llm.ReasonMalformed, 3},
		{"401", []openaitest.Reply{{Status: 401}}, llm.ReasonRejected, 1},
		{"always 500", []openaitest.Reply{{Status: 500}, {Status: 500}, {Status: 500}}, llm.ReasonServerError, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setupLLM(t, nil)
			b.srv.Enqueue(tt.replies...)
			got, err := b.llm.WithFallback(rules).Extract(t.Context(), in)
			require.NoError(t, err)
			require.Equal(t, want, got)
			require.Len(t, b.srv.ChatRequests(), tt.wantRequests)
			require.Equal(t, 1, b.fallbacks(tt.wantReason))
			count, err := testutil.GatherAndCount(b.reg, "recall_extract_llm_fallbacks_total")
			require.NoError(t, err)
			require.Positive(t, count)
		})
	}
}

func TestLLMConcurrencyCap(t *testing.T) {
	t.Parallel()
	const limit, calls = 3, 10
	b := setupLLM(t, func(c *llm.Config) { c.MaxConcurrency = limit })
	gate := make(chan struct{})
	b.srv.SetDefault(openaitest.Reply{Wait: gate, Content: goodAnswer})

	var wg sync.WaitGroup
	errs := make(chan error, calls)
	for range calls {
		wg.Go(func() {
			_, err := b.llm.Extract(t.Context(), Input{Text: "三体"})
			errs <- err
		})
	}
	require.Eventually(t, func() bool { return b.srv.InFlight() == limit }, 2*time.Second, time.Millisecond)
	require.Never(t, func() bool { return b.srv.InFlight() > limit }, 100*time.Millisecond, time.Millisecond)
	close(gate)
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.Len(t, b.srv.ChatRequests(), calls)
	require.Equal(t, limit, b.srv.MaxInFlight())
}

func TestLLMContextCancelled(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// prepare scripts the server and, when it returns a non-nil
		// function, runs it to hold the only slot before the call.
		prepare func(t *testing.T, b llmBundle) func(ctx context.Context)
		// cancelWhen is the condition on which ctx is cancelled, and
		// cancelAfter a delay; with neither, ctx is cancelled before the call.
		cancelWhen  func(b llmBundle) bool
		cancelAfter time.Duration
		requests    int
	}{
		{
			name:     "before the call",
			requests: 0,
		},
		{
			name: "while the request is in flight",
			prepare: func(t *testing.T, b llmBundle) func(context.Context) {
				b.srv.SetDefault(openaitest.Reply{Delay: 10 * time.Second})
				return nil
			},
			cancelWhen: func(b llmBundle) bool { return b.srv.InFlight() == 1 },
			requests:   1,
		},
		{
			name: "while waiting before a retry",
			prepare: func(t *testing.T, b llmBundle) func(context.Context) {
				b.srv.SetDefault(openaitest.Reply{Status: 429, RetryAfter: "30"})
				return nil
			},
			cancelWhen: func(b llmBundle) bool { return len(b.srv.ChatRequests()) == 1 && b.srv.InFlight() == 0 },
			requests:   1,
		},
		{
			name: "while waiting for a slot",
			prepare: func(t *testing.T, b llmBundle) func(context.Context) {
				gate := make(chan struct{})
				t.Cleanup(func() { close(gate) })
				b.srv.SetDefault(openaitest.Reply{Wait: gate, Content: "{}"})
				return func(ctx context.Context) {
					go func() { _, _ = b.llm.Extract(ctx, Input{Text: "holder"}) }()
					require.Eventually(t, func() bool { return b.srv.InFlight() == 1 }, 2*time.Second, time.Millisecond)
				}
			},
			cancelAfter: 20 * time.Millisecond,
			requests:    1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setupLLM(t, func(c *llm.Config) {
				c.MaxConcurrency = 1
				c.RetryMax = time.Minute
			})
			if tt.prepare != nil {
				if hold := tt.prepare(t, b); hold != nil {
					hold(t.Context())
				}
			}
			ctx, cancel := context.WithCancel(t.Context())
			switch {
			case tt.cancelAfter > 0:
				stop := time.AfterFunc(tt.cancelAfter, cancel)
				defer stop.Stop()
			case tt.cancelWhen == nil:
				cancel()
			default:
				go func() {
					defer cancel()
					for !tt.cancelWhen(b) {
						select {
						case <-ctx.Done():
							return
						case <-time.After(time.Millisecond):
						}
					}
				}()
			}
			rules := &staticExtractor{facts: []Fact{{Kind: KindTopic, Value: "rules", Display: "rules"}}}

			start := time.Now()
			_, err := b.llm.WithFallback(rules).Extract(ctx, Input{Text: "三体"})
			require.ErrorIs(t, err, context.Canceled)
			require.Less(t, time.Since(start), 2*time.Second)
			require.Zero(t, rules.Calls(), "no fallback once the caller is gone")
			require.Len(t, b.srv.ChatRequests(), tt.requests)
		})
	}
}

func TestWithFallback(t *testing.T) {
	t.Parallel()
	primaryFacts := []Fact{{Kind: KindBookTitle, Value: "三体", Display: "三体"}}
	fallbackFacts := []Fact{{Kind: KindTopic, Value: "rules", Display: "rules"}}
	boom := errors.New("boom")
	rulesBroke := errors.New("rules broke")
	tests := []struct {
		name       string
		primary    *staticExtractor
		fallback   *staticExtractor
		cancelled  bool
		want       []Fact
		wantErr    error
		wantReason string // "" means onFallback is not called
	}{
		{name: "primary answers", primary: &staticExtractor{facts: primaryFacts}, fallback: &staticExtractor{facts: fallbackFacts}, want: primaryFacts},
		{name: "primary fails", primary: &staticExtractor{err: boom}, fallback: &staticExtractor{facts: fallbackFacts}, want: fallbackFacts, wantReason: llm.ReasonError},
		{
			name:       "llm error keeps its reason",
			primary:    &staticExtractor{err: &llm.Error{Reason: llm.ReasonRateLimited, Attempts: 4, Err: boom}},
			fallback:   &staticExtractor{facts: fallbackFacts},
			want:       fallbackFacts,
			wantReason: llm.ReasonRateLimited,
		},
		{name: "both fail", primary: &staticExtractor{err: boom}, fallback: &staticExtractor{err: rulesBroke}, wantErr: rulesBroke, wantReason: llm.ReasonError},
		{name: "caller gone", primary: &staticExtractor{err: context.Canceled}, fallback: &staticExtractor{facts: fallbackFacts}, cancelled: true, wantErr: context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var reasons []string
			ex := WithFallback(tt.primary, tt.fallback, func(r string) { reasons = append(reasons, r) })
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			if tt.cancelled {
				cancel()
			}
			got, err := ex.Extract(ctx, Input{Text: "x"})
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
			} else {
				require.NoError(t, err)
				require.Equal(t, tt.want, got)
			}
			if tt.wantReason == "" {
				require.Empty(t, reasons)
				require.Zero(t, tt.fallback.Calls())
			} else {
				require.Equal(t, []string{tt.wantReason}, reasons)
				require.Equal(t, 1, tt.fallback.Calls())
			}
		})
	}

	t.Run("nil sides", func(t *testing.T) {
		t.Parallel()
		only := &staticExtractor{facts: fallbackFacts}
		require.Same(t, only, WithFallback(nil, only, nil))
		require.Same(t, only, WithFallback(only, nil, nil))
	})
}

func TestNewLLM(t *testing.T) {
	t.Parallel()
	_, err := NewLLM(llm.Config{}, nil, nil)
	require.ErrorContains(t, err, "LLM_MODEL")

	cfg := envconfig.Defaults[llm.Config]()
	cfg.Model = "m"
	reg := prometheus.NewRegistry()
	first, err := NewLLM(cfg, reg, nil)
	require.NoError(t, err)
	_, err = NewLLM(cfg, reg, nil)
	require.NoError(t, err, "a second LLM on the same registry shares the metrics")
	count, err := testutil.GatherAndCount(reg, "recall_extract_llm_requests_total")
	require.NoError(t, err)
	require.Equal(t, 4, count, "one series per outcome, registered once")
	require.Same(t, first, first.WithFallback(nil))
}
