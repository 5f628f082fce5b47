// Package worker is the one shape every Recall worker has. A worker is a
// value, a Def: its name, where it reads (a queue.Binding), its runner's
// batch size and concurrency, and how it builds itself from its config and the
// dependencies a process shares (Deps). The registry (package workers) lists
// them; `recall run`, `recall worker NAME`, `recall replay` and the thin
// cmd/<worker> mains all start workers through this package, so a worker is
// wired in exactly one place: its own Def.
package worker

import (
	"context"
	"fmt"
	"log/slog"
	"sync"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/recallhq/recall/pkg/embed"
	"github.com/recallhq/recall/pkg/envconfig"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/queue"
	"github.com/recallhq/recall/pkg/service"
	"github.com/recallhq/recall/pkg/store"
)

// Queue is a worker's durable consumer and runner settings. A worker's
// config holds it under the worker's env prefix (`envPrefix:"INGEST_"` gives
// INGEST_CONSUMER_ACK_WAIT, INGEST_BATCH_SIZE, ...).
type Queue struct {
	Runner   queue.RunnerConfig
	Consumer queue.ConsumerConfig
}

// Handler is what a worker value does with a batch of messages: it returns
// one error per message, as queue.BatchHandler.
type Handler interface {
	Handle(ctx context.Context, msgs []queue.Message) []error
}

// Periodic is implemented by a worker that runs tasks beside its runner (the
// summarizer's idle sweep) or instead of one (the decayer's schedule). They
// run live only, never in a replay.
type Periodic interface {
	Periodic() []service.Task
}

// Oncer is implemented by a scheduled worker that can run one pass and exit
// (`decayer --once`, for a Kubernetes CronJob).
type Oncer interface {
	Once(ctx context.Context) error
}

// Def describes a worker whose config is C and whose value is W. W is a
// Handler when the worker reads a stream (Binding set), and may be Periodic
// and an Oncer.
type Def[C, W any] struct {
	// Name is the worker's name: its command, its durable consumer, its log
	// and metric label.
	Name string
	// Doc is one line saying what it does, for usage text.
	Doc string
	// Binding is where the worker reads; the zero Binding means it reads no
	// stream (a scheduled job).
	Binding queue.Binding
	// Publishes are the subjects the worker publishes to, besides its dead
	// letters (which its Binding implies): what its NATS user may publish
	// (Permissions). A subject left out here is refused by a cluster laid
	// out as docs/operations.md says.
	Publishes []string
	// BatchSize and Concurrency are the worker's runner defaults, under its
	// env overrides (<PREFIX>BATCH_SIZE, <PREFIX>CONCURRENCY).
	BatchSize, Concurrency int
	// Queue returns where cfg holds the worker's queue settings; nil for a
	// worker that reads no stream.
	Queue func(cfg *C) *Queue
	// New builds the worker from its config and the process's dependencies.
	New func(ctx context.Context, cfg C, d *Deps) (W, error)
}

// Worker is a Def with its types erased, as the registry holds it.
type Worker interface {
	// About is the worker's name, line of documentation and binding.
	About() About
	// Load reads the worker's config from environ (nil: the process's
	// environment): its defaults, then the variables set.
	Load(environ map[string]string) (Config, error)
	// EnvVars lists the variables the worker's config reads.
	EnvVars() []string
}

// Config is a worker's loaded config, ready to build the worker.
type Config interface {
	// Value is the config struct, for the start-up log.
	Value() any
	// Queue is the worker's consumer and runner settings (zero for a
	// worker that reads no stream).
	Queue() Queue
	// Build builds the worker.
	Build(ctx context.Context, d *Deps) (Built, error)
}

// Built is a worker ready to run.
type Built struct {
	Name    string
	Binding queue.Binding
	Queue   Queue
	// Handler handles the worker's messages (nil: it reads no stream).
	Handler queue.BatchHandler
	// Periodic runs live beside the runner.
	Periodic []service.Task
	// Once runs one pass of a scheduled worker (nil: it has none).
	Once func(ctx context.Context) error
	// Value is the worker itself.
	Value any
}

// About is what the registry and usage text say of a worker.
type About struct {
	Name, Doc string
	Binding   queue.Binding
	Publishes []string
}

// About implements Worker.
func (d Def[C, W]) About() About {
	return About{Name: d.Name, Doc: d.Doc, Binding: d.Binding, Publishes: d.Publishes}
}

