package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testenv"
	"github.com/recallhq/recall/pkg/attribute"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/store"
)

// Assertions are stored once whatever the redeliveries, read back whole,
// and leave with their user; a session's delete takes what was read from
// it alone.
func TestAssertions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testenv.NewDB(t)
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	schema := attribute.Default()
	row := func(tenant, user, event, key, value, source, session string, day int) store.AssertionRow {
		a := attribute.Assertion{Key: key, Value: value, Op: attribute.Put, Source: source, EventID: event, SessionID: session,
			Confidence: 0.9, At: t0.AddDate(0, 0, day)}
		if session != "" {
			a.Evidence = []string{event}
		}
		require.NoError(t, attribute.Normalize(schema, &a))
		return store.AssertionRow{TenantID: tenant, UserID: user, Assertion: a}
	}
	rows := []store.AssertionRow{
		row("acme", "u1", "t1", "location", "Paris", attribute.Stated, "s1", 0),
		row("acme", "u1", "t2", "location", "Berlin", attribute.Stated, "s2", 5),
		row("acme", "u1", "p1", "allergies", "Peanuts", attribute.Explicit, "", 1),
		row("acme", "u2", "t3", "name", "Ann", attribute.Stated, "s3", 0),
		row("other", "u1", "t1", "name", "Bob", attribute.Stated, "s1", 0),
	}
	n, err := db.Store.RecordAssertions(ctx, rows)
	require.NoError(t, err)
	require.EqualValues(t, 5, n)
	n, err = db.Store.RecordAssertions(ctx, rows[:3])
	require.NoError(t, err)
	require.Zero(t, n, "a redelivered assertion is stored once")

	acme := db.Store.Tenant("acme")
	// A few keys of many users at once: only those keys, only this
	// tenant's users, oldest first.
	byUser, err := acme.AssertionsOfKeys(ctx, []string{"u1", "u2", "u3"}, []string{"name", "location"})
	require.NoError(t, err)
	require.Len(t, byUser, 2)
	require.Equal(t, []attribute.Assertion{rows[0].Assertion, rows[1].Assertion}, byUser["u1"])
	require.Equal(t, []attribute.Assertion{rows[3].Assertion}, byUser["u2"])

	got, err := acme.Assertions(ctx, "u1")
	require.NoError(t, err)
	require.Len(t, got, 3)
	require.Equal(t, rows[0].Assertion, got[0], "read back as written")
	require.Equal(t, "p1", got[1].EventID, "oldest first")
	require.Equal(t, []string{}, got[1].Evidence)
	r := attribute.Resolve(schema, got)
	require.Len(t, r.Current, 2)
	require.Equal(t, "Berlin", r.Current[0].Value)
	require.Equal(t, "Peanuts", r.Current[1].Value)

	// The session of "Berlin" goes: Paris is current again, the explicit
	// value stays.
	insertSession(t, db, "acme", "u1", "s2", t0.AddDate(0, 0, 5))
	d, err := acme.DeleteSession(ctx, "s2")
	require.NoError(t, err)
	require.EqualValues(t, 1, d.Rows["attribute_assertions"])
	got, err = acme.Assertions(ctx, "u1")
	require.NoError(t, err)
	r = attribute.Resolve(schema, got)
	require.Equal(t, "Paris", r.Current[0].Value)
	require.Len(t, r.Current, 2)

	counts, err := acme.ForgetUser(ctx, "u1")
	require.NoError(t, err)
	require.EqualValues(t, 2, counts["attribute_assertions"])
	got, err = acme.Assertions(ctx, "u1")
	require.NoError(t, err)
	require.Empty(t, got)
	other, err := db.Store.Tenant("other").Assertions(ctx, "u1")
	require.NoError(t, err)
	require.Len(t, other, 1, "another tenant's user of the same id keeps theirs")
}

// insertSession stores one turn, so that the session exists.
func insertSession(t *testing.T, db *testenv.DB, tenant, user, session string, at time.Time) {
	t.Helper()
	_, err := db.Store.InsertTurns(context.Background(), []store.StoredTurn{{Turn: events.Turn{V: events.Version, ID: session + "-turn",
		TenantID: tenant, UserID: user, SessionID: session, OccurredAt: at, Role: events.RoleUser, Content: "hello"}}})
	require.NoError(t, err)
}
