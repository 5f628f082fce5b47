// Command ingest is the worker that stores turns from the stream in PostgreSQL.
// Scale it by replicas; they share one durable consumer.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
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

func main() {
	log := service.NewLogger("ingest", slog.LevelInfo)
	if err := run(log); err != nil {
		log.Error("exit", "error", err.Error())
		os.Exit(1)
	}
}

func run(log *slog.Logger) error {
	cfg, err := service.LoadConfig[config]()
	if err != nil {
		return err
	}
	log = service.NewLogger("ingest", cfg.LogLevel)
	service.LogConfig(log, cfg)
	ctx, stop := service.SignalContext()
	defer stop()

	st, err := store.Open(ctx, cfg.DB)
	if err != nil {
		return err
	}
	defer st.Close()

	nc, js, err := events.Connect(ctx, cfg.NATS.URL, cfg.NATS.CredsFile, "recall-ingest", log)
	if err != nil {
		return err
	}
	defer events.Close(nc, 5*time.Second)
	if err := events.EnsureStreams(ctx, js, cfg.Streams); err != nil {
		return err
	}

	reg := service.NewRegistry()
	runner, err := ingest.NewRunner(ctx, js, st, cfg.Ingest, cfg.Limits.Limits(), log, events.NewRunnerMetrics(reg))
	if err != nil {
		return fmt.Errorf("ingest runner: %w", err)
	}
	ops := service.Server{Name: "ops", Addr: cfg.OpsAddr, Handler: service.OpsHandler(reg,
		service.Check{Name: "postgres", Fn: st.Ping},
		service.Check{Name: "nats", Fn: events.Ready(nc, js)})}
	return service.RunAll(ctx,
		runner.Run,
		func(ctx context.Context) error { return ops.Serve(ctx, log, cfg.ShutdownTimeout, nil) })
}
