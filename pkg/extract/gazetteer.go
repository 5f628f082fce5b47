package extract

import (
	"context"
	"unicode/utf8"
)

// CatalogEntry is one known name, for example a film or a person from a
// product catalog or knowledge graph.
type CatalogEntry struct {
	Kind Kind
	Name string
}

// Gazetteer finds catalog names in text without needing brackets or
// context words. It matches on normalised text, so full-width letters, case
// and spacing do not matter, and reports the catalog's spelling as Display.
//
// Names shorter than two characters are skipped because they match almost
// everywhere. Names that begin or end with a Latin letter or digit must sit
// on word boundaries (the catalog name "Rain" does not match "Training").
// Overlapping names resolve leftmost-longest. A Gazetteer is immutable and
// safe for concurrent use.
type Gazetteer struct {
	matcher *automaton
	names   []gazName
}

// gazName is one distinct normalised name and the entries that share it.
type gazName struct {
	entries []CatalogEntry
}

// NewGazetteer builds a gazetteer over entries. Building is linear in the
// total length of the names; entries with an invalid kind or a name that
// normalises to fewer than two characters are ignored.
func NewGazetteer(entries []CatalogEntry) *Gazetteer {
	index := make(map[string]int, len(entries))
	var patterns []string
	var names []gazName
	for _, e := range entries {
		if !e.Kind.Valid() {
			continue
		}
		key := Normalize(e.Name)
		if utf8.RuneCountInString(key) < 2 {
			continue
		}
		e.Name = cleanDisplay(e.Name)
		i, ok := index[key]
		if !ok {
			i = len(names)
			index[key] = i
			patterns = append(patterns, key)
			names = append(names, gazName{})
		}
		dup := false
		for _, have := range names[i].entries {
			if have.Kind == e.Kind {
				dup = true
				break
			}
		}
		if !dup {
			names[i].entries = append(names[i].entries, e)
		}
	}
	return &Gazetteer{matcher: newAutomaton(patterns), names: names}
}

// Len returns the number of distinct names the gazetteer matches, so that
// callers can log how large a loaded catalog is.
func (g *Gazetteer) Len() int {
	return len(g.names)
}

// Extract implements Extractor.
func (g *Gazetteer) Extract(ctx context.Context, in Input) ([]Fact, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(g.names) == 0 || in.Text == "" {
		return nil, nil
	}
	text := Normalize(in.Text)
	matches := g.matcher.findAll(text, nil)
	matches = leftmostLongest(matches, func(m acMatch) bool {
		return latinBoundaries(text, m.start, m.end)
	})
	var facts []Fact
	for _, m := range matches {
		for _, e := range g.names[m.pattern].entries {
			if f, ok := newFact(e.Kind, e.Name); ok {
				facts = append(facts, f)
			}
		}
	}
	return Dedupe(facts), nil
}
