package search_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/textcheck"
	"github.com/recallhq/recall/pkg/search"
	"github.com/recallhq/recall/pkg/segment"
	"github.com/recallhq/recall/pkg/store"
)

// FuzzTerms: whatever a user writes, its terms are valid words within
// MaxTermBytes, and the tsvector of a turn's terms and the tsquery of a
// query's are what PostgreSQL casts them to as they are (the indexer stores
// terms::tsvector; a search asks with a tsquery).
func FuzzTerms(f *testing.F) {
	textcheck.FuzzText(f, func() error { _, err := segment.Shared(); return err }, func(t *testing.T, c *textcheck.Checker, text string) {
		a := analyzer(t)
		terms := a.Terms(text, nil)
		for _, term := range terms {
			require.NotEmpty(t, term, "made from %s", textcheck.Quote(text))
			c.Check(t, textcheck.Text, text, term, textcheck.Bound{Bytes: search.MaxTermBytes})
		}
		c.Check(t, textcheck.TSVector, text, store.TSVector(terms), textcheck.Bound{})
		if q := a.QueryTerms(text); len(q) > 0 {
			c.Check(t, textcheck.TSQuery, text, store.TSQuery(q), textcheck.Bound{})
		}
	})
}
