package decayer

import "github.com/prometheus/client_golang/prometheus"

type metrics struct {
	runs        *prometheus.CounterVec
	rows        *prometheus.CounterVec
	batches     *prometheus.CounterVec
	duration    *prometheus.HistogramVec
	lastSuccess prometheus.Gauge
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		runs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "recall", Subsystem: "decayer", Name: "runs_total",
			Help: "Decayer runs by result: ok, failed, skipped (another process held the lock).",
		}, []string{"result"}),
		rows: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "recall", Subsystem: "decayer", Name: "rows_total",
			Help: "Rows changed by the decayer, by step and outcome: facts decayed, archived, expired, reactivated, scanned; retention messages_deleted, sessions_deleted, attributes_deleted; habits users_derived, attributes_derived; refresh users_refreshed.",
		}, []string{"step", "outcome"}),
		batches: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "recall", Subsystem: "decayer", Name: "batches_total",
			Help: "Batches (each its own short transaction) run by the decayer, by step.",
		}, []string{"step"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "recall", Subsystem: "decayer", Name: "duration_seconds",
			Help:    "Duration of decayer steps, and of whole runs (step=\"run\").",
			Buckets: []float64{0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600, 4 * 3600},
		}, []string{"step"}),
		lastSuccess: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: "recall", Subsystem: "decayer", Name: "last_success_timestamp_seconds",
			Help: "When the last successful run ended (Unix time); alert when it falls too far behind.",
		}),
	}
	if reg != nil {
		reg.MustRegister(m.runs, m.rows, m.batches, m.duration, m.lastSuccess)
	}
	return m
}
