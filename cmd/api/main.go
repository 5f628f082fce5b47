// Command api is Recall's thin HTTP API: it accepts turns and serves sessions,
// messages and the assembled context.
package main

import (
	"context"
	"log/slog"
	"os"
	"time"

	"github.com/recallhq/recall/pkg/api"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/service"
	"github.com/recallhq/recall/pkg/store"
)

type config struct {
	service.Base
	DB      store.Config
	NATS    events.NATSConfig
	Streams events.StreamConfig
	Limits  events.LimitsConfig
	API     api.Config
}

func main() {
	log := service.NewLogger("api", slog.LevelInfo)
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
	log = service.NewLogger("api", cfg.LogLevel)
	service.LogConfig(log, cfg)
	ctx, stop := service.SignalContext()
	defer stop()

	st, err := store.Open(ctx, cfg.DB)
	if err != nil {
		return err
	}
	defer st.Close()

	nc, js, err := events.Connect(ctx, cfg.NATS.URL, cfg.NATS.CredsFile, "recall-api", log)
	if err != nil {
		return err
	}
	defer events.Close(nc, 5*time.Second)
	if err := events.EnsureStreams(ctx, js, cfg.Streams); err != nil {
		return err
	}

	reg := service.NewRegistry()
	srv, err := api.New(api.Options{Config: cfg.API, Limits: cfg.Limits.Limits(), Store: st, JS: js, Log: log, Registry: reg})
	if err != nil {
		return err
	}
	checks := []service.Check{{Name: "postgres", Fn: st.Ping}, {Name: "nats", Fn: events.Ready(nc, js)}}
	httpSrv := service.Server{Name: "api", Addr: cfg.API.Addr, Handler: srv.Handler(reg, checks...)}
	ops := service.Server{Name: "ops", Addr: cfg.OpsAddr, Handler: service.OpsHandler(reg, checks...)}
	return service.RunAll(ctx,
		func(ctx context.Context) error { return httpSrv.Serve(ctx, log, cfg.ShutdownTimeout, nil) },
		func(ctx context.Context) error { return ops.Serve(ctx, log, cfg.ShutdownTimeout, nil) })
}
