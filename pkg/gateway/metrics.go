package gateway

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the gateway's: its requests, the memory they got, and what
// became of their turns.
type metrics struct {
	requests *prometheus.HistogramVec
	// memory counts requests by what memory they got: on, off (no user, or
	// turned off), unavailable (the read failed or took too long).
	memory     *prometheus.CounterVec
	memoryTime prometheus.Histogram
	// turns counts turns by outcome: published, duplicate, already_stored,
	// retried (attempts), rejected, dropped (queue full), lost (retries
	// exhausted, or stopped before publishing).
	turns *prometheus.CounterVec
	queue prometheus.Gauge
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		requests: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "recall_gateway_request_duration_seconds", Help: "Gateway requests by route and status, to the end of the answer (a whole stream included).",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300},
		}, []string{"route", "status"}),
		memory: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "recall_gateway_memory_total", Help: "Gateway chat requests by the memory they got: on, off, unavailable, refused (another user's session).",
		}, []string{"outcome"}),
		memoryTime: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "recall_gateway_memory_seconds", Help: "Time to read the memory a chat request's prompt gets.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1},
		}),
		turns: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "recall_gateway_turns_total", Help: "Turns the gateway offered to the stream, by outcome: published, duplicate, already_stored, retried, rejected, dropped, lost.",
		}, []string{"outcome"}),
		queue: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "recall_gateway_publish_queue", Help: "Exchanges waiting to be published.",
		}),
	}
	// Every outcome is a series from the start, so that a rate over it is
	// 0 rather than absent until the first one.
	for _, o := range []string{"on", "off", "unavailable", "refused"} {
		m.memory.WithLabelValues(o)
	}
	for _, o := range []string{"published", "duplicate", "already_stored", "retried", "rejected", "dropped", "lost"} {
		m.turns.WithLabelValues(o)
	}
	if reg != nil {
		reg.MustRegister(m.requests, m.memory, m.memoryTime, m.turns, m.queue)
	}
	return m
}

func (m *metrics) observe(route string, status int, d time.Duration) {
	m.requests.WithLabelValues(route, strconv.Itoa(status)).Observe(d.Seconds())
}
