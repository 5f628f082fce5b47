package api

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

type metrics struct {
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	turns    *prometheus.CounterVec
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "recall", Subsystem: "api", Name: "requests_total", Help: "Requests by route and status.",
		}, []string{"route", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "recall", Subsystem: "api", Name: "request_seconds", Help: "Request latency by route.",
			Buckets: prometheus.ExponentialBuckets(0.0002, 2, 16),
		}, []string{"route"}),
		turns: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "recall", Subsystem: "api", Name: "turns_total", Help: "Turns received, by outcome (accepted, duplicate, rejected, failed).",
		}, []string{"outcome"}),
	}
	if reg != nil {
		reg.MustRegister(m.requests, m.latency, m.turns)
	}
	return m
}

func (m *metrics) observe(route string, status int, d time.Duration) {
	m.requests.WithLabelValues(route, strconv.Itoa(status)).Inc()
	m.latency.WithLabelValues(route).Observe(d.Seconds())
}
