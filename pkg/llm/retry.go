package llm

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/cenkalti/backoff/v4"
)

// retryAfterBackOff is the package's wait rule (see the package doc): the
// exponential backoff, stretched to the server's Retry-After of the last
// failed attempt, and neither beyond limit.
type retryAfterBackOff struct {
	backoff.BackOff
	hint  time.Duration // set by the operation after each failure; used once
	limit time.Duration
}

// NextBackOff implements backoff.BackOff.
func (b *retryAfterBackOff) NextBackOff() time.Duration {
	d := b.BackOff.NextBackOff()
	hint := b.hint
	b.hint = 0
	if d == backoff.Stop {
		return d
	}
	return min(max(d, hint), b.limit)
}

// retryAfterKey is the context key under which an attempt leaves a
// *time.Duration for retryAfterTransport to fill. go-openai's errors do not
// carry response headers, so the transport reads them on the way past; the
// slot in each request's context keeps concurrent calls apart.
type retryAfterKey struct{}

// retryAfterTransport records the Retry-After of every response into the
// slot its request's context carries.
type retryAfterTransport struct {
	base http.RoundTripper
}

// RoundTrip implements http.RoundTripper.
func (t retryAfterTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	if slot, ok := req.Context().Value(retryAfterKey{}).(*time.Duration); ok {
		*slot = parseRetryAfter(resp.Header, time.Now())
	}
	return resp, nil
}

// retryAfterCeiling clamps absurd Retry-After values before they overflow a
// Duration. It is no limit on waiting: Config.RetryMax caps every wait far
// below it.
const retryAfterCeiling = 24 * time.Hour

// parseRetryAfter reads retry-after-ms (sent by Azure and OpenAI; it wins
// because it is more precise) or else Retry-After, in seconds (fractions
// allowed) or as an HTTP date. Missing, malformed and non-positive values
// give 0.
func parseRetryAfter(h http.Header, now time.Time) time.Duration {
	if ms, err := strconv.ParseFloat(h.Get("Retry-After-Ms"), 64); err == nil && ms > 0 {
		return seconds(ms / 1000)
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if !(secs > 0) {
			return 0
		}
		return seconds(secs)
	}
	if at, err := http.ParseTime(v); err == nil && at.After(now) {
		return min(at.Sub(now), retryAfterCeiling)
	}
	return 0
}

// seconds converts a positive number of seconds to a Duration, clamped to
// retryAfterCeiling.
func seconds(s float64) time.Duration {
	if s >= retryAfterCeiling.Seconds() {
		return retryAfterCeiling
	}
	return time.Duration(s * float64(time.Second))
}
