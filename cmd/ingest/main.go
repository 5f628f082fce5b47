// Command ingest is the worker that stores turns from the stream in PostgreSQL.
// Scale it by replicas; they share one durable consumer.
package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/ingest"
	"github.com/recallhq/recall/pkg/service"
	"github.com/recallhq/recall/pkg/store"
)

type config struct {
	service.Base
	DB      store.Config
	NATS    events.NATSConfig
	Streams events.StreamConfig
	Limits  events.LimitsConfig
	Ingest  ingest.Config
}

func main() { service.Main("ingest", run) }

func run(ctx context.Context, log *slog.Logger) error {
	cfg, err := service.LoadConfig[config]()
	if err != nil {
		return err
	}
	service.LogConfig(log, cfg)

	st, err := store.Open(ctx, cfg.DB)
	if err != nil {
		return err
	}
	defer st.Close()
	nc, js, err := events.Open(ctx, cfg.NATS, cfg.Streams, "recall-ingest", log)
	if err != nil {
		return err
	}
	defer events.Close(nc, 5*time.Second)

	reg := service.NewRegistry()
	runner, err := ingest.NewRunner(ctx, js, st, cfg.Ingest, cfg.Limits.Limits(), log, events.NewRunnerMetrics(reg))
	if err != nil {
		return err
	}
	ops := service.Server{Name: "ops", Addr: cfg.OpsAddr, Handler: service.OpsHandler(reg,
		service.Check{Name: "postgres", Fn: st.Ping},
		service.Check{Name: "nats", Fn: events.Ready(nc, js)})}
	return service.RunAll(ctx, runner.Run, ops.Task(log, cfg.ShutdownTimeout))
}
