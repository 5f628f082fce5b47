package worker

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"slices"

	"github.com/recallhq/recall/pkg/deps"
	"github.com/recallhq/recall/pkg/envconfig"
	"github.com/recallhq/recall/pkg/queue"
	"github.com/recallhq/recall/pkg/service"
	"github.com/recallhq/recall/pkg/store"
)

// Main is a worker binary's main: cmd/<name>/main.go is `worker.Main(x.Worker)`.
// Flags: -once runs one pass of a scheduled worker and exits.
func Main(w Worker) {
	service.Main(w.About().Name, func(ctx context.Context, log *slog.Logger) error {
		fs := flag.NewFlagSet(w.About().Name, flag.ContinueOnError)
		once := fs.Bool("once", false, "run one pass and exit (0: done or skipped, 1: failed), for a CronJob; scheduled workers only")
		if err := fs.Parse(os.Args[1:]); err != nil {
			return err
		}
		return Run(ctx, log, w.About().Name, []Worker{w}, *once)
	})
}

// Run runs workers in one process until ctx ends: it reads the shared config
// and each worker's, logs them, opens PostgreSQL and NATS once, builds the
// workers on one Deps, and runs each one's runner on its durable consumer and
// its periodic tasks, beside the operations server. With once, the single
// worker given runs one pass instead, and Run returns.
func Run(ctx context.Context, log *slog.Logger, name string, workers []Worker, once bool) error {
	base, err := envconfig.Load[deps.Config]()
	if err != nil {
		return err
	}
	cfgs, err := Load(workers, nil)
	if err != nil {
		return err
	}
	logged := []any{base}
	for _, c := range cfgs {
		logged = append(logged, c.Value())
	}
	service.LogConfig(log, logged...)
	if once && (len(workers) != 1) {
		return errors.New("-once runs one worker")
	}

	SizePool(&base.DB, cfgs)
	d, closeDeps, err := deps.Open(ctx, base, name, log)
	if err != nil {
		return err
	}
	defer closeDeps()
	wd := NewDeps(d, base, log)
	if once {
		b, err := cfgs[0].Build(ctx, wd)
		if err != nil {
			return err
		}
		if b.Once == nil {
			return fmt.Errorf("%s has no single pass (-once)", b.Name)
		}
		return b.Once(ctx)
	}
	tasks, err := Tasks(ctx, wd, d.RunnerMetrics, cfgs)
	if err != nil {
		return err
	}
	if limit := service.LimitMemory(base.MemoryHeadroom); limit > 0 {
		log.Info("memory limit set", "bytes", limit, "headroom", base.MemoryHeadroom)
	}
	return service.RunAll(ctx, append(tasks, d.Ops(base, log))...)
}

// NewDeps is the worker dependencies over a process's opened ones.
func NewDeps(d *deps.Deps, base deps.Config, log *slog.Logger) *Deps {
	return &Deps{Store: d.Store, JS: d.JS, Registry: d.Registry, Limits: base.Limits.Limits(), Log: log}
}

// Load reads the configs of workers from environ (nil: the process's
// environment). Every config is read before any worker is built, so a bad
// variable stops the process at start, naming it.
func Load(workers []Worker, environ map[string]string) ([]Config, error) {
	out := make([]Config, 0, len(workers))
	var errs []error
	for _, w := range workers {
		c, err := w.Load(environ)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, c)
	}
	return out, errors.Join(errs...)
}

// SizePool sizes the database pool of a process running the workers of
// cfgs when DATABASE_MAX_CONNS leaves it to the process: the store's
// default (for the API, periodic tasks and reads outside handlers) plus a
// connection for each handler the workers run at once, so that no handler
// waits for another's transaction to end before it can begin its own.
// Measured on a backfill (make check-data) with every worker in one
// process: at the default alone (4 here) the summarizer's handlers waited
// for a connection most of their time.
func SizePool(db *store.Config, cfgs []Config) {
	if db.MaxConns != 0 {
		return
	}
	n := 0
	for _, c := range cfgs {
		n += c.Queue().Runner.Concurrency
	}
	db.MaxConns = store.DefaultMaxConns() + int32(n)
}

// Tasks builds the workers and returns what runs them live: each one's
// runner on its durable consumer, then its periodic tasks.
func Tasks(ctx context.Context, d *Deps, metrics *queue.RunnerMetrics, cfgs []Config) ([]service.Task, error) {
	var tasks []service.Task
	for _, c := range cfgs {
		b, err := c.Build(ctx, d)
		if err != nil {
			return nil, err
		}
		if b.Handler != nil {
			r, err := b.Binding.NewRunner(ctx, d.JS, b.Queue.Consumer, b.Handler, b.Queue.Runner, d.Log.With("worker", b.Name), metrics)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", b.Name, err)
			}
			tasks = append(tasks, r.Run)
		}
		tasks = append(tasks, b.Periodic...)
	}
	return tasks, nil
}

// EnvVars lists every variable a process running workers reads: the shared
// config's and each worker's, once each, for the deployment checks.
func EnvVars(workers ...Worker) []string {
	out := envconfig.EnvVars[deps.Config]()
	for _, w := range workers {
		out = append(out, w.EnvVars()...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
