package testenv

import (
	"context"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/queue"
	"github.com/recallhq/recall/pkg/worker"
)

// Deps are worker dependencies on the test's components: db (may be nil for
// a worker that needs no database) and n, the default event limits, the
// test's logger and no metrics registry.
func Deps(t testing.TB, n *NATS, db *DB) *worker.Deps {
	d := &worker.Deps{JS: n.JS, Limits: events.DefaultLimits, Log: Logger(t)}
	if db != nil {
		d.Store = db.Store
	}
	return d
}

// StartOption changes how StartWorker runs a worker.
type StartOption func(*start)

type start struct {
	deps    *worker.Deps
	metrics *queue.RunnerMetrics
}

// WithRegistry registers the worker's metrics on reg.
func WithRegistry(reg prometheus.Registerer) StartOption {
	return func(s *start) { s.deps.Registry = reg }
}

// WithLimits validates events with l instead of the default limits.
func WithLimits(l events.Limits) StartOption {
	return func(s *start) { s.deps.Limits = l }
}

// WithRunnerMetrics counts the runner's work in m.
func WithRunnerMetrics(m *queue.RunnerMetrics) StartOption {
	return func(s *start) { s.metrics = m }
}

// StartWorker builds def's worker from its default config changed by tune
// (nil: the defaults), and runs it live until the test ends: its runner on its
// durable consumer and its periodic tasks. It returns the worker and a stop
// function (graceful drain; also called at cleanup, once).
func StartWorker[C, W any](t testing.TB, n *NATS, db *DB, def worker.Def[C, W], tune func(*C), opts ...StartOption) (W, func()) {
	t.Helper()
	cfg := def.Defaults()
	if tune != nil {
		tune(&cfg)
	}
	s := &start{deps: Deps(t, n, db), metrics: queue.NewRunnerMetrics(nil)}
	for _, o := range opts {
		o(s)
	}
	d := s.deps
	ctx, cancel := context.WithCancel(context.Background())
	w, b, err := def.Build(ctx, cfg, d)
	require.NoError(t, err)
	var tasks []func(context.Context) error
	if b.Handler != nil {
		r, err := b.Binding.NewRunner(ctx, n.JS, b.Queue.Consumer, b.Handler, b.Queue.Runner, d.Log, s.metrics)
		require.NoError(t, err)
		tasks = append(tasks, r.Run)
	}
	for _, p := range b.Periodic {
		tasks = append(tasks, p)
	}
	done := make(chan error, len(tasks))
	for _, task := range tasks {
		go func() { done <- task(ctx) }()
	}
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			for range tasks {
				require.NoError(t, <-done)
			}
		})
	}
	t.Cleanup(stop)
	return w, stop
}
