// Package llm is Recall's one client for OpenAI-compatible endpoints (OpenAI,
// Azure's v1 API, Ollama, vLLM, Zhipu, Qwen...): chat completions answered
// with strict JSON, for the extractor and the summarizer, and embeddings, for
// the embedder. It is go-openai underneath, with the bounds every use needs
// and would otherwise write again: a per-attempt timeout, a concurrency cap,
// an output limit, retries with one backoff rule, one classification of
// errors, and metrics.
//
// # Retries
//
// An attempt is repeated when repeating it can help: 408, 409, 429 and 5xx
// answers, attempts that ran past Config.Timeout, transport errors, bodies that
// are not the protocol's JSON, and chat answers that are not what was asked
// for (a model may answer well the next time). Other 4xx answers and
// embeddings responses that do not fit their inputs are not: the same request
// gets the same answer. At most Config.MaxRetries repetitions follow the first
// attempt.
//
// The wait before the next attempt is the same for chat and embeddings:
//
//	wait = min(RetryMax, max(backoff, Retry-After))
//
// backoff starts at RetryInitial and doubles per attempt, with ±50% jitter so
// that workers that failed together do not retry together. Retry-After is
// what the failed attempt's answer asked for: retry-after-ms (Azure, OpenAI)
// when present, else Retry-After in seconds or as an HTTP date. The server's
// wish is honoured up to RetryMax and no further: a server asking for minutes
// is asked again after RetryMax, because every caller has a better use for
// that time than waiting (the extractor's rules answer, the workers' messages
// are redelivered by their consumers), rate-limit windows refill continuously
// so an early retry often succeeds, and MaxRetries bounds what it costs when
// it does not.
package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/prometheus/client_golang/prometheus"
	openai "github.com/sashabaranov/go-openai"
)

// Config configures a client from env. Its env tags are the one place its
// defaults live: code that builds a Config without the environment (tests,
// tools) starts from envconfig.Defaults[llm.Config](). Any OpenAI-compatible
// endpoint works, so the only thing that turns the model on is naming it.
//
// The tags read the chat model's variables (LLM_*); the embedder has its own
// (EMBED_*) and builds a Config from them.
type Config struct {
	// BaseURL is the API root including the version, such as
	// http://localhost:11434/v1 for Ollama; empty means OpenAI.
	BaseURL string `env:"LLM_BASE_URL"`
	// APIKey is sent as a bearer token; local servers usually ignore it.
	APIKey string `env:"LLM_API_KEY"`
	// Model is the model asked; empty disables the model's users. Set, the
	// extractor asks it for strict JSON ({"books":[],"authors":[],"topics":[]},
	// also films, music, people, genres) and the summarizer for summaries;
	// when it fails for good the rules answer instead (facts recorded with
	// source rules, the model's with llm; recall_extract_llm_fallbacks_total
	// counts it), so extraction never blocks the stream.
	Model string `env:"LLM_MODEL"`
	// Timeout bounds each attempt, not the whole call: a stuck request is
	// abandoned and retried rather than holding the message until AckWait.
	Timeout time.Duration `env:"LLM_TIMEOUT" envDefault:"20s"`
	// MaxRetries is how many times a failed attempt is repeated (so at most
	// MaxRetries+1 requests per call) before the call fails.
	MaxRetries int `env:"LLM_MAX_RETRIES" envDefault:"3"`
	// MaxConcurrency caps the requests in flight from one client, so that a
	// burst of turns does not turn into a burst of 429s; 0 means no cap.
	MaxConcurrency int `env:"LLM_MAX_CONCURRENCY" envDefault:"4"`
	// MaxTokens bounds a chat answer. Facts and summaries are short; a low
	// limit keeps a rambling model cheap. Reasoning models spend part of it
	// thinking, so give them more. 0 leaves the limit to the server.
	MaxTokens int `env:"LLM_MAX_TOKENS" envDefault:"300"`
	// Temperature is 0 by default because extraction should be repeatable.
	// A zero is sent as the smallest positive float, because go-openai
	// leaves out a zero and servers would use their own default.
	Temperature float32 `env:"LLM_TEMPERATURE" envDefault:"0"`
	// RetryInitial is the first backoff between attempts; later ones
	// double, with jitter.
	RetryInitial time.Duration `env:"LLM_RETRY_INITIAL" envDefault:"500ms"`
	// RetryMax caps every wait between attempts, including one asked for by
	// the server in Retry-After or retry-after-ms (see the package doc): 408,
	// 409, 429 and 5xx answers, timeouts and malformed answers are retried
	// with exponential backoff, the same rule as the embedder's. Below
	// RetryInitial it is raised to it.
	RetryMax time.Duration `env:"LLM_RETRY_MAX" envDefault:"10s"`
}

