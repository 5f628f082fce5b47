package extract_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/textcheck"
	"github.com/recallhq/recall/pkg/extract"
)

// fuzzRules is the rules extractor of the fuzz targets, loaded once per
// process that runs inputs (textcheck.Load): the fuzzing coordinator, which
// runs none, does not hold the Chinese dictionary too.
var fuzzRules = sync.OnceValues(func() (*extract.Rules, error) {
	return extract.NewRules(extract.RulesOptions{})
})

// factBound is what a fact's value and display may hold.
var factBound = textcheck.Bound{Runes: extract.MaxFactRunes}

// checkFacts checks each fact's kind, value and display.
func checkFacts(t *testing.T, c *textcheck.Checker, in string, facts []extract.Fact) {
	t.Helper()
	for _, fa := range facts {
		require.True(t, fa.Kind.Valid(), "made from %q: kind %q", in, fa.Kind)
		require.NotEmpty(t, fa.Value, "made from %q", in)
		c.Check(t, textcheck.Key, in, fa.Value, factBound)
		c.Check(t, textcheck.Text, in, fa.Display, factBound)
	}
}

// loadRules builds the rules (and loads the dictionary) before a target's
// first input.
func loadRules() error { _, err := fuzzRules(); return err }

// FuzzRules: whatever a user writes, the facts the rules find are values
// PostgreSQL stores, within the bound of a fact.
func FuzzRules(f *testing.F) {
	textcheck.FuzzText(f, loadRules, func(t *testing.T, c *textcheck.Checker, text string) {
		r, err := fuzzRules()
		require.NoError(t, err)
		facts, err := r.Extract(context.Background(), extract.Input{Text: text})
		require.NoError(t, err)
		checkFacts(t, c, text, facts)
	})
}

// FuzzKeywords: the keywords a summary ranks sentences by are words of the
// text, valid and bounded by it.
func FuzzKeywords(f *testing.F) {
	textcheck.FuzzText(f, loadRules, func(t *testing.T, c *textcheck.Checker, text string) {
		r, err := fuzzRules()
		require.NoError(t, err)
		b := textcheck.InputBound(text)
		for _, k := range r.Keywords(text) {
			require.NotEmpty(t, k, "made from %q", text)
			c.Check(t, textcheck.Text, text, k, b)
		}
	})
}

// FuzzNormalize: the key facts are merged under is valid, bounded by the
// text, and normalizing it again changes nothing (a stored value finds
// itself).
func FuzzNormalize(f *testing.F) {
	textcheck.FuzzText(f, nil, func(t *testing.T, c *textcheck.Checker, text string) {
		v := extract.Normalize(text)
		c.Check(t, textcheck.Text, text, v, textcheck.InputBound(text))
		require.Equal(t, v, extract.Normalize(v), "made from %q", text)
	})
}

// FuzzGazetteer: a catalog name and a text, both anything a user or a
// catalog may hold; the facts found are values PostgreSQL stores.
func FuzzGazetteer(f *testing.F) {
	seeds := textcheck.Seeds(f)
	for _, s := range seeds {
		// A name from the middle of the text, so that it is found.
		rs := []rune(s)
		n := len(rs) / 3
		f.Add(string(rs[n:n+min(n, 8)]), s)
	}
	c := textcheck.New(f)
	f.Fuzz(func(t *testing.T, name, text string) {
		t.Parallel()
		if !textcheck.Acceptable(name) || !textcheck.Acceptable(text) {
			return
		}
		g := extract.NewGazetteer([]extract.CatalogEntry{
			{Kind: extract.KindBookTitle, Name: name},
			{Kind: extract.KindFilm, Name: name},
			{Kind: extract.KindPerson, Name: "Marlene"},
			{Kind: extract.KindBookTitle, Name: "三体"},
		})
		facts, err := g.Extract(context.Background(), extract.Input{Text: text})
		require.NoError(t, err)
		checkFacts(t, c, text, facts)
	})
}
