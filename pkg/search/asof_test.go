package search_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/decay"
	"github.com/recallhq/recall/pkg/search"
	"github.com/recallhq/recall/pkg/store"
)

// A search as of a moment (Params.At) reads the history as it stood then:
// nothing later is found or shown beside a hit, recency counts from then,
// and a fact is live when it was active then, whatever it is now.
func TestSearchAt(t *testing.T) {
	t.Parallel()
	s := setupRanking(t)
	at := t0.AddDate(0, 0, 20)
	fact := store.SearchEntry{TenantID: "acme", UserID: "u1", Kind: store.SearchFact, SourceID: store.FactSourceID("book_title", "dune"),
		Revision: 1, SessionID: "s1", OccurredAt: t0.AddDate(0, 0, 10), Text: "Dune", Terms: []string{"dune"}}
	s.upsert(t,
		msgEntry("acme", "u1", "s1", "q", "user", t0, "which book should I read"),
		msgEntry("acme", "u1", "s1", "a", "assistant", t0.Add(time.Minute), "try dune"),
		// After at: the user's reply a month later, and another session.
		msgEntry("acme", "u1", "s1", "later", "user", t0.AddDate(0, 1, 0), "finished dune and loved it"),
		msgEntry("acme", "u1", "s2", "again", "user", t0.AddDate(0, 2, 0), "dune again"),
		// The same words long before at and just before it.
		msgEntry("acme", "u1", "s3", "old", "user", t0.AddDate(-1, 0, 0), "spice melange"),
		msgEntry("acme", "u1", "s4", "fresh", "user", at.Add(-time.Hour), "spice melange"),
		fact,
	)
	// The fact was mentioned on day 10 and has expired since (the decayer
	// marked it): today it is not found.
	_, err := s.st.RecordMentions(s.ctx, []store.Mention{{TenantID: "acme", EventID: "m", UserID: "u1", SessionID: "s1",
		Type: "book_title", Value: "dune", Display: "Dune", OccurredAt: fact.OccurredAt, ExpiresAt: fact.OccurredAt.Add(90 * 24 * time.Hour), Source: "rules"}})
	require.NoError(t, err)
	_, err = s.st.Pool().Exec(s.ctx, `UPDATE facts SET status = 'expired' WHERE tenant_id = 'acme'`)
	require.NoError(t, err)

	// find searches without the setup's default clock: as of At, Now is At.
	find := func(p search.Params) []search.Hit {
		t.Helper()
		hits, err := search.Find(s.ctx, s.st.Tenant("acme"), p)
		require.NoError(t, err)
		return hits
	}
	dune := search.Params{UserID: "u1", Terms: []string{"dune"}, Neighbors: true, MaxPerSession: -1, DialogueWeight: -1}
	now := dune
	now.Now = t0.AddDate(1, 0, 0)
	require.ElementsMatch(t, []string{"a", "later", "again"}, sources(find(now)), "today: every turn, not the expired fact")

	then := dune
	then.At = at
	hits := find(then)
	require.ElementsMatch(t, []string{"a", store.FactSourceID("book_title", "dune")}, sources(hits),
		"as of day 20: the turn before it, and the fact live then")
	for _, h := range hits {
		if h.SourceID == "a" {
			require.Equal(t, "q", h.Previous.EventID)
			require.Nil(t, h.Next, "the reply a month later is not there yet")
		}
	}
	// Past its expiry (90 days after its mention), the fact is not live.
	then.At = fact.OccurredAt.Add(decay.DefaultPolicy.TTL("book_title") + time.Hour)
	require.NotContains(t, sources(find(then)), store.FactSourceID("book_title", "dune"))

	// Recency counts from at: just before it, the fresh entry has the whole
	// lift of the prior; counted from a year on, neither has any.
	spice := search.Params{UserID: "u1", Terms: []string{"spice"}, At: at}
	hits = find(spice)
	require.Equal(t, []string{"fresh", "old"}, sources(hits))
	require.Greater(t, hits[0].Score/hits[1].Score, 1.09)
	spice.At, spice.Now = time.Time{}, at.AddDate(3, 0, 0)
	hits = find(spice)
	require.Len(t, hits, 2)
	require.Less(t, hits[0].Score/hits[1].Score, 1.001)
	// Before the fresh one, only the old one was there.
	spice.At = at.Add(-2 * time.Hour)
	require.Equal(t, []string{"old"}, sources(find(spice)))
}
