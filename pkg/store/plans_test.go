package store_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/store"
)

// genericPlan is the plan PostgreSQL keeps for a prepared statement once it
// settles on a generic one (as it does for pgx's cached statements after
// five executions), made now, on the tables as they are; args are the
// parameters' values as SQL literals.
func genericPlan(t *testing.T, db *testenv.DB, query string, args ...string) string {
	t.Helper()
	return genericPlanWith(t, db, "", query, args...)
}

// genericPlanWith is genericPlan with the planner's settings changed by set
// (SQL), for the plan's duration.
func genericPlanWith(t *testing.T, db *testenv.DB, set, query string, args ...string) string {
	t.Helper()
	ctx := context.Background()
	conn, err := db.Store.Pool().Acquire(ctx)
	require.NoError(t, err)
	defer conn.Release()
	_, err = conn.Exec(ctx, `SET plan_cache_mode = force_generic_plan; `+set)
	require.NoError(t, err)
	_, err = conn.Exec(ctx, "PREPARE plan_check AS "+query)
	require.NoError(t, err)
	defer func() {
		_, err := conn.Exec(ctx, `DEALLOCATE plan_check; RESET ALL`)
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
	for _, from := range []string{"NULL", "4000"} {
		plan := genericPlan(t, db, store.Query(store.QSearchScan), "'t'", "'u1'", "NULL", "NULL", "'m'", "false", from)
		require.Regexp(t, `Index Scan using search_entries_pkey on search_entries e .*\n\s+Index Cond: \(\(tenant_id = \$1\) AND \(user_id = \$2\)\)`, plan)
		require.NotContains(t, plan, "Sort", "the primary key gives the order")
	}
}

// A large user's search reads through the user's indexes, whatever the
// tables held when it was prepared and whether they were ever analyzed (a
// deployment whose autovacuum is off, or that has just imported a user):
// its newest entries by the time index, the holders of its rare terms by
// the GIN postings of the user (the only index keyed by tenant and user as
// one), the chosen sessions by the session index and their lengths by the
// sessions' key, then every entry read by its place (a TID scan); never a
// scan of a table, nor of a user's or a tenant's range for each lookup.
//
// The tables hold three users of 3,000 entries each, as written, never
// analyzed: a large user is one of thousands of entries. (On tables quite
// empty a term's holders are read by a scan of the table, cheapest then;
// pgx's connections, and with them the plans, are renewed within the hour.)
func TestSearchCandidatesPlanNeverAnalyzed(t *testing.T) {
	t.Parallel()
	db := testenv.NewDB(t)
	ctx := context.Background()
	words := []string{"garden", "tomato", "film", "cooking", "travel", "music", "piano", "coffee", "running", "books"}
	// Turns of 40 terms, of which one in 500 holds a given rare one.
	terms := func(i int) []string {
		out := []string{fmt.Sprintf("w%d", i%500)}
		for k := range 39 {
			out = append(out, words[(i+k)%len(words)]+fmt.Sprint(k%4))
		}
		return out
	}
	var entries []store.SearchEntry
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for u := range 3 {
		for i := range 3000 {
			entries = append(entries, store.SearchEntry{TenantID: "t", UserID: fmt.Sprintf("u%d", u), Kind: store.SearchMessage,
				SourceID: fmt.Sprintf("e%d-%d", u, i), SessionID: fmt.Sprintf("s%d-%d", u, i/10), Role: "user",
				OccurredAt: at.Add(time.Duration(i) * time.Minute), Text: strings.Repeat("a turn of some length ", 20), Terms: terms(i)})
		}
	}
	for len(entries) > 0 {
		n := min(len(entries), 1000)
		_, err := db.Store.UpsertSearchEntries(ctx, entries[:n])
		require.NoError(t, err)
		entries = entries[n:]
	}
	plan := genericPlan(t, db, store.Query(store.QSearchCandidates), "'t'", "'u1'", `'''w7'' | ''garden0'''`, "NULL", "'m'", "false", "2000",
		`ARRAY['''w7''', '''garden0''']`, "NULL", "200", "1000", "40", "60",
		"ARRAY['2026-01-01T00:00:00Z']::timestamptz[]", "ARRAY['2026-01-02T00:00:00Z']::timestamptz[]", `ARRAY['''§age''']`)
	for _, index := range []string{"search_entries_user_time_idx", "search_entries_user_terms_idx", "search_entries_session_idx", "sessions_pkey", "Tid Scan on search_entries"} {
		require.Contains(t, plan, index, plan)
	}
	require.NotRegexp(t, `Seq Scan on (search_entries|sessions|facts)`, plan, plan)
	require.GreaterOrEqual(t, strings.Count(plan, "on search_entries_user_terms_idx"), 2, "the rare terms' holders and the marked entries, through the GIN index: %s", plan)
	require.NotRegexp(t, `Index Cond: \(\(tenant_id = \$1\) AND \(user_id = \$2\)\)\n\s+Filter: .*(session_id|source_id|terms)`, plan, "no range of the user read through for each lookup")
	require.Regexp(t, `Index Cond: \(\(tenant_id = \$1\) AND \(session_id = c.session_id\)\)`, plan)
}

// A context read as of a moment reads the user's facts from their mentions
// before it, grouped by fact, and joins them to the facts, both sides in the
// order of the facts' key. On tables never analyzed (the database of a
// fresh import, and of make eval-longmem) the planner took a nested loop
// that read all of the user's facts again for each one mentioned, with their
// type and value as a filter: 255,255 rows and 117 ms for a user of 715
// facts, in every context asked with `at`. The store reads it with nested
// loops off (store.SetNoNestLoop), and then it is one merge join.
func TestFactsBeforePlanOnAnEmptyTable(t *testing.T) {
	t.Parallel()
	db := testenv.NewDB(t)
	plan := genericPlanWith(t, db, store.SetNoNestLoop, store.Query(store.QFactListByUserBefore), "'t'", "'u1'", "now()", "40")
	require.Contains(t, plan, "Merge Join", plan)
	require.Regexp(t, `Merge Cond: \(\(fact_mentions\.type = f\.type\) AND \(fact_mentions\.value = f\.value\)\)`, plan)
	require.Regexp(t, `Index Scan using facts_pkey on facts f .*\n\s+Index Cond: \(\(tenant_id = \$1\) AND \(user_id = \$2\)\)`, plan)
	require.NotContains(t, plan, "Nested Loop", plan)
	require.NotContains(t, plan, "Seq Scan", plan)
}
