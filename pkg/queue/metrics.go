package queue

import "github.com/prometheus/client_golang/prometheus"

// RunnerMetrics are the per-consumer Prometheus metrics every worker exports.
type RunnerMetrics struct {
	Processed      *prometheus.CounterVec
	Failed         *prometheus.CounterVec
	Retried        *prometheus.CounterVec
	DeadLettered   *prometheus.CounterVec
	Heartbeats     *prometheus.CounterVec
	BatchSize      *prometheus.HistogramVec
	HandlerSeconds *prometheus.HistogramVec
	Pending        *prometheus.GaugeVec
}

// NewRunnerMetrics creates the metrics and registers them on reg (nil: not
// registered, for tests and tools).
func NewRunnerMetrics(reg prometheus.Registerer) *RunnerMetrics {
	m := &RunnerMetrics{
		Processed: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "recall", Subsystem: "consumer", Name: "processed_total",
			Help: "Messages handled successfully and acked.",
		}, []string{"consumer"}),
		Failed: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "recall", Subsystem: "consumer", Name: "failed_total",
			Help: "Handler failures, by kind: retry (handed back for redelivery), permanent (bad input, dead-lettered at once) or exhausted (dead-lettered after the last delivery).",
		}, []string{"consumer", "kind"}),
		Retried: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "recall", Subsystem: "consumer", Name: "retried_total",
			Help: "Messages that failed and were handed back for redelivery.",
		}, []string{"consumer"}),
		DeadLettered: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "recall", Subsystem: "consumer", Name: "dead_lettered_total",
			Help: "Messages moved to the dead-letter stream.",
		}, []string{"consumer"}),
		Heartbeats: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "recall", Subsystem: "consumer", Name: "in_progress_total",
			Help: "InProgress heartbeats sent for slow handlers.",
		}, []string{"consumer"}),
		BatchSize: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "recall", Subsystem: "consumer", Name: "batch_size",
			Help:    "Messages per handler call.",
			Buckets: []float64{1, 2, 5, 10, 25, 50, 100, 250, 500, 1000},
		}, []string{"consumer"}),
		HandlerSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "recall", Subsystem: "consumer", Name: "handler_seconds",
			Help:    "Handler latency per batch.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 2, 16),
		}, []string{"consumer"}),
		Pending: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: "recall", Subsystem: "consumer", Name: "pending_messages",
			Help: "Messages this consumer has not handled yet (lag): waiting to be delivered, or delivered and not yet acknowledged; read from the server every LAG_INTERVAL.",
		}, []string{"consumer"}),
	}
	if reg != nil {
		reg.MustRegister(m.Processed, m.Failed, m.Retried, m.DeadLettered, m.Heartbeats, m.BatchSize, m.HandlerSeconds, m.Pending)
	}
	return m
}
