package search

import (
	"github.com/recallhq/recall/pkg/decay"
	"github.com/recallhq/recall/pkg/store"
)

// asOf makes the scanned rows of a search asked as of p.At what they were
// then, in place, and returns them; without At they are left as read. The
// store has already left out the entries of what happened at or after At
// (store.SearchScan.Before). What remains is whether a fact was live: the
// store reads whether it is active now, which says nothing of then (a fact
// expired today may have been fresh at At). A fact's entry is dated by its
// newest mention, which, being before At, is its last mention as of At, and
// the fact is live when the decay policy finds it active at At with the
// weight and expiry that mention gave it.
func asOf(rows []store.SearchRow, p Params) []store.SearchRow {
	if p.At.IsZero() {
		return rows
	}
	policy := p.Decay
	if policy == nil {
		policy = decay.DefaultPolicy
	}
	for i := range rows {
		r := &rows[i]
		if r.Kind != store.SearchFact {
			continue
		}
		typ := store.FactSourceType(r.SourceID)
		_, status := policy.Assess(typ, 1, r.OccurredAt, r.OccurredAt.Add(policy.TTL(typ)), p.At)
		r.Live = status == decay.Active
	}
	return rows
}
