// Command extractor is the worker that turns chat turns into interest facts.
// Scale it by replicas; they share one durable consumer.
package main

import (
	"context"
	"log/slog"

	"github.com/recallhq/recall/pkg/queue"

	"github.com/recallhq/recall/internal/deps"
	"github.com/recallhq/recall/pkg/extractor"
	"github.com/recallhq/recall/pkg/service"
)

type config struct {
	deps.Config
	Extractor extractor.Config
}

func main() { service.Main("extractor", run) }

func run(ctx context.Context, log *slog.Logger) error {
	cfg, err := service.LoadConfig[config]()
	if err != nil {
		return err
	}
	service.LogConfig(log, cfg)

	d, closeDeps, err := deps.Open(ctx, cfg.Config, "extractor", log)
	if err != nil {
		return err
	}
	defer closeDeps()

	ex, source, err := extractor.NewExtractor(cfg.Extractor, d.Registry, log)
	if err != nil {
		return err
	}
	w := extractor.New(cfg.Extractor, d.Store, ex, source, cfg.Limits.Limits(), log, d.Registry)
	w.Refresher = queue.NewRefresher(d.JS, cfg.Extractor.Refresh.Bucket)
	runner, err := extractor.NewRunner(ctx, d.JS, w, log, d.RunnerMetrics)
	if err != nil {
		return err
	}
	return service.RunAll(ctx, runner.Run, d.Ops(cfg.Config, log))
}
