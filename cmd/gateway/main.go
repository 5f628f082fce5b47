// Command gateway is Recall's OpenAI-compatible front door: chat backends
// point their OpenAI client's base URL at it, and every chat completions
// request gets the user's memory in its prompt and has its turns stored.
package main

import (
	"context"
	"log/slog"

	"github.com/recallhq/recall/pkg/access"
	"github.com/recallhq/recall/pkg/api"
	"github.com/recallhq/recall/pkg/deps"
	"github.com/recallhq/recall/pkg/envconfig"
	"github.com/recallhq/recall/pkg/gateway"
	"github.com/recallhq/recall/pkg/service"
)

// config is the gateway's own (GATEWAY_*) and the API's, whose tenants and
// keys, context settings, decay policy and embedder the memory it adds
// follows.
type config struct {
	deps.Config
	API     api.Config
	Gateway gateway.Config
}

func main() { service.Main("gateway", run) }

func run(ctx context.Context, log *slog.Logger) error {
	cfg, err := envconfig.Load[config]()
	if err != nil {
		return err
	}
	service.LogConfig(log, cfg)
	// Its own GC target (GATEWAY_GC_PERCENT), not the API's: at the API's
	// 1000 its heap grew to the memory headroom under load.
	cfg.Gateway.ApplyGC()

	keys, err := access.ParseKeys(cfg.API.Keys)
	if err != nil {
		return err
	}
	d, closeDeps, err := deps.Open(ctx, cfg.Config, "gateway", log)
	if err != nil {
		return err
	}
	defer closeDeps()
	if err := d.Store.OpenReplicas(ctx, cfg.API.Read, d.Registry, log); err != nil {
		return err
	}

	mem, err := api.NewMemory(api.MemoryOptions{Config: cfg.API, Limits: cfg.Limits.Limits(), Store: d.Store, JS: d.JS, Log: log})
	if err != nil {
		return err
	}
	gw, err := gateway.New(gateway.Options{Config: cfg.Gateway, Memory: mem, Keys: keys, Log: log, Registry: d.Registry})
	if err != nil {
		return err
	}
	if limit := service.LimitMemory(cfg.API.MemoryHeadroom); limit > 0 {
		log.Info("memory limit set", "bytes", limit, "headroom", cfg.API.MemoryHeadroom)
	}
	return service.RunAll(ctx, gw.Task(log, d.Registry, cfg.ShutdownTimeout, nil), d.Ops(cfg.Config, log))
}