// Enabled reports whether a model is configured, which is how deployments
// choose between the model and the offline implementations.
func (c Config) Enabled() bool { return strings.TrimSpace(c.Model) != "" }

// check rejects values a client cannot run with. A zero where a duration
// is needed is an error rather than a default, so that defaults stay in the
// env tags.
func (c Config) check() error {
	switch {
	case !c.Enabled():
		return errors.New("LLM_MODEL is not set")
	case c.Timeout <= 0:
		return fmt.Errorf("LLM_TIMEOUT %s: must be positive", c.Timeout)
	case c.MaxRetries < 0:
		return fmt.Errorf("LLM_MAX_RETRIES %d: must not be negative", c.MaxRetries)
	case c.MaxConcurrency < 0:
		return fmt.Errorf("LLM_MAX_CONCURRENCY %d: must not be negative", c.MaxConcurrency)
	case c.MaxTokens < 0:
		return fmt.Errorf("LLM_MAX_TOKENS %d: must not be negative", c.MaxTokens)
	case c.RetryInitial <= 0:
		return fmt.Errorf("LLM_RETRY_INITIAL %s: must be positive", c.RetryInitial)
	}
	return nil
}

// Reasons a call failed for good. They label the fallback metric and are
// what Reason returns, so dashboards can tell a rate limit from a broken
// prompt.
const (
	// ReasonTimeout: attempts ran past Config.Timeout (or the server
	// answered 408).
	ReasonTimeout = "timeout"
	// ReasonRateLimited: the server answered 429.
	ReasonRateLimited = "rate_limited"
	// ReasonServerError: the server answered 5xx, or 409 (a conflict on
	// its side, such as a lock timeout).
	ReasonServerError = "server_error"
	// ReasonTransport: the server could not be reached or dropped the connection.
	ReasonTransport = "transport"
	// ReasonMalformed: the answer was not what was asked for: a body that
	// is not the protocol's JSON, a chat answer its parser rejects or cut
	// off at MaxTokens, embeddings that do not fit their inputs.
	ReasonMalformed = "malformed"
	// ReasonRejected: the request itself was refused (400, 401, 403, 404 and
	// other 4xx) or could not be built; repeating it cannot help.
	ReasonRejected = "rejected"
	// ReasonError: any other error, such as that of an extractor wrapped
	// with a fallback.
	ReasonError = "error"
)

// Error is returned when a call gives up. It keeps the reason and the number
// of attempts so that a fallback can be counted and logged without parsing
// messages.
type Error struct {
	// Reason is one of the Reason constants.
	Reason string
	// Attempts is how many requests were sent.
	Attempts int
	// Err is the error of the last attempt.
	Err error
}

// Error implements error.
func (e *Error) Error() string {
	unit := "attempts"
	if e.Attempts == 1 {
		unit = "attempt"
	}
	return fmt.Sprintf("llm: %s after %d %s: %v", e.Reason, e.Attempts, unit, e.Err)
}

// Unwrap returns the error of the last attempt.
func (e *Error) Unwrap() error { return e.Err }

// Reason names why err made a caller give up: the Reason of an *Error, or
// ReasonError for anything else.
func Reason(err error) string {
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Reason
	}
	return ReasonError
}

// Client talks to one model of one endpoint, within the bounds of its
// Config. It is safe for concurrent use; all calls share its concurrency cap.
type Client struct {
	cfg     Config
	client  *openai.Client
	sem     chan struct{} // nil: no cap
	log     *slog.Logger
	metrics *metrics
	// jsonMode is cleared when the server rejects response_format, so the
	// next requests do without it; parsers never rely on it.
	jsonMode atomic.Bool
	// newTimer, when set, replaces the timer of the waits between attempts,
	// so that tests can see the waits without sitting through them.
	newTimer func() backoff.Timer
	// withTimeout gives each attempt its Config.Timeout: context.WithTimeout
	// unless a test replaced it (SetAttemptTimeout).
	withTimeout func(context.Context, time.Duration) (context.Context, context.CancelFunc)
}

