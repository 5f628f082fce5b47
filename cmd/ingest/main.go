// Command ingest is the worker that stores turns from the stream in PostgreSQL.
// Scale it by replicas; they share one durable consumer.
package main

import (
	"context"
	"log/slog"

	"github.com/recallhq/recall/internal/deps"
	"github.com/recallhq/recall/pkg/ingest"
	"github.com/recallhq/recall/pkg/service"
)

type config struct {
	deps.Config
	Ingest ingest.Config
}

func main() { service.Main("ingest", run) }

func run(ctx context.Context, log *slog.Logger) error {
	cfg, err := service.LoadConfig[config]()
	if err != nil {
		return err
	}
	service.LogConfig(log, cfg)

	d, closeDeps, err := deps.Open(ctx, cfg.Config, "ingest", log)
	if err != nil {
		return err
	}
	defer closeDeps()

	runner, err := ingest.NewRunner(ctx, d.JS, d.Store, cfg.Ingest, cfg.Limits.Limits(), log, d.RunnerMetrics)
	if err != nil {
		return err
	}
	return service.RunAll(ctx, runner.Run, d.Ops(cfg.Config, log))
}
