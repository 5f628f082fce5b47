package embed

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cenkalti/backoff/v4"
	openai "github.com/sashabaranov/go-openai"
)

// Retry timing. The exponential schedule spreads retries from many workers
// over a few seconds; a server's Retry-After overrides it when longer.
const (
	retryInitial    = 500 * time.Millisecond
	retryMaxBackoff = 10 * time.Second
	// maxRetryAfter is the longest Retry-After worth waiting for inside one
	// call. Beyond it the call fails, and the message is redelivered later by
	// the consumer runner instead of holding a handler (and its ack deadline)
	// for minutes.
	maxRetryAfter = time.Minute
	// retryAfterCeiling clamps absurd Retry-After values before they
	// overflow a Duration; anything that long fails the call anyway.
	retryAfterCeiling = 24 * time.Hour
)

// OpenAI embeds texts through an OpenAI-compatible embeddings endpoint.
//
// Inputs are sent in batches of Config.Batch, one batch after another, so a
// large call never exceeds the endpoint's input limit and never floods a
// rate limit. Each request is retried on 408, 409, 429, 5xx, timeouts and
// connection errors with exponential backoff, waiting at least as long as the
// server's Retry-After (or retry-after-ms). Every response is checked: one
// vector per input, all of one dimension (Config.Dimensions when set, and the
// same across calls), finite values. Vectors are re-normalised to unit length
// because not every model or server returns unit vectors, and the interest
// vector math assumes them.
//
// Empty and whitespace-only texts are not sent (endpoints reject them); like
// Hashing, they map to the zero vector. Before any response has fixed the
// dimension (Config.Dimensions unset and nothing embedded yet) they map to nil.
//
// OpenAI is safe for concurrent use.
type OpenAI struct {
	client *openai.Client
	cfg    Config
	model  string
	dim    atomic.Int64 // 0 until known

	// newTimer, when set, replaces the backoff timer, so tests can observe
	// the waits without waiting.
	newTimer func() backoff.Timer
}

// NewOpenAI returns an OpenAI embedder. Zero Timeout and Batch take their
// defaults, so that a literal Config{Model: ...} works; negative values and a
// missing model are errors.
func NewOpenAI(cfg Config) (*OpenAI, error) {
	switch {
	case cfg.Model == "":
		return nil, errors.New("openai embedder: EMBED_MODEL is empty")
	case cfg.Dimensions < 0:
		return nil, fmt.Errorf("openai embedder: EMBED_DIMENSIONS %d is negative", cfg.Dimensions)
	case cfg.Batch < 0:
		return nil, fmt.Errorf("openai embedder: EMBED_BATCH %d is negative", cfg.Batch)
	case cfg.MaxRetries < 0:
		return nil, fmt.Errorf("openai embedder: EMBED_MAX_RETRIES %d is negative", cfg.MaxRetries)
	case cfg.Timeout < 0:
		return nil, fmt.Errorf("openai embedder: EMBED_TIMEOUT %s is negative", cfg.Timeout)
	}
	if cfg.Batch == 0 {
		cfg.Batch = DefaultConfig.Batch
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultConfig.Timeout
	}
	oc := openai.DefaultConfig(cfg.APIKey)
	if cfg.BaseURL != "" {
		oc.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	}
	oc.HTTPClient = retryAfterRecorder{next: &http.Client{}}
	o := &OpenAI{client: openai.NewClientWithConfig(oc), cfg: cfg, model: cfg.Model}
	if cfg.Dimensions > 0 {
		o.model = fmt.Sprintf("%s@%d", cfg.Model, cfg.Dimensions)
		o.dim.Store(int64(cfg.Dimensions))
	}
	return o, nil
}

// Dimension is Config.Dimensions when set; otherwise the model's native
// dimension, learned from the first response, and 0 before it.
func (o *OpenAI) Dimension() int { return int(o.dim.Load()) }

// Model is the configured model name, with "@<dimensions>" appended when a
// dimension is requested: a shortened text-embedding-3 vector is not
// comparable with the model's full-length output.
func (o *OpenAI) Model() string { return o.model }

