// Command seen is the worker that records which items each user has been shown
// (the seen-item registry). Scale it by replicas; they share one durable consumer.
package main

import (
	"context"
	"log/slog"

	"github.com/recallhq/recall/internal/deps"
	"github.com/recallhq/recall/pkg/seen"
	"github.com/recallhq/recall/pkg/service"
)

type config struct {
	deps.Config
	Seen seen.Config
}

func main() { service.Main("seen", run) }

func run(ctx context.Context, log *slog.Logger) error {
	cfg, err := service.LoadConfig[config]()
	if err != nil {
		return err
	}
	service.LogConfig(log, cfg)

	d, closeDeps, err := deps.Open(ctx, cfg.Config, "seen", log)
	if err != nil {
		return err
	}
	defer closeDeps()

	w := seen.New(cfg.Seen, d.Store, cfg.Limits.Limits(), log, d.Registry)
	runner, err := seen.NewRunner(ctx, d.JS, w, cfg.Seen, log, d.RunnerMetrics)
	if err != nil {
		return err
	}
	return service.RunAll(ctx, runner.Run, d.Ops(cfg.Config, log))
}
