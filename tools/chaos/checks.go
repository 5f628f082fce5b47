package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// expected is what the database must hold, from what the stream
// acknowledged.
type expected struct {
	Messages map[string]int64 // distinct ids, by tenant
	System   map[string]int64 // system turns, by tenant
	Sessions map[string]int64 // distinct sessions, by tenant
	Mentions map[string]int64 // the rules' mentions of user turns, by tenant
	Lists    map[string]int64 // turns presenting a list, by tenant
	Shown    map[string]int64 // Σ distinct refs of those lists, by tenant
	IDs      map[turnKey]bool
}

func newExpected() *expected {
	return &expected{Messages: map[string]int64{}, System: map[string]int64{}, Sessions: map[string]int64{},
		Mentions: map[string]int64{}, Lists: map[string]int64{}, Shown: map[string]int64{}, IDs: map[turnKey]bool{}}
}

// expectFrom counts the acknowledged turns of the workload.
func expectFrom(ctx context.Context, w *workload, acked map[turnKey]bool, mc *mentionCounter) (*expected, error) {
	e := newExpected()
	sessions := map[[2]string]bool{}
	for i := range w.Turns {
		pt := &w.Turns[i]
		t := &pt.Turn
		if !acked[pt.Key()] {
			continue
		}
		e.IDs[pt.Key()] = true
		e.Messages[t.TenantID]++
		if t.Role == "system" {
			e.System[t.TenantID]++
		}
		if !sessions[[2]string{t.TenantID, t.SessionID}] {
			sessions[[2]string{t.TenantID, t.SessionID}] = true
			e.Sessions[t.TenantID]++
		}
		n, err := mc.Count(ctx, t)
		if err != nil {
			return nil, err
		}
		e.Mentions[t.TenantID] += int64(n)
		if pt.Refs > 0 {
			e.Lists[t.TenantID]++
			e.Shown[t.TenantID] += int64(pt.Refs)
		}
	}
	return e, nil
}

// perTenant runs a query answering (tenant_id, value) rows.
func perTenant(ctx context.Context, db *pgxpool.Pool, sql string) (map[string]int64, error) {
	rows, err := db.Query(ctx, sql)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var t string
		var n int64
		if err := rows.Scan(&t, &n); err != nil {
			return nil, err
		}
		out[t] = n
	}
	return out, rows.Err()
}

func scalar(ctx context.Context, db *pgxpool.Pool, sql string) (int64, error) {
	var n int64
	err := db.QueryRow(ctx, sql).Scan(&n)
	return n, err
}

// tenantRows compares a per-tenant count with its expectation: one row per
// tenant and a total.
func tenantRows(name string, tenants []string, want, got map[string]int64) []checkRow {
	var out []checkRow
	var tw, tg int64
	for _, t := range tenants {
		out = append(out, countRow(fmt.Sprintf("%s [%s]", name, t), want[t], got[t]))
		tw += want[t]
		tg += got[t]
	}
	for t, n := range got {
		if _, ok := want[t]; !ok {
			out = append(out, countRow(fmt.Sprintf("%s [%s, never published]", name, t), 0, n))
			tg += n
		}
	}
	out = append(out, countRow(name+" [all]", tw, tg))
	return out
}

func countRow(name string, want, got int64) checkRow {
	st := statusPass
	if want != got {
		st = statusFail
	}
	return checkRow{Name: name, Expected: fmt.Sprint(want), Got: fmt.Sprint(got), Status: st}
}