// Embed embeds texts batch by batch, preserving their order.
func (o *OpenAI) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	send := make([]int, 0, len(texts)) // indices of texts that are sent
	for i, t := range texts {
		if strings.TrimSpace(t) != "" {
			send = append(send, i)
		}
	}
	for start := 0; start < len(send); start += o.cfg.Batch {
		part := send[start:min(start+o.cfg.Batch, len(send))]
		inputs := make([]string, len(part))
		for j, i := range part {
			inputs[j] = texts[i]
		}
		vecs, err := o.embedBatch(ctx, inputs)
		if err != nil {
			return nil, fmt.Errorf("embed %d texts with %s (inputs %d-%d): %w",
				len(send), o.model, start, start+len(part)-1, err)
		}
		for j, i := range part {
			out[i] = vecs[j]
		}
	}
	if d := o.Dimension(); d > 0 {
		for i := range out {
			if out[i] == nil {
				out[i] = make([]float32, d)
			}
		}
	}
	return out, nil
}

// embedBatch sends one request, retrying as the type's doc describes.
func (o *OpenAI) embedBatch(ctx context.Context, inputs []string) ([][]float32, error) {
	policy := &retryAfterBackOff{BackOff: backoff.NewExponentialBackOff(
		backoff.WithInitialInterval(retryInitial),
		backoff.WithMaxInterval(retryMaxBackoff),
		backoff.WithMaxElapsedTime(0), // bounded by MaxRetries and ctx instead
	)}
	req := openai.EmbeddingRequestStrings{
		Input:          inputs,
		Model:          openai.EmbeddingModel(o.cfg.Model),
		EncodingFormat: openai.EmbeddingEncodingFormatFloat,
		Dimensions:     o.cfg.Dimensions,
	}
	attempts := 0
	attempt := func() ([][]float32, error) {
		attempts++
		actx, cancel := context.WithTimeout(ctx, o.cfg.Timeout)
		defer cancel()
		var hint responseHint
		res, err := o.client.CreateEmbeddings(context.WithValue(actx, hintKey{}, &hint), req)
		if err != nil {
			if ctx.Err() != nil {
				return nil, backoff.Permanent(err)
			}
			if !retryable(err) {
				return nil, backoff.Permanent(err)
			}
			if hint.retryAfter > maxRetryAfter {
				return nil, backoff.Permanent(fmt.Errorf("%w (server asks to retry after %s)", err, hint.retryAfter))
			}
			policy.retryAfter = hint.retryAfter
			return nil, err
		}
		vecs, err := o.check(res, len(inputs))
		if err != nil {
			return nil, backoff.Permanent(err)
		}
		return vecs, nil
	}
	var timer backoff.Timer
	if o.newTimer != nil {
		timer = o.newTimer()
	}
	b := backoff.WithContext(backoff.WithMaxRetries(policy, uint64(o.cfg.MaxRetries)), ctx)
	vecs, err := backoff.RetryNotifyWithTimerAndData(attempt, b, nil, timer)
	if err != nil && attempts > 1 {
		return nil, fmt.Errorf("%d attempts: %w", attempts, err)
	}
	return vecs, err
}

