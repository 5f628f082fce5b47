package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/recallhq/recall/internal/deps"
	"github.com/recallhq/recall/pkg/api"
	"github.com/recallhq/recall/pkg/natsserver"
	"github.com/recallhq/recall/pkg/registry"
	"github.com/recallhq/recall/pkg/service"
	"github.com/recallhq/recall/pkg/worker"
)

// runConfig is what `recall run` reads besides each worker's config.
type runConfig struct {
	deps.Config
	// With NATS_URL unset, an embedded JetStream server is started here.
	EmbeddedNATSHost string `env:"EMBEDDED_NATS_HOST" envDefault:"127.0.0.1"`
	EmbeddedNATSPort int    `env:"EMBEDDED_NATS_PORT" envDefault:"4223"`
	Data             dataConfig
	API              api.Config
}

// runCmd runs the API and every registered worker (their runners, the
// summarizer's idle sweep, the decayer's schedule) in one process, for local
// use and demos. Production runs each as its own Deployment.
func runCmd(ctx context.Context, log *slog.Logger, args []string) error {
	if err := newFlags("run").Parse(args); err != nil {
		return err
	}
	cfg, err := service.LoadConfig[runConfig]()
	if err != nil {
		return err
	}
	cfgs, err := worker.Load(registry.All, nil)
	if err != nil {
		return err
	}
	if os.Getenv("NATS_URL") == "" {
		dir := filepath.Join(cfg.Data.Dir, "nats")
		srv, err := natsserver.Start(natsserver.Options{Host: cfg.EmbeddedNATSHost, Port: cfg.EmbeddedNATSPort, StoreDir: dir})
		if err != nil {
			return fmt.Errorf("embedded NATS (set NATS_URL to use an external server, or EMBEDDED_NATS_PORT to move it): %w", err)
		}
		defer func() { srv.Shutdown(); srv.WaitForShutdown() }()
		cfg.NATS.URL = srv.ClientURL()
		// The operator's tools on this machine find this server by the
		// record (findNATS), not by a default address.
		unrecord, err := writeRunRecord(cfg.Data.Dir, runRecord{URL: cfg.NATS.URL, ServerID: srv.ID(), PID: os.Getpid()})
		if err != nil {
			return err
		}
		defer unrecord()
		log.Info("embedded NATS JetStream started", "url", cfg.NATS.URL, "store_dir", dir)
		fmt.Fprintf(os.Stdout, "NATS (embedded JetStream): %s\n", cfg.NATS.URL)
	}
	logged := []any{cfg}
	for _, c := range cfgs {
		logged = append(logged, c.Value())
	}
	service.LogConfig(log, logged...)
	// The API's GC target (API_GC_PERCENT) is not applied here: this process
	// also holds the segmenter's dictionary, and a fivefold target over that
	// would let the heap grow to a gigabyte; the runtime's default keeps it
	// near what is live.

	d, closeDeps, err := deps.Open(ctx, cfg.Config, "run", log)
	if err != nil {
		return err
	}
	defer closeDeps()

	tasks, err := worker.Tasks(ctx, worker.NewDeps(d, cfg.Config, log), d.RunnerMetrics, cfgs)
	if err != nil {
		return err
	}
	srv, err := api.New(api.Options{Config: cfg.API, Limits: cfg.Limits.Limits(), Store: d.Store, JS: d.JS, Log: log.With("worker", "api"), Registry: d.Registry, Ready: d.Checks})
	if err != nil {
		return err
	}
	if limit := service.LimitMemory(cfg.MemoryHeadroom); limit > 0 {
		log.Info("memory limit set", "bytes", limit, "headroom", cfg.MemoryHeadroom)
	}
	httpSrv := srv.HTTP(d.Registry)
	tasks = append(tasks, d.Ops(cfg.Config, log), func(ctx context.Context) error {
		return httpSrv.Serve(ctx, log, cfg.ShutdownTimeout, func(addr string) {
			fmt.Fprintf(os.Stdout, "API: http://%s  (try: curl -H 'X-Tenant-ID: demo' 'http://%s/v1/context?user_id=u1&session_id=s1')\n", addr, addr)
			fmt.Fprintf(os.Stdout, "Inspector: http://%s/ui/  (what Recall remembers about a user, and why; sign in with a tenant and its key)\n", addr)
		})
	})
	return service.RunAll(ctx, tasks...)
}

// workerCmd runs one registered worker, as its own binary (cmd/<name>) does.
func workerCmd(ctx context.Context, log *slog.Logger, args []string) error {
	fs := newFlags("worker")
	once := fs.Bool("once", false, "run one pass and exit, for a scheduled worker (decayer)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: recall worker [-once] NAME\n\nworkers:")
		for _, w := range registry.All {
			a := w.About()
			fmt.Fprintf(fs.Output(), "  %-11s %s\n", a.Name, a.Doc)
		}
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return fmt.Errorf("recall worker: want one worker name, got %d", fs.NArg())
	}
	w, err := registry.Get(fs.Arg(0))
	if err != nil {
		return err
	}
	return worker.Run(ctx, log, w.About().Name, []worker.Worker{w}, *once)
}
