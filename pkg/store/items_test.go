package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/store"
)

// listTurn is an assistant turn of user u in session s presenting refs, each
// item titled after its ref with a rating attribute.
func listTurn(tenant, user, session, id string, at time.Time, refs ...string) store.StoredTurn {
	items := make([]events.Item, len(refs))
	for i, r := range refs {
		items[i] = events.Item{Ref: r, Title: "title of " + r, Attrs: json.RawMessage(fmt.Sprintf(`{"rating":%d.5,"tag":"t%d"}`, i+7, i))}
	}
	return store.StoredTurn{Turn: events.Turn{
		ID: id, TenantID: tenant, UserID: user, SessionID: session, OccurredAt: at,
		Role: events.RoleAssistant, Content: "here is a list", Items: items,
	}}
}

// parsed makes a turn as ingest has it: decoded from its JSON, raw arrays kept.
func parsed(t *testing.T, raw string) store.StoredTurn {
	t.Helper()
	tn, err := events.DecodeTurn([]byte(raw), events.ValidateOptions{Limits: events.DefaultLimits})
	require.NoError(t, err)
	return store.StoredTurn{Turn: tn}
}

// recordTurns stores turns and records their items, as ingest and the seen worker do.
func recordTurns(ctx context.Context, db *testenv.DB, seenCap int, turns []store.StoredTurn) (int64, error) {
	n, err := db.Store.InsertTurns(ctx, turns)
	if err != nil {
		return n, err
	}
	ts := make([]events.Turn, len(turns))
	for i := range turns {
		ts[i] = turns[i].Turn
	}
	_, err = db.Store.RecordSeen(ctx, ts, seenCap)
	return n, err
}

func itemRef(t *testing.T, li store.ListItem) string {
	t.Helper()
	var it struct {
		Ref string `json:"ref"`
	}
	require.NoError(t, json.Unmarshal(li.Item, &it))
	return it.Ref
}

func TestListItemIsFromTheNewestList(t *testing.T) {
	t.Parallel()
	db := testenv.NewDB(t)
	ctx := context.Background()
	ten := db.Store.Tenant("t")

	_, err := db.Store.InsertTurns(ctx, []store.StoredTurn{turn("t", "s", "hello", t0)})
	require.NoError(t, err)
	_, err = ten.ListItem(ctx, "s", 1)
	require.ErrorIs(t, err, store.ErrNoList, "a session without a list")
	_, err = ten.ListItem(ctx, "nope", 1)
	require.ErrorIs(t, err, store.ErrNotFound)

	_, err = db.Store.InsertTurns(ctx, []store.StoredTurn{
		listTurn("t", "u-s", "s", "L1", t0.Add(time.Minute), "/mv/1", "/mv/2", "/mv/3"),
		turn("t", "s", "after", t0.Add(2*time.Minute)), // later turns without a list change nothing
	})
	require.NoError(t, err)
	li, err := ten.ListItem(ctx, "s", 3)
	require.NoError(t, err)
	require.Equal(t, "L1", li.EventID)
	require.Equal(t, t0.Add(time.Minute), li.OccurredAt)
	require.Equal(t, 3, li.Count)
	require.JSONEq(t, `{"ref":"/mv/3","title":"title of /mv/3","attrs":{"rating":9.5,"tag":"t2"}}`, string(li.Item))

	li, err = ten.ListItem(ctx, "s", 4)
	require.NoError(t, err)
	require.Nil(t, li.Item, "beyond the list")
	require.Equal(t, 3, li.Count)

	// A newer list replaces it; an older one replayed later does not.
	_, err = db.Store.InsertTurns(ctx, []store.StoredTurn{listTurn("t", "u-s", "s", "L2", t0.Add(3*time.Minute), "/mv/9", "/mv/8")})
	require.NoError(t, err)
	_, err = db.Store.InsertTurns(ctx, []store.StoredTurn{listTurn("t", "u-s", "s", "L0", t0.Add(30*time.Second), "/old/1", "/old/2", "/old/3")})
	require.NoError(t, err)
	li, err = ten.ListItem(ctx, "s", 2)
	require.NoError(t, err)
	require.Equal(t, "L2", li.EventID)
	require.Equal(t, "/mv/8", itemRef(t, li))
	li, err = ten.ListItem(ctx, "s", 3)
	require.NoError(t, err)
	require.Nil(t, li.Item)
	require.Equal(t, 2, li.Count)

	// Same event time: the greater event id is the newer, as in every other order.
	_, err = db.Store.InsertTurns(ctx, []store.StoredTurn{
		listTurn("t", "u-s", "s", "L3b", t0.Add(4*time.Minute), "/b"),
		listTurn("t", "u-s", "s", "L3a", t0.Add(4*time.Minute), "/a"),
	})
	require.NoError(t, err)
	li, err = ten.ListItem(ctx, "s", 1)
	require.NoError(t, err)
	require.Equal(t, "/b", itemRef(t, li))

	// An empty list is a list: it replaces the one before, and has no item 1.
	_, err = db.Store.InsertTurns(ctx, []store.StoredTurn{parsed(t,
		`{"id":"L4","tenant_id":"t","user_id":"u-s","session_id":"s","occurred_at":"2026-05-01T12:05:00Z","role":"assistant","content":"nothing found","items":[]}`)})
	require.NoError(t, err)
	li, err = ten.ListItem(ctx, "s", 1)
	require.NoError(t, err)
	require.Equal(t, "L4", li.EventID)
	require.Zero(t, li.Count)
	require.Nil(t, li.Item)

	// Other tenants and sessions see nothing of it.
	_, err = db.Store.Tenant("other").ListItem(ctx, "s", 1)
	require.ErrorIs(t, err, store.ErrNotFound)
	_, err = ten.ListItem(ctx, "s", 0)
	require.Error(t, err)
}