// check validates a response and returns its vectors in input order,
// normalised.
func (o *OpenAI) check(res openai.EmbeddingResponse, n int) ([][]float32, error) {
	if n == 0 {
		return nil, nil
	}
	if len(res.Data) != n {
		return nil, fmt.Errorf("%w: %d vectors for %d inputs", ErrBadResponse, len(res.Data), n)
	}
	out := make([][]float32, n)
	if indicesMissing(res.Data) {
		// Some compatible servers leave index out (so it decodes as 0);
		// the protocol then still returns data in input order.
		for i, e := range res.Data {
			out[i] = e.Embedding
		}
	} else {
		for _, e := range res.Data {
			if e.Index < 0 || e.Index >= n || out[e.Index] != nil {
				return nil, fmt.Errorf("%w: index %d repeated or out of range for %d inputs", ErrBadResponse, e.Index, n)
			}
			out[e.Index] = e.Embedding
		}
	}
	d := len(out[0])
	for i, v := range out {
		if len(v) == 0 {
			return nil, fmt.Errorf("%w: empty vector for input %d", ErrBadResponse, i)
		}
		if len(v) != d {
			return nil, fmt.Errorf("%w: %w: input 0 has %d components, input %d has %d",
				ErrBadResponse, ErrDimensionMismatch, d, i, len(v))
		}
		for _, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return nil, fmt.Errorf("%w: non-finite component for input %d", ErrBadResponse, i)
			}
		}
	}
	if !o.dim.CompareAndSwap(0, int64(d)) {
		if want := o.dim.Load(); want != int64(d) {
			return nil, fmt.Errorf("%w: %w: got %d components, want %d", ErrBadResponse, ErrDimensionMismatch, d, want)
		}
	}
	for _, v := range out {
		normalize(v)
	}
	return out, nil
}

// indicesMissing reports whether a multi-vector response has every index at
// zero, which means the server did not send them.
func indicesMissing(data []openai.Embedding) bool {
	if len(data) < 2 {
		return false
	}
	for _, e := range data {
		if e.Index != 0 {
			return false
		}
	}
	return true
}

// retryable reports whether a failed request may succeed if repeated: the
// status codes the official OpenAI clients retry, per-attempt timeouts and
// connection failures. Everything else (bad key, unknown model, input too
// long, undecodable body) fails the same way every time.
func retryable(err error) bool {
	var apiErr *openai.APIError
	if errors.As(err, &apiErr) {
		return retryableStatus(apiErr.HTTPStatusCode)
	}
	var reqErr *openai.RequestError
	if errors.As(err, &reqErr) {
		return retryableStatus(reqErr.HTTPStatusCode)
	}
	var netErr net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &netErr) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)
}

func retryableStatus(code int) bool {
	return code == http.StatusRequestTimeout || code == http.StatusConflict ||
		code == http.StatusTooManyRequests || code >= http.StatusInternalServerError
}

// retryAfterBackOff is the exponential schedule, stretched to honour the
// server's Retry-After when the last attempt reported a longer one.
type retryAfterBackOff struct {
	backoff.BackOff
	retryAfter time.Duration // from the last failed attempt; consumed once
}

func (b *retryAfterBackOff) NextBackOff() time.Duration {
	d := b.BackOff.NextBackOff()
	if d != backoff.Stop && b.retryAfter > d {
		d = b.retryAfter
	}
	b.retryAfter = 0
	return d
}

// responseHint carries what the HTTP layer saw back to the retry loop:
// go-openai's errors keep the status code but drop the headers.
type responseHint struct {
	retryAfter time.Duration
}

type hintKey struct{}

// retryAfterRecorder is the HTTP client go-openai calls. It records a failed
// response's Retry-After into the request context's responseHint, which keeps
// concurrent calls apart without any shared state.
type retryAfterRecorder struct {
	next openai.HTTPDoer
}

func (r retryAfterRecorder) Do(req *http.Request) (*http.Response, error) {
	res, err := r.next.Do(req)
	if err != nil || res.StatusCode < http.StatusBadRequest {
		return res, err
	}
	if hint, ok := req.Context().Value(hintKey{}).(*responseHint); ok {
		hint.retryAfter = parseRetryAfter(res.Header, time.Now())
	}
	return res, nil
}

// parseRetryAfter reads retry-after-ms (sent by Azure OpenAI among others;
// it wins because it is more precise) or else Retry-After, in seconds or as
// an HTTP date. Missing or malformed headers give 0.
func parseRetryAfter(h http.Header, now time.Time) time.Duration {
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(min(ms, float64(retryAfterCeiling.Milliseconds())) * float64(time.Millisecond))
		}
	}
	v := h.Get("Retry-After")
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
		if s <= 0 {
			return 0
		}
		return min(time.Duration(min(s, math.MaxInt32))*time.Second, retryAfterCeiling)
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return min(t.Sub(now), retryAfterCeiling)
	}
	return 0
}
