package llm

import (
	"errors"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

// Outcomes of one request, the label of the requests metric.
const (
	outcomeOK        = "ok"
	outcomeRetry     = "retry"     // retryable failure: 429, 5xx, timeout, transport
	outcomeMalformed = "malformed" // an answer, but not what was asked for
	outcomeError     = "error"     // failure that is not retried
)

// metrics are a client's Prometheus metrics, recall_<use>_llm_*.
type metrics struct {
	requests  *prometheus.CounterVec
	fallbacks *prometheus.CounterVec
	seconds   prometheus.Histogram
}

func newMetrics(reg prometheus.Registerer, subsystem string) (*metrics, error) {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "recall", Subsystem: subsystem, Name: "requests_total",
			Help: "Requests to the model by outcome: ok, retry (429, 5xx, timeout, transport), malformed (answer not what was asked for), error (not retried).",
		}, []string{"outcome"}),
		fallbacks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "recall", Subsystem: subsystem, Name: "fallbacks_total",
			Help: "Inputs answered by the offline fallback because the model failed for good, by reason.",
		}, []string{"reason"}),
		seconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: "recall", Subsystem: subsystem, Name: "request_seconds",
			Help:    "Latency of one request to the model, including failed ones.",
			Buckets: prometheus.ExponentialBuckets(0.05, 2, 11),
		}),
	}
	var err error
	if m.requests, err = register(reg, m.requests); err != nil {
		return nil, err
	}
	if m.fallbacks, err = register(reg, m.fallbacks); err != nil {
		return nil, err
	}
	if m.seconds, err = register(reg, m.seconds); err != nil {
		return nil, err
	}
	// Export zeros, so rates and alerts work before the first failure.
	for _, o := range []string{outcomeOK, outcomeRetry, outcomeMalformed, outcomeError} {
		m.requests.WithLabelValues(o)
	}
	for _, r := range []string{ReasonTimeout, ReasonRateLimited, ReasonServerError, ReasonTransport, ReasonMalformed, ReasonRejected} {
		m.fallbacks.WithLabelValues(r)
	}
	return m, nil
}

// register registers c on reg, or returns the collector already registered
// under the same name, so that several clients of one use in a process share
// their metrics instead of panicking.
func register[C prometheus.Collector](reg prometheus.Registerer, c C) (C, error) {
	if reg == nil {
		return c, nil
	}
	err := reg.Register(c)
	if err == nil {
		return c, nil
	}
	if are, ok := errors.AsType[prometheus.AlreadyRegisteredError](err); ok {
		if existing, ok := are.ExistingCollector.(C); ok {
			return existing, nil
		}
	}
	return c, fmt.Errorf("llm: register metrics: %w", err)
}
