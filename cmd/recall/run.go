package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/recallhq/recall/pkg/access"
	"github.com/recallhq/recall/pkg/api"
	"github.com/recallhq/recall/pkg/deps"
	"github.com/recallhq/recall/pkg/envconfig"
	"github.com/recallhq/recall/pkg/gateway"
	"github.com/recallhq/recall/pkg/service"
	"github.com/recallhq/recall/pkg/worker"
	"github.com/recallhq/recall/pkg/workers"
)

// runConfig is what `recall run` reads besides each worker's config.
type runConfig struct {
	deps.Config
	// With NATS_URL unset, an embedded JetStream server is started here.
	deps.EmbeddedNATS
	Data    deps.Data
	API     api.Config
	Gateway gateway.Config
}

// runCmd runs the API and every registered worker (their runners, the
// summarizer's idle sweep, the decayer's schedule) in one process, for local
// use and demos. Production runs each as its own Deployment.
func runCmd(ctx context.Context, log *slog.Logger, args []string) error {
	if err := newFlags("run").Parse(args); err != nil {
		return err
	}
	cfg, err := envconfig.Load[runConfig]()
	if err != nil {
		return err
	}
	cfgs, err := worker.Load(workers.All, nil)
	if err != nil {
		return err
	}
	if os.Getenv("NATS_URL") == "" {
		srv, nc, err := deps.StartEmbeddedNATS(cfg.EmbeddedNATS, cfg.Data)
		if err != nil {
			return err
		}
		defer func() { srv.Shutdown(); srv.WaitForShutdown() }()
		// Whatever NATS_USER, NATS_CREDS_FILE... say, this process logs in
		// to its own server as the server's one user.
		cfg.NATS = nc
		// The operator's tools on this machine find this server by the
		// record (findNATS), not by a default address.
		unrecord, err := writeRunRecord(cfg.Data, runRecord{URL: nc.URL, ServerID: srv.ID(), PID: os.Getpid(), NKeyFile: filepath.Base(nc.NKeyFile)})
		if err != nil {
			return err
		}
		defer unrecord()
		log.Info("embedded NATS JetStream started", "url", nc.URL, "store_dir", cfg.Data.NATSStoreDir(), "nkey_file", nc.NKeyFile)
		fmt.Fprintf(os.Stdout, "NATS (embedded JetStream): %s\n", nc.URL)
		fmt.Fprintf(os.Stdout, "  its user's NKey seed: %s (nats --server %s --nkey %s ...)\n", nc.NKeyFile, nc.URL, nc.NKeyFile)
	}
	logged := []any{cfg}
	for _, c := range cfgs {
		logged = append(logged, c.Value())
	}
	service.LogConfig(log, logged...)
	// The API's GC target (API_GC_PERCENT) is not applied here: this process
	// also holds every worker's batches, which a tenfold target over what is
	// live would multiply; the runtime's default and MEMORY_HEADROOM keep
	// the heap near what is live.

	// One pool serves every worker and the API here.
	worker.SizePool(&cfg.DB, cfgs)
	d, closeDeps, err := deps.Open(ctx, cfg.Config, "run", log)
	if err != nil {
		return err
	}
	defer closeDeps()
	// The replicas serve the API's and the gateway's reads only; the
	// workers' store calls all go to the primary.
	if err := d.Store.OpenReplicas(ctx, cfg.API.Read, d.Registry, log); err != nil {
		return err
	}

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
	keys, err := access.ParseKeys(cfg.API.Keys)
	if err != nil {
		return err
	}
	gw, err := gateway.New(gateway.Options{Config: cfg.Gateway, Memory: srv.Memory(), Keys: keys, Log: log.With("worker", "gateway"), Registry: d.Registry})
	if err != nil {
		return err
	}
	httpSrv := srv.HTTP(d.Registry)
	tasks = append(tasks, gw.Task(log, d.Registry, cfg.ShutdownTimeout, func(addr string) {
		fmt.Fprintf(os.Stdout, "Gateway (OpenAI-compatible, upstream %s): %s/v1\n", cfg.Gateway.UpstreamURL, localURL(addr))
	}))
	tasks = append(tasks, d.Ops(cfg.Config, log), func(ctx context.Context) error {
		return httpSrv.Serve(ctx, log, cfg.ShutdownTimeout, func(addr string) {
			base := localURL(addr)
			fmt.Fprintf(os.Stdout, "API: %s\n", base)
			for _, l := range tryLines(base, cfg.API.Keys != "", time.Now()) {
				fmt.Fprintf(os.Stdout, "  try: %s\n", l)
			}
			fmt.Fprintf(os.Stdout, "Inspector: %s/ui/  (what Recall remembers about a user, and why; sign in with a tenant and its key)\n", base)
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
		for _, w := range workers.All {
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
	w, err := workers.Get(fs.Arg(0))
	if err != nil {
		return err
	}
	return worker.Run(ctx, log, w.About().Name, []worker.Worker{w}, *once)
}

// localURL is the API's address as a URL to call from this machine: a server
// listening on every interface ([::]:8080) is reached on 127.0.0.1.
func localURL(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "http://" + addr
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port)
}

// tryLines are the commands `recall run` prints to show memory working at
// once: a turn posted, then the context of a later session asked with a
// query that recalls it. (With API_KEYS set, each also needs the tenant's
// key, which is not printed.)
func tryLines(base string, keyed bool, now time.Time) []string {
	auth := ""
	if keyed {
		auth = `-H "Authorization: Bearer $RECALL_API_KEY" `
	}
	turn := fmt.Sprintf(`{"id":"try-1","user_id":"ada","session_id":"chat-1","occurred_at":"%s","role":"user","content":"I just finished Dune by Frank Herbert and loved it"}`,
		now.UTC().Truncate(time.Second).Format(time.RFC3339))
	return []string{
		fmt.Sprintf(`curl -s -H 'X-Tenant-ID: demo' %s-H 'Content-Type: application/json' %s/v1/turns -d '%s'`, auth, base, turn),
		fmt.Sprintf(`curl -s -H 'X-Tenant-ID: demo' %s'%s/v1/context?user_id=ada&session_id=chat-2&query=which+book+did+I+finish'`, auth, base),
	}
}