func TestListItemKeepsTheItemAsSent(t *testing.T) {
	t.Parallel()
	db := testenv.NewDB(t)
	ctx := context.Background()
	const items = `[{"ref":"/mv/823D","title":"","attrs":null,"url":"https://example.com/mv/823D","rank":1.0},` +
		`{"ref":"/mv/17","title":"沙丘 😀","attrs":{"rating":8.50,"big":12345678901234567890,"tags":["sf","经典"],"nested":{"a":[1,{"b":null}]}}}]`
	_, err := db.Store.InsertTurns(ctx, []store.StoredTurn{parsed(t,
		`{"id":"e1","tenant_id":"t","user_id":"u","session_id":"s","occurred_at":"2026-05-01T12:00:00Z","role":"assistant","content":"","items":`+items+`}`)})
	require.NoError(t, err)
	ten := db.Store.Tenant("t")
	var want []json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(items), &want))
	for n := 1; n <= 2; n++ {
		li, err := ten.ListItem(ctx, "s", n)
		require.NoError(t, err)
		require.JSONEq(t, string(want[n-1]), string(li.Item))
	}
	li, err := ten.ListItem(ctx, "s", 2)
	require.NoError(t, err)
	require.Contains(t, string(li.Item), "12345678901234567890", "numbers are not rounded")
	require.Contains(t, string(li.Item), "8.50", "nor reformatted")
	msgs, _, err := ten.Messages(ctx, "s", store.Cursor{}, 10)
	require.NoError(t, err)
	require.JSONEq(t, items, string(msgs[0].Items))
}

// The current list is found with the partial index, not by walking the session.
func TestListItemPlanUsesTheListIndex(t *testing.T) {
	t.Parallel()
	db := testenv.NewDB(t)
	ctx := context.Background()
	var batch []store.StoredTurn
	for i := range 2000 {
		batch = append(batch, turn("t", fmt.Sprintf("s%d", i%20), fmt.Sprintf("e%05d", i), t0.Add(time.Duration(i)*time.Second)))
	}
	batch = append(batch, listTurn("t", "u-s1", "s1", "L", t0, "/a"))
	_, err := db.Store.InsertTurns(ctx, batch)
	require.NoError(t, err)
	_, err = db.Store.Pool().Exec(ctx, `ANALYZE messages`)
	require.NoError(t, err)
	plan := planText(t)(db.Store.Pool().Query(ctx, "EXPLAIN "+store.Query(store.QListItemAt), "t", "s1", 1))
	require.Contains(t, plan, "messages_session_list_idx", plan)
}