// Queries. Summary topics are recorded as mentions under an event id with
// a control character (store.SummaryEventID), which no turn id can hold.
const (
	qMessages      = `SELECT tenant_id, count(*) FROM messages GROUP BY 1`
	qSessions      = `SELECT tenant_id, count(*) FROM sessions GROUP BY 1`
	qSessionCounts = `SELECT tenant_id, sum(message_count)::bigint FROM sessions GROUP BY 1`
	qSystemCounts  = `SELECT tenant_id, sum(system_count)::bigint FROM sessions GROUP BY 1`
	qTurnMentions  = `SELECT tenant_id, count(*) FROM fact_mentions WHERE strpos(event_id, chr(31)) = 0 GROUP BY 1`
	qSeenLists     = `SELECT tenant_id, count(*) FROM seen_lists GROUP BY 1`
	qTimesShown    = `SELECT tenant_id, sum(times_shown)::bigint FROM seen_items GROUP BY 1`
	qSessionsOff   = `
		SELECT count(*) FROM sessions s
		LEFT JOIN (SELECT tenant_id, session_id, count(*) AS n, count(*) FILTER (WHERE role = 'system') AS sys
		           FROM messages GROUP BY 1, 2) m USING (tenant_id, session_id)
		WHERE s.message_count <> coalesce(m.n, 0) OR s.system_count <> coalesce(m.sys, 0)`
	qMessagesNoSess = `
		SELECT count(*) FROM messages m
		WHERE NOT EXISTS (SELECT 1 FROM sessions s WHERE s.tenant_id = m.tenant_id AND s.session_id = m.session_id)`
	// A turn's entry holds its text and the titles of the list it showed
	// (search.TurnEntry); one with neither has none.
	qUnindexed = `
		SELECT count(*) FROM messages m
		WHERE m.role IN ('user', 'assistant')
		  AND (btrim(m.content, E' \t\n\r\f\v') <> '' OR EXISTS (
		      SELECT 1 FROM jsonb_array_elements(CASE WHEN jsonb_typeof(m.items) = 'array' THEN m.items ELSE '[]' END) it
		      WHERE coalesce(it->>'title', '') <> ''))
		  AND NOT EXISTS (
		      SELECT 1 FROM search_entries e
		      WHERE e.tenant_id = m.tenant_id AND e.user_id = m.user_id AND e.kind = 'message' AND e.source_id = m.event_id)`
	// The unique key makes this 0; the check says so in the table.
	qDuplicated     = `SELECT count(*) - count(DISTINCT (tenant_id, event_id)) FROM messages`
	qMentionDupKeys = `SELECT count(*) - count(DISTINCT (tenant_id, event_id, type, value)) FROM fact_mentions`
	qFactCountsOff  = `
		SELECT count(*) FROM facts f
		LEFT JOIN (SELECT tenant_id, user_id, type, value, count(*) AS n FROM fact_mentions GROUP BY 1, 2, 3, 4) m
		  USING (tenant_id, user_id, type, value)
		WHERE f.mention_count <> coalesce(m.n, 0)`
	qOrphanMentions = `
		SELECT count(*) FROM fact_mentions m
		WHERE NOT EXISTS (SELECT 1 FROM facts f WHERE f.tenant_id = m.tenant_id AND f.user_id = m.user_id
		                  AND f.type = m.type AND f.value = m.value)`
)

// dbChecks compares the database with what was published.
func dbChecks(ctx context.Context, db *pgxpool.Pool, tenants []string, e *expected) ([]checkRow, error) {
	var out []checkRow
	for _, c := range []struct {
		name string
		sql  string
		want map[string]int64
	}{
		{"messages rows = distinct ids published", qMessages, e.Messages},
		{"sessions rows = distinct sessions published", qSessions, e.Sessions},
		{"Σ sessions.message_count = distinct ids", qSessionCounts, e.Messages},
		{"Σ sessions.system_count = system turns", qSystemCounts, e.System},
		{"extractor mentions = rules over published user turns", qTurnMentions, e.Mentions},
		{"seen_lists rows = turns presenting a list", qSeenLists, e.Lists},
		{"Σ seen_items.times_shown = refs presented", qTimesShown, e.Shown},
	} {
		got, err := perTenant(ctx, db, c.sql)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.name, err)
		}
		out = append(out, tenantRows(c.name, tenants, c.want, got)...)
	}
	for _, c := range []struct{ name, sql string }{
		{"sessions whose counts ≠ their messages", qSessionsOff},
		{"messages without a session", qMessagesNoSess},
		{"duplicate fact_mentions keys", qMentionDupKeys},
		{"facts whose mention_count ≠ their mentions", qFactCountsOff},
		{"mentions without a fact", qOrphanMentions},
		{"user and assistant turns with text and no search entry", qUnindexed},
	} {
		n, err := scalar(ctx, db, c.sql)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.name, err)
		}
		out = append(out, countRow(c.name, 0, n))
	}
	return out, nil
}

