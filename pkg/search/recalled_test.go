package search

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/assemble"
	"github.com/recallhq/recall/pkg/store"
)

// The first wide hits come with two turns on each side, the next ones up to
// neighbors with one, the rest alone; a turn already shown as a neighbour is
// not repeated, and a hit that was one does not count as a place.
func TestRecalledNeighbours(t *testing.T) {
	t.Parallel()
	at := time.Date(2023, 5, 8, 9, 0, 0, 0, time.UTC)
	n := func(id string) Neighbor {
		return Neighbor{EventID: id, Role: "user", OccurredAt: at, Content: id}
	}
	ptr := func(id string) *Neighbor { v := n(id); return &v }
	hit := func(id string, prev, next string, earlier, later []Neighbor) Hit {
		h := Hit{Kind: store.SearchMessage, SourceID: id, SessionID: "s", Role: "user", OccurredAt: at, Text: id,
			Earlier: earlier, Later: later}
		if prev != "" {
			h.Previous = ptr(prev)
		}
		if next != "" {
			h.Next = ptr(next)
		}
		return h
	}
	res := Result{Hits: []Hit{
		hit("h1", "p1", "n1", []Neighbor{n("e1"), n("e0")}, []Neighbor{n("l1")}),
		hit("n1", "h1", "l1", nil, nil), // already shown: not a place
		hit("h2", "p2", "n2", []Neighbor{n("e2")}, []Neighbor{n("l2")}),
		hit("h3", "p3", "n3", nil, nil),
	}}
	r := recalled("q", res, assemble.Window{}, 0, 2, 1, nil)
	var ids []string
	for _, h := range r.Hits {
		ids = append(ids, h.EventID)
	}
	require.Equal(t, []string{"e1", "p1", "h1", "n1", "l1", "p2", "h2", "n2", "h3"}, ids)
	require.Equal(t, "lexical", r.Search)

	r = recalled("q", res, assemble.Window{}, 0, 0, 4, nil)
	ids = ids[:0]
	for _, h := range r.Hits {
		ids = append(ids, h.EventID)
	}
	require.Equal(t, []string{"h1", "n1", "h2", "h3"}, ids, "no neighbours at all with neighbors 0")
}
