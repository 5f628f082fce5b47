package main

import (
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/recallhq/recall/internal/eval/datasets"
	"github.com/recallhq/recall/pkg/attribute/stated"
)

// statedValue is one value the offline reader learned from a user turn.
type statedValue struct {
	Dataset, TurnID, Key, Value, Turn string
}

// statedReport is what the offline reader (pkg/attribute/stated) learns
// from every user turn of the data: the values, and the user turns read.
type statedReport struct {
	Turns  map[string]int // user turns read, by data set
	Values []statedValue
}

// readStated runs the offline reader over every user turn of the data
// sets, as the extractor does.
func readStated(dir string) (statedReport, error) {
	all, names, err := datasets.All(dir, 0)
	if err != nil {
		return statedReport{}, err
	}
	rep := statedReport{Turns: map[string]int{}}
	for _, name := range names {
		for _, c := range all[name] {
			for _, t := range c.Turns {
				if t.Role != "user" {
					continue
				}
				rep.Turns[name]++
				for _, st := range stated.Extract(t.Content) {
					rep.Values = append(rep.Values, statedValue{Dataset: name, TurnID: t.ID, Key: st.Key, Value: st.Value, Turn: t.Content})
				}
			}
		}
	}
	return rep, nil
}

// reportStated prints the values learned per key and data set, and sample
// of them drawn at random (a fixed seed, so the same sample every run),
// each with its turn, for judging by hand.
func reportStated(w io.Writer, rep statedReport, sample int) {
	datasetNames := []string{"kdconv", "locomo", "longmemeval", "prefeval"}
	counts := map[string]map[string]int{}
	var keys []string
	for _, v := range rep.Values {
		if counts[v.Key] == nil {
			counts[v.Key] = map[string]int{}
			keys = append(keys, v.Key)
		}
		counts[v.Key][v.Dataset]++
	}
	slices.Sort(keys)
	fmt.Fprintf(w, "\nattribute values read offline from every user turn (pkg/attribute/stated): %d values\n", len(rep.Values))
	fmt.Fprintf(w, "%-16s", "key")
	for _, d := range datasetNames {
		fmt.Fprintf(w, "%-14s", d)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%-16s", "(user turns)")
	for _, d := range datasetNames {
		fmt.Fprintf(w, "%-14d", rep.Turns[d])
	}
	fmt.Fprintln(w)
	for _, k := range keys {
		fmt.Fprintf(w, "%-16s", k)
		for _, d := range datasetNames {
			fmt.Fprintf(w, "%-14d", counts[k][d])
		}
		fmt.Fprintln(w)
	}
	if sample <= 0 || len(rep.Values) == 0 {
		return
	}
	r := rand.New(rand.NewPCG(28, 50))
	idx := r.Perm(len(rep.Values))[:min(sample, len(rep.Values))]
	slices.Sort(idx)
	fmt.Fprintf(w, "\na random sample of %d values, for judging by hand:\n", len(idx))
	for n, i := range idx {
		v := rep.Values[i]
		turn := strings.Join(strings.Fields(v.Turn), " ")
		if r := []rune(turn); len(r) > 220 {
			turn = string(r[:220]) + "…"
		}
		fmt.Fprintf(w, "%2d. %s=%q  [%s %s] %s\n", n+1, v.Key, v.Value, v.Dataset, v.TurnID, turn)
	}
}