// missingIDs lists the acknowledged ids the database does not hold.
func missingIDs(ctx context.Context, db *pgxpool.Pool, e *expected) ([]turnKey, error) {
	rows, err := db.Query(ctx, `SELECT tenant_id, event_id FROM messages`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	have := map[turnKey]bool{}
	for rows.Next() {
		var k turnKey
		if err := rows.Scan(&k.Tenant, &k.ID); err != nil {
			return nil, err
		}
		have[k] = true
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var out []turnKey
	for k := range e.IDs {
		if !have[k] {
			out = append(out, k)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Tenant != out[j].Tenant {
			return out[i].Tenant < out[j].Tenant
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// summaryRow is one version of a session's summary.
type summaryRow struct {
	Tenant, Session    string
	Version            int
	FromCount, Through int64
	Current            bool
	// Last is the newest message it read: the cursor the next version
	// reads after.
	Last msgKey
}

// msgKey orders a session's messages as the summarizer reads them: by
// event time, then event id (byte order; the run's cluster uses the C
// collation).
type msgKey struct {
	At time.Time
	ID string
}

func (a msgKey) lessEq(b msgKey) bool {
	if !a.At.Equal(b.At) {
		return a.At.Before(b.At)
	}
	return a.ID <= b.ID
}

// sessionState is what a session's summaries must account for.
type sessionState struct {
	Summarized, NonSystem int64
	// Messages are the session's non-system messages.
	Messages []msgKey
}

// summaryFindings are the sessions whose summary ranges are not contiguous.
type summaryFindings struct {
	// Late are gaps that messages committed after a summary had passed
	// their event time account for: the summarizer reads after the previous
	// summary's newest message, finds nothing new, and marks the range
	// covered without writing a version (README, Session summaries, "Known
	// limit").
	Late []string
	// Other are every other problem: a gap nothing accounts for, an
	// overlap, versions out of order, the wrong version current, ranges
	// that do not end at the session's summarized_count.
	Other []string
}

// summaryProblems checks each session's versions: numbered 1..n in the
// order of their ranges, the first from 0, each starting where the previous
// ended, only the last current, the last ending at the session's
// summarized_count. A gap after version k of size g is put down to late
// commits when at least g of the session's messages sort at or before k's
// newest message but were not counted in k's range (they were committed
// after k was written). rows must be ordered by tenant, session, from_count.
func summaryProblems(rows []summaryRow, state map[[2]string]sessionState) summaryFindings {
	var f summaryFindings
	bySession := map[[2]string][]summaryRow{}
	var order [][2]string
	for _, r := range rows {
		k := [2]string{r.Tenant, r.Session}
		if _, ok := bySession[k]; !ok {
			order = append(order, k)
		}
		bySession[k] = append(bySession[k], r)
	}
	for k, st := range state {
		if _, ok := bySession[k]; !ok && st.Summarized > 0 {
			order = append(order, k)
		}
	}
	for _, k := range order {
		vs, st := bySession[k], state[k]
		var other, late []string
		// gap judges the range (from, to) left between version prev (nil:
		// none) and what follows it.
		gap := func(prev *summaryRow, from, to int64, what string) {
			if prev != nil {
				behind := int64(0)
				for _, m := range st.Messages {
					if m.lessEq(prev.Last) {
						behind++
					}
				}
				if behind-prev.Through >= to-from {
					late = append(late, fmt.Sprintf("%s %d..%d after v%d, whose newest message %d later-committed ones sort before", what, from, to, prev.Version, behind-prev.Through))
					return
				}
			}
			other = append(other, fmt.Sprintf("%s %d..%d", what, from, to))
		}
		var next int64
		for i := range vs {
			v := &vs[i]
			var prev *summaryRow
			if i > 0 {
				prev = &vs[i-1]
			}
			if v.Version != i+1 {
				other = append(other, fmt.Sprintf("version %d at position %d", v.Version, i+1))
			}
			switch {
			case v.FromCount > next:
				gap(prev, next, v.FromCount, "gap")
			case v.FromCount < next:
				other = append(other, fmt.Sprintf("overlap: v%d covers %d..%d after %d", v.Version, v.FromCount, v.Through, next))
			}
			if v.Current != (i == len(vs)-1) {
				other = append(other, fmt.Sprintf("v%d current=%t", v.Version, v.Current))
			}
			next = v.Through
		}
		switch {
		case st.Summarized > next:
			var prev *summaryRow
			if len(vs) > 0 {
				prev = &vs[len(vs)-1]
			}
			gap(prev, next, st.Summarized, "range marked summarized without a version")
		case st.Summarized < next:
			other = append(other, fmt.Sprintf("summaries end at %d, summarized_count %d", next, st.Summarized))
		}
		name := k[0] + "/" + k[1] + ": "
		if len(other) > 0 {
			f.Other = append(f.Other, name+strings.Join(append(other, late...), "; "))
		} else if len(late) > 0 {
			f.Late = append(f.Late, name+strings.Join(late, "; "))
		}
	}
	sort.Strings(f.Late)
	sort.Strings(f.Other)
	return f
}

// summaryChecks reads every summary, session and non-system message and
// checks the ranges.
func summaryChecks(ctx context.Context, db *pgxpool.Pool) ([]checkRow, error) {
	rows, err := db.Query(ctx, `SELECT tenant_id, session_id, version, from_count, through_count, current, last_at, last_event_id
		FROM session_summaries ORDER BY tenant_id, session_id, from_count`)
	if err != nil {
		return nil, err
	}
	var sums []summaryRow
	for rows.Next() {
		var r summaryRow
		if err := rows.Scan(&r.Tenant, &r.Session, &r.Version, &r.FromCount, &r.Through, &r.Current, &r.Last.At, &r.Last.ID); err != nil {
			rows.Close()
			return nil, err
		}
		sums = append(sums, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	state := map[[2]string]sessionState{}
	srows, err := db.Query(ctx, `SELECT tenant_id, session_id, summarized_count, message_count - system_count FROM sessions`)
	if err != nil {
		return nil, err
	}
	var behind []string
	for srows.Next() {
		var t, s string
		var st sessionState
		if err := srows.Scan(&t, &s, &st.Summarized, &st.NonSystem); err != nil {
			srows.Close()
			return nil, err
		}
		state[[2]string{t, s}] = st
		if st.Summarized != st.NonSystem {
			behind = append(behind, fmt.Sprintf("%s/%s: %d of %d", t, s, st.Summarized, st.NonSystem))
		}
	}
	srows.Close()
	if err := srows.Err(); err != nil {
		return nil, err
	}
	mrows, err := db.Query(ctx, `SELECT tenant_id, session_id, occurred_at, event_id FROM messages WHERE role <> 'system'`)
	if err != nil {
		return nil, err
	}
	for mrows.Next() {
		var t, s string
		var m msgKey
		if err := mrows.Scan(&t, &s, &m.At, &m.ID); err != nil {
			mrows.Close()
			return nil, err
		}
		st := state[[2]string{t, s}]
		st.Messages = append(st.Messages, m)
		state[[2]string{t, s}] = st
	}
	mrows.Close()
	if err := mrows.Err(); err != nil {
		return nil, err
	}
	sort.Strings(behind)
	f := summaryProblems(sums, state)
	other := countRow(fmt.Sprintf("sessions whose summary ranges are not contiguous from 0 (%d summaries)", len(sums)), 0, int64(len(f.Other)))
	other.Evidence = firstN(f.Other, 5)
	// Every message of a session is read into some version whatever the
	// order ingest commits them in, so a late commit leaves no gap either.
	late := countRow("sessions with a summary gap from late commits", 0, int64(len(f.Late)))
	late.Evidence = firstN(f.Late, 5)
	full := countRow("sessions not summarized to their last message", 0, int64(len(behind)))
	full.Evidence = firstN(behind, 5)
	return []checkRow{other, late, full}, nil
}

func firstN(xs []string, n int) string {
	if len(xs) <= n {
		return strings.Join(xs, "; ")
	}
	return strings.Join(xs[:n], "; ") + fmt.Sprintf("; … %d more", len(xs)-n)
}

// snapshotCounts are the row counts a replay must leave unchanged.
var snapshotQueries = []struct{ name, sql string }{
	{"messages", `SELECT count(*) FROM messages`},
	{"sessions", `SELECT count(*) FROM sessions`},
	{"Σ sessions.message_count", `SELECT coalesce(sum(message_count), 0)::bigint FROM sessions`},
	{"fact_mentions of turns", `SELECT count(*) FROM fact_mentions WHERE strpos(event_id, chr(31)) = 0`},
	{"fact_mentions of summaries", `SELECT count(*) FROM fact_mentions WHERE strpos(event_id, chr(31)) > 0`},
	{"facts", `SELECT count(*) FROM facts`},
	{"Σ facts.mention_count", `SELECT coalesce(sum(mention_count), 0)::bigint FROM facts`},
	{"session_summaries", `SELECT count(*) FROM session_summaries`},
	{"seen_lists", `SELECT count(*) FROM seen_lists`},
	{"Σ seen_items.times_shown", `SELECT coalesce(sum(times_shown), 0)::bigint FROM seen_items`},
}

func snapshot(ctx context.Context, db *pgxpool.Pool) (map[string]int64, error) {
	out := map[string]int64{}
	for _, q := range snapshotQueries {
		n, err := scalar(ctx, db, q.sql)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", q.name, err)
		}
		out[q.name] = n
	}
	return out, nil
}
