// Command profiler is the worker that keeps every user's interest vector: it
// recomputes a user's vector from their shelf and interest facts on each
// profile refresh task. Scale it by replicas; they share one durable consumer.
package main

import (
	"context"
	"log/slog"

	"github.com/recallhq/recall/internal/deps"
	"github.com/recallhq/recall/pkg/embed"
	"github.com/recallhq/recall/pkg/profile"
	"github.com/recallhq/recall/pkg/service"
)

type config struct {
	deps.Config
	Profiler profile.Config
	Embed    embed.Config
}

func main() { service.Main("profiler", run) }

func run(ctx context.Context, log *slog.Logger) error {
	cfg, err := service.LoadConfig[config]()
	if err != nil {
		return err
	}
	service.LogConfig(log, cfg)

	d, closeDeps, err := deps.Open(ctx, cfg.Config, "profiler", log)
	if err != nil {
		return err
	}
	defer closeDeps()

	emb, err := embed.New(cfg.Embed, cfg.Embed.Dimensions)
	if err != nil {
		return err
	}
	w, err := profile.New(ctx, cfg.Profiler, d.Store, emb, cfg.Limits.Limits(), log, d.Registry)
	if err != nil {
		return err
	}
	runner, err := profile.NewRunner(ctx, d.JS, w, log, d.RunnerMetrics)
	if err != nil {
		return err
	}
	return service.RunAll(ctx, runner.Run, d.Ops(cfg.Config, log))
}
