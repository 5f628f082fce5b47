package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/recallhq/recall/pkg/domain"
)

// show writes what the generator knows of a word: each sense with its tag
// count, lexicographer file, hypernym path, domains and gloss; then the
// word's domain weights. It is how the seeds are checked (-show).
func show(w io.Writer, wn *wordnet, m *membership, lex map[string]vector, word string) {
	word = strings.ReplaceAll(strings.ToLower(word), " ", "_")
	for _, f := range posFiles {
		l := wn.index[f.pos][word]
		if l == nil {
			continue
		}
		for i, k := range l.senses {
			s := wn.synsets[k]
			fmt.Fprintf(w, "%s.%c.%02d  n=%d  %s  %s\n", word, f.pos, i+1, l.counts[i], lexnames[s.lexfile], m.of(k).format())
			fmt.Fprintf(w, "    %s\n", s.gloss)
			fmt.Fprintf(w, "    path: %s\n", strings.Join(wn.path(s), " < "))
			for d, r := range m.why[k] {
				if r != "" {
					fmt.Fprintf(w, "    %s: %s\n", domain.Domain(d), r)
				}
			}
		}
	}
	if v, ok := lex[strings.ReplaceAll(word, "_", " ")]; ok {
		fmt.Fprintf(w, "=> %s\n", v.format())
	} else {
		fmt.Fprintf(w, "=> (not in the lexicon)\n")
	}
}

// path is the first hypernym chain of a synset up to its root.
func (wn *wordnet) path(s *synset) []string {
	var out []string
	seen := map[key]bool{}
	for s != nil && !seen[s.key] {
		seen[s.key] = true
		out = append(out, wn.name(s))
		var next *synset
		for _, p := range s.ptrs {
			if p.sym == "@" || p.sym == "@i" {
				next = wn.synsets[p.target]
				break
			}
		}
		s = next
	}
	return out
}

// listSeeds prints every seed and topic with its gloss (-seeds), so that a
// sense number can be checked against what it means.
func listSeeds(dir string) error {
	wn, err := readWordNet(dir)
	if err != nil {
		return err
	}
	line := func(kind string, d domain.Domain, w float64, name string) {
		s, err := wn.resolve(name)
		if err != nil {
			fmt.Printf("%-13s %-6s %.1f %-28s MISSING\n", d, kind, w, name)
			return
		}
		g := s.gloss
		if i := strings.Index(g, "; \""); i > 0 {
			g = g[:i]
		}
		fmt.Printf("%-13s %-6s %.1f %-28s %5d %s\n", d, kind, w, name, treeSize(wn, s.key), g)
	}
	for _, s := range seeds {
		for _, n := range s.trees {
			line("tree", s.domain, s.weight, n)
		}
		for _, n := range s.only {
			line("only", s.domain, s.weight, n)
		}
		for _, n := range s.not {
			line("not", s.domain, 0, n)
		}
	}
	for _, t := range topics {
		line("topic", t.domain, t.weight, t.name)
	}
	return nil
}

// treeSize is the number of synsets in a synset's hyponym tree.
func treeSize(wn *wordnet, k key) int {
	seen := map[key]bool{}
	var walk func(key)
	walk = func(k key) {
		if seen[k] {
			return
		}
		seen[k] = true
		for _, p := range wn.synsets[k].ptrs {
			if p.sym == "~" || p.sym == "~i" {
				walk(p.target)
			}
		}
	}
	walk(k)
	return len(seen)
}