func seenByRef(t *testing.T, db *testenv.DB, tenant, user string) map[string]store.SeenItem {
	t.Helper()
	items, err := db.Store.Tenant(tenant).SeenItems(context.Background(), user, 1000)
	require.NoError(t, err)
	out := map[string]store.SeenItem{}
	for _, it := range items {
		out[it.Ref] = it
	}
	return out
}

func TestSeenItemsRecordedOncePerTurn(t *testing.T) {
	t.Parallel()
	db := testenv.NewDB(t)
	ctx := context.Background()
	batch := []store.StoredTurn{
		listTurn("t", "u1", "s1", "a", t0.Add(time.Hour), "/x", "/y"),
		listTurn("t", "u1", "s1", "a", t0.Add(time.Hour), "/x", "/y"), // the same turn twice in one batch
		listTurn("t", "u1", "s2", "b", t0, "/x", "/z", "/x"),          // a ref twice in one list counts once
		listTurn("t", "u2", "s3", "c", t0, "/x"),
	}
	_, err := recordTurns(ctx, db, 0, batch)
	require.NoError(t, err)
	for range 2 { // redelivery, duplicate publish, replay
		_, err = recordTurns(ctx, db, 0, batch)
		require.NoError(t, err)
		_, err = recordTurns(ctx, db, 0, batch[2:3])
		require.NoError(t, err)
	}
	u1 := seenByRef(t, db, "t", "u1")
	require.Len(t, u1, 3)
	x := u1["/x"]
	require.EqualValues(t, 2, x.TimesShown, "shown by turns a and b")
	require.Equal(t, t0, x.FirstSeenAt)
	require.Equal(t, t0.Add(time.Hour), x.LastSeenAt)
	require.Equal(t, "a", x.LastEventID)
	require.Equal(t, "s1", x.LastSessionID)
	require.Equal(t, "title of /x", x.Title)
	require.JSONEq(t, `{"rating":7.5,"tag":"t0"}`, string(x.Attrs))
	require.EqualValues(t, 1, u1["/y"].TimesShown)
	require.EqualValues(t, 1, u1["/z"].TimesShown)
	require.Equal(t, t0, u1["/z"].LastSeenAt)
	require.Len(t, seenByRef(t, db, "t", "u2"), 1)
	require.Empty(t, seenByRef(t, db, "other", "u1"), "other tenants see nothing")

	items, err := db.Store.Tenant("t").SeenItems(ctx, "u1", 10)
	require.NoError(t, err)
	require.Equal(t, "/x", items[0].Ref, "most recently shown first")
	require.Equal(t, "/y", items[1].Ref)

	// An older showing arriving late counts, but neither makes the item newer nor
	// replaces the newest showing's title and attrs.
	late := listTurn("t", "u1", "s9", "late", t0.Add(-time.Hour), "/x")
	late.Turn.Items[0].Title, late.Turn.Items[0].Attrs = "old title", json.RawMessage(`{"rating":1}`)
	_, err = recordTurns(ctx, db, 0, []store.StoredTurn{late})
	require.NoError(t, err)
	x = seenByRef(t, db, "t", "u1")["/x"]
	require.EqualValues(t, 3, x.TimesShown)
	require.Equal(t, t0.Add(-time.Hour), x.FirstSeenAt)
	require.Equal(t, t0.Add(time.Hour), x.LastSeenAt)
	require.Equal(t, "title of /x", x.Title)
	require.Equal(t, "a", x.LastEventID)

	// A newer showing updates them.
	newer := listTurn("t", "u1", "s4", "new", t0.Add(2*time.Hour), "/x")
	newer.Turn.Items[0].Title, newer.Turn.Items[0].Attrs = "new title", nil
	_, err = recordTurns(ctx, db, 0, []store.StoredTurn{newer})
	require.NoError(t, err)
	x = seenByRef(t, db, "t", "u1")["/x"]
	require.EqualValues(t, 4, x.TimesShown)
	require.Equal(t, "new title", x.Title)
	require.Nil(t, x.Attrs)
	require.Equal(t, "s4", x.LastSessionID)
}

