// Command api is Recall's thin HTTP API: it accepts turns and serves sessions,
// messages and the assembled context.
package main

import (
	"context"
	"log/slog"

	"github.com/recallhq/recall/pkg/api"
	"github.com/recallhq/recall/pkg/deps"
	"github.com/recallhq/recall/pkg/envconfig"
	"github.com/recallhq/recall/pkg/service"
)

type config struct {
	deps.Config
	API api.Config
}

func main() { service.Main("api", run) }

func run(ctx context.Context, log *slog.Logger) error {
	cfg, err := envconfig.Load[config]()
	if err != nil {
		return err
	}
	service.LogConfig(log, cfg)
	cfg.API.ApplyGC()

	d, closeDeps, err := deps.Open(ctx, cfg.Config, "api", log)
	if err != nil {
		return err
	}
	defer closeDeps()
	if err := d.Store.OpenReplicas(ctx, cfg.API.Read, d.Registry, log); err != nil {
		return err
	}

	srv, err := api.New(api.Options{Config: cfg.API, Limits: cfg.Limits.Limits(), Store: d.Store, JS: d.JS, Log: log, Registry: d.Registry, Ready: d.Checks})
	if err != nil {
		return err
	}
	if limit := service.LimitMemory(cfg.API.MemoryHeadroom); limit > 0 {
		log.Info("memory limit set", "bytes", limit, "headroom", cfg.API.MemoryHeadroom)
	}
	httpSrv := srv.HTTP(d.Registry)
	return service.RunAll(ctx, httpSrv.Task(log, cfg.ShutdownTimeout), d.Ops(cfg.Config, log))
}
