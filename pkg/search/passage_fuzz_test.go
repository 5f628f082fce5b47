package search

import (
	"testing"

	"github.com/recallhq/recall/internal/testkit/textcheck"
	"github.com/recallhq/recall/pkg/listsel"
	"github.com/recallhq/recall/pkg/segment"
)

// FuzzPassage: whatever a turn holds, its passage for a message made of its
// own words (and positions of a list: "the fifth", 第三个) is valid text
// within the snippet's n characters, or nothing.
func FuzzPassage(f *testing.F) {
	textcheck.FuzzText(f, func() error { _, err := segment.Shared(); return err }, func(t *testing.T, c *textcheck.Checker, text string) {
		a := SharedAnalyzer()
		query := text
		if len(query) > 200 {
			query = query[len(query)/2:]
		}
		query += " the fifth one, 第三个"
		q := passageQuery{terms: a.QueryTerms(query), positions: listsel.Positions(query)}
		for _, n := range []int{1, 40, 120, 300} {
			if p := passage(q, text, n); p != "" {
				c.Check(t, textcheck.Text, text, p, textcheck.Bound{Runes: n})
			}
		}
	})
}
