package search

import (
	"context"
	"errors"
	"time"

	"github.com/recallhq/recall/pkg/assemble"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/listsel"
	"github.com/recallhq/recall/pkg/store"
	"github.com/recallhq/recall/pkg/when"
)

// Query is the history search of a context: the user's k best matches for
// the current message, with the turns around the first ones.
func (cfg Config) Query(tenant, userID, query string, k int, now time.Time) Query {
	turns := 1
	if cfg.ContextRecallWide > 0 {
		turns = 2
	}
	// recalled gives neighbours to its first ContextRecallNeighbors hits
	// that no earlier hit showed as a neighbour: those come within the
	// first ContextRecallNeighbors plus as many hits as there are turns
	// shown as neighbours.
	n := max(cfg.ContextRecallNeighbors, 0)
	user := cfg.ContextRecallUserWeight
	switch {
	case RefersToAssistant(query):
		user = 0
	case AboutUser(query):
		user = max(user, cfg.ContextRecallSelfWeight)
	}
	var during []when.Span
	var untimed string
	if cfg.ContextRecallTimeWeight > 0 {
		during, untimed = when.MessageTimes(query, now)
		if during == nil {
			untimed = ""
		}
	}
	return Query{TenantID: tenant, Text: query, Untimed: untimed, Params: Params{UserID: userID, K: k, Now: now,
		MaxPerSession: cfg.ContextRecallPerSession, Neighbors: n > 0, NeighborTurns: turns,
		NeighborHits: n + shownNeighbors(n, cfg.ContextRecallWide), Kinds: cfg.ContextRecallKinds, UserWeight: user,
		IDFPower: cfg.ContextRecallIDFPower, SessionWeight: max(cfg.ContextRecallSessionWeight, 0),
		During: during, DuringWeight: max(cfg.ContextRecallTimeWeight, 0), Large: cfg.LargeFor(query), Distinct: true,
		Asked: cfg.Asked(query), AskedWeight: max(cfg.ContextRecallAskedWeight, 0)}}
}

// During is the times a message names that its recall lifts
// (ContextRecallTimeWeight), read at now in now's location: nil when the
// lift is off.
func (cfg Config) During(query string, now time.Time) []when.Span {
	if cfg.ContextRecallTimeWeight <= 0 {
		return nil
	}
	return when.MessageSpans(query, now)
}

// shownNeighbors is the most turns recalled shows as neighbours: four for
// each of the first wide hits, two for each of the next ones up to
// neighbors.
func shownNeighbors(neighbors, wide int) int {
	neighbors = max(neighbors, 0)
	return 2*neighbors + 2*max(min(wide, neighbors), 0)
}

// Recalled turns what a context's history search found into its recalled
// part (recalled, with the configured snippet and neighbours, and the
// passage of a long turn that matches the query: passage; and what its
// relative dates meant: assemble.Recalled.ResolveDates).
func (cfg Config) Recalled(query string, res Result, w assemble.Window) *assemble.Recalled {
	return recalled(query, res, w, snippets{hit: cfg.ContextRecallSnippet, neighbor: cfg.ContextRecallNeighborSnippet, assistant: cfg.ContextRecallAssistantSnippet},
		neighbors{first: cfg.ContextRecallNeighbors, wide: cfg.ContextRecallWide, upTo: cfg.ContextRecallNeighborsUpTo}, cfg.ContextRecallPassages,
		cfg.ContextRecallDates)
}

// snippets are the lengths recalled turns are cut to: a hit's, a
// neighbour's (0: a hit's), and an assistant's hit when the message points
// back at what the assistant said (at most a hit's when smaller).
type snippets struct{ hit, neighbor, assistant int }

// neighbors says which hits bring the turns around them: each of the first
// ones, two on each side for the first wide of them, and only hits of at
// most upTo characters (0: any).
type neighbors struct{ first, wide, upTo int }

// recalled turns what the history search found into the context's recalled
// part, saying how it searched and why it fell back to terms only: the hits
// in order, each of the first nb.first hits (not already shown) between
// the turns just before and after it, and each of the first nb.wide hits
// between two turns on each side.
func recalled(query string, res Result, w assemble.Window, snip snippets, nb neighbors, passages, dates bool) *assemble.Recalled {
	snippet := snip.hit
	if snip.neighbor <= 0 || snippet > 0 && snip.neighbor > snippet {
		snip.neighbor = snippet
	}
	hits, isNeighbor := withNeighbors(res.Hits, nb)
	var pq passageQuery
	if passages {
		pq = passageQuery{terms: res.Terms, positions: listsel.Positions(query)}
	}
	// A message that points back at what the assistant said ("remind me
	// what you suggested") is answered inside the assistant's turns, often
	// past what a snippet shows: those get ContextRecallAssistantSnippet.
	toAssistant := snip.assistant > snippet && RefersToAssistant(query)
	cutSnippets(hits, isNeighbor, pq, snip, toAssistant)
	if toAssistant {
		snippet = snip.assistant
	}
	out := assemble.Recall(query, res.How(), hits, w, snippet)
	out.During = res.During
	if dates {
		out.ResolveDates()
	}
	if res.EmbedErr != nil {
		out.Notes = append(out.Notes, assemble.RecalledNote{Reason: "embedder", Detail: EmbedFailure(res.EmbedErr)})
	}
	return out
}