// Permissions are what the worker's NATS user needs: what every process
// needs (queue.ProcessPermissions), reading its binding, if any, and
// publishing its subjects.
func Permissions(w Worker) queue.Permissions {
	a := w.About()
	p := queue.ProcessPermissions().Merge(queue.PublishPermissions(a.Publishes...))
	if a.Binding.Stream != "" {
		p = p.Merge(a.Binding.Permissions())
	}
	return p
}

// EnvVars implements Worker.
func (d Def[C, W]) EnvVars() []string { return envconfig.EnvVars[C]() }

// Load implements Worker.
func (d Def[C, W]) Load(environ map[string]string) (Config, error) {
	cfg, err := d.LoadConfig(environ)
	if err != nil {
		return nil, err
	}
	return loaded[C, W]{def: d, cfg: cfg}, nil
}

// LoadConfig reads the worker's typed config from environ (nil: the
// process's environment; an empty map: the defaults alone, for tests). The
// runner's batch size and concurrency start from the Def's values, every
// other field from its env tag's default.
func (d Def[C, W]) LoadConfig(environ map[string]string) (C, error) {
	var cfg C
	if d.Queue != nil {
		q := d.Queue(&cfg)
		q.Runner.BatchSize, q.Runner.Concurrency = d.BatchSize, d.Concurrency
	}
	if err := envconfig.LoadInto(&cfg, environ); err != nil {
		return cfg, fmt.Errorf("%s: %w", d.Name, err)
	}
	return cfg, nil
}

// Defaults is the worker's config with no variable set.
func (d Def[C, W]) Defaults() C {
	cfg, err := d.LoadConfig(map[string]string{})
	if err != nil {
		panic(err)
	}
	return cfg
}

// Build builds the worker from cfg.
func (d Def[C, W]) Build(ctx context.Context, cfg C, deps *Deps) (W, Built, error) {
	w, err := d.New(ctx, cfg, deps.For(d.Name))
	if err != nil {
		var zero W
		return zero, Built{}, fmt.Errorf("%s: %w", d.Name, err)
	}
	b := Built{Name: d.Name, Binding: d.Binding, Value: w}
	if d.Queue != nil {
		b.Queue = *d.Queue(&cfg)
	}
	if h, ok := any(w).(Handler); ok {
		b.Handler = h.Handle
	}
	if p, ok := any(w).(Periodic); ok {
		b.Periodic = p.Periodic()
	}
	if o, ok := any(w).(Oncer); ok {
		b.Once = o.Once
	}
	if b.Binding.Stream != "" && b.Handler == nil {
		var zero W
		return zero, Built{}, fmt.Errorf("%s: reads %s but has no Handle method", d.Name, b.Binding.Stream)
	}
	return w, b, nil
}

type loaded[C, W any] struct {
	def Def[C, W]
	cfg C
}

func (l loaded[C, W]) Value() any { return l.cfg }

func (l loaded[C, W]) Queue() Queue {
	if l.def.Queue == nil {
		return Queue{}
	}
	return *l.def.Queue(&l.cfg)
}

func (l loaded[C, W]) Build(ctx context.Context, d *Deps) (Built, error) {
	_, b, err := l.def.Build(ctx, l.cfg, d)
	return b, err
}

// Deps are what workers are built from. One Deps serves every worker of a
// process, so what is expensive to hold (an embedder's client, the segmenter
// behind the rules) exists once per process however many workers use it.
type Deps struct {
	Store    *store.Store
	JS       jetstream.JetStream
	Registry prometheus.Registerer
	Limits   events.Limits
	// Log is the process's logger; For adds the worker's name.
	Log *slog.Logger

	shared *shared
}

type shared struct {
	mu        sync.Mutex
	embedders map[embed.Config]embed.Embedder
}

// For returns d with the logger naming the worker.
func (d *Deps) For(name string) *Deps {
	c := *d
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	c.Log = c.Log.With("worker", name)
	if d.shared == nil {
		d.shared = &shared{}
	}
	c.shared = d.shared
	return &c
}

// Embedder is the process's embedder for cfg: the workers that embed (the
// catalog, the profiler, the indexer) read the same EMBED_* variables and
// share one client, and so one concurrency cap, instead of one each.
func (d *Deps) Embedder(cfg embed.Config) (embed.Embedder, error) {
	if d.shared == nil {
		d.shared = &shared{}
	}
	s := d.shared
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.embedders[cfg]; ok {
		return e, nil
	}
	e, err := embed.New(cfg, cfg.Dimensions)
	if err != nil {
		return nil, err
	}
	if s.embedders == nil {
		s.embedders = map[embed.Config]embed.Embedder{}
	}
	s.embedders[cfg] = e
	return e, nil
}
