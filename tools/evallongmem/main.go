// Command evallongmem measures how much of a LongMemEval question's evidence
// the context Recall assembles for it holds (`make eval-longmem`). Each
// instance of LongMemEval_S (a question over its own history of about 40
// dated user–assistant sessions, about 500 turns) is one user: its sessions
// are posted through the real pipeline at their dates (haystack_dates,
// turns 30 s apart), and once the pipeline has caught up the question is
// asked as the current message (`query`) of a new session, at budget 8000.
// The prompt is scored next to three baselines built from the same turns
// (BM25 and the newest turns at the same budget, the full history as the
// upper bound), per question type, with the abstention questions (ids
// ending in _abs, whose answer is not in the history) apart. A turn the
// API refuses (one of the data's is longer than a turn may be) is reported
// and not awaited; the baselines keep it and the scores still look for it.
//
// The question's date should be the context's time: the history is years
// old, and a question such as "how many weeks ago" is asked at that date.
// /v1/context takes no time yet, so the context is asked at the time of the
// run; -at sends the question's date as `at`, which the API refuses until it
// has that parameter.
//
// Usage, from the repository root:
//
//	go run ./tools/evallongmem [-data ../shared/data] [-json] [-limit N]
//	    [-only ID,ID] [-budget 8000] [-at] [-keep] [-questions FILE]
//	    [-recall-bin PATH | -api URL [-nats URL]]
//
// It starts the system as the LoCoMo evaluation (tools/evalcontext) does: a
// fresh database on the local PostgreSQL (dropped at the end unless -keep),
// migrated by `recall migrate`, and `recall run` as a child process with
// embedded JetStream on free ports, stopped by SIGTERM when the run ends,
// fails or is interrupted. The measures, the baselines and the table are
// internal/contexteval's, shared with that evaluation.
//
// The tables go to stdout, with the phases' timings; progress goes to
// stderr. It exits with status 2 when the run fails.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/recallhq/recall/internal/contexteval"
	"github.com/recallhq/recall/internal/datasets"
	"github.com/recallhq/recall/internal/recallrun"
)

func main() {
	o := options{}
	data := flag.String("data", datasets.DefaultDir, "data directory holding longmemeval/; relative paths are taken from the repository root")
	flag.IntVar(&o.Budget, "budget", 8000, "context budget in characters, for Recall and the budgeted baselines")
	flag.StringVar(&o.Tenant, "tenant", "eval", "tenant the turns are posted under (X-Tenant-ID)")
	flag.IntVar(&o.Limit, "limit", 0, "evaluate only the first N instances (0: all)")
	flag.Func("only", "evaluate only these instances: question ids, comma-separated", func(v string) error {
		for id := range strings.SplitSeq(v, ",") {
			if id = strings.TrimSpace(id); id != "" {
				o.Only = append(o.Only, id)
			}
		}
		return nil
	})
	flag.IntVar(&o.Concurrency, "concurrency", 4, "context requests in flight")
	flag.IntVar(&o.PostConcurrency, "post-concurrency", 4, "users whose turns are posted at once")
	flag.BoolVar(&o.At, "at", false, "send the question's date as the context's time (`at`); the API refuses it until it takes that parameter")
	flag.StringVar(&o.APIURL, "api", "", "use this running Recall (e.g. http://127.0.0.1:8080) instead of starting one")
	flag.StringVar(&o.NATSURL, "nats", "", "with -api: its NATS server, to wait for every worker's consumer (without it only message counts are awaited)")
	flag.StringVar(&o.APIKey, "api-key", os.Getenv("RECALL_API_KEY"), "with -api: bearer key of the tenant, when the server has API_KEYS")
	o.System.AddFlags(flag.CommandLine)
	o.Settle.AddFlags(flag.CommandLine)
	asJSON := flag.Bool("json", false, "print the report as JSON instead of the tables")
	questionsOut := flag.String("questions", "", "also write every question's scores, row by row, with Recall's prompt, to this file as JSON lines")
	flag.Parse()

	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if err := contexteval.WithFile(*questionsOut, func(w io.Writer) error {
		o.QuestionsOut = w
		return realMain(o, *data, *asJSON, log)
	}); err != nil {
		fmt.Fprintln(os.Stderr, "evallongmem:", err)
		os.Exit(2)
	}
}

// realMain runs the evaluation until it ends or a signal arrives; returning
// (never exiting) is what lets the deferred clean-up stop the child and drop
// the database on every path.
func realMain(o options, data string, asJSON bool, log *slog.Logger) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	dir, err := datasets.Dir(data)
	if err != nil {
		return err
	}
	o.DataDir = dir
	if o.System.Root, err = recallrun.RepoRoot(); err != nil {
		return err
	}
	rep, err := run(ctx, o, log)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("interrupted (%w)", err)
		}
		return err
	}
	if asJSON {
		return contexteval.WriteJSON(os.Stdout, rep)
	}
	printTables(os.Stdout, rep)
	return nil
}
