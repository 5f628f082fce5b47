// Command evalcontext measures how much of a question's evidence the context
// Recall assembles for it holds. It posts the LoCoMo conversations (long,
// dated, multi-session chats between two people, with questions whose
// evidence turns are annotated) through the real pipeline, asks
// GET/POST /v1/context for every question of categories 1–4 in a fresh
// session with the question as the current message, and scores the prompt
// next to three baselines computed on the same turns: BM25 over the user's
// turns, the newest turns, and the full history (the upper bound). The
// measures, the baselines and the table are internal/eval/contexteval's, shared
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
	"io"
	"log/slog"
	"os"

	"github.com/recallhq/recall/internal/eval/contexteval"
	"github.com/recallhq/recall/internal/eval/datasets"
)

func main() {
	o := options{}
	data := flag.String("data", datasets.DefaultDir, "data directory holding locomo/; relative paths are taken from the repository root")
	o.Options.AddFlags(flag.CommandLine)
	flag.IntVar(&o.LimitConversations, "limit-conversations", 0, "evaluate only the first N conversations (0: all)")
	flag.IntVar(&o.LimitQuestions, "limit-questions", 0, "ask only the first N questions of each conversation (0: all)")
	asJSON := flag.Bool("json", false, "print the report as JSON instead of the table")
	questionsOut := flag.String("questions", "", "also write every question's scores, row by row, with Recall's prompt, to this file as JSON lines")
	flag.Parse()

	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	contexteval.Main("evalcontext", *data, &o.DataDir, &o.System, func(ctx context.Context) error {
		return contexteval.Report(ctx, *questionsOut, *asJSON, os.Stdout, func(ctx context.Context, q io.Writer) (*report, error) {
			o.QuestionsOut = q
			return run(ctx, o, log)
		}, printTable)
	})
}
