// Command decayer keeps memory in shape on a schedule: fact weights decayed,
// facts archived below the floor and expired past their expiry, messages and
// sessions beyond a tenant's retention deleted, and the profiles of users
// whose facts changed refreshed. It runs at start and then every
// DECAYER_INTERVAL; with --once it runs once and exits 0 (done, or skipped
// because another decayer was running) or 1 (failed), for a Kubernetes
// CronJob. Replicas are safe: runs are serialized by an advisory lock.
package main

import (
	"context"
	"flag"
	"log/slog"
	"os"

	"github.com/recallhq/recall/pkg/queue"

	"github.com/recallhq/recall/internal/deps"
	"github.com/recallhq/recall/pkg/decayer"
	"github.com/recallhq/recall/pkg/service"
)

type config struct {
	deps.Config
	Decayer decayer.Config
}

func main() { service.Main("decayer", run) }

func run(ctx context.Context, log *slog.Logger) error {
	fs := flag.NewFlagSet("decayer", flag.ContinueOnError)
	once := fs.Bool("once", false, "run once and exit (0: done or skipped, 1: failed), for a CronJob")
	if err := fs.Parse(os.Args[1:]); err != nil {
		return err
	}
	cfg, err := service.LoadConfig[config]()
	if err != nil {
		return err
	}
	service.LogConfig(log, cfg)

	d, closeDeps, err := deps.Open(ctx, cfg.Config, "decayer", log)
	if err != nil {
		return err
	}
	defer closeDeps()

	dec, err := decayer.New(decayer.Options{Config: cfg.Decayer, Store: d.Store,
		Publisher: queue.NewRefresher(d.JS, cfg.Decayer.Refresh.Bucket), Log: log, Registry: d.Registry})
	if err != nil {
		return err
	}
	if *once {
		_, err := dec.RunOnce(ctx)
		return err
	}
	return service.RunAll(ctx, dec.Loop, d.Ops(cfg.Config, log))
}
