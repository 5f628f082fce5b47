package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"testing/fstest"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/store"
)

var t0 = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

func turn(tenant, session, id string, at time.Time) store.StoredTurn {
	return store.StoredTurn{Turn: events.Turn{
		ID: id, TenantID: tenant, UserID: "u-" + session, SessionID: session, OccurredAt: at,
		Role: events.RoleUser, Content: tenant + " says " + id,
	}}
}

func TestMigrationsUpDownUp(t *testing.T) {
	t.Parallel()
	db := testenv.NewDB(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, db.URL)
	require.NoError(t, err)
	defer conn.Close(ctx)
	log := testenv.Logger(t)

	v, err := store.CurrentVersion(ctx, conn)
	require.NoError(t, err)
	require.Equal(t, store.LatestVersion(), v)
	applied, err := store.Migrate(ctx, conn, 0, log)
	require.NoError(t, err)
	require.Empty(t, applied, "migrating twice is a no-op")

	undone, err := store.MigrateDown(ctx, conn, 0, log)
	require.NoError(t, err)
	require.Len(t, undone, store.LatestVersion())
	var tables int
	require.NoError(t, conn.QueryRow(ctx, `SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'recall_migrations'`).Scan(&tables))
	require.Zero(t, tables, "down removes everything up created")

	applied, err = store.Migrate(ctx, conn, 0, log)
	require.NoError(t, err)
	require.Len(t, applied, store.LatestVersion())
}

func TestOpenRefusesOldSchema(t *testing.T) {
	t.Parallel()
	db := testenv.NewDB(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, db.URL)
	require.NoError(t, err)
	defer conn.Close(ctx)
	_, err = store.MigrateDown(ctx, conn, 0, testenv.Logger(t))
	require.NoError(t, err)
	_, err = store.Open(ctx, store.Config{URL: db.URL})
	require.ErrorIs(t, err, store.ErrSchemaBehind)
}

func TestMigrationFiles(t *testing.T) {
	t.Parallel()
	all, err := store.Migrations()
	require.NoError(t, err)
	for i, m := range all {
		require.Equal(t, i+1, m.Version)
		require.NotEmpty(t, m.Up)
		require.NotEmpty(t, m.Down)
	}
}

func TestInsertTurnsIdempotent(t *testing.T) {
	t.Parallel()
	db := testenv.NewDB(t)
	ctx := context.Background()
	batch := []store.StoredTurn{
		turn("t1", "s1", "a", t0.Add(2*time.Minute)),
		turn("t1", "s1", "b", t0),
		turn("t1", "s1", "b", t0), // the same turn twice in one batch
		turn("t1", "s2", "c", t0.Add(time.Hour)),
	}
	batch[0].Turn.ToolCalls = []events.ToolCall{{Name: "search", Arguments: json.RawMessage(`{"q":"三体"}`), Result: json.RawMessage(`[{"ref":"/b/1"}]`), Status: "ok", DurationMS: 7}}
	batch[0].Turn.Items = []events.Item{{Ref: "/b/1", Title: "三体", Attrs: json.RawMessage(`{"rating":9.3}`)}}
	touched, err := db.Store.InsertTurns(ctx, batch)
	require.NoError(t, err)
	require.EqualValues(t, 2, touched, "two sessions gained messages")

	again, err := db.Store.InsertTurns(ctx, batch)
	require.NoError(t, err)
	require.Zero(t, again, "nothing new, no session touched")

	s1, err := db.Store.Tenant("t1").Session(ctx, "s1")
	require.NoError(t, err)
	require.EqualValues(t, 2, s1.MessageCount)
	require.Equal(t, t0, s1.FirstMessageAt)
	require.Equal(t, t0.Add(2*time.Minute), s1.LastMessageAt)
	require.Equal(t, "u-s1", s1.UserID)

	msgs, next, err := db.Store.Tenant("t1").Messages(ctx, "s1", store.Cursor{}, 10)
	require.NoError(t, err)
	require.Nil(t, next)
	require.Len(t, msgs, 2)
	require.Equal(t, []string{"b", "a"}, []string{msgs[0].EventID, msgs[1].EventID}, "event-time order")
	require.JSONEq(t, `[{"name":"search","arguments":{"q":"三体"},"result":[{"ref":"/b/1"}],"status":"ok","duration_ms":7}]`, string(msgs[1].ToolCalls))
	require.JSONEq(t, `[{"ref":"/b/1","title":"三体","attrs":{"rating":9.3}}]`, string(msgs[1].Items))
	require.Nil(t, msgs[0].ToolCalls)
}

func TestTenantIsolation(t *testing.T) {
	t.Parallel()
	db := testenv.NewDB(t)
	ctx := context.Background()
	_, err := db.Store.InsertTurns(ctx, []store.StoredTurn{
		turn("A", "s1", "1", t0), turn("B", "s1", "1", t0.Add(time.Second)), turn("B", "s1", "2", t0.Add(2*time.Second)),
	})
	require.NoError(t, err, "the same event id in two tenants is two turns")

	a, b := db.Store.Tenant("A"), db.Store.Tenant("B")
	sa, err := a.Session(ctx, "s1")
	require.NoError(t, err)
	require.EqualValues(t, 1, sa.MessageCount)
	_, recent, err := a.SessionWithRecent(ctx, "s1", time.Time{}, 10, true)
	require.NoError(t, err)
	require.Len(t, recent, 1)
	require.Equal(t, "A says 1", recent[0].Content)

	_, err = b.DeleteSession(ctx, "s1")
	require.NoError(t, err)
	_, err = b.Session(ctx, "s1")
	require.ErrorIs(t, err, store.ErrNotFound)
	_, err = b.DeleteSession(ctx, "s1")
	require.ErrorIs(t, err, store.ErrNotFound)
	sa, err = a.Session(ctx, "s1")
	require.NoError(t, err, "deleting B's session leaves A's")
	require.EqualValues(t, 1, sa.MessageCount)
	_, err = db.Store.Tenant("C").Session(ctx, "s1")
	require.ErrorIs(t, err, store.ErrNotFound)
}