func TestSeenItemsCapEvictsOldestFirstSeen(t *testing.T) {
	t.Parallel()
	db := testenv.NewDB(t)
	ctx := context.Background()
	for i, ref := range []string{"/1", "/2", "/3"} {
		_, err := recordTurns(ctx, db, 3, []store.StoredTurn{listTurn("t", "u", "s", fmt.Sprintf("e%d", i), t0.Add(time.Duration(i)*time.Minute), ref)})
		require.NoError(t, err)
	}
	// /1 is shown again (last seen now newest) but was still first seen longest ago.
	_, err := recordTurns(ctx, db, 3, []store.StoredTurn{listTurn("t", "u", "s", "e3", t0.Add(10*time.Minute), "/1", "/4")})
	require.NoError(t, err)
	got := seenByRef(t, db, "t", "u")
	require.Len(t, got, 3)
	require.NotContains(t, got, "/1", "oldest first seen goes first")
	require.Contains(t, got, "/4")

	// One list longer than the cap keeps the cap too; other users are untouched.
	_, err = recordTurns(ctx, db, 3, []store.StoredTurn{
		listTurn("t", "u", "s", "big", t0.Add(20*time.Minute), "/a", "/b", "/c", "/d", "/e"),
		listTurn("t", "v", "s2", "v1", t0, "/1", "/2"),
	})
	require.NoError(t, err)
	got = seenByRef(t, db, "t", "u")
	require.Len(t, got, 3)
	for ref := range got {
		require.Contains(t, []string{"/a", "/b", "/c", "/d", "/e"}, ref)
	}
	require.Len(t, seenByRef(t, db, "t", "v"), 2)

	// The default cap is 100.
	refs := make([]string, 120)
	for i := range refs {
		refs[i] = fmt.Sprintf("/r%03d", i)
	}
	_, err = recordTurns(ctx, db, 0, []store.StoredTurn{listTurn("t", "w", "s3", "w1", t0, refs[:60]...)})
	require.NoError(t, err)
	_, err = recordTurns(ctx, db, 0, []store.StoredTurn{listTurn("t", "w", "s3", "w2", t0.Add(time.Minute), refs[60:]...)})
	require.NoError(t, err)
	got = seenByRef(t, db, "t", "w")
	require.Len(t, got, store.DefaultSeenCap)
	for _, r := range refs[60:] {
		require.Contains(t, got, r, "the newer list is kept whole")
	}
}

// Batches that touch the same users run at once (ingest runs two) without
// deadlocks, and count every turn exactly once. The users' turns are in
// different sessions: batches sharing a session already take turns on its row.
// Without the per-user locks, evictions deadlock here within seconds.
func TestSeenItemsConcurrentBatches(t *testing.T) {
	t.Parallel()
	db := testenv.NewDB(t)
	ctx := context.Background()
	const workers, rounds = 4, 20
	var wg sync.WaitGroup
	errs := make(chan error, workers*rounds)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				var batch []store.StoredTurn
				for u := range 6 {
					id := fmt.Sprintf("w%d-r%d-u%d", w, r, u)
					at := t0.Add(time.Duration(r*workers+w) * time.Second)
					batch = append(batch, listTurn("t", fmt.Sprintf("u%d", (u+w)%6), fmt.Sprintf("s%d-%d", w, u), id, at,
						fmt.Sprintf("/r%d", r%5), fmt.Sprintf("/w%d", w), fmt.Sprintf("/x%d", (r*7+w)%9)))
				}
				if _, err := recordTurns(ctx, db, 8, batch); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	var lists, total int64
	require.NoError(t, db.Store.Pool().QueryRow(ctx, `SELECT count(*) FROM seen_lists`).Scan(&lists))
	require.EqualValues(t, workers*rounds*6, lists)
	for u := range 6 {
		got := seenByRef(t, db, "t", fmt.Sprintf("u%d", u))
		require.LessOrEqual(t, len(got), 8)
		for _, it := range got {
			total += it.TimesShown
		}
	}
	require.Positive(t, total)
}

