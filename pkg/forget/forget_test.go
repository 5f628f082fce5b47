package forget_test

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/recallhq/recall/pkg/queue"

	"github.com/jackc/pgx/v5"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/forget"
	"github.com/recallhq/recall/pkg/store"
	"github.com/recallhq/recall/pkg/workers/extractor"
	"github.com/recallhq/recall/pkg/workers/ingest"
)

// userRows counts, in every table with a user_id column, the rows of one user:
// a table added later is covered without changing this test.
func userRows(t *testing.T, db *testenv.DB, tenant, user string) map[string]int64 {
	t.Helper()
	ctx := context.Background()
	rows, err := db.Store.Pool().Query(ctx, `
		SELECT c.table_name FROM information_schema.columns c
		JOIN information_schema.columns t USING (table_schema, table_name)
		WHERE c.table_schema = 'public' AND c.column_name = 'user_id' AND t.column_name = 'tenant_id'
		ORDER BY 1`)
	require.NoError(t, err)
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	require.NotEmpty(t, tables)
	out := map[string]int64{}
	for _, table := range tables {
		var n int64
		require.NoError(t, db.Store.Pool().QueryRow(ctx,
			"SELECT count(*) FROM "+pgx.Identifier{table}.Sanitize()+" WHERE tenant_id = $1 AND user_id = $2", tenant, user).Scan(&n))
		out[table] = n
	}
	return out
}

func streamCount(t *testing.T, js jetstream.JetStream, stream, filter string) uint64 {
	t.Helper()
	s, err := js.Stream(context.Background(), stream)
	require.NoError(t, err)
	info, err := s.Info(context.Background(), jetstream.WithSubjectFilter(filter))
	require.NoError(t, err)
	var n uint64
	for _, c := range info.State.Subjects {
		n += c
	}
	return n
}

func TestForgetUser(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	db := testenv.NewDB(t)
	n := testenv.NewNATS(t)

	testenv.StartWorker(t, n, db, extractor.Def, nil)
	testenv.StartWorker(t, n, db, ingest.Def, nil)

	at := time.Date(2026, 5, 1, 8, 0, 0, 0, time.UTC)
	var turns []events.Turn
	var shelf []events.ShelfEntry
	for _, user := range []string{"u1", "u.2"} { // "u.2" is encoded in subjects
		for i := range 12 {
			turns = append(turns, events.Turn{
				V: events.Version, ID: fmt.Sprintf("%s-%d", user, i), TenantID: "acme", UserID: user,
				SessionID: fmt.Sprintf("%s-s%d", user, i%3), OccurredAt: at.Add(time.Duration(i) * time.Minute),
				Role: events.RoleUser, Content: "我最近在看《三体》，也喜欢刘慈欣的其他作品",
			})
		}
		shelf = append(shelf, events.ShelfEntry{V: events.Version, ID: user + "-shelf", TenantID: "acme", UserID: user, OccurredAt: at, Ref: "/book/1", Status: events.ShelfRead})
	}
	// The same user id in another tenant is someone else.
	turns = append(turns, events.Turn{V: events.Version, ID: "other", TenantID: "beta", UserID: "u1", SessionID: "s", OccurredAt: at, Role: events.RoleUser, Content: "《三体》"})
	pub := queue.NewPublisher(n.JS)
	_, err := pub.PublishTurns(ctx, turns)
	require.NoError(t, err)
	_, err = pub.PublishShelfEntries(ctx, shelf)
	require.NoError(t, err)
	// A turn of u1's that can never be stored lands in the dead-letter stream.
	bad := nats.NewMsg(events.TurnSubject("acme", "u1", "u1-s0"))
	bad.Data = []byte(`{"v":1,"id":"broken"`)
	_, err = n.JS.PublishMsg(ctx, bad)
	require.NoError(t, err)
	n.WaitSettled(t, queue.TurnsStream, ingest.Def.Binding.Durable)
	n.WaitSettled(t, queue.TurnsStream, extractor.Def.Binding.Durable)

	// Rows the shelf and profile workers would write.
	_, err = db.Store.ApplySignals(ctx, nil, []store.ShelfUpsert{
		{TenantID: "acme", UserID: "u1", Ref: "/book/1", Status: "read", EventID: "u1-shelf", OccurredAt: at},
		{TenantID: "acme", UserID: "u.2", Ref: "/book/1", Status: "read", EventID: "u.2-shelf", OccurredAt: at},
	})
	require.NoError(t, err)
	for _, user := range []string{"u1", "u.2"} {
		_, err = db.Store.Tenant("acme").SaveProfile(ctx, store.Profile{UserID: user, Model: "hash", Dims: 3, Vector: []float32{1, 0, 0}, ComputedFrom: at, SnapshotAt: at})
		require.NoError(t, err)
	}

	before1 := userRows(t, db, "acme", "u1")
	before2 := userRows(t, db, "acme", "u.2")
	beforeBeta := userRows(t, db, "beta", "u1")
	for _, table := range []string{"messages", "sessions", "facts", "fact_mentions", "shelf_items", "user_profiles"} {
		require.Positive(t, before1[table], "u1 has rows in %s", table)
	}
	require.Positive(t, beforeBeta["messages"])
	require.Equal(t, uint64(13), streamCount(t, n.JS, queue.TurnsStream, "recall.turns.acme.u1.>"), "12 turns and the broken one")
	require.Len(t, n.DeadLetters(t), 2, "ingest and extractor each dead-letter it")

	// Counting first removes nothing and names exactly what User removes.
	count, err := forget.Count(ctx, db.Store, n.JS, "acme", "u1")
	require.NoError(t, err)
	require.Equal(t, before1, userRows(t, db, "acme", "u1"), "counting removes nothing")
	require.ElementsMatch(t, mapKeys(before1), mapKeys(count.Rows), "every user table is counted")

	rep, err := forget.User(ctx, db.Store, n.JS, "acme", "u1")
	require.NoError(t, err)
	require.Equal(t, count, rep, "the count names what was removed")
	require.Equal(t, before1, rep.Rows)
	require.Equal(t, before1["messages"], rep.Rows["messages"])
	require.Equal(t, uint64(12+1), rep.StreamMessages[queue.TurnsStream], "12 turns and the broken one")
	require.Equal(t, uint64(1), rep.StreamMessages[queue.SignalsStream], "the shelf entry")
	require.Equal(t, uint64(2), rep.StreamMessages[queue.DLQStream])

	for table, c := range userRows(t, db, "acme", "u1") {
		require.Zero(t, c, "no row of u1 left in %s", table)
	}
	filters, err := queue.UserFilters("acme", "u1")
	require.NoError(t, err)
	for stream, fs := range filters {
		for _, f := range fs {
			if stream == queue.ChangesStream {
				// The forget itself, on the change feed.
				require.Equal(t, uint64(1), streamCount(t, n.JS, stream, f), "the change of u1 forgotten")
				continue
			}
			require.Zero(t, streamCount(t, n.JS, stream, f), "no message of u1 left in %s (%s)", stream, f)
		}
	}
	require.Equal(t, before2, userRows(t, db, "acme", "u.2"), "other users are untouched")
	require.Equal(t, beforeBeta, userRows(t, db, "beta", "u1"), "the same id in another tenant is untouched")
	require.Equal(t, uint64(12), streamCount(t, n.JS, queue.TurnsStream, "recall.turns.acme."+events.EncodeToken("u.2")+".>"))
	require.Equal(t, uint64(1), streamCount(t, n.JS, queue.TurnsStream, "recall.turns.beta.u1.>"))

	again, err := forget.User(ctx, db.Store, n.JS, "acme", "u1")
	require.NoError(t, err, "forgetting twice is fine")
	for table, c := range again.Rows {
		require.Zero(t, c, table)
	}
	// Only the first forget's change was left, and goes too; nothing was
	// forgotten this time, so nothing is published.
	require.Equal(t, map[string]uint64{queue.ChangesStream: 1}, again.StreamMessages)
	require.Zero(t, streamCount(t, n.JS, queue.ChangesStream, events.ChangeSubject("acme", "u1")))
}

func mapKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// filesHolding reports whether any file under dir holds b.
func filesHolding(t *testing.T, dir string, b []byte) bool {
	t.Helper()
	found := false
	require.NoError(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || found {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		found = bytes.Contains(data, b)
		return nil
	}))
	return found
}

// TestForgetErasesTheBytes: after a user is forgotten, the text of their
// turns is nowhere in the stream server's files (a purge leaves it in the
// block files), while another user's still is; the same for a deleted
// session's turns (queue.PurgeSession).
func TestForgetErasesTheBytes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testenv.NewDB(t)
	n := testenv.NewNATS(t)
	pub := queue.NewPublisher(n.JS)
	at := time.Date(2026, 5, 1, 8, 0, 0, 0, time.UTC)
	marker := func(user, session string) []byte { return []byte("secret-of-" + user + "-" + session) }
	var turns []events.Turn
	for _, user := range []string{"gone", "kept"} {
		for i, session := range []string{"s1", "s2", "s1"} {
			turns = append(turns, events.Turn{V: events.Version, ID: fmt.Sprintf("%s-%d", user, i), TenantID: "acme", UserID: user,
				SessionID: user + "-" + session, OccurredAt: at.Add(time.Duration(i) * time.Minute), Role: events.RoleUser,
				Content: "my " + string(marker(user, session))})
		}
	}
	_, err := pub.PublishTurns(ctx, turns)
	require.NoError(t, err)
	// The bytes are on disk first, so the checks below can fail.
	require.Eventually(t, func() bool {
		return filesHolding(t, n.StoreDir, marker("gone", "s1")) && filesHolding(t, n.StoreDir, marker("kept", "s2"))
	}, 10*time.Second, 50*time.Millisecond)

	rep, err := forget.User(ctx, db.Store, n.JS, "acme", "gone")
	require.NoError(t, err)
	require.Equal(t, uint64(3), rep.StreamMessages[queue.TurnsStream])
	removed, err := queue.PurgeSession(ctx, n.JS, "acme", "kept", "kept-s2")
	require.NoError(t, err)
	require.Equal(t, uint64(1), removed[queue.TurnsStream])

	require.False(t, filesHolding(t, n.StoreDir, marker("gone", "s1")), "a forgotten user's turn is erased")
	require.False(t, filesHolding(t, n.StoreDir, marker("gone", "s2")))
	require.False(t, filesHolding(t, n.StoreDir, marker("kept", "s2")), "a deleted session's turn is erased")
	require.True(t, filesHolding(t, n.StoreDir, marker("kept", "s1")), "another session's turns stay")
	require.Equal(t, uint64(2), streamCount(t, n.JS, queue.TurnsStream, events.TurnsSubjects))
}
