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
// The question's date is the context's time: the history is years old, and
// a question such as "how many weeks ago" is asked at that date. -at (on in
// `make eval-longmem`) sends it as the context's `at`, so that the window's
// TTL, the facts' decay and expiry and the recall's recency count from it
// and nothing dated after the question is read (a question whose history
// runs past its date, as 20 of LongMemEval_S's do, is asked a second after
// its newest turn); without -at the context is asked at the time of the run
// (as an API older than `at` needs).
//
// Usage, from the repository root:
//
//	go run ./tools/evallongmem [-data ../shared/data] [-json] [-limit N]
//	    [-only ID,ID] [-budget 8000] [-at] [-keep] [-questions FILE]
//	    [-pad-sessions N [-pad-seed 1]]
//	    [-recall-bin PATH | -api URL [-nats URL] [-stored]]
//
// -pad-sessions N makes every history a user's of N sessions (about ten
// times LongMemEval_S's at 500, the scale of LongMemEval_M): the history's
// own sessions and, drawn by -pad-seed, sessions of the other histories
// that hold no evidence for any question, spread at random over the time
// before the question as densely as the history's own, their turns as far
// apart as in the data. The baselines read the same padded histories. The
// report gives Recall's contexts' latency (p50, p95, max) beside the
// scores. At 500 sessions a history is about 5,000 turns: with -limit or
// -only for a subset.
//
// To compare context settings without posting again: run once with -keep,
// start `recall run` on the kept database with the settings to try
// (DATABASE_URL, API_ADDR, CONTEXT_*), and run with -api and -stored,
// which only asks and scores.
//
// It starts the system as the LoCoMo evaluation (tools/evalcontext) does: a
// fresh database on the local PostgreSQL (dropped at the end unless -keep),
// migrated by `recall migrate`, and `recall run` as a child process with
// embedded JetStream on free ports, stopped by SIGTERM when the run ends,
// fails or is interrupted. The measures, the baselines and the table are
// internal/eval/contexteval's, shared with that evaluation.
//
// The tables go to stdout, with the phases' timings; progress goes to
// stderr. It exits with status 2 when the run fails.
package main

import (
	"context"
	"flag"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/recallhq/recall/internal/eval/contexteval"
	"github.com/recallhq/recall/internal/eval/datasets"
)

func main() {
	o := options{}
	data := flag.String("data", datasets.DefaultDir, "data directory holding longmemeval/; relative paths are taken from the repository root")
	o.Options.AddFlags(flag.CommandLine)
	flag.IntVar(&o.Limit, "limit", 0, "evaluate only the first N instances (0: all)")
	flag.Func("only", "evaluate only these instances: question ids, comma-separated", func(v string) error {
		for id := range strings.SplitSeq(v, ",") {
			if id = strings.TrimSpace(id); id != "" {
				o.Only = append(o.Only, id)
			}
		}
		return nil
	})
	flag.IntVar(&o.PostConcurrency, "post-concurrency", 4, "users whose turns are posted at once")
	flag.BoolVar(&o.Stored, "stored", false, "with -api: the turns are stored already (a database kept by -keep, served at -api): only ask and score, to compare context settings quickly")
	flag.IntVar(&o.PadSessions, "pad-sessions", 0, "pad every history to N sessions with other histories' sessions that hold no evidence, dated before the question (0: as the data holds them); with -limit or -only for a subset")
	flag.Uint64Var(&o.PadSeed, "pad-seed", 1, "seed of the padding: which sessions, at which dates")
	flag.BoolVar(&o.At, "at", false, "send the question's date as the context's time (`at`); without it, the time of the run")
	asJSON := flag.Bool("json", false, "print the report as JSON instead of the tables")
	questionsOut := flag.String("questions", "", "also write every question's scores, row by row, with Recall's prompt, to this file as JSON lines")
	flag.Parse()

	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	contexteval.Main("evallongmem", *data, &o.DataDir, &o.System, func(ctx context.Context) error {
		return contexteval.Report(ctx, *questionsOut, *asJSON, os.Stdout, func(ctx context.Context, q io.Writer) (*report, error) {
			o.QuestionsOut = q
			return run(ctx, o, log)
		}, printTables)
	})
}
