// Command catalog is the worker that keeps the bookshelf: it stores catalog
// items (embedded) and users' shelf entries, and asks the profiler to refresh
// the users whose vectors they change. Scale it by replicas; they share one
// durable consumer.
package main

import (
	"context"
	"log/slog"

	"github.com/recallhq/recall/internal/deps"
	"github.com/recallhq/recall/pkg/catalog"
	"github.com/recallhq/recall/pkg/embed"
	"github.com/recallhq/recall/pkg/service"
)

type config struct {
	deps.Config
	Catalog catalog.Config
	Embed   embed.Config
}

func main() { service.Main("catalog", run) }

func run(ctx context.Context, log *slog.Logger) error {
	cfg, err := service.LoadConfig[config]()
	if err != nil {
		return err
	}
	service.LogConfig(log, cfg)

	d, closeDeps, err := deps.Open(ctx, cfg.Config, "catalog", log)
	if err != nil {
		return err
	}
	defer closeDeps()

	emb, err := embed.New(cfg.Embed, cfg.Embed.Dimensions)
	if err != nil {
		return err
	}
	w, err := catalog.New(ctx, cfg.Catalog, d.Store, emb, d.JS, cfg.Limits.Limits(), log, d.Registry)
	if err != nil {
		return err
	}
	log.Info("embedding catalog items", "model", emb.Model(), "dims", w.Dimension())
	runner, err := catalog.NewRunner(ctx, d.JS, w, log, d.RunnerMetrics)
	if err != nil {
		return err
	}
	return service.RunAll(ctx, runner.Run, d.Ops(cfg.Config, log))
}