func TestUnseen(t *testing.T) {
	t.Parallel()
	db := testenv.NewDB(t)
	ctx := context.Background()
	_, err := recordTurns(ctx, db, 0, []store.StoredTurn{
		listTurn("t", "u", "s", "e1", t0, "/mv/1", "/mv/2"),
		listTurn("t", "other-user", "s2", "e2", t0, "/mv/3"),
		listTurn("T2", "u", "s", "e1", t0, "/mv/4"),
	})
	require.NoError(t, err)
	ten := db.Store.Tenant("t")
	refs := []string{"/mv/5", "/mv/1", "/mv/3", "/mv/4", "/mv/2", "/mv/6"}
	unseen, marked, err := ten.Unseen(ctx, "u", refs, store.UnseenOptions{})
	require.NoError(t, err)
	require.Equal(t, []string{"/mv/5", "/mv/3", "/mv/4", "/mv/6"}, unseen, "in the order given; other users and tenants do not count")
	require.Zero(t, marked)
	unseen, _, err = ten.Unseen(ctx, "u", refs, store.UnseenOptions{})
	require.NoError(t, err)
	require.Len(t, unseen, 4, "asking changes nothing")

	at := t0.Add(time.Hour)
	unseen, marked, err = ten.Unseen(ctx, "u", []string{"/mv/5", "/mv/1", "/mv/3"}, store.UnseenOptions{Mark: true, At: at, NotificationID: "n1"})
	require.NoError(t, err)
	require.Equal(t, []string{"/mv/5", "/mv/3"}, unseen)
	require.Equal(t, 2, marked)
	// A retry of the same notification gets the same answer and marks nothing new.
	unseen, marked, err = ten.Unseen(ctx, "u", []string{"/mv/5", "/mv/1", "/mv/3"}, store.UnseenOptions{Mark: true, At: at.Add(time.Minute), NotificationID: "n1"})
	require.NoError(t, err)
	require.Equal(t, []string{"/mv/5", "/mv/3"}, unseen)
	require.Zero(t, marked)
	// The next notification leaves them out, and so does a plain question.
	unseen, marked, err = ten.Unseen(ctx, "u", refs, store.UnseenOptions{Mark: true, At: at.Add(time.Hour), NotificationID: "n2"})
	require.NoError(t, err)
	require.Equal(t, []string{"/mv/4", "/mv/6"}, unseen)
	require.Equal(t, 2, marked)
	unseen, _, err = ten.Unseen(ctx, "u", refs, store.UnseenOptions{})
	require.NoError(t, err)
	require.Empty(t, unseen)
	// Without an id, a mark is final at once.
	unseen, marked, err = ten.Unseen(ctx, "u", []string{"/mv/7"}, store.UnseenOptions{Mark: true, At: at})
	require.NoError(t, err)
	require.Equal(t, []string{"/mv/7"}, unseen)
	require.Equal(t, 1, marked)
	unseen, _, err = ten.Unseen(ctx, "u", []string{"/mv/7"}, store.UnseenOptions{Mark: true, At: at})
	require.NoError(t, err)
	require.Empty(t, unseen)

	// Notified and seen are per user and per tenant.
	unseen, _, err = db.Store.Tenant("T2").Unseen(ctx, "u", refs, store.UnseenOptions{})
	require.NoError(t, err)
	require.Equal(t, []string{"/mv/5", "/mv/1", "/mv/3", "/mv/2", "/mv/6"}, unseen)
	unseen, _, err = ten.Unseen(ctx, "someone", refs, store.UnseenOptions{})
	require.NoError(t, err)
	require.Equal(t, refs, unseen)
}

