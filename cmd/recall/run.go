package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/recallhq/recall/pkg/api"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/ingest"
	"github.com/recallhq/recall/pkg/natsembed"
	"github.com/recallhq/recall/pkg/service"
	"github.com/recallhq/recall/pkg/store"
)

type runConfig struct {
	service.Base
	DB store.Config
	// NATSURL unset: start an embedded JetStream server on EmbeddedNATSAddr.
	NATSURL          string `env:"NATS_URL"`
	NATSCredsFile    string `env:"NATS_CREDS_FILE"`
	EmbeddedNATSHost string `env:"EMBEDDED_NATS_HOST" envDefault:"127.0.0.1"`
	EmbeddedNATSPort int    `env:"EMBEDDED_NATS_PORT" envDefault:"4223"`
	DataDir          string `env:"DATA_DIR" envDefault:".data"`
	Streams          events.StreamConfig
	Limits           events.LimitsConfig
	API              api.Config
	Ingest           ingest.Config
}

// runCmd runs the API and every worker in one process, for local use and demos.
// Production runs each as its own Deployment.
func runCmd(ctx context.Context, log *slog.Logger, args []string) error {
	if err := newFlags("run").Parse(args); err != nil {
		return err
	}
	cfg, err := service.LoadConfig[runConfig]()
	if err != nil {
		return err
	}
	service.LogConfig(log, cfg)

	st, err := store.Open(ctx, cfg.DB)
	if err != nil {
		return err
	}
	defer st.Close()

	natsCfg := events.NATSConfig{URL: cfg.NATSURL, CredsFile: cfg.NATSCredsFile}
	if natsCfg.URL == "" {
		dir := filepath.Join(cfg.DataDir, "nats")
		srv, err := natsembed.Start(natsembed.Options{Host: cfg.EmbeddedNATSHost, Port: cfg.EmbeddedNATSPort, StoreDir: dir})
		if err != nil {
			return fmt.Errorf("embedded NATS (set NATS_URL to use an external server, or EMBEDDED_NATS_PORT to move it): %w", err)
		}
		defer func() { srv.Shutdown(); srv.WaitForShutdown() }()
		natsCfg.URL = srv.ClientURL()
		log.Info("embedded NATS JetStream started", "url", natsCfg.URL, "store_dir", dir)
		fmt.Fprintf(os.Stdout, "NATS (embedded JetStream): %s\n", natsCfg.URL)
	}
	nc, js, err := events.Open(ctx, natsCfg, cfg.Streams, "recall-run", log)
	if err != nil {
		return err
	}
	defer events.Close(nc, 5*time.Second)

	reg := service.NewRegistry()
	runnerMetrics := events.NewRunnerMetrics(reg)
	limits := cfg.Limits.Limits()
	ingestRunner, err := ingest.NewRunner(ctx, js, st, cfg.Ingest, limits, log.With("worker", "ingest"), runnerMetrics)
	if err != nil {
		return err
	}
	checks := []service.Check{{Name: "postgres", Fn: st.Ping}, {Name: "nats", Fn: events.Ready(nc, js)}}
	srv, err := api.New(api.Options{Config: cfg.API, Limits: limits, Store: st, JS: js, Log: log.With("worker", "api"), Registry: reg, Ready: checks})
	if err != nil {
		return err
	}
	httpSrv := service.Server{Name: "api", Addr: cfg.API.Addr, Handler: srv.Handler(reg)}
	ops := service.Server{Name: "ops", Addr: cfg.OpsAddr, Handler: service.OpsHandler(reg, checks...)}
	return service.RunAll(ctx,
		ingestRunner.Run,
		ops.Task(log, cfg.ShutdownTimeout),
		func(ctx context.Context) error {
			return httpSrv.Serve(ctx, log, cfg.ShutdownTimeout, func(addr string) {
				fmt.Fprintf(os.Stdout, "API: http://%s  (try: curl -H 'X-Tenant-ID: demo' 'http://%s/v1/context?user_id=u1&session_id=s1')\n", addr, addr)
			})
		})
}
