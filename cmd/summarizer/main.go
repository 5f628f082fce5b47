// Command summarizer is the worker that keeps session summaries, and runs the
// idle sweep that asks for the final summary of sessions gone quiet. Scale it by
// replicas; they share one durable consumer, and one sweeps at a time.
package main

import (
	"context"
	"log/slog"

	"github.com/recallhq/recall/pkg/queue"

	"github.com/recallhq/recall/internal/deps"
	"github.com/recallhq/recall/pkg/service"
	"github.com/recallhq/recall/pkg/summarizer"
)

type config struct {
	deps.Config
	Summarizer summarizer.Config
}

func main() { service.Main("summarizer", run) }

func run(ctx context.Context, log *slog.Logger) error {
	cfg, err := service.LoadConfig[config]()
	if err != nil {
		return err
	}
	service.LogConfig(log, cfg)

	d, closeDeps, err := deps.Open(ctx, cfg.Config, "summarizer", log)
	if err != nil {
		return err
	}
	defer closeDeps()

	w, err := summarizer.NewFromConfig(cfg.Summarizer, d.Store, d.JS, cfg.Limits.Limits(), log, d.Registry)
	if err != nil {
		return err
	}
	w.Refresher = queue.NewRefresher(d.JS, cfg.Summarizer.Refresh.Bucket)
	runner, err := summarizer.NewRunner(ctx, d.JS, w, log, d.RunnerMetrics)
	if err != nil {
		return err
	}
	return service.RunAll(ctx, runner.Run, w.RunSweeper, d.Ops(cfg.Config, log))
}