func TestPruneSeenItems(t *testing.T) {
	t.Parallel()
	db := testenv.NewDB(t)
	ctx := context.Background()
	cutoff := t0.Add(24 * time.Hour)
	var batch []store.StoredTurn
	for i := range 7 { // 7 old items of u, one of them shown again after the cutoff
		batch = append(batch, listTurn("t", "u", "s", fmt.Sprintf("old%d", i), t0.Add(time.Duration(i)*time.Minute), fmt.Sprintf("/old/%d", i)))
	}
	batch = append(batch,
		listTurn("t", "u", "s", "again", cutoff.Add(time.Hour), "/old/3"),
		listTurn("t", "u", "s", "new", cutoff.Add(time.Hour), "/new/1"),
		listTurn("t2", "v", "s", "other-tenant-old", t0, "/old/x"),
	)
	_, err := recordTurns(ctx, db, 0, batch)
	require.NoError(t, err)
	ten := db.Store.Tenant("t")
	_, _, err = ten.Unseen(ctx, "u", []string{"/n/old"}, store.UnseenOptions{Mark: true, At: t0})
	require.NoError(t, err)
	_, _, err = ten.Unseen(ctx, "u", []string{"/n/new"}, store.UnseenOptions{Mark: true, At: cutoff.Add(time.Minute)})
	require.NoError(t, err)

	n, err := db.Store.PruneSeenItems(ctx, cutoff, 2) // several rounds of 2
	require.NoError(t, err)
	require.EqualValues(t, 6+1+1, n, "six of u's old items, the other tenant's, one notification")
	got := seenByRef(t, db, "t", "u")
	require.Len(t, got, 2)
	require.Contains(t, got, "/old/3", "shown again after the cutoff")
	require.Contains(t, got, "/new/1")
	require.Empty(t, seenByRef(t, db, "t2", "v"))
	unseen, _, err := ten.Unseen(ctx, "u", []string{"/n/old", "/n/new", "/old/1"}, store.UnseenOptions{})
	require.NoError(t, err)
	require.Equal(t, []string{"/n/old", "/old/1"}, unseen, "forgotten items are new again")
	var keys int
	require.NoError(t, db.Store.Pool().QueryRow(ctx, `SELECT count(*) FROM seen_lists`).Scan(&keys))
	require.Equal(t, 2, keys, "the idempotency keys of pruned turns go too")

	n, err = db.Store.PruneSeenItems(ctx, cutoff, 0)
	require.NoError(t, err)
	require.Zero(t, n, "nothing left to prune")
}

// A batch's registry rows commit together: when recording fails part way, none
// of the batch is recorded (no turn is marked as counted), and the retry counts
// each turn once.
func TestRecordSeenIsAtomic(t *testing.T) {
	t.Parallel()
	db := testenv.NewDB(t)
	ctx := context.Background()
	// The second user's rows are refused, after the first user's were written.
	_, err := db.Store.Pool().Exec(ctx, `
		CREATE FUNCTION refuse_seen() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN IF NEW.user_id = 'v' THEN RAISE EXCEPTION 'registry unavailable'; END IF; RETURN NEW; END $$;
		CREATE TRIGGER refuse_seen BEFORE INSERT ON seen_items FOR EACH ROW EXECUTE FUNCTION refuse_seen();`)
	require.NoError(t, err)
	turns := []events.Turn{listTurn("t", "u", "s", "L1", t0, "/a", "/b").Turn, listTurn("t", "v", "s2", "L2", t0, "/c").Turn}
	_, err = db.Store.RecordSeen(ctx, turns, 0)
	require.ErrorContains(t, err, "registry unavailable")
	require.Empty(t, seenByRef(t, db, "t", "u"), "nothing of the batch is recorded")
	var lists int
	require.NoError(t, db.Store.Pool().QueryRow(ctx, `SELECT count(*) FROM seen_lists`).Scan(&lists))
	require.Zero(t, lists)

	_, err = db.Store.Pool().Exec(ctx, `DROP TRIGGER refuse_seen ON seen_items`)
	require.NoError(t, err)
	recorded, err := db.Store.RecordSeen(ctx, turns, 0)
	require.NoError(t, err)
	require.Equal(t, map[[2]string]bool{{"t", "L1"}: true, {"t", "L2"}: true}, recorded, "the turns recorded now")
	recorded, err = db.Store.RecordSeen(ctx, turns, 0)
	require.NoError(t, err)
	require.Empty(t, recorded, "a turn recorded before is not recorded now")
	u := seenByRef(t, db, "t", "u")
	require.Len(t, u, 2)
	require.EqualValues(t, 1, u["/a"].TimesShown)
	require.Len(t, seenByRef(t, db, "t", "v"), 1)
}
