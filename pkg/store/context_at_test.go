package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/attribute"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/record"
	"github.com/recallhq/recall/pkg/store"
)

// A context read as of a past moment holds what was there then: the
// session's counts, messages and list before it, the facts as their earlier
// mentions made them, of each session the newest summary version that read
// only earlier messages, the assertions made before it. Read without a
// moment it is today's, as before.
func TestContextAt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testenv.NewDB(t)
	jan := time.Date(2026, 1, 10, 9, 0, 0, 0, time.UTC)
	mar := time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)
	feb := time.Date(2026, 2, 15, 0, 0, 0, 0, time.UTC)
	msg := func(session, id, role string, at time.Time) store.StoredTurn {
		return store.StoredTurn{Turn: events.Turn{ID: id, TenantID: "acme", UserID: "u1", SessionID: session, OccurredAt: at,
			Role: role, Content: "said " + id}}
	}
	insert := func(turns ...store.StoredTurn) {
		t.Helper()
		_, err := db.Store.InsertTurns(ctx, turns)
		require.NoError(t, err)
	}
	sys := msg("s1", "sys", events.RoleSystem, jan.AddDate(0, 0, 20))
	// January: two turns of s1 (the second shows list A), a system turn, a
	// turn of s0; each session's first summary reads them.
	insert(msg("s1", "j1", events.RoleUser, jan), listTurn("acme", "u1", "s1", "j2", jan.Add(time.Minute), "/a"), sys,
		msg("s0", "o1", events.RoleUser, jan.Add(-time.Hour)))
	for _, s := range []string{"s0", "s1"} {
		_, err := db.Store.WriteSummary(ctx, summaryOf(t, db, "acme", s, 1, 0))
		require.NoError(t, err)
	}
	// March: two more turns of s1 (the first shows list B), one of s0, and
	// the versions that read them.
	insert(listTurn("acme", "u1", "s1", "m1", mar, "/b"), msg("s1", "m2", events.RoleUser, mar.Add(time.Minute)),
		msg("s0", "o2", events.RoleUser, mar.Add(-time.Hour)))
	for _, s := range []string{"s0", "s1"} {
		_, err := db.Store.WriteSummary(ctx, summaryOf(t, db, "acme", s, 2, map[string]int64{"s0": 1, "s1": 2}[s]))
		require.NoError(t, err)
	}
	// Facts: dune in January and March, arrival in March only.
	_, err := db.Store.RecordMentions(ctx, []store.Mention{
		mention("acme", "u1", "j1", "book_title", "dune", "Dune", jan),
		mention("acme", "u1", "m1", "book_title", "dune", "DUNE", mar),
		mention("acme", "u1", "m2", "film", "arrival", "Arrival", mar),
	})
	require.NoError(t, err)
	// The user lived in Paris in January and has lived in Berlin since March.
	schema := attribute.Default()
	var rows []store.AssertionRow
	for _, a := range []attribute.Assertion{
		{Key: "location", Value: "Paris", Op: attribute.Put, Source: attribute.Stated, EventID: "j1", SessionID: "s1", Confidence: 0.9, At: jan},
		{Key: "location", Value: "Berlin", Op: attribute.Put, Source: attribute.Stated, EventID: "m2", SessionID: "s1", Confidence: 0.9, At: mar},
	} {
		require.NoError(t, attribute.Normalize(schema, &a))
		rows = append(rows, store.AssertionRow{TenantID: "acme", UserID: "u1", Assertion: a})
	}
	_, err = db.Store.RecordAssertions(ctx, rows)
	require.NoError(t, err)

	tn := db.Store.Tenant("acme")
	read := func(at time.Time) store.ContextData {
		t.Helper()
		d, err := tn.Context(ctx, store.ContextRead{SessionID: "s1", UserID: "u1", Messages: 10, Facts: 10, Summaries: 3, Statements: true, At: at})
		require.NoError(t, err)
		require.True(t, d.Found)
		return d
	}
	eventIDs := func(ms []record.Message) []string {
		out := make([]string, len(ms))
		for i, m := range ms {
			out[i] = m.EventID
		}
		return out
	}
	values := func(as []attribute.Assertion) []string {
		var out []string
		for _, a := range as {
			out = append(out, a.Value)
		}
		return out
	}

	// Today.
	d := read(time.Time{})
	require.Equal(t, []string{"m2", "m1", "j2", "j1"}, eventIDs(d.Newest))
	require.EqualValues(t, 5, d.Session.MessageCount)
	require.EqualValues(t, 1, d.Session.SystemCount)
	require.Equal(t, "m1", d.List.EventID)
	require.Len(t, d.Facts, 2)
	require.Equal(t, 2, d.Summary.Version)
	require.Len(t, d.Summaries, 1)
	require.Equal(t, 2, d.Summaries[0].Version)
	require.Equal(t, []string{"Paris", "Berlin"}, values(d.Assertions))

	// Mid-February: January only.
	d = read(feb)
	require.Equal(t, []string{"j2", "j1"}, eventIDs(d.Newest))
	require.EqualValues(t, 3, d.Session.MessageCount, "the session's counts then, system turn included")
	require.EqualValues(t, 1, d.Session.SystemCount)
	require.Equal(t, "j2", d.List.EventID, "the list shown then")
	require.Len(t, d.Facts, 1)
	f := d.Facts[0]
	require.Equal(t, "dune", f.Value)
	require.EqualValues(t, 1, f.MentionCount, "the March mention does not count")
	require.Equal(t, jan, f.FirstSeenAt)
	require.Equal(t, jan, f.LastMentionedAt)
	require.Equal(t, jan.Add(90*24*time.Hour), f.ExpiresAt, "the expiry its January mention gave it")
	require.Equal(t, "s-j1", f.SourceSessionID)
	require.Empty(t, f.Status, "judged by the reader at the moment asked")
	require.NotNil(t, d.Summary)
	require.Equal(t, 1, d.Summary.Version, "the version written from March's messages is left out for the one before")
	require.Len(t, d.Summaries, 1)
	require.Equal(t, "s0", d.Summaries[0].SessionID)
	require.Equal(t, 1, d.Summaries[0].Version)
	require.Equal(t, []string{"Paris"}, values(d.Assertions))

	// The bound is exclusive: at a turn's own time, that turn is not yet there.
	d = read(mar)
	require.Equal(t, []string{"j2", "j1"}, eventIDs(d.Newest))
	require.Equal(t, "j2", d.List.EventID)
	d = read(mar.Add(time.Minute))
	require.Equal(t, []string{"m1", "j2", "j1"}, eventIDs(d.Newest))
	require.Equal(t, "m1", d.List.EventID)
	require.Equal(t, 1, d.Summary.Version, "version 2 read m2, not yet said")

	// Before anything: the session exists, but nothing of it yet.
	d = read(jan.AddDate(0, -1, 0))
	require.Empty(t, d.Newest)
	require.Zero(t, d.Session.MessageCount)
	require.Nil(t, d.List)
	require.Empty(t, d.Facts)
	require.Nil(t, d.Summary)
	require.Empty(t, d.Summaries)
	require.Empty(t, d.Assertions)
}

