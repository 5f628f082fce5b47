package store_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/store"
)

func item(tenant, ref, event string, at time.Time, vec ...float32) store.CatalogUpsert {
	it := store.CatalogUpsert{TenantID: tenant, Ref: ref, Type: "book", Title: "title of " + ref + " by " + event,
		Attrs: json.RawMessage(`{"author":"A"}`), EventID: event, OccurredAt: at}
	if len(vec) > 0 {
		it.Embedding, it.EmbeddingModel = vec, "test-model"
	}
	return it
}

func shelfEntry(tenant, user, ref, status, event string, at time.Time) store.ShelfUpsert {
	return store.ShelfUpsert{TenantID: tenant, UserID: user, Ref: ref, Status: status, EventID: event, OccurredAt: at}
}

func TestApplySignalsIdempotent(t *testing.T) {
	t.Parallel()
	db := testenv.NewDB(t)
	ctx := context.Background()
	items := []store.CatalogUpsert{item("t", "/b/1", "c1", t0, 1, 0, 0), item("t", "/b/2", "c2", t0, 0, 1, 0)}
	shelf := []store.ShelfUpsert{
		shelfEntry("t", "u1", "/b/1", "read", "s1", t0.Add(time.Hour)),
		shelfEntry("t", "u1", "/b/2", "want", "s2", t0.Add(2*time.Hour)),
		shelfEntry("t", "u2", "/b/2", "reading", "s3", t0.Add(time.Minute)),
	}
	refresh, err := db.Store.ApplySignals(ctx, items, shelf)
	require.NoError(t, err)
	require.Equal(t, []store.Refresh{
		{TenantID: "t", UserID: "u1", At: t0.Add(2 * time.Hour)},
		{TenantID: "t", UserID: "u2", At: t0.Add(time.Minute)},
	}, utc(refresh))

	check := func() {
		it, err := db.Store.Tenant("t").CatalogItem(ctx, "/b/1")
		require.NoError(t, err)
		require.Equal(t, []float32{1, 0, 0}, it.Embedding)
		require.Equal(t, "test-model", it.EmbeddingModel)
		require.Equal(t, 3, it.Dims)
		require.Equal(t, "c1", it.SourceEventID)
		require.JSONEq(t, `{"author":"A"}`, string(it.Attrs))
		sh, err := db.Store.Tenant("t").Shelf(ctx, "u1")
		require.NoError(t, err)
		require.Len(t, sh, 2)
		require.Equal(t, "/b/1", sh[0].Ref)
		require.Equal(t, "read", sh[0].Status)
		require.Equal(t, []float32{1, 0, 0}, sh[0].Embedding)
		require.Equal(t, "test-model", sh[0].Model)
	}
	check()

	// Redelivery and replay, in another order: nothing changes, nobody to refresh.
	refresh, err = db.Store.ApplySignals(ctx, []store.CatalogUpsert{items[1], items[0]}, []store.ShelfUpsert{shelf[2], shelf[1], shelf[0]})
	require.NoError(t, err)
	require.Empty(t, refresh)
	check()

	// A redelivered event is reported again (its refresh may never have been
	// published), without changing anything.
	forced := shelf[0]
	forced.Force = true
	forcedItem := items[1]
	forcedItem.Force = true
	refresh, err = db.Store.ApplySignals(ctx, []store.CatalogUpsert{forcedItem}, []store.ShelfUpsert{forced})
	require.NoError(t, err)
	require.Equal(t, []store.Refresh{
		{TenantID: "t", UserID: "u1", At: t0.Add(time.Hour)},
		{TenantID: "t", UserID: "u2", At: t0},
	}, utc(refresh), "u1 for its entry and for holding /b/2; u2 for holding /b/2")
	check()
}