// New builds a client from cfg. use names what the client is for (extract,
// summarize, embed): its metrics are recall_<use>_llm_* and its log lines
// carry component llm_<use>, so each use is watched apart. Metrics are
// registered on reg (nil: not registered, for tests and tools); registering
// twice on the same registry reuses the metrics already there. A nil log
// discards.
func New(use string, cfg Config, reg prometheus.Registerer, log *slog.Logger) (*Client, error) {
	if err := cfg.check(); err != nil {
		return nil, fmt.Errorf("llm: %w", err)
	}
	cfg.RetryMax = max(cfg.RetryMax, cfg.RetryInitial)
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	m, err := newMetrics(reg, use+"_llm")
	if err != nil {
		return nil, err
	}

	oc := openai.DefaultConfig(cfg.APIKey)
	if cfg.BaseURL != "" {
		oc.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	}
	var base http.RoundTripper = http.DefaultTransport
	if dt, ok := base.(*http.Transport); ok && cfg.MaxConcurrency > 0 {
		t := dt.Clone()
		// Keep a warm connection for every request the cap lets through.
		t.MaxIdleConnsPerHost = cfg.MaxConcurrency
		base = t
	}
	oc.HTTPClient = &http.Client{Transport: retryAfterTransport{base: base}}

	c := &Client{
		cfg:     cfg,
		client:  openai.NewClientWithConfig(oc),
		log:     log.With("component", "llm_"+use, "model", cfg.Model),
		metrics: m,

		withTimeout: context.WithTimeout,
	}
	if cfg.MaxConcurrency > 0 {
		c.sem = make(chan struct{}, cfg.MaxConcurrency)
	}
	c.jsonMode.Store(true)
	return c, nil
}

// SetAttemptTimeout replaces context.WithTimeout, which ends each attempt
// Config.Timeout after it starts, for tests that must end an attempt at a
// moment of their own (openaitest.Server.TimeoutWhenHeld: once the server
// has the request and holds its answer back). A short real timeout can run out before a loaded
// machine even sends the request. The context fn returns must end with
// context.DeadlineExceeded as its cause (context.WithCancelCause) for the
// attempt to count as timed out.
func (c *Client) SetAttemptTimeout(fn func(ctx context.Context, timeout time.Duration) (context.Context, context.CancelFunc)) {
	c.withTimeout = fn
}

// Model is the configured model name, which callers record with what it wrote.
func (c *Client) Model() string { return c.cfg.Model }

// MaxTokens is the output limit each chat request carries (0: the server's).
func (c *Client) MaxTokens() int { return c.cfg.MaxTokens }

// NoteFallback counts (recall_<use>_llm_fallbacks_total{reason}) and logs an
// input that was answered offline because the model failed for good; reason
// is Reason of the error.
func (c *Client) NoteFallback(reason string, err error) {
	c.metrics.fallbacks.WithLabelValues(reason).Inc()
	c.log.Warn("llm failed; using the offline fallback", "reason", reason, "error", err)
}

// do runs op under every bound of the client: a slot of the concurrency cap
// and the per-attempt timeout for each attempt, retries by the package's
// rule. op gets the attempt's context and returns nil on success, an
// *attemptError when it judged the answer itself, or the client's error. do
// returns nil, an *Error when every attempt failed or the request was
// refused, or the context's error (unwrapped) when ctx ends first.
func (c *Client) do(ctx context.Context, op func(actx context.Context) error) error {
	b := &retryAfterBackOff{
		BackOff: &backoff.ExponentialBackOff{
			InitialInterval:     c.cfg.RetryInitial,
			RandomizationFactor: 0.5,
			Multiplier:          2,
			MaxInterval:         c.cfg.RetryMax,
			Stop:                backoff.Stop,
			Clock:               backoff.SystemClock,
		},
		limit: c.cfg.RetryMax,
	}
	attempts := 0
	operation := func() error {
		attempts++
		err := c.attempt(ctx, op)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return backoff.Permanent(ctx.Err())
		}
		if !err.retryable {
			return backoff.Permanent(err)
		}
		b.hint = err.retryAfter
		return err
	}
	notify := func(err error, wait time.Duration) {
		c.log.DebugContext(ctx, "llm retry", "attempt", attempts, "wait", wait, "error", err)
	}
	var timer backoff.Timer
	if c.newTimer != nil {
		timer = c.newTimer()
	}
	policy := backoff.WithContext(backoff.WithMaxRetries(b, uint64(c.cfg.MaxRetries)), ctx)
	err := backoff.RetryNotifyWithTimer(operation, policy, notify, timer)
	if err == nil {
		return nil
	}
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	reason := ReasonError
	if ae, ok := errors.AsType[*attemptError](err); ok {
		reason = ae.reason
	}
	return &Error{Reason: reason, Attempts: attempts, Err: err}
}

