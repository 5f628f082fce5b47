// Command checkdata runs every conversation of ../shared/data (KdConv,
// LoCoMo, LongMemEval, PrefEval: about 130k turns) through the whole pipeline of a
// fresh `recall run`, and fails when a worker dead-letters a turn or a turn
// the API accepted is not stored (`make check-data`).
//
// Usage, from the repository root:
//
//	go run ./tools/checkdata [-data ../shared/data] [-limit-conversations N]
//	    [-wait-timeout D] [-keep] [-recall-bin PATH] [-v]
//
// It starts the system as the context evaluation (tools/evalcontext) does: a
// fresh database on the local PostgreSQL (dropped at the end unless -keep),
// migrated by `recall migrate`, and `recall run` as a child process with
// embedded JetStream on free ports, stopped by SIGTERM when the check ends,
// fails or is interrupted.
//
// The report goes to stdout, its last line the verdict; progress goes to
// stderr. It exits with status 2 when the check fails.
package main

import (
	"context"
	"errors"
	"flag"
	"log/slog"
	"os"

	"github.com/recallhq/recall/internal/eval/contexteval"
	"github.com/recallhq/recall/internal/eval/datasets"
	"github.com/recallhq/recall/internal/eval/recallrun"
)

// options configure one check.
type options struct {
	DataDir            string
	Tenant             string
	LimitConversations int // per data set; 0: all
	Concurrency        int // users posting at once
	System             recallrun.Options
	Settle             recallrun.SettleOptions
}

func main() {
	o := options{}
	data := flag.String("data", datasets.DefaultDir, "data directory holding kdconv/, locomo/, longmemeval/ and prefeval/; relative paths are taken from the repository root")
	flag.StringVar(&o.Tenant, "tenant", "eval", "tenant the turns are posted under (X-Tenant-ID)")
	flag.IntVar(&o.LimitConversations, "limit-conversations", 0, "post only the first N conversations of each data set (0: all)")
	flag.IntVar(&o.Concurrency, "concurrency", 4, "users whose turns are posted at once")
	o.System.AddFlags(flag.CommandLine)
	o.Settle.AddFlags(flag.CommandLine)
	flag.Parse()

	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	contexteval.Main("checkdata", *data, &o.DataDir, &o.System, func(ctx context.Context) error {
		rep, err := checkData(ctx, o, log)
		if err != nil {
			return err
		}
		rep.print(os.Stdout)
		if !rep.ok() {
			return errors.New("data check failed")
		}
		return nil
	})
}
