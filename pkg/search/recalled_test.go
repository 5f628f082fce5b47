package search

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

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
	r := recalled("q", res, assemble.Window{}, snippets{}, neighbors{first: 2, wide: 1}, false, false)
	var ids []string
	for _, h := range r.Hits {
		ids = append(ids, h.EventID)
	}
	require.Equal(t, []string{"e1", "p1", "h1", "n1", "l1", "p2", "h2", "n2", "h3"}, ids)
	require.Equal(t, "lexical", r.Search)

	r = recalled("q", res, assemble.Window{}, snippets{}, neighbors{first: 0, wide: 4}, false, false)
	ids = ids[:0]
	for _, h := range r.Hits {
		ids = append(ids, h.EventID)
	}
	require.Equal(t, []string{"h1", "n1", "h2", "h3"}, ids, "no neighbours at all with neighbors 0")

	// A hit longer than upTo stands alone; a short one keeps its neighbours.
	res.Hits[0].Text = strings.Repeat("long ", 30)
	r = recalled("q", res, assemble.Window{}, snippets{}, neighbors{first: 2, wide: 1, upTo: 100}, false, false)
	ids = ids[:0]
	for _, h := range r.Hits {
		ids = append(ids, h.EventID)
	}
	require.Equal(t, []string{"h1", "n1", "l1", "h2", "h3"}, ids,
		"h1 alone (still one of the first two places); n1, no longer its neighbour, a hit with its next turn")
}

// A neighbour's snippet is cut to the neighbours' length; a hit keeps the
// hits' length (the assembler cuts it).
func TestRecalledNeighbourSnippets(t *testing.T) {
	t.Parallel()
	at := time.Date(2023, 5, 8, 9, 0, 0, 0, time.UTC)
	long := strings.Repeat("word ", 60) // 300 characters
	res := Result{Hits: []Hit{{Kind: store.SearchMessage, SourceID: "h", SessionID: "s", Role: "user", OccurredAt: at, Text: long,
		Previous: &Neighbor{EventID: "p", Role: "assistant", OccurredAt: at, Content: long}}}}
	r := recalled("q", res, assemble.Window{}, snippets{hit: 250, neighbor: 100}, neighbors{first: 1, wide: 0}, false, false)
	require.Len(t, r.Hits, 2)
	require.Equal(t, "p", r.Hits[0].EventID)
	require.True(t, r.Hits[0].Truncated)
	require.LessOrEqual(t, utf8.RuneCountInString(r.Hits[0].Text), 101)
	require.True(t, r.Hits[1].Truncated)
	require.Equal(t, 251, utf8.RuneCountInString(r.Hits[1].Text)+1, "the hit is cut to 250 and marked: %q", r.Hits[1].Text)

	r = recalled("q", res, assemble.Window{}, snippets{hit: 250}, neighbors{first: 1, wide: 0}, false, false)
	require.Equal(t, utf8.RuneCountInString(r.Hits[0].Text), utf8.RuneCountInString(r.Hits[1].Text), "no neighbours' length: the hits'")
}

// A message that points back at what the assistant said gets the
// assistant's turns at their own, longer length; everything else keeps a
// hit's.
func TestRecalledAssistantSnippets(t *testing.T) {
	t.Parallel()
	at := time.Date(2023, 5, 8, 9, 0, 0, 0, time.UTC)
	long := strings.Repeat("Try a slow-cooked chickpea stew with smoked paprika and lemon. ", 20)
	res := Result{Hits: []Hit{
		{Kind: store.SearchMessage, SourceID: "a1", SessionID: "s", Role: "assistant", OccurredAt: at, Text: long},
		{Kind: store.SearchMessage, SourceID: "u1", SessionID: "s", Role: "user", OccurredAt: at, Text: long},
		{Kind: store.SearchSummary, SourceID: "s", SessionID: "s", OccurredAt: at, Text: long},
	}}
	lengths := func(query string) []int {
		r := recalled(query, res, assemble.Window{}, snippets{hit: 300, assistant: 800}, neighbors{}, false, false)
		var out []int
		for _, h := range r.Hits {
			out = append(out, utf8.RuneCountInString(h.Text))
		}
		return out
	}
	got := lengths("Can you remind me what you suggested for dinner?")
	require.Len(t, got, 3)
	require.Greater(t, got[0], 600, "the assistant's turn at its own length")
	require.LessOrEqual(t, got[0], 801)
	require.LessOrEqual(t, got[1], 301, "the user's turn at a hit's")
	require.LessOrEqual(t, got[2], 301, "a summary at a hit's")
	for _, n := range lengths("What stew should I cook tonight?") {
		require.LessOrEqual(t, n, 301, "a message about something else: every hit at a hit's length")
	}
}

// The assistant's reply brought as the neighbour of the user's turn found
// is where what it said is: at the assistant's length too, while the
// other neighbours keep theirs.
func TestRecalledAssistantNeighbourSnippets(t *testing.T) {
	t.Parallel()
	at := time.Date(2023, 5, 8, 9, 0, 0, 0, time.UTC)
	long := strings.Repeat("Try a slow-cooked chickpea stew with smoked paprika and lemon. ", 20)
	res := Result{Hits: []Hit{{Kind: store.SearchMessage, SourceID: "u1", SessionID: "s", Role: "user", OccurredAt: at,
		Text: "write me a dinner plan", Previous: &Neighbor{EventID: "u0", Role: "user", OccurredAt: at, Content: long},
		Next: &Neighbor{EventID: "a1", Role: "assistant", OccurredAt: at.Add(time.Minute), Content: long}}}}
	lengths := func(query string) map[string]int {
		r := recalled(query, res, assemble.Window{}, snippets{hit: 300, neighbor: 150, assistant: 800}, neighbors{first: 1}, false, false)
		out := map[string]int{}
		for _, h := range r.Hits {
			out[h.EventID] = utf8.RuneCountInString(h.Text)
		}
		return out
	}
	got := lengths("Can you remind me what you suggested for dinner?")
	require.Greater(t, got["a1"], 600, "the assistant's reply at the assistant's length")
	require.LessOrEqual(t, got["a1"], 801)
	require.LessOrEqual(t, got["u0"], 151, "the user's neighbour at a neighbour's")
	got = lengths("What stew should I cook tonight?")
	require.LessOrEqual(t, got["a1"], 151, "a message about something else: a neighbour's length")
}
