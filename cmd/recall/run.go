package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/recallhq/recall/internal/deps"
	"github.com/recallhq/recall/pkg/api"
	"github.com/recallhq/recall/pkg/catalog"
	"github.com/recallhq/recall/pkg/embed"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/extractor"
	"github.com/recallhq/recall/pkg/ingest"
	"github.com/recallhq/recall/pkg/natsembed"
	"github.com/recallhq/recall/pkg/profile"
	"github.com/recallhq/recall/pkg/seen"
	"github.com/recallhq/recall/pkg/service"
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
	Seen             seen.Config
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

	limits := cfg.Limits.Limits()
	ingestRunner, err := ingest.NewRunner(ctx, d.JS, d.Store, cfg.Ingest, limits, log.With("worker", "ingest"), d.RunnerMetrics)
	if err != nil {
		return err
	}
	ex, source, err := extractor.NewExtractor(cfg.Extractor, d.Registry, log.With("worker", "extractor"))
	if err != nil {
		return err
	}
	extractWorker := extractor.New(cfg.Extractor, d.Store, ex, source, limits, log.With("worker", "extractor"), d.Registry)
	extractWorker.Refresher = events.NewRefresher(d.JS, cfg.Extractor.Refresh.Bucket)
	extractRunner, err := extractor.NewRunner(ctx, d.JS, extractWorker, log.With("worker", "extractor"), d.RunnerMetrics)
	if err != nil {
		return err
	}
	emb, err := embed.New(cfg.Embed, cfg.Embed.Dimensions)
	if err != nil {
		return err
	}
	catalogWorker, err := catalog.New(ctx, cfg.Catalog, d.Store, emb, d.JS, limits, log.With("worker", "catalog"), d.Registry)
	if err != nil {
		return err
	}
	catalogRunner, err := catalog.NewRunner(ctx, d.JS, catalogWorker, log.With("worker", "catalog"), d.RunnerMetrics)
	if err != nil {
		return err
	}
	profileWorker, err := profile.New(ctx, cfg.Profiler, d.Store, emb, limits, log.With("worker", "profiler"), d.Registry)
	if err != nil {
		return err
	}
	profileRunner, err := profile.NewRunner(ctx, d.JS, profileWorker, log.With("worker", "profiler"), d.RunnerMetrics)
	if err != nil {
		return err
	}
	seenRunner, err := seen.NewRunner(ctx, d.JS, seen.New(cfg.Seen, d.Store, limits, log.With("worker", "seen"), d.Registry),
		cfg.Seen, log.With("worker", "seen"), d.RunnerMetrics)
	if err != nil {
		return err
	}
	srv, err := api.New(api.Options{Config: cfg.API, Limits: limits, Store: d.Store, JS: d.JS, Log: log.With("worker", "api"), Registry: d.Registry, Ready: d.Checks})
	if err != nil {
		return err
	}
	httpSrv := service.Server{Name: "api", Addr: cfg.API.Addr, Handler: srv.Handler(d.Registry)}
	return service.RunAll(ctx,
		ingestRunner.Run,
		extractRunner.Run,
		catalogRunner.Run,
		profileRunner.Run,
		seenRunner.Run,
		d.Ops(cfg.Config, log),
		func(ctx context.Context) error {
			return httpSrv.Serve(ctx, log, cfg.ShutdownTimeout, func(addr string) {
				fmt.Fprintf(os.Stdout, "API: http://%s  (try: curl -H 'X-Tenant-ID: demo' 'http://%s/v1/context?user_id=u1&session_id=s1')\n", addr, addr)
			})
		})
}