// withNeighbors is the hits in their order, each of the first ones with the
// turns around it (nb: two on each side for the first nb.wide, one for the
// rest of the first nb.first; none for a hit longer than nb.upTo), every
// message once; isNeighbor marks the turns that are a hit's neighbours,
// whose snippets are the neighbours' length.
func withNeighbors(found []Hit, nb neighbors) (hits []assemble.RecalledHit, isNeighbor []bool) {
	most := len(found) + shownNeighbors(nb.first, nb.wide)
	hits = make([]assemble.RecalledHit, 0, most)
	seen := make(map[string]bool, most)
	isNeighbor = make([]bool, 0, most)
	neighbor := func(n *Neighbor, h Hit) {
		if n != nil && !seen[n.EventID] {
			seen[n.EventID] = true
			hits = append(hits, assemble.RecalledHit{Kind: store.SearchMessage, EventID: n.EventID, SessionID: h.SessionID,
				Role: n.Role, OccurredAt: n.OccurredAt, Text: n.Content, Score: h.Score})
			isNeighbor = append(isNeighbor, true)
		}
	}
	rank := 0
	for _, h := range found {
		if h.Kind == store.SearchMessage && seen[h.SourceID] {
			continue
		}
		around := 0 // turns on each side
		switch {
		case rank < min(nb.wide, nb.first):
			around = 2
		case rank < nb.first:
			around = 1
		}
		rank++
		if nb.upTo > 0 && assemble.Longer(h.Text, nb.upTo) {
			around = 0
		}
		if around > 0 {
			for k := min(around-1, len(h.Earlier)) - 1; k >= 0; k-- {
				neighbor(&h.Earlier[k], h)
			}
			neighbor(h.Previous, h)
		}
		hit := assemble.RecalledHit{Kind: h.Kind, SessionID: h.SessionID, Role: h.Role, OccurredAt: h.OccurredAt, Text: h.Text, Score: h.Score}
		if h.Kind == store.SearchMessage {
			hit.EventID = h.SourceID
			seen[h.SourceID] = true
		}
		hits = append(hits, hit)
		isNeighbor = append(isNeighbor, false)
		if around > 0 {
			neighbor(h.Next, h)
			for k := range min(around-1, len(h.Later)) {
				neighbor(&h.Later[k], h)
			}
		}
	}
	return hits, isNeighbor
}

// cutSnippets cuts each hit longer than its snippet (a hit's, a
// neighbour's, or the assistant's when the message points back at what the
// assistant said) to the passage that holds the query's terms, or at a
// word; a hit's own cut is otherwise left to the assembler.
func cutSnippets(hits []assemble.RecalledHit, isNeighbor []bool, pq passageQuery, snip snippets, toAssistant bool) {
	snippet := snip.hit
	for i := range hits {
		n := snippet
		switch {
		case toAssistant && hits[i].Role == events.RoleAssistant:
			// A hit's or a neighbour's: the assistant's reply to the turn
			// found is where what it said is.
			n = snip.assistant
		case isNeighbor[i]:
			n = snip.neighbor
		}
		if n <= 0 || !assemble.Longer(hits[i].Text, n) {
			continue
		}
		var p string
		if hits[i].Kind == store.SearchMessage {
			p = passage(pq, hits[i].Text, n)
		}
		if p == "" && (n < snippet || toAssistant) {
			// A neighbour's cut, and every cut when the assembler is given
			// the assistant's length; otherwise a hit's is the assembler's.
			p = cutAtWord(hits[i].Text, n) + "…"
		}
		if p != "" {
			hits[i].Text, hits[i].Truncated = p, true
		}
	}
}

// How says how the search ran: "hybrid" (terms and vectors) or "lexical"
// (terms only).
func (r Result) How() string {
	if r.Vector {
		return "hybrid"
	}
	return "lexical"
}

// EmbedFailure says in a word why the query was not embedded: "timeout"
// or "error".
func EmbedFailure(err error) string {
	if errors.Is(err, context.DeadlineExceeded) {
		return "timeout"
	}
	return "error"
}

// Asked is what a message asks for that its recall lists by form
// (ContextRecallAskedWeight): AskedNothing when the list is off.
func (cfg Config) Asked(message string) Asked {
	if cfg.ContextRecallAskedWeight <= 0 {
		return AskedNothing
	}
	return MessageAsks(message)
}
