// Command api is Recall's thin HTTP API: it accepts turns and serves sessions,
// messages and the assembled context.
package main

import (
	"context"
	"log/slog"
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

func main() { service.Main("api", run) }

func run(ctx context.Context, log *slog.Logger) error {
	cfg, err := service.LoadConfig[config]()
	if err != nil {
		return err
	}
	service.LogConfig(log, cfg)

	st, err := store.Open(ctx, cfg.DB)
	if err != nil {
		return err
	}
	defer st.Close()
	nc, js, err := events.Open(ctx, cfg.NATS, cfg.Streams, "recall-api", log)
	if err != nil {
		return err
	}
	defer events.Close(nc, 5*time.Second)

	reg := service.NewRegistry()
	checks := []service.Check{{Name: "postgres", Fn: st.Ping}, {Name: "nats", Fn: events.Ready(nc, js)}}
	srv, err := api.New(api.Options{Config: cfg.API, Limits: cfg.Limits.Limits(), Store: st, JS: js, Log: log, Registry: reg, Ready: checks})
	if err != nil {
		return err
	}
	httpSrv := service.Server{Name: "api", Addr: cfg.API.Addr, Handler: srv.Handler(reg)}
	ops := service.Server{Name: "ops", Addr: cfg.OpsAddr, Handler: service.OpsHandler(reg, checks...)}
	return service.RunAll(ctx, httpSrv.Task(log, cfg.ShutdownTimeout), ops.Task(log, cfg.ShutdownTimeout))
}
