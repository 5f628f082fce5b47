// Command evalsummary measures how much of a session the offline
// (extractive) summarizer keeps. It summarizes every session of the LoCoMo
// conversations (long, dated chats between two people, each session with a
// summary written by the data set's authors) the way the summarizer worker
// does with no model configured: summarize.Extractive with its default
// options, a version each time summarize.Policy says one is due as the
// turns arrive, at most SUMMARY_MAX_MESSAGES messages a version with the
// previous version rolled in, and the rest when the session goes idle.
// speaker_a is the user, as everywhere internal/eval/datasets reads LoCoMo.
//
// Each summary is scored by its content-word recall against the session's
// reference summary: the share of the reference's content words (tokens
// that are not stopwords nor the speakers' names, stemmed) the summary
// holds. Next to it, at the same length (the summary's words, its speaker
// labels taken off), three baselines, the session's first words (lead), the
// user's first words (user lead) and the other speaker's (assistant lead),
// and a ceiling (oracle): the session's sentences that share most words with
// the reference. Every row is cut to the same number of words and the
// reference is whole, so a longer text cannot score higher and the rows
// read against each other. It prints the recall over all sessions, the
// same recall of the reference's sentences about the user and of those
// about the other speaker (the sentences that open with their names), and
// the recall per conversation.
//
// Usage, from the repository root:
//
//	go run ./tools/evalsummary [-data ../shared/data] [-limit-conversations N] [-json] [-v]
//
// The table goes to stdout. It exits with status 1 when the summarizer
// does not beat every lead baseline, and 2 when the run fails.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/recallhq/recall/internal/eval/contexteval"
	"github.com/recallhq/recall/internal/eval/datasets"
)

func main() {
	data := flag.String("data", datasets.DefaultDir, "data directory holding locomo/; relative paths are taken from the repository root")
	limit := flag.Int("limit-conversations", 0, "evaluate only the first N conversations (0: all)")
	asJSON := flag.Bool("json", false, "print the report as JSON instead of the table")
	verbose := flag.Bool("v", false, "also print every session's summary, reference and scores")
	flag.Parse()

	rep, err := runMain(*data, *limit, *asJSON, *verbose)
	if err != nil {
		fmt.Fprintln(os.Stderr, "evalsummary:", err)
		os.Exit(2)
	}
	if err := checkTargets(rep); err != nil {
		fmt.Fprintln(os.Stderr, "evalsummary: targets missed:\n"+err.Error())
		os.Exit(1)
	}
}

func runMain(data string, limit int, asJSON, verbose bool) (*report, error) {
	dir, err := datasets.Dir(data)
	if err != nil {
		return nil, err
	}
	rep, err := run(context.Background(), dir, limit)
	if err != nil {
		return nil, err
	}
	if verbose {
		printSessions(os.Stdout, rep)
	}
	if asJSON {
		return rep, contexteval.WriteJSON(os.Stdout, rep)
	}
	printTable(os.Stdout, rep)
	return rep, nil
}