// The context's facts as of a time are read with the join that reads each
// side once (TestFactsBeforePlanOnAnEmptyTable), in the store's own batch:
// the plan PostgreSQL keeps for the statement, on tables never analyzed,
// is a merge join, and the setting is back to its default afterwards.
func TestContextAtFactsJoin(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testenv.NewDB(t)
	at := time.Date(2026, 1, 10, 9, 0, 0, 0, time.UTC)
	var ms []store.Mention
	for i := range 300 {
		v := fmt.Sprintf("book %03d", i)
		ms = append(ms, mention("acme", "u1", fmt.Sprintf("e%d", i), "book_title", v, v, at.Add(time.Duration(i)*time.Minute)))
	}
	_, err := db.Store.RecordMentions(ctx, ms)
	require.NoError(t, err)
	st, err := store.Open(ctx, store.Config{URL: db.URL, MaxConns: 1})
	require.NoError(t, err)
	t.Cleanup(st.Close)
	tn := st.Tenant("acme")
	asOf := at.Add(100 * time.Minute)
	for range 8 {
		d, err := tn.Context(ctx, store.ContextRead{SessionID: "s1", UserID: "u1", Facts: 40, At: asOf})
		require.NoError(t, err)
		require.Len(t, d.Facts, 40)
		require.Equal(t, "book 099", d.Facts[0].Value, "newest mention before the time first")
	}
	var name string
	require.NoError(t, st.Pool().QueryRow(ctx, `SELECT name FROM pg_prepared_statements
		WHERE statement LIKE '-- A user''s facts as they stood before%'`).Scan(&name))
	plan := planText(t)(st.Pool().Query(ctx, `EXPLAIN EXECUTE `+pgx.Identifier{name}.Sanitize()+
		`('acme', 'u1', '2026-01-10T10:40:00Z', 40)`, pgx.QueryExecModeSimpleProtocol))
	require.Contains(t, plan, "Merge Join", plan)
	require.NotContains(t, plan, "Nested Loop", plan)
	var mode string
	require.NoError(t, st.Pool().QueryRow(ctx, `SELECT current_setting('enable_nestloop')`).Scan(&mode))
	require.Equal(t, "on", mode, "reset after the read")
}