func TestApplySignalsLastWriterWins(t *testing.T) {
	t.Parallel()
	db := testenv.NewDB(t)
	ctx := context.Background()
	ten := db.Store.Tenant("t")
	_, err := db.Store.ApplySignals(ctx,
		[]store.CatalogUpsert{item("t", "/b/1", "new", t0.Add(time.Hour), 0, 1)},
		[]store.ShelfUpsert{shelfEntry("t", "u", "/b/1", "read", "new", t0.Add(time.Hour))})
	require.NoError(t, err)

	// An older event arriving late changes nothing.
	refresh, err := db.Store.ApplySignals(ctx,
		[]store.CatalogUpsert{item("t", "/b/1", "old", t0, 1, 0)},
		[]store.ShelfUpsert{shelfEntry("t", "u", "/b/1", "want", "old", t0)})
	require.NoError(t, err)
	require.Empty(t, refresh)
	it, err := ten.CatalogItem(ctx, "/b/1")
	require.NoError(t, err)
	require.Equal(t, "new", it.SourceEventID)
	require.Equal(t, []float32{0, 1}, it.Embedding)
	sh, err := ten.Shelf(ctx, "u")
	require.NoError(t, err)
	require.Equal(t, "read", sh[0].Status)

	// Same event time: the event id decides, whatever the arrival order.
	for _, order := range [][]string{{"a", "b"}, {"b", "a"}} {
		ref := "/tie/" + order[0]
		for _, ev := range order {
			_, err := db.Store.ApplySignals(ctx, []store.CatalogUpsert{item("t", ref, ev, t0)}, nil)
			require.NoError(t, err)
		}
		it, err := ten.CatalogItem(ctx, ref)
		require.NoError(t, err)
		require.Equal(t, "b", it.SourceEventID, "order %v", order)
	}

	// Within a microsecond (the database's precision), the id decides, in a
	// batch as in separate statements.
	early, late := item("t", "/ns", "b", t0.Add(100*time.Nanosecond)), item("t", "/ns", "a", t0.Add(900*time.Nanosecond))
	_, err = db.Store.ApplySignals(ctx, []store.CatalogUpsert{early, late}, nil)
	require.NoError(t, err)
	_, err = db.Store.ApplySignals(ctx, []store.CatalogUpsert{late}, nil)
	require.NoError(t, err)
	it, err = ten.CatalogItem(ctx, "/ns")
	require.NoError(t, err)
	require.Equal(t, "b", it.SourceEventID)

	// Within one batch, the newest event of a key wins too.
	refresh, err = db.Store.ApplySignals(ctx, nil, []store.ShelfUpsert{
		shelfEntry("t", "u", "/b/2", "read", "x3", t0.Add(3*time.Hour)),
		shelfEntry("t", "u", "/b/2", "want", "x1", t0.Add(time.Hour)),
		shelfEntry("t", "u", "/b/2", "reading", "x2", t0.Add(2*time.Hour)),
	})
	require.NoError(t, err)
	require.Equal(t, []store.Refresh{{TenantID: "t", UserID: "u", At: t0.Add(3 * time.Hour)}}, utc(refresh))
	sh, err = ten.Shelf(ctx, "u")
	require.NoError(t, err)
	require.Equal(t, "read", sh[1].Status)
}

func TestApplySignalsDeleteAndRemove(t *testing.T) {
	t.Parallel()
	db := testenv.NewDB(t)
	ctx := context.Background()
	ten := db.Store.Tenant("t")
	_, err := db.Store.ApplySignals(ctx, []store.CatalogUpsert{item("t", "/b/1", "c1", t0, 1, 0)},
		[]store.ShelfUpsert{shelfEntry("t", "u", "/b/1", "read", "s1", t0)})
	require.NoError(t, err)

	// A deletion keeps the data and changes no embedding: nobody to refresh.
	del := store.CatalogUpsert{TenantID: "t", Ref: "/b/1", Deleted: true, EventID: "c2", OccurredAt: t0.Add(time.Hour)}
	refresh, err := db.Store.ApplySignals(ctx, []store.CatalogUpsert{del}, nil)
	require.NoError(t, err)
	require.Empty(t, refresh)
	it, err := ten.CatalogItem(ctx, "/b/1")
	require.NoError(t, err)
	require.True(t, it.Deleted)
	require.Equal(t, "title of /b/1 by c1", it.Title)
	require.Equal(t, []float32{1, 0}, it.Embedding)

	// Deleting an item never seen leaves a tombstone that an older create,
	// replayed later, cannot undo.
	_, err = db.Store.ApplySignals(ctx, []store.CatalogUpsert{{TenantID: "t", Ref: "/b/9", Deleted: true, EventID: "d", OccurredAt: t0.Add(time.Hour)}}, nil)
	require.NoError(t, err)
	_, err = db.Store.ApplySignals(ctx, []store.CatalogUpsert{item("t", "/b/9", "old", t0, 0, 1)}, nil)
	require.NoError(t, err)
	it, err = ten.CatalogItem(ctx, "/b/9")
	require.NoError(t, err)
	require.True(t, it.Deleted)
	require.Nil(t, it.Embedding)
	// A newer create brings it back.
	refresh, err = db.Store.ApplySignals(ctx, []store.CatalogUpsert{item("t", "/b/9", "new", t0.Add(2*time.Hour), 0, 1)}, nil)
	require.NoError(t, err)
	require.Empty(t, refresh, "nobody holds it")
	it, err = ten.CatalogItem(ctx, "/b/9")
	require.NoError(t, err)
	require.False(t, it.Deleted)

	// Removing from the shelf is a change, and the item leaves the shelf.
	refresh, err = db.Store.ApplySignals(ctx, nil, []store.ShelfUpsert{shelfEntry("t", "u", "/b/1", "removed", "s2", t0.Add(time.Hour))})
	require.NoError(t, err)
	require.Len(t, refresh, 1)
	sh, err := ten.Shelf(ctx, "u")
	require.NoError(t, err)
	require.Empty(t, sh)
	// An older entry replayed later does not put it back.
	_, err = db.Store.ApplySignals(ctx, nil, []store.ShelfUpsert{shelfEntry("t", "u", "/b/1", "reading", "s0", t0.Add(time.Minute))})
	require.NoError(t, err)
	sh, err = ten.Shelf(ctx, "u")
	require.NoError(t, err)
	require.Empty(t, sh)
}

