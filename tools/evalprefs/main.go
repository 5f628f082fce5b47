// Command evalprefs measures whether the context Recall assembles weeks
// after a user told a preference still carries it (`make eval-prefs`).
// Each item is one user, built from PrefEval (../shared/data/prefeval: a
// preference such as "I follow a strict gluten-free and dairy-free diet"
// and a later question whose good answer must respect it while sharing few
// words with it) and LongMemEval_S (its sessions bury the preference). The
// preference is told in one of three kinds of session:
//
//   - stated: the preference sentence alone as the user's turn, then one
//     fixed, neutral assistant turn ("Thank you for letting me know."), the
//     evaluation's own scaffold, the same for every item;
//   - passing: the preference opens a longer request: the sentence, a space
//     and the first user turn of a LongMemEval session (a request of 40 to
//     1000 characters, neither a greeting nor a pasted document, followed
//     by the assistant's reply), then that session's assistant reply;
//   - choice: PrefEval's implicit choice, whose preference shows only in
//     which option the user picks: the user's request, the assistant's four
//     options, the user's pick, the assistant's acknowledgment. The
//     preference sentence is never posted.
//
// Then 20 sessions of one LongMemEval instance's history (-haystack), only
// sessions without an evidence turn (has_answer) and whose every turn the
// API takes, in their history's order, each 1 to 3 days after the one
// before (the first after the preference session), started between 09:00
// and 19:00, turns 30 s apart; and the item's question is asked as the
// current message (`query`) of a new session, at `at` 3 to 7 days after the
// last haystack turn: 23 to 67 days after the preference. All go
// through the real pipeline, as in tools/evallongmem: a fresh database and
// `recall run` with embedded JetStream, the turns posted through the API,
// the context asked once the pipeline has caught up, at budget 8000.
//
// The sample: -per-topic preferences of each of PrefEval's topics (10 of
// each of 10 topics by default), drawn by -seed, each told in every kind
// asked for (-kinds) over the same haystack at the same dates, so the kinds
// differ only in how the preference was told; each preference's haystack
// comes from its own LongMemEval instance while there are enough of them.
// Users are named pe-<kind>-<topic>-<index>, the index the preference's
// place in its topic's list. The same seed gives the same items.
//
// Scoring: an item's prompt carries the preference when one line of it
// holds at least 80% of the preference sentence's content words (lower-cased
// word tokens, contexteval's stopwords left out, each word once). A word
// counts when the line holds it or the same word with one ending stripped:
// -ies (for -y), -es, -s, -ing, -ed, -d, keeping at least three letters, so
// "games" meets "game" and "allergies" "allergy"; no other stemming. Words
// split across lines count in neither. A choice, whose sentence is never
// said, also counts when one line holds at least 80% of the picked option's
// content words ("I'll go with the fresh fruits, nuts, and veggie sticks
// with hummus"); and for a choice a line holding 80% of three options or
// more counts for neither rule: it is the assistant's list, which shows
// what was offered, not what was chosen (and may share the preference's
// words: "a card game like Poker"). The picked option is the data's first
// (PrefEval's aligned_op is options[0] in all 505 items; the assistant's
// message lists the options shuffled): where the user's pick names its
// number in a list of one option a line (127 items), the option so
// numbered shares the most words with options[0] in every case
// (TestChosenIsTheNamedOption). Many picks name the option by its number
// or in a few words ("I'll go with option 2", "the fish tank option"), so
// the full history reaches well under 1 on choices; beside the share, the
// report gives, for choices, the share of prompts that hold the user's
// pick turn (its first 60 characters, as contexteval finds an evidence
// turn).
//
// Recall's prompt is scored next to contexteval's baselines on the same
// user's turns, preference session and haystack: BM25 and the newest turns
// at the same budget, and the full history (the upper bound). The
// baselines show each turn on one line, its white space collapsed, as
// Recall's prompt shows a remembered turn, so that a line is a turn in
// every row. The shares are reported per kind, in all and per topic, with
// the prompts' mean characters.
//
// Usage, from the repository root:
//
//	go run ./tools/evalprefs [-data ../shared/data] [-per-topic 10]
//	    [-kinds stated,passing,choice] [-seed 1] [-limit N] [-json]
//	    [-budget 8000] [-keep] [-questions FILE]
//	    [-recall-bin PATH | -api URL [-nats URL] [-stored]]
//
// -questions writes one JSON line per item: what was told, the question,
// every row's result with the line that carried the preference, and
// Recall's prompt. To compare context settings without posting again: run
// once with -keep, start `recall run` on the kept database with the
// settings to try, and run with -api and -stored (and the same -seed,
// -per-topic and -kinds), which only asks and scores.
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
	"slices"
	"strings"

	"github.com/recallhq/recall/internal/eval/contexteval"
	"github.com/recallhq/recall/internal/eval/datasets"
)

func main() {
	o := options{Kinds: kinds}
	data := flag.String("data", datasets.DefaultDir, "data directory holding prefeval/ and longmemeval/; relative paths are taken from the repository root")
	o.Options.AddFlags(flag.CommandLine)
	flag.IntVar(&o.PerTopic, "per-topic", 10, "preferences drawn per topic, each told in every kind")
	flag.Func("kinds", "kinds of telling to build, comma-separated: stated, passing, choice (default all)", func(v string) error {
		var ks []string
		for k := range strings.SplitSeq(v, ",") {
			k = strings.TrimSpace(k)
			if !slices.Contains(kinds, k) {
				return fmt.Errorf("unknown kind %q (stated, passing, choice)", k)
			}
			ks = append(ks, k)
		}
		// Built and printed in one order, whatever the flag's.
		o.Kinds = slices.DeleteFunc(slices.Clone(kinds), func(k string) bool { return !slices.Contains(ks, k) })
		return nil
	})
	flag.IntVar(&o.Haystack, "haystack", 20, "LongMemEval sessions after each preference")
	flag.IntVar(&o.Limit, "limit", 0, "evaluate only the first N items of each kind (0: all)")
	flag.Uint64Var(&o.Seed, "seed", 1, "seed of the sample, the haystacks and the dates")
	flag.IntVar(&o.PostConcurrency, "post-concurrency", 4, "users whose turns are posted at once")
	flag.BoolVar(&o.Stored, "stored", false, "with -api: the turns are stored already (a database kept by -keep with the same sample, served at -api): only ask and score")
	asJSON := flag.Bool("json", false, "print the report as JSON instead of the tables")
	questionsOut := flag.String("questions", "", "also write every item's result, row by row, with Recall's prompt, to this file as JSON lines")
	flag.Parse()

	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	contexteval.Main("evalprefs", *data, &o.DataDir, &o.System, func(ctx context.Context) error {
		return contexteval.Report(ctx, *questionsOut, *asJSON, os.Stdout, func(ctx context.Context, q io.Writer) (*report, error) {
			o.QuestionsOut = q
			return run(ctx, o, log)
		}, printTables)
	})
}
