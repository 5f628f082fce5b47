// Package extract turns chat text into typed interest facts (books, authors,
// films, music, people, genres and topics, and names whose sort nothing in the
// text tells) without calling any service. It is the logic; package extractor
// is the worker that runs it over the turn stream. What is never an interest
// (the names of the conversation's own people, what a directive names) is
// read in aimed.go; Screen applies it to any extractor's facts.
//
// Recall stores what a user is interested in so that a chat assistant can
// remember it later. The extractors here run on the hot path of a queue
// worker, so they are deterministic, offline and fast: Rules finds entities
// from punctuation, part-of-speech tags and context patterns in Chinese and
// English text, Gazetteer finds names that are already known to a catalog,
// and Combine merges several extractors (including ones that live elsewhere,
// such as an LLM-backed extractor) into one.
package extract

import (
	"context"
	"fmt"
)

// Kind is the type of an interest fact. It is a string so that facts can be
// stored and exchanged as JSON without a lookup table.
type Kind string

// The kinds of interest facts. Organisations such as studios and record
// labels have no kind of their own: they are reported as KindTopic, because a
// user who talks about a label is interested in it as a subject rather than
// as a person or a work.
const (
	KindBookTitle Kind = "book_title"
	KindAuthor    Kind = "author"
	KindFilm      Kind = "film"
	KindMusic     Kind = "music"
	KindPerson    Kind = "person"
	KindGenre     Kind = "genre"
	KindTopic     Kind = "topic"
	// KindName is a name whose sort nothing in the text tells: "I love
	// Anna Karenina" may be about the novel, a film of it or a person of
	// that name. It stays a name rather than taking a guessed kind, and
	// the prompt shows it without one.
	KindName Kind = "name"
)

// Kinds returns every kind in a stable order, so that callers can iterate
// (for example to build per-kind metrics) without hard-coding the list.
func Kinds() []Kind {
	return []Kind{KindBookTitle, KindAuthor, KindFilm, KindMusic, KindPerson, KindGenre, KindTopic, KindName}
}

// Valid reports whether k is one of the known kinds, so that values read from
// configuration or storage can be checked before use.
func (k Kind) Valid() bool {
	switch k {
	case KindBookTitle, KindAuthor, KindFilm, KindMusic, KindPerson, KindGenre, KindTopic, KindName:
		return true
	}
	return false
}

// IsEntity reports whether k names a specific person or work rather than a
// category, which is what matters when deciding how precise a fact is. A
// name of unknown sort is specific too.
func (k Kind) IsEntity() bool {
	switch k {
	case KindBookTitle, KindAuthor, KindFilm, KindMusic, KindPerson, KindName:
		return true
	default:
		return false
	}
}

// IsTitle reports whether k names a work (a book, film or piece of music),
// which decides how a quoted or bracketed span is typed.
func (k Kind) IsTitle() bool {
	return k == KindBookTitle || k == KindFilm || k == KindMusic
}

// Fact is one interest found in a piece of text.
type Fact struct {
	// Kind is what sort of thing the fact names.
	Kind Kind `json:"type"`
	// Value is Normalize(Display): the key used to merge mentions of the
	// same thing written in different ways.
	Value string `json:"value"`
	// Display is the name as it should be shown to users: trimmed, with
	// surrounding brackets and quotes removed.
	Display string `json:"display"`
	// Source names the extractor that produced the fact when it was not the
	// one the caller configured: a fallback (WithFallback) marks what it
	// answers with its Source(), such as "rules" under an LLM. Empty otherwise.
	Source string `json:"-"`
}

// Sourced is an extractor that names itself, so that facts it answers as a
// fallback are recorded under its name rather than the primary's.
type Sourced interface {
	Source() string
}

// MaxFactRunes bounds a fact's Display and its Value, in characters. A name
// longer than any real title is not a name (a model that pasted a sentence,
// a run of capitalised words, a catalog's description), and a fact's value is
// part of its table's primary key, whose entries PostgreSQL bounds (about
// 2.7 kB): an unbounded value would make the turn that holds it fail to
// store, again at every delivery, and end as a dead letter.
const MaxFactRunes = 200

// newFact builds a fact from a raw surface string, so that every extractor
// cleans, normalises and bounds names the same way. It returns false when
// nothing is left after cleaning, or when the name is longer than
// MaxFactRunes.
func newFact(kind Kind, surface string) (Fact, bool) {
	display := cleanDisplay(surface)
	value := Normalize(display)
	if value == "" || runeCount(display) > MaxFactRunes || runeCount(value) > MaxFactRunes {
		return Fact{}, false
	}
	return Fact{Kind: kind, Value: value, Display: display}, true
}

// Input is what an extractor reads. It is a struct rather than a bare string
// so that fields such as the speaker or the language can be added later
// without changing every implementation.
type Input struct {
	// Text is one chat turn or any other piece of free text.
	Text string
}

// Extractor finds interest facts in text. It is implemented by Rules,
// Gazetteer, the value returned by Combine and by extractors outside this
// package, so that the pipeline can swap or stack them.
type Extractor interface {
	Extract(ctx context.Context, in Input) ([]Fact, error)
}

// Dedupe removes facts with the same (Kind, Value), keeping the first one so
// that the order in which things were mentioned is preserved. Facts with an
// empty Value are dropped because they cannot be merged with anything.
func Dedupe(facts []Fact) []Fact {
	if len(facts) == 0 {
		return facts
	}
	type key struct {
		kind  Kind
		value string
	}
	seen := make(map[key]struct{}, len(facts))
	out := make([]Fact, 0, len(facts))
	for _, f := range facts {
		if f.Value == "" {
			continue
		}
		k := key{f.Kind, f.Value}
		if _, dup := seen[k]; dup {
			continue
		}
		seen[k] = struct{}{}
		out = append(out, f)
	}
	return out
}

// combined runs several extractors in order and merges what they find.
type combined struct {
	extractors []Extractor
}

// Combine returns an extractor that runs each of extractors in order and
// merges their results. Extractors listed first are trusted more: when a
// later extractor reports a value that an earlier one already reported under
// a different kind, the earlier kind wins, so a catalog listed first can
// correct the guesses of open-vocabulary rules. Within one extractor every
// (Kind, Value) pair is kept. Nil extractors are ignored.
func Combine(extractors ...Extractor) Extractor {
	c := &combined{extractors: make([]Extractor, 0, len(extractors))}
	for _, e := range extractors {
		if e != nil {
			c.extractors = append(c.extractors, e)
		}
	}
	return c
}

// Extract implements Extractor. It stops at the first error, because a
// partial merge would silently lose the facts of the failing extractor.
func (c *combined) Extract(ctx context.Context, in Input) ([]Fact, error) {
	var out []Fact
	owner := make(map[string]int) // value -> index of first extractor that reported it
	for i, e := range c.extractors {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		facts, err := e.Extract(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("extract: extractor %d (%T): %w", i, e, err)
		}
		for _, f := range facts {
			if first, ok := owner[f.Value]; ok && first != i {
				continue
			}
			owner[f.Value] = i
			out = append(out, f)
		}
	}
	return Dedupe(out), nil
}