func TestApplySignalsEmbeddingChangeRefreshesHolders(t *testing.T) {
	t.Parallel()
	db := testenv.NewDB(t)
	ctx := context.Background()
	// The shelf entry comes before the catalog knows the item.
	refresh, err := db.Store.ApplySignals(ctx, nil, []store.ShelfUpsert{
		shelfEntry("t", "u1", "/b/1", "read", "s1", t0),
		shelfEntry("t", "u2", "/b/1", "removed", "s2", t0),
		shelfEntry("other", "u3", "/b/1", "read", "s3", t0),
	})
	require.NoError(t, err)
	require.Len(t, refresh, 3)
	sh, err := db.Store.Tenant("t").Shelf(ctx, "u1")
	require.NoError(t, err)
	require.Nil(t, sh[0].Embedding, "no embedding until the catalog has the item")

	// The item arrives: its holders in its tenant (not those who removed it)
	// need a new vector, as of the item's event time.
	refresh, err = db.Store.ApplySignals(ctx, []store.CatalogUpsert{item("t", "/b/1", "c1", t0.Add(time.Hour), 1, 1)}, nil)
	require.NoError(t, err)
	require.Equal(t, []store.Refresh{{TenantID: "t", UserID: "u1", At: t0.Add(time.Hour)}}, utc(refresh))

	// A new title with the same embedding changes no vector.
	same := item("t", "/b/1", "c2", t0.Add(2*time.Hour), 1, 1)
	same.Title = "renamed"
	refresh, err = db.Store.ApplySignals(ctx, []store.CatalogUpsert{same}, nil)
	require.NoError(t, err)
	require.Empty(t, refresh)
	// A new embedding does.
	refresh, err = db.Store.ApplySignals(ctx, []store.CatalogUpsert{item("t", "/b/1", "c3", t0.Add(3*time.Hour), 1, 2)}, nil)
	require.NoError(t, err)
	require.Equal(t, []store.Refresh{{TenantID: "t", UserID: "u1", At: t0.Add(3 * time.Hour)}}, utc(refresh))
}

func TestApplySignalsReplayWithNewModelReEmbeds(t *testing.T) {
	t.Parallel()
	db := testenv.NewDB(t)
	ctx := context.Background()
	_, err := db.Store.ApplySignals(ctx, []store.CatalogUpsert{item("t", "/b/1", "c1", t0, 1, 0)},
		[]store.ShelfUpsert{shelfEntry("t", "u", "/b/1", "read", "s1", t0)})
	require.NoError(t, err)

	// The same event, embedded by the same model: nothing to do.
	refresh, err := db.Store.ApplySignals(ctx, []store.CatalogUpsert{item("t", "/b/1", "c1", t0, 0, 1)}, nil)
	require.NoError(t, err)
	require.Empty(t, refresh)
	// Replayed after a change of model: re-embedded, and its holders refreshed.
	again := item("t", "/b/1", "c1", t0, 0, 0, 1)
	again.EmbeddingModel = "new-model"
	refresh, err = db.Store.ApplySignals(ctx, []store.CatalogUpsert{again}, nil)
	require.NoError(t, err)
	require.Equal(t, []store.Refresh{{TenantID: "t", UserID: "u", At: t0}}, utc(refresh))
	it, err := db.Store.Tenant("t").CatalogItem(ctx, "/b/1")
	require.NoError(t, err)
	require.Equal(t, "new-model", it.EmbeddingModel)
	require.Equal(t, []float32{0, 0, 1}, it.Embedding)
	require.Equal(t, 3, it.Dims)
	// An older event still loses, whatever its model.
	old := item("t", "/b/1", "c0", t0.Add(-time.Hour), 1, 1)
	old.EmbeddingModel = "third-model"
	_, err = db.Store.ApplySignals(ctx, []store.CatalogUpsert{old}, nil)
	require.NoError(t, err)
	it, err = db.Store.Tenant("t").CatalogItem(ctx, "/b/1")
	require.NoError(t, err)
	require.Equal(t, "new-model", it.EmbeddingModel)
}

