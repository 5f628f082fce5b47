package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/recallhq/recall/pkg/queue"

	"github.com/recallhq/recall/internal/deps"
	"github.com/recallhq/recall/pkg/api"
	"github.com/recallhq/recall/pkg/catalog"
	"github.com/recallhq/recall/pkg/decayer"
	"github.com/recallhq/recall/pkg/embed"
	"github.com/recallhq/recall/pkg/extractor"
	"github.com/recallhq/recall/pkg/ingest"
	"github.com/recallhq/recall/pkg/natsembed"
	"github.com/recallhq/recall/pkg/profile"
	"github.com/recallhq/recall/pkg/seen"
	"github.com/recallhq/recall/pkg/service"
	"github.com/recallhq/recall/pkg/summarizer"
)

type runConfig struct {
	deps.Config
	// With NATS_URL unset, an embedded JetStream server is started here.
	EmbeddedNATSHost string `env:"EMBEDDED_NATS_HOST" envDefault:"127.0.0.1"`
	EmbeddedNATSPort int    `env:"EMBEDDED_NATS_PORT" envDefault:"4223"`
	DataDir          string `env:"DATA_DIR" envDefault:".data"`
	API              api.Config
	Ingest           ingest.Config
	Extractor        extractor.Config
	Catalog          catalog.Config
	Profiler         profile.Config
	Embed            embed.Config
	Decayer          decayer.Config
	Summarizer       summarizer.Config
	Seen             seen.Config
}

// runCmd runs the API, every worker, the summarizer's idle sweep and the
// decayer's schedule in one process, for local use and demos.
// Production runs each as its own Deployment.
func runCmd(ctx context.Context, log *slog.Logger, args []string) error {
	if err := newFlags("run").Parse(args); err != nil {
		return err
	}
	cfg, err := service.LoadConfig[runConfig]()
	if err != nil {
		return err
	}
	if os.Getenv("NATS_URL") == "" {
		dir := filepath.Join(cfg.DataDir, "nats")
		srv, err := natsembed.Start(natsembed.Options{Host: cfg.EmbeddedNATSHost, Port: cfg.EmbeddedNATSPort, StoreDir: dir})
		if err != nil {
			return fmt.Errorf("embedded NATS (set NATS_URL to use an external server, or EMBEDDED_NATS_PORT to move it): %w", err)
		}
		defer func() { srv.Shutdown(); srv.WaitForShutdown() }()
		cfg.NATS.URL = srv.ClientURL()
		log.Info("embedded NATS JetStream started", "url", cfg.NATS.URL, "store_dir", dir)
		fmt.Fprintf(os.Stdout, "NATS (embedded JetStream): %s\n", cfg.NATS.URL)
	}
	service.LogConfig(log, cfg)
	cfg.API.ApplyGC()

	d, closeDeps, err := deps.Open(ctx, cfg.Config, "run", log)
	if err != nil {
		return err
	}
	defer closeDeps()

	set := &workerSet{cfg: cfg, d: d, log: log}
	tasks := []service.Task{d.Ops(cfg.Config, log)}
	for _, name := range workerNames {
		ts, err := set.tasks(ctx, name)
		if err != nil {
			return err
		}
		tasks = append(tasks, ts...)
	}
	limits := cfg.Limits.Limits()
	decay, err := decayer.New(decayer.Options{Config: cfg.Decayer, Store: d.Store,
		Publisher: queue.NewRefresher(d.JS, cfg.Decayer.Refresh.Bucket), Log: log.With("worker", "decayer"), Registry: d.Registry})
	if err != nil {
		return err
	}
	tasks = append(tasks, decay.Loop)
	srv, err := api.New(api.Options{Config: cfg.API, Limits: limits, Store: d.Store, JS: d.JS, Log: log.With("worker", "api"), Registry: d.Registry, Ready: d.Checks})
	if err != nil {
		return err
	}
	httpSrv := service.Server{Name: "api", Addr: cfg.API.Addr, Handler: srv.Handler(d.Registry)}
	tasks = append(tasks, func(ctx context.Context) error {
		return httpSrv.Serve(ctx, log, cfg.ShutdownTimeout, func(addr string) {
			fmt.Fprintf(os.Stdout, "API: http://%s  (try: curl -H 'X-Tenant-ID: demo' 'http://%s/v1/context?user_id=u1&session_id=s1')\n", addr, addr)
		})
	})
	return service.RunAll(ctx, tasks...)
}
