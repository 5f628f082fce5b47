// Command evalextract measures the interest extractor against KdConv, a set
// of Chinese conversations annotated with the knowledge-graph entities they
// talk about, and prints recall and precision per domain, first for the
// open-vocabulary rules and then with a catalog of the split's entities.
// Then it counts, per attribute key and per data set, the values the
// offline reader (pkg/attribute/stated) learns from every user turn of
// KdConv, LoCoMo, LongMemEval and PrefEval, and with -attributes-sample N prints N of
// them drawn at random, each with its turn, for judging by hand.
//
// Usage, from the repository root:
//
//	go run ./tools/evalextract [-data ../shared/data] [-v] [-attributes-sample 50]
//
// It exits with status 1 when a target is missed and 2 when the data cannot
// be read, so that a make target or CI step fails on a regression.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/recallhq/recall/internal/eval/datasets"
)

func main() {
	data := flag.String("data", datasets.DefaultDir, "data directory holding kdconv/; relative paths are taken from the repository root")
	verbose := flag.Bool("v", false, "list missed names and unmatched extractions")
	sample := flag.Int("attributes-sample", 0, "also print this many of the attribute values read from the data's user turns, drawn at random, for judging by hand")
	flag.Parse()

	dir, err := datasets.Dir(*data)
	if err != nil {
		fmt.Fprintln(os.Stderr, "evalextract:", err)
		os.Exit(2)
	}
	results, err := run(context.Background(), dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "evalextract:", err)
		os.Exit(2)
	}
	report(os.Stdout, results, *verbose)
	attrs, err := readStated(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "evalextract:", err)
		os.Exit(2)
	}
	reportStated(os.Stdout, attrs, *sample)
	if err := checkTargets(results); err != nil {
		fmt.Fprintln(os.Stderr, "evalextract: targets missed:\n"+err.Error())
		os.Exit(1)
	}
}
