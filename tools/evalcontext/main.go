// Command evalcontext measures how much of a question's evidence the context
// Recall assembles for it holds. It posts the LoCoMo conversations (long,
// dated, multi-session chats between two people, with questions whose
// evidence turns are annotated) through the real pipeline, asks
// GET/POST /v1/context for every question of categories 1–4 in a fresh
// session with the question as the current message, and scores the prompt
// next to three baselines computed on the same turns: BM25 over the user's
// turns, the newest turns, and the full history (the upper bound). The
// measures, the baselines and the table are internal/contexteval's, shared
// with the LongMemEval evaluation (tools/evallongmem).
//
// Usage, from the repository root:
//
//	go run ./tools/evalcontext [-data ../shared/data] [-json]
//	    [-limit-conversations N] [-limit-questions N] [-keep] [-questions FILE]
//	    [-recall-bin PATH | -api URL [-nats URL]]
//
// Without -api it starts the system itself: a fresh database on the local
// PostgreSQL (dropped at the end unless -keep), migrated by `recall migrate`,
// and `recall run` as a child process with embedded JetStream on free
// ports, stopped by SIGTERM when the run ends, fails or is interrupted.
//
// The data check (`make check-data`, tools/checkdata) starts the system the
// same way and posts every conversation of ../shared/data instead.
//
// The table goes to stdout, progress to stderr. It exits with status 2 when
// the run fails.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/recallhq/recall/internal/contexteval"
	"github.com/recallhq/recall/internal/datasets"
	"github.com/recallhq/recall/internal/recallrun"
)

func main() {
	o := options{}
	data := flag.String("data", datasets.DefaultDir, "data directory holding locomo/; relative paths are taken from the repository root")
	flag.IntVar(&o.Budget, "budget", 8000, "context budget in characters, for Recall and the budgeted baselines")
	flag.StringVar(&o.Tenant, "tenant", "eval", "tenant the turns are posted under (X-Tenant-ID)")
	flag.IntVar(&o.LimitConversations, "limit-conversations", 0, "evaluate only the first N conversations (0: all)")
	flag.IntVar(&o.LimitQuestions, "limit-questions", 0, "ask only the first N questions of each conversation (0: all)")
	flag.IntVar(&o.Concurrency, "concurrency", 4, "context requests in flight")
	flag.StringVar(&o.APIURL, "api", "", "use this running Recall (e.g. http://127.0.0.1:8080) instead of starting one")
	flag.StringVar(&o.NATSURL, "nats", "", "with -api: its NATS server, to wait for every worker's consumer (without it only message counts are awaited)")
	flag.StringVar(&o.APIKey, "api-key", os.Getenv("RECALL_API_KEY"), "with -api: bearer key of the tenant, when the server has API_KEYS")
	o.System.AddFlags(flag.CommandLine)
	o.Settle.AddFlags(flag.CommandLine)
	asJSON := flag.Bool("json", false, "print the report as JSON instead of the table")
	questionsOut := flag.String("questions", "", "also write every question's scores, row by row, with Recall's prompt, to this file as JSON lines")
	flag.Parse()

	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if err := contexteval.WithFile(*questionsOut, func(w io.Writer) error {
		o.QuestionsOut = w
		return realMain(o, *data, *asJSON, log)
	}); err != nil {
		fmt.Fprintln(os.Stderr, "evalcontext:", err)
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
	printTable(os.Stdout, rep)
	return nil
}
