package search

import (
	"cmp"
	"slices"

	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/store"
)

// Feedback: a message that asks for a count or a total ("how many doctors
// did I visit?") needs a turn in each of several conversations, and those
// turns seldom share its words ("my ENT specialist, Dr. Patel"). The user's
// own turns it finds first do share words with the ones it misses (the
// topic's vocabulary, the user's way of telling it), so their most telling
// terms are added to the query, weighing less than its own, and the
// history is searched again: pseudo-relevance feedback, as RM3 does it.

// FeedbackParams are how a search's first hits extend its query: the first
// Docs of the user's turns found, their Terms best terms (at most
// MaxFeedbackTerms), each weighing at most Weight of a term of the message
// (0: no feedback).
type FeedbackParams struct {
	Docs   int
	Terms  int
	Weight float64
}

// on reports whether f adds terms at all.
func (f FeedbackParams) on() bool { return f.Weight > 0 && f.Docs > 0 && f.Terms > 0 }

// MaxFeedbackTerms bounds the terms feedback adds: each is matched against
// every entry of the user's history in the second scan.
const MaxFeedbackTerms = 100

// Feedback returns p with the best terms of its first hits added
// (FeedbackParams), and whether there were any to add. Only turns that hold
// a term of the message are read: a turn found by its vector alone is, with
// the offline embedder, as often noise. A term's worth is
// the sum over those turns of its share of the turn's terms times the
// turn's share of their scores; numbers are not added (a count said once
// is no topic), nor the message's own terms.
func (s *Searcher) Feedback(p Params, hits []Hit, f FeedbackParams) (Params, bool) {
	if !f.on() {
		return p, false
	}
	var docs []Hit
	total := 0.0
	for _, h := range hits {
		if h.Kind != store.SearchMessage || h.Role != events.RoleUser || h.Score <= 0 || h.LexicalRank == 0 {
			continue
		}
		docs = append(docs, h)
		total += h.Score
		if len(docs) == f.Docs {
			break
		}
	}
	if len(docs) == 0 {
		return p, false
	}
	own := make(map[string]bool, len(p.Terms))
	for _, t := range p.Terms {
		own[t] = true
	}
	worth := map[string]float64{}
	var buf []string
	for _, d := range docs {
		buf = s.an.Terms(d.Text, buf[:0])
		if len(buf) == 0 {
			continue
		}
		share := d.Score / total / float64(len(buf))
		for _, t := range buf {
			if !own[t] && !numeric(t) {
				worth[t] += share
			}
		}
	}
	type term struct {
		t string
		w float64
	}
	ranked := make([]term, 0, len(worth))
	for t, w := range worth {
		ranked = append(ranked, term{t, w})
	}
	slices.SortFunc(ranked, func(a, b term) int {
		if c := cmp.Compare(b.w, a.w); c != 0 {
			return c
		}
		return cmp.Compare(a.t, b.t)
	})
	ranked = ranked[:min(len(ranked), f.Terms, MaxFeedbackTerms)]
	if len(ranked) == 0 {
		return p, false
	}
	// The message's own terms weigh as they did; the added ones by their
	// worth, the best at Weight.
	q := p
	q.Terms = slices.Grow(slices.Clip(p.Terms), len(ranked)) // a copy: p's terms stay as they are
	q.TermWeights = make([]float64, len(p.Terms), len(p.Terms)+len(ranked))
	for j := range p.Terms {
		q.TermWeights[j] = weightAt(p.TermWeights, j)
	}
	for _, r := range ranked {
		q.Terms = append(q.Terms, r.t)
		q.TermWeights = append(q.TermWeights, f.Weight*r.w/ranked[0].w)
	}
	return q, true
}