func TestCatalogTenantIsolation(t *testing.T) {
	t.Parallel()
	db := testenv.NewDB(t)
	ctx := context.Background()
	_, err := db.Store.ApplySignals(ctx,
		[]store.CatalogUpsert{item("A", "/b/1", "e1", t0, 1, 0), item("B", "/b/1", "e1", t0, 0, 1)},
		[]store.ShelfUpsert{shelfEntry("A", "u", "/b/1", "read", "e2", t0)})
	require.NoError(t, err, "the same ref and event ids in two tenants are two items")
	a, err := db.Store.Tenant("A").CatalogItem(ctx, "/b/1")
	require.NoError(t, err)
	require.Equal(t, []float32{1, 0}, a.Embedding)
	b, err := db.Store.Tenant("B").CatalogItem(ctx, "/b/1")
	require.NoError(t, err)
	require.Equal(t, []float32{0, 1}, b.Embedding)
	_, err = db.Store.Tenant("C").CatalogItem(ctx, "/b/1")
	require.ErrorIs(t, err, store.ErrNotFound)
	sh, err := db.Store.Tenant("B").Shelf(ctx, "u")
	require.NoError(t, err)
	require.Empty(t, sh)
}

func utc(rs []store.Refresh) []store.Refresh {
	for i := range rs {
		rs[i].At = rs[i].At.UTC()
	}
	return rs
}

func TestSaveProfile(t *testing.T) {
	t.Parallel()
	db := testenv.NewDB(t)
	ctx := context.Background()
	ten := db.Store.Tenant("t")
	_, err := ten.Profile(ctx, "u")
	require.ErrorIs(t, err, store.ErrNotFound)

	p := store.Profile{UserID: "u", Vector: []float32{0.6, 0.8}, Model: "m", Dims: 2,
		Sources: map[string]int{"shelf": 2, "facts": 1}, ComputedFrom: t0, SnapshotAt: t0.Add(time.Minute)}
	written, err := ten.SaveProfile(ctx, p)
	require.NoError(t, err)
	require.True(t, written)
	got, err := ten.Profile(ctx, "u")
	require.NoError(t, err)
	require.Equal(t, p.Vector, got.Vector)
	require.Equal(t, p.Sources, got.Sources)
	require.Equal(t, t0, got.ComputedFrom)
	require.EqualValues(t, 1, got.Revision)

	// Older or equal in both respects: not written.
	for _, older := range []store.Profile{
		{UserID: "u", Model: "m", Dims: 2, ComputedFrom: t0, SnapshotAt: t0.Add(time.Minute)},
		{UserID: "u", Model: "m", Dims: 2, ComputedFrom: t0.Add(-time.Hour), SnapshotAt: t0.Add(time.Minute)},
		{UserID: "u", Model: "m", Dims: 2, ComputedFrom: t0.Add(time.Hour), SnapshotAt: t0},
	} {
		written, err := ten.SaveProfile(ctx, older)
		require.NoError(t, err)
		require.False(t, written)
	}
	// Newer: written, and a profile without a direction stores no vector.
	written, err = ten.SaveProfile(ctx, store.Profile{UserID: "u", Model: "m", Dims: 2, Sources: map[string]int{"shelf": 0},
		ComputedFrom: t0, SnapshotAt: t0.Add(2 * time.Minute)})
	require.NoError(t, err)
	require.True(t, written)
	got, err = ten.Profile(ctx, "u")
	require.NoError(t, err)
	require.Nil(t, got.Vector)
	require.EqualValues(t, 2, got.Revision)
	_, err = db.Store.Tenant("other").Profile(ctx, "u")
	require.ErrorIs(t, err, store.ErrNotFound)

	_, err = ten.SaveProfile(ctx, store.Profile{UserID: "u", Vector: []float32{1}, Dims: 2})
	require.Error(t, err)
}
