// Package deps opens what every Recall binary depends on (PostgreSQL, NATS with
// the streams declared, the metrics registry and the readiness checks) from the
// config every binary shares, so each main only adds its own part.
//
// It sits beside pkg/service rather than inside it: service is the
// scaffolding every binary uses (config, logging, the operations server), and
// the queue (with the API, the memory service and others) imports it for its
// config defaults, so service cannot import the queue back; deps is the layer
// above service, the queue and the store.
package deps

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/recallhq/recall/pkg/queue"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/service"
	"github.com/recallhq/recall/pkg/store"
	"github.com/recallhq/recall/pkg/telemetry"
)

// Config is the part of the config every long-running binary shares.
type Config struct {
	service.Base
	DB        store.Config
	NATS      queue.NATSConfig
	Streams   queue.StreamConfig
	Limits    events.LimitsConfig
	Telemetry telemetry.Config
}

// Deps are the opened dependencies, one of each per process, so that the API
// and every worker `recall run` starts share one pool and one connection.
type Deps struct {
	Store         *store.Store
	NC            *nats.Conn
	JS            jetstream.JetStream
	Registry      *prometheus.Registry
	RunnerMetrics *queue.RunnerMetrics
	// Checks are the readiness checks: PostgreSQL and NATS.
	Checks []service.Check
}

// flushTimeout bounds flushing the last spans at exit, after the drain.
const flushTimeout = 5 * time.Second

// Open starts tracing when the OTEL_* variables ask for it (its service name
// defaults to name, recall for `recall run`), connects to PostgreSQL and
// NATS and declares the streams. The returned function closes both (NATS
// drained first, so acks in flight are sent) and then flushes the spans.
func Open(ctx context.Context, c Config, name string, log *slog.Logger) (*Deps, func(), error) {
	return open(ctx, c, name, log, true)
}

// Attach is Open for the operator's tools that work on a running system
// (replay): the streams must be there already (queue.Attach), so a tool
// pointed at the wrong NATS server changes nothing on it.
func Attach(ctx context.Context, c Config, name string, log *slog.Logger) (*Deps, func(), error) {
	return open(ctx, c, name, log, false)
}

func open(ctx context.Context, c Config, name string, log *slog.Logger, declare bool) (*Deps, func(), error) {
	traced := name
	if name == "run" {
		traced = "recall"
	}
	stopTracing, err := telemetry.Start(ctx, c.Telemetry, traced, log)
	if err != nil {
		return nil, nil, err
	}
	flush := func() {
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), flushTimeout)
		defer cancel()
		if err := stopTracing(fctx); err != nil {
			log.Warn("tracing", "error", err.Error())
		}
	}
	st, err := store.Open(ctx, c.DB)
	if err != nil {
		flush()
		return nil, nil, err
	}
	var (
		nc *nats.Conn
		js jetstream.JetStream
	)
	if declare {
		nc, js, err = queue.Open(ctx, c.NATS, c.Streams, "recall-"+name, log)
	} else {
		nc, js, err = queue.Attach(ctx, c.NATS, "recall-"+name, log)
	}
	if err != nil {
		st.Close()
		flush()
		return nil, nil, err
	}
	reg := service.NewRegistry()
	d := &Deps{
		Store: st, NC: nc, JS: js, Registry: reg, RunnerMetrics: queue.NewRunnerMetrics(reg),
		Checks: []service.Check{{Name: "postgres", Fn: st.Ping}, {Name: "nats", Fn: queue.Ready(nc, js)}},
	}
	return d, func() { queue.Close(nc, 5*time.Second); st.Close(); flush() }, nil
}

// Ops is the operations server (/healthz, /readyz, /metrics, and the Go
// profiles when OPS_PROFILING is on) on OPS_ADDR.
func (d *Deps) Ops(c Config, log *slog.Logger) service.Task {
	mux := http.NewServeMux()
	service.RegisterOps(mux, d.Registry, d.Checks...)
	if c.OpsProfiling {
		service.RegisterProfiling(mux)
	}
	return service.Server{Name: "ops", Addr: c.OpsAddr, Handler: mux}.Task(log, c.ShutdownTimeout)
}