func TestMessagesPagination(t *testing.T) {
	t.Parallel()
	db := testenv.NewDB(t)
	ctx := context.Background()
	var batch []store.StoredTurn
	for i := range 25 {
		// Pairs share a timestamp: the event id breaks the tie.
		batch = append(batch, turn("t", "s", fmt.Sprintf("e%02d", i), t0.Add(time.Duration(i/2)*time.Second)))
	}
	_, err := db.Store.InsertTurns(ctx, batch)
	require.NoError(t, err)
	var got []string
	var cur store.Cursor
	pages := 0
	for {
		msgs, next, err := db.Store.Tenant("t").Messages(ctx, "s", cur, 10)
		require.NoError(t, err)
		pages++
		for _, m := range msgs {
			got = append(got, m.EventID)
		}
		if next == nil {
			break
		}
		cur = *next
	}
	require.Equal(t, 3, pages)
	require.Len(t, got, 25)
	for i, id := range got {
		require.Equal(t, fmt.Sprintf("e%02d", i), id)
	}
}

func TestSessionWithRecent(t *testing.T) {
	t.Parallel()
	db := testenv.NewDB(t)
	ctx := context.Background()
	var batch []store.StoredTurn
	for i := range 15 {
		batch = append(batch, turn("t", "s", fmt.Sprintf("e%02d", i), t0.Add(time.Duration(i)*time.Minute)))
	}
	_, err := db.Store.InsertTurns(ctx, batch)
	require.NoError(t, err)
	ten := db.Store.Tenant("t")

	sess, msgs, err := ten.SessionWithRecent(ctx, "s", time.Time{}, 10, true)
	require.NoError(t, err)
	require.EqualValues(t, 15, sess.MessageCount)
	require.Len(t, msgs, 10)
	require.Equal(t, "e14", msgs[0].EventID, "newest first")
	require.Equal(t, "e05", msgs[9].EventID)
	require.Equal(t, "u-s", msgs[0].UserID)

	_, msgs, err = ten.SessionWithRecent(ctx, "s", t0.Add(13*time.Minute), 10, true)
	require.NoError(t, err)
	require.Len(t, msgs, 2, "only messages at or after since")

	sess, msgs, err = ten.SessionWithRecent(ctx, "s", t0.Add(time.Hour), 10, true)
	require.NoError(t, err, "a session with nothing in range still exists")
	require.Empty(t, msgs)
	require.EqualValues(t, 15, sess.MessageCount)

	_, err = db.Store.InsertTurns(ctx, []store.StoredTurn{{Turn: events.Turn{ID: "sys", TenantID: "t", UserID: "u-s", SessionID: "s",
		OccurredAt: t0.Add(20 * time.Minute), Role: events.RoleSystem, Content: "You are a librarian."}}})
	require.NoError(t, err)
	_, msgs, err = ten.SessionWithRecent(ctx, "s", time.Time{}, 10, true)
	require.NoError(t, err)
	require.Equal(t, "sys", msgs[0].EventID)
	_, msgs, err = ten.SessionWithRecent(ctx, "s", time.Time{}, 10, false)
	require.NoError(t, err)
	require.Len(t, msgs, 10, "system turns do not take places in the window")
	require.Equal(t, "e14", msgs[0].EventID)

	_, _, err = ten.SessionWithRecent(ctx, "nope", time.Time{}, 10, true)
	require.ErrorIs(t, err, store.ErrNotFound)
	_, _, err = db.Store.Tenant("other").SessionWithRecent(ctx, "s", time.Time{}, 10, true)
	require.ErrorIs(t, err, store.ErrNotFound)
}

// Two migrations with one number (two branches each adding "the next" one)
// are an error, not one silently replacing the other.
func TestMigrationNumbersAreUnique(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		"migrations/0001_a.up.sql":   {Data: []byte("SELECT 1")},
		"migrations/0001_a.down.sql": {Data: []byte("SELECT 1")},
		"migrations/0002_b.up.sql":   {Data: []byte("SELECT 1")},
		"migrations/0002_b.down.sql": {Data: []byte("SELECT 1")},
		"migrations/0002_c.up.sql":   {Data: []byte("SELECT 1")},
		"migrations/0002_c.down.sql": {Data: []byte("SELECT 1")},
	}
	_, err := store.MigrationsIn(fsys)
	require.ErrorContains(t, err, "0002_b and 0002_c share a number")
	delete(fsys, "migrations/0002_c.up.sql")
	delete(fsys, "migrations/0002_c.down.sql")
	all, err := store.MigrationsIn(fsys)
	require.NoError(t, err)
	require.Len(t, all, 2)
}
