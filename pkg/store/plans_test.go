package store_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testenv"
	"github.com/recallhq/recall/pkg/store"
)

// genericPlan is the plan PostgreSQL keeps for a prepared statement once it
// settles on a generic one (as it does for pgx's cached statements after
// five executions), made now, on the tables as they are; args are the
// parameters' values as SQL literals.
func genericPlan(t *testing.T, db *testenv.DB, query string, args ...string) string {
	t.Helper()
	ctx := context.Background()
	conn, err := db.Store.Pool().Acquire(ctx)
	require.NoError(t, err)
	defer conn.Release()
	_, err = conn.Exec(ctx, `SET plan_cache_mode = force_generic_plan`)
	require.NoError(t, err)
	_, err = conn.Exec(ctx, "PREPARE plan_check AS "+query)
	require.NoError(t, err)
	defer func() {
		_, err := conn.Exec(ctx, `DEALLOCATE plan_check; RESET plan_cache_mode`)
		require.NoError(t, err)
	}()
	return planText(t)(conn.Query(ctx, "EXPLAIN EXECUTE plan_check("+strings.Join(args, ", ")+")", pgx.QueryExecModeSimpleProtocol))
}

// planText reads the answer of an EXPLAIN, a line of the plan a row, into
// one text: planText(t)(conn.Query(ctx, "EXPLAIN "+sql, args...)).
func planText(t *testing.T) func(pgx.Rows, error) string {
	return func(rows pgx.Rows, err error) string {
		t.Helper()
		require.NoError(t, err)
		lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
		require.NoError(t, err)
		return strings.Join(lines, "\n")
	}
}

// On tables never analyzed (a new deployment's first import), the
// summarizer's lookups of a session's current summary, made with every
// summary it writes, are planned on the session's index: the user's index,
// with the tenant as its only condition, scanned every current summary of
// the tenant for each (133 million index entries in one make check-data).
// The context's query of a user's summaries still uses the user's index.
func TestSummaryPlansOnAnEmptyTable(t *testing.T) {
	t.Parallel()
	db := testenv.NewDB(t)
	for name, query := range map[string]string{
		"retire":      store.Query(store.QSummaryRetire),
		"get current": store.Query(store.QSummaryGetCurrent),
	} {
		plan := genericPlan(t, db, query, "'t'", "'s1'")
		require.NotContains(t, plan, "session_summaries_user_idx", "%s:\n%s", name, plan)
		require.Regexp(t, `Index Cond: .*session_id = `, plan, "%s: the session is an index condition", name)
	}
	plan := genericPlan(t, db, store.Query(store.QSummaryListForContext), "'t'", "'u1'", "'s1'", "3")
	require.Contains(t, plan, "session_summaries_user_idx", plan)
	// A page of a user's sessions reads each one's current summary by its
	// session, not by scanning the tenant's.
	plan = genericPlan(t, db, store.Query(store.QSummaryListCurrent), "'t'", "ARRAY['s1','s2']")
	require.Regexp(t, `Index Cond: \(\(tenant_id = \$1\) AND \(session_id = u.session_id\)\)`, plan)
}

// The history search of every context with a query reads the user's range
// of the primary key, however empty the table was when it was prepared: the
// session index with the tenant as its only condition would scan every
// entry of the tenant for each search.
func TestSearchScanPlanOnAnEmptyTable(t *testing.T) {
	t.Parallel()
	db := testenv.NewDB(t)
	plan := genericPlan(t, db, store.Query(store.QSearchScan), "'t'", "'u1'", "NULL", "NULL", "'m'", "false")
	require.Regexp(t, `Index Scan using search_entries_pkey on search_entries e .*\n\s+Index Cond: \(\(tenant_id = \$1\) AND \(user_id = \$2\)\)`, plan)
	require.NotContains(t, plan, "Sort", "the primary key gives the order")
}