// attemptError classifies the failure of one request, which decides whether
// it is worth another.
type attemptError struct {
	reason     string
	retryable  bool
	retryAfter time.Duration // the server's Retry-After, 0 when absent
	err        error
}

func (e *attemptError) Error() string { return e.reason + ": " + e.err.Error() }
func (e *attemptError) Unwrap() error { return e.err }

// malformed is the error of an answer that is not what was asked for;
// retryable says whether asking again may give another answer.
func malformed(err error, retryable bool) *attemptError {
	return &attemptError{reason: ReasonMalformed, retryable: retryable, err: err}
}

// attempt runs op once. It waits for a slot under the concurrency cap first;
// the per-attempt timeout starts once it has one, so queueing behind other
// calls is not mistaken for a slow server. When ctx ends, the error says
// nothing about the server and the caller checks ctx.
func (c *Client) attempt(ctx context.Context, op func(context.Context) error) *attemptError {
	if c.sem != nil {
		select {
		case c.sem <- struct{}{}:
		case <-ctx.Done():
			return &attemptError{reason: ReasonError, err: ctx.Err()}
		}
		defer func() { <-c.sem }()
	}

	actx, cancel := c.withTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	var retryAfter time.Duration
	actx = context.WithValue(actx, retryAfterKey{}, &retryAfter)

	start := time.Now()
	err := op(actx)
	if ctx.Err() != nil {
		// Not counted: the caller went away, the server did nothing wrong.
		return &attemptError{reason: ReasonError, err: ctx.Err()}
	}
	c.metrics.seconds.Observe(time.Since(start).Seconds())
	if err == nil {
		c.metrics.requests.WithLabelValues(outcomeOK).Inc()
		return nil
	}
	ae := classify(actx, err)
	ae.retryAfter = retryAfter
	switch {
	case ae.reason == ReasonMalformed:
		c.metrics.requests.WithLabelValues(outcomeMalformed).Inc()
	case ae.retryable:
		c.metrics.requests.WithLabelValues(outcomeRetry).Inc()
	default:
		c.metrics.requests.WithLabelValues(outcomeError).Inc()
	}
	return ae
}

// classify turns a client error into an attemptError. actx is the attempt's
// context, whose deadline tells a timeout from other transport errors.
func classify(actx context.Context, err error) *attemptError {
	if ae, ok := errors.AsType[*attemptError](err); ok {
		return ae
	}
	retry := func(reason string) *attemptError { return &attemptError{reason: reason, retryable: true, err: err} }
	if errors.Is(context.Cause(actx), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) {
		return retry(ReasonTimeout)
	}
	if status := httpStatus(err); status != 0 {
		switch {
		case status == http.StatusTooManyRequests:
			return retry(ReasonRateLimited)
		case status == http.StatusRequestTimeout:
			return retry(ReasonTimeout)
		case status == http.StatusConflict || status >= 500:
			return retry(ReasonServerError)
		default:
			return &attemptError{reason: ReasonRejected, err: err}
		}
	}
	if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
		return retry(ReasonTimeout)
	}
	if _, ok := errors.AsType[*url.Error](err); ok || errors.Is(err, io.ErrUnexpectedEOF) {
		return retry(ReasonTransport)
	}
	_, syntax := errors.AsType[*json.SyntaxError](err)
	_, typ := errors.AsType[*json.UnmarshalTypeError](err)
	if syntax || typ || errors.Is(err, io.EOF) {
		// A 2xx whose body is not the protocol's JSON: a proxy or a
		// half-compatible server. Another try may reach a healthy one.
		return retry(ReasonMalformed)
	}
	// Errors raised before sending (an unsupported model, an invalid
	// request) would fail the same way again.
	return &attemptError{reason: ReasonRejected, err: err}
}

// httpStatus returns the HTTP status of an error answer, or 0.
func httpStatus(err error) int {
	if ae, ok := errors.AsType[*openai.APIError](err); ok {
		return ae.HTTPStatusCode
	}
	if re, ok := errors.AsType[*openai.RequestError](err); ok {
		return re.HTTPStatusCode
	}
	return 0
}
