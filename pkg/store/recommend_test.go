package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/embed"
	"github.com/recallhq/recall/pkg/store"
)

// near is a unit-ish vector close to axis 0, with noise from r.
func near(r *rand.Rand, dims int, noise float32) []float32 {
	v := make([]float32, dims)
	v[0] = 1
	for i := range v {
		v[i] += noise * (r.Float32()*2 - 1)
	}
	return v
}

func randomVec(r *rand.Rand, dims int) []float32 {
	v := make([]float32, dims)
	for i := range v {
		v[i] = r.Float32()*2 - 1
	}
	return v
}

func axis(dims int) []float32 {
	v := make([]float32, dims)
	v[0] = 1
	return v
}

func refs(recs []store.Recommendation) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r.Ref
	}
	return out
}

// requireExact checks recommendations against a brute-force ranking of the
// candidates: same distances, ordered nearest first.
func requireSorted(t *testing.T, recs []store.Recommendation, vecs map[string][]float32, q []float32) {
	t.Helper()
	for i, r := range recs {
		require.InDelta(t, 1-embed.Cosine(vecs[r.Ref], q), r.Distance, 1e-5, r.Ref)
		require.InDelta(t, 1-r.Distance, r.Score, 1e-12)
		if i > 0 {
			require.LessOrEqual(t, recs[i-1].Distance, r.Distance, "ordered by distance")
		}
	}
}

func bruteForce(vecs map[string][]float32, q []float32, k int) []string {
	all := make([]string, 0, len(vecs))
	for ref := range vecs {
		all = append(all, ref)
	}
	sort.Slice(all, func(i, j int) bool {
		di, dj := 1-embed.Cosine(vecs[all[i]], q), 1-embed.Cosine(vecs[all[j]], q)
		if di != dj {
			return di < dj
		}
		return all[i] < all[j]
	})
	return all[:min(k, len(all))]
}

func TestRecommendFiltersAndTenantIsolation(t *testing.T) {
	t.Parallel()
	db := testenv.NewDB(t)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(1, 2))
	const dims = 8
	mine := map[string][]float32{}
	var items []store.CatalogUpsert
	for i := range 30 {
		ref := fmt.Sprintf("/a/%02d", i)
		mine[ref] = randomVec(r, dims)
		items = append(items, item("A", ref, "e", t0, mine[ref]...))
		// The other tenant's items are all closer to the query than any of A's.
		items = append(items, item("B", ref, "e", t0, near(r, dims, 0.01)...))
	}
	// Items the query must never return: deleted, another model, another dimension.
	deleted := item("A", "/a/deleted", "e", t0, axis(dims)...)
	deleted.Deleted = true
	otherModel := item("A", "/a/other-model", "e", t0, axis(dims)...)
	otherModel.EmbeddingModel = "another-model"
	items = append(items, deleted, otherModel, item("A", "/a/short", "e", t0, 1, 0, 0))
	_, err := db.Store.ApplySignals(ctx, items, nil)
	require.NoError(t, err)
	q := axis(dims)
	top := bruteForce(mine, q, 3)
	_, err = db.Store.ApplySignals(ctx, nil, []store.ShelfUpsert{
		shelfEntry("A", "u", top[0], "read", "s1", t0),
		shelfEntry("A", "u", top[1], "abandoned", "s2", t0),
		shelfEntry("A", "u", top[2], "removed", "s3", t0), // off the shelf again: recommendable
		shelfEntry("A", "someone-else", bruteForce(mine, q, 4)[3], "read", "s4", t0),
	})
	require.NoError(t, err)
	delete(mine, top[0])
	delete(mine, top[1])

	check := func(st *store.Store) {
		t.Helper()
		recs, err := st.Tenant("A").Recommend(ctx, "u", q, "test-model", 10)
		require.NoError(t, err)
		require.Len(t, recs, 10)
		require.Equal(t, bruteForce(mine, q, 10), refs(recs), "A's own nearest items, shelf excluded")
		requireSorted(t, recs, mine, q)
		for _, rec := range recs {
			require.True(t, strings.HasPrefix(rec.Ref, "/a/"), rec.Ref)
			require.Contains(t, rec.Title, "title of")
			require.NotContains(t, []string{"/a/deleted", "/a/other-model", "/a/short"}, rec.Ref)
		}
		all, err := st.Tenant("A").Recommend(ctx, "u", q, "test-model", 100)
		require.NoError(t, err)
		require.Len(t, all, 28, "every eligible item, no more")
		none, err := st.Tenant("C").Recommend(ctx, "u", q, "test-model", 10)
		require.NoError(t, err)
		require.Empty(t, none)
	}
	check(db.Store)
	require.NoError(t, db.Store.EnsureCatalogIndex(ctx, dims))
	require.NoError(t, db.Store.EnsureCatalogIndex(ctx, dims), "idempotent")
	check(db.Store)
	check(forcedIndexStore(t, db))
}

// forcedIndexStore opens a second pool on db whose sessions avoid seq scans,
// bitmap scans and sorts, so that the planner takes the HNSW index even where
// the tenant filter is selective (left alone, it reads a small tenant's rows by
// primary key and sorts them, exactly; it picks the index for large tenants).
func forcedIndexStore(t *testing.T, db *testenv.DB) *store.Store {
	t.Helper()
	ctx := context.Background()
	for _, setting := range []string{"enable_seqscan", "enable_bitmapscan", "enable_sort", "jit"} {
		_, err := db.Store.Pool().Exec(ctx, fmt.Sprintf(`ALTER DATABASE %s SET %s = off`, pgx.Identifier{db.Name}.Sanitize(), setting))
		require.NoError(t, err)
	}
	st, err := store.Open(ctx, store.Config{URL: db.URL, MaxConns: 2})
	require.NoError(t, err)
	t.Cleanup(st.Close)
	return st
}

