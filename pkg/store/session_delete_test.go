package store_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/record"
	"github.com/recallhq/recall/pkg/store"
)

// TestDeleteSessionDerived: deleting a session removes what was derived from
// it alone (its mentions, a fact mentioned only there, its lists in the seen
// registry, an item shown only there) and counts again what other sessions
// share (a fact mentioned in both, an item shown in both).
func TestDeleteSessionDerived(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testenv.NewDB(t)
	ten := db.Store.Tenant("acme")
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	list := func(refs ...string) json.RawMessage {
		var items []events.Item
		for _, r := range refs {
			items = append(items, events.Item{Ref: r, Title: "title of " + r})
		}
		b, err := json.Marshal(items)
		require.NoError(t, err)
		return b
	}
	turn := func(id, session string, at time.Time, refs ...string) events.Turn {
		tu := events.Turn{V: events.Version, ID: id, TenantID: "acme", UserID: "u1", SessionID: session, OccurredAt: at,
			Role: events.RoleAssistant, Content: "here you are"}
		if len(refs) > 0 {
			require.NoError(t, json.Unmarshal(list(refs...), &tu.Items))
		}
		return tu
	}
	turns := []events.Turn{
		turn("keep-1", "keep", t0, "/b/shared", "/b/kept-only"),
		turn("gone-1", "gone", t0.Add(time.Hour), "/b/shared", "/b/gone-only"),
		turn("gone-2", "gone", t0.Add(2*time.Hour)),
	}
	var stored []store.StoredTurn
	for _, tu := range turns {
		stored = append(stored, store.StoredTurn{Turn: tu})
	}
	_, err := db.Store.InsertTurns(ctx, stored)
	require.NoError(t, err)
	_, err = db.Store.RecordSeen(ctx, turns, 0)
	require.NoError(t, err)
	mention := func(event, session, value string, at time.Time) store.Mention {
		return store.Mention{TenantID: "acme", EventID: event, UserID: "u1", SessionID: session, Type: "book_title", Value: value,
			Display: value, OccurredAt: at, ExpiresAt: at.AddDate(0, 3, 0), Source: "rules"}
	}
	_, err = db.Store.RecordMentions(ctx, []store.Mention{
		mention("keep-1", "keep", "dune", t0),
		mention("gone-1", "gone", "dune", t0.Add(time.Hour)),
		mention("gone-2", "gone", "solaris", t0.Add(2*time.Hour)),
	})
	require.NoError(t, err)
	s := searchSetup{ctx: ctx, st: db.Store}
	s.upsert(t,
		store.SearchEntry{TenantID: "acme", UserID: "u1", Kind: store.SearchFact, SourceID: store.FactSourceID("book_title", "dune"),
			OccurredAt: t0, Text: "dune", Terms: []string{"dune"}},
		store.SearchEntry{TenantID: "acme", UserID: "u1", Kind: store.SearchFact, SourceID: store.FactSourceID("book_title", "solaris"),
			OccurredAt: t0, Text: "solaris", Terms: []string{"solaris"}})

	d, err := ten.DeleteSession(ctx, "gone")
	require.NoError(t, err)
	require.Equal(t, "u1", d.UserID)
	require.Equal(t, map[string]int64{"sessions": 1, "messages": 2, "session_summaries": 0, "fact_mentions": 2, "facts": 1,
		"search_entries": 1, "seen_lists": 1, "seen_items": 1, "attribute_assertions": 0, "session_guests": 0}, d.Rows)

	facts, err := ten.Facts(ctx, "u1", []string{record.FactActive, record.FactArchived, record.FactExpired}, 10)
	require.NoError(t, err)
	require.Len(t, facts, 1, "solaris was mentioned in the deleted session only")
	require.Equal(t, "dune", facts[0].Value)
	require.EqualValues(t, 1, facts[0].MentionCount, "counted again without the deleted session")
	require.Equal(t, t0, facts[0].LastMentionedAt.UTC())
	require.Equal(t, t0.AddDate(0, 3, 0), facts[0].ExpiresAt.UTC(), "the expiry follows the last mention back")
	require.Equal(t, "keep", facts[0].SourceSessionID)

	seen, err := ten.SeenItems(ctx, "u1", 10)
	require.NoError(t, err)
	times := map[string]int64{}
	for _, it := range seen {
		times[it.Ref] = it.TimesShown
	}
	require.Equal(t, map[string]int64{"/b/shared": 1, "/b/kept-only": 1}, times)

	var entries int
	require.NoError(t, db.Store.Pool().QueryRow(ctx, `SELECT count(*) FROM search_entries WHERE kind = 'fact'`).Scan(&entries))
	require.Equal(t, 1, entries, "the dropped fact's entry goes with it")
	_, err = ten.DeleteSession(ctx, "gone")
	require.ErrorIs(t, err, store.ErrNotFound)
}