// TestRecommendHNSWWithTenantFilter pins the index design: a large tenant whose
// items all crowd the query, and a small one whose items are far. A plain HNSW
// scan hands the first ef_search candidates to the tenant filter and returns
// none of the small tenant's items; the iterative scan keeps going until k
// pass, and the plan is an index scan on the partial expression index.
func TestRecommendHNSWWithTenantFilter(t *testing.T) {
	t.Parallel()
	db := testenv.NewDB(t)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(3, 4))
	const dims = 8
	small := map[string][]float32{}
	var items []store.CatalogUpsert
	for i := range 3000 {
		items = append(items, item("big", fmt.Sprintf("/big/%04d", i), "e", t0, near(r, dims, 0.05)...))
	}
	for i := range 40 {
		ref := fmt.Sprintf("/small/%02d", i)
		small[ref] = randomVec(r, dims)
		items = append(items, item("small", ref, "e", t0, small[ref]...))
	}
	_, err := db.Store.ApplySignals(ctx, items, nil)
	require.NoError(t, err)
	require.NoError(t, db.Store.EnsureCatalogIndex(ctx, dims))
	_, err = db.Store.Pool().Exec(ctx, `ANALYZE catalog_items`)
	require.NoError(t, err)
	st := forcedIndexStore(t, db)
	q := axis(dims)

	recs, err := st.Tenant("small").Recommend(ctx, "u", q, "test-model", 10)
	require.NoError(t, err)
	require.Len(t, recs, 10, "the tenant filter still lets k rows through")
	requireSorted(t, recs, small, q)
	for _, rec := range recs {
		require.True(t, strings.HasPrefix(rec.Ref, "/small/"), rec.Ref)
	}

	sql := store.WithDims(store.Query(store.QCatalogNearest), dims)
	args := []any{"small", "u", vecLiteral(q), "test-model", 10}
	conn, err := st.Pool().Acquire(ctx)
	require.NoError(t, err)
	defer conn.Release()
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, store.Query(store.QCatalogSearchSettings), "40")
		require.NoError(t, err)
		joined := planText(t)(tx.Query(ctx, "EXPLAIN "+sql, args...))
		t.Logf("plan:\n%s", joined)
		require.Contains(t, joined, "Index Scan using "+store.CatalogIndexName(dims)+" on catalog_items", joined)
		require.Contains(t, joined, "Order By: ((embedding)::vector(8) <=>", joined)

		// Without the iterative scan, the same query finds nothing of this tenant.
		_, err = tx.Exec(ctx, `SET LOCAL hnsw.iterative_scan = off`)
		require.NoError(t, err)
		var n int
		require.NoError(t, tx.QueryRow(ctx, "SELECT count(*) FROM ("+strings.TrimSuffix(sql, ";")+") x", args...).Scan(&n))
		require.Less(t, n, 10, "a plain HNSW scan starves the tenant filter")
		return nil
	})
	require.NoError(t, err)

	// Left to itself, the planner reads the small tenant by primary key and
	// sorts exactly, and serves the big one from the index.
	require.Contains(t, explain(t, db.Store, sql, args...), "Index Scan using catalog_items_pkey")
	args[0] = "big"
	require.Contains(t, explain(t, db.Store, sql, args...), "Index Scan using "+store.CatalogIndexName(dims))
	recs, err = db.Store.Tenant("big").Recommend(ctx, "u", q, "test-model", 20)
	require.NoError(t, err)
	require.Len(t, recs, 20)
}

// explain returns the plan of sql with the search settings Recommend uses.
func explain(t *testing.T, st *store.Store, sql string, args ...any) string {
	t.Helper()
	ctx := context.Background()
	var plan string
	err := pgx.BeginFunc(ctx, st.Pool(), func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, store.Query(store.QCatalogSearchSettings), "40"); err != nil {
			return err
		}
		plan = planText(t)(tx.Query(ctx, "EXPLAIN "+sql, args...))
		return nil
	})
	require.NoError(t, err)
	t.Logf("plan for %v:\n%s", args[0], plan)
	return plan
}

func vecLiteral(v []float32) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = fmt.Sprint(x)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

func TestEnsureCatalogIndex(t *testing.T) {
	t.Parallel()
	db := testenv.NewDB(t)
	ctx := context.Background()
	require.Error(t, db.Store.EnsureCatalogIndex(ctx, 0))
	require.Error(t, db.Store.EnsureCatalogIndex(ctx, store.MaxIndexedDims+1))

	// Replicas starting together build the index once, without errors.
	errs := make(chan error, 4)
	for range 4 {
		go func() { errs <- db.Store.EnsureCatalogIndex(ctx, 16) }()
	}
	for range 4 {
		require.NoError(t, <-errs)
	}
	// An invalid leftover (an interrupted concurrent build) is rebuilt.
	_, err := db.Store.Pool().Exec(ctx, `UPDATE pg_index SET indisvalid = false WHERE indexrelid = $1::regclass`, store.CatalogIndexName(16))
	require.NoError(t, err)
	require.NoError(t, db.Store.EnsureCatalogIndex(ctx, 16))
	var valid bool
	require.NoError(t, db.Store.Pool().QueryRow(ctx, `SELECT indisvalid FROM pg_index WHERE indexrelid = $1::regclass`, store.CatalogIndexName(16)).Scan(&valid))
	require.True(t, valid)
}
