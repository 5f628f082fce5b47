package store_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/record"
	"github.com/recallhq/recall/pkg/store"
	"github.com/recallhq/recall/pkg/summarize"
)

// defaultTrigger is the default summary policy as the ingest worker hands it
// to the store (10 messages, 5 minutes).
var defaultTrigger = store.SummaryTrigger{EveryMessages: summarize.DefaultPolicy.EveryMessages, MinInterval: summarize.DefaultPolicy.MinInterval}

// summaryOf is the next version of a session's summary as the summarizer
// writes it: it reads the oldest unread messages (at most 20).
func summaryOf(t *testing.T, db *testenv.DB, tenant, session string, version int, from int64) store.SummaryWrite {
	t.Helper()
	in, err := db.Store.Tenant(tenant).SummaryInput(context.Background(), session, 20)
	require.NoError(t, err)
	require.NotEmpty(t, in.Messages)
	first, last := in.Messages[0], in.Messages[len(in.Messages)-1]
	sum := record.Summary{SessionID: session, UserID: in.State.UserID, Version: version, FromCount: from, ThroughCount: from + int64(len(in.Messages)),
		FirstEventID: first.EventID, FirstAt: first.OccurredAt, LastEventID: last.EventID, LastAt: last.OccurredAt,
		CoversFrom: first.OccurredAt, CoversTo: last.OccurredAt,
		MessagesRead: len(in.Messages), Text: fmt.Sprintf("version %d", version), KeyTopics: []string{"科幻"}, Model: "extractive", Reason: "threshold"}
	if p := in.Previous; p != nil {
		sum.CoversFrom, sum.CoversTo = minTime(p.CoversFrom, sum.CoversFrom), maxTime(p.CoversTo, sum.CoversTo)
	}
	return store.SummaryWrite{TenantID: tenant, Summary: sum, Read: in.EventIDs()}
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// TestIngestTurnsSummaryThreshold drives the threshold with event times, the
// clock the rule runs on: count without time, time without count, both, and
// one ask per summary.
func TestIngestTurnsSummaryThreshold(t *testing.T) {
	t.Parallel()
	db := testenv.NewDB(t)
	ctx := context.Background()
	policy := store.SummaryTrigger{EveryMessages: 10, MinInterval: 5 * time.Minute}
	n := 0
	ingest := func(count int, at func(i int) time.Time) []store.DueSession {
		t.Helper()
		batch := make([]store.StoredTurn, count)
		for i := range batch {
			batch[i] = turn("t", "s", fmt.Sprintf("e%03d", n), at(n))
			n++
		}
		res, err := db.Store.IngestTurns(ctx, batch, policy)
		require.NoError(t, err)
		require.EqualValues(t, 1, res.Sessions)
		return res.Due
	}
	every := func(step time.Duration) func(int) time.Time {
		return func(i int) time.Time { return t0.Add(time.Duration(i) * step) }
	}

	require.Empty(t, ingest(9, every(time.Second)), "9 messages: not due")
	due := ingest(1, every(time.Second))
	require.Equal(t, []store.DueSession{{TenantID: "t", SessionID: "s", UserID: "u-s", FromCount: 0, ThroughCount: 10, LastMessageAt: t0.Add(9 * time.Second)}}, due,
		"the 10th message makes the first summary due: no previous summary, no time rule")
	require.Empty(t, ingest(5, every(time.Second)), "asked once: not again while the request is outstanding")

	// A system prompt is stored but not counted.
	sys := turn("t", "s", "sys", t0)
	sys.Turn.Role = events.RoleSystem
	res, err := db.Store.IngestTurns(ctx, []store.StoredTurn{sys}, policy)
	require.NoError(t, err)
	require.Empty(t, res.Due)

	// The summarizer writes version 1 over the 15 messages (last at t0+14s).
	_, err = db.Store.WriteSummary(ctx, summaryOf(t, db, "t", "s", 1, 0))
	require.NoError(t, err)
	st, err := db.Store.Tenant("t").SummaryState(ctx, "s")
	require.NoError(t, err)
	require.EqualValues(t, 15, st.Summarized)
	require.Equal(t, t0.Add(14*time.Second), st.SummarizedAt)

	// Count without time: 12 more within five minutes of event time.
	require.Empty(t, ingest(12, every(time.Second)), "10+ messages but under 5 minutes since the summary")
	// Both: one more message 5 minutes after the summary's end.
	due = ingest(1, func(int) time.Time { return t0.Add(14*time.Second + 5*time.Minute) })
	require.Len(t, due, 1)
	require.EqualValues(t, 15, due[0].FromCount)
	require.EqualValues(t, 28, due[0].ThroughCount)

	_, err = db.Store.WriteSummary(ctx, summaryOf(t, db, "t", "s", 2, 15))
	require.NoError(t, err)
	// Time without count: an hour later, but only three messages.
	require.Empty(t, ingest(3, func(i int) time.Time { return t0.Add(time.Hour + time.Duration(i)*time.Second) }))

	// Off.
	res, err = db.Store.IngestTurns(ctx, []store.StoredTurn{turn("t", "s2", "x1", t0)}, store.SummaryTrigger{EveryMessages: -1})
	require.NoError(t, err)
	require.Empty(t, res.Due)
}

func TestIngestTurnsDueManySessions(t *testing.T) {
	t.Parallel()
	db := testenv.NewDB(t)
	ctx := context.Background()
	var batch []store.StoredTurn
	for s := range 30 {
		for i := range 10 + s%3 - 1 { // 9, 10 or 11 messages
			batch = append(batch, turn("t", fmt.Sprintf("s%02d", s), fmt.Sprintf("s%02d-%d", s, i), t0.Add(time.Duration(i)*time.Second)))
		}
	}
	res, err := db.Store.IngestTurns(ctx, batch, defaultTrigger)
	require.NoError(t, err)
	require.EqualValues(t, 30, res.Sessions)
	require.Len(t, res.Due, 20)
	for _, d := range res.Due {
		require.Contains(t, []int64{10, 11}, d.ThroughCount, d.SessionID)
		require.Equal(t, "u-"+d.SessionID, d.UserID)
	}
	res, err = db.Store.IngestTurns(ctx, batch, defaultTrigger)
	require.NoError(t, err)
	require.Zero(t, res.Sessions, "a redelivered batch stores nothing")
	require.Empty(t, res.Due, "and asks for nothing")
}

func TestWriteSummary(t *testing.T) {
	t.Parallel()
	db := testenv.NewDB(t)
	ctx := context.Background()
	var batch []store.StoredTurn
	for i := range 12 {
		batch = append(batch, turn("t", "s", fmt.Sprintf("e%02d", i), t0.Add(time.Duration(i)*time.Minute)))
	}
	_, err := db.Store.InsertTurns(ctx, batch)
	require.NoError(t, err)
	ten := db.Store.Tenant("t")
	_, err = ten.CurrentSummary(ctx, "s")
	require.ErrorIs(t, err, store.ErrNotFound)

	v1 := summaryOf(t, db, "t", "s", 1, 0)
	v1.Mentions = []store.Mention{mention("t", "u-s", store.SummaryEventID("s", 0, 12), "genre", "科幻", "科幻", v1.Summary.LastAt)}
	wrote, err := db.Store.WriteSummary(ctx, v1)
	require.NoError(t, err)
	require.Equal(t, []store.UserRef{{TenantID: "t", UserID: "u-s"}}, wrote.Mentions.Users)
	require.Len(t, wrote.Mentions.Created, 1, "the fact the version's topic created")
	require.Equal(t, store.SummaryEventID("s", 0, 12), wrote.Mentions.Created[0].FirstEventID)
	require.Equal(t, 1, wrote.Summary.Version)
	require.False(t, wrote.Summary.CreatedAt.IsZero())

	// A second writer of the same range loses, and writes nothing.
	_, err = db.Store.WriteSummary(ctx, v1)
	require.ErrorIs(t, err, store.ErrSummaryConflict)
	facts, err := ten.Facts(ctx, "u-s", []string{record.FactActive}, 10)
	require.NoError(t, err)
	require.Len(t, facts, 1)
	require.EqualValues(t, 1, facts[0].MentionCount, "the key topic is recorded once")

	cur, err := ten.CurrentSummary(ctx, "s")
	require.NoError(t, err)
	require.Equal(t, 1, cur.Version)
	require.EqualValues(t, 0, cur.FromCount)
	require.EqualValues(t, 12, cur.ThroughCount)
	require.Equal(t, "e00", cur.FirstEventID)
	require.Equal(t, "e11", cur.LastEventID)
	require.Equal(t, t0, cur.CoversFrom)
	require.Equal(t, t0.Add(11*time.Minute), cur.CoversTo)
	require.Equal(t, []string{"科幻"}, cur.KeyTopics)

	// Version 2 rolls forward from 12; the input reads only what is new.
	_, err = db.Store.InsertTurns(ctx, []store.StoredTurn{turn("t", "s", "e12", t0.Add(20*time.Minute)), turn("t", "s", "e13", t0.Add(21*time.Minute))})
	require.NoError(t, err)
	in, err := ten.SummaryInput(ctx, "s", 20)
	require.NoError(t, err)
	require.Equal(t, 1, in.Previous.Version)
	require.Equal(t, []string{"e12", "e13"}, []string{in.Messages[0].EventID, in.Messages[1].EventID})
	require.EqualValues(t, 2, in.State.Pending())
	_, err = db.Store.WriteSummary(ctx, summaryOf(t, db, "t", "s", 2, 12))
	require.NoError(t, err)
	versions, err := ten.SummaryVersions(ctx, "s", 10)
	require.NoError(t, err)
	require.Len(t, versions, 2, "earlier versions are kept")
	require.Equal(t, []int{2, 1}, []int{versions[0].Version, versions[1].Version})
	cur, err = ten.CurrentSummary(ctx, "s")
	require.NoError(t, err)
	require.Equal(t, 2, cur.Version)
	require.Equal(t, t0, cur.CoversFrom, "the range covered includes the versions rolled forward")
	require.Equal(t, t0.Add(21*time.Minute), cur.CoversTo)
	require.Equal(t, t0.Add(20*time.Minute), cur.FirstAt, "first_at is of the messages this version read")

	// Everything is read.
	in, err = ten.SummaryInput(ctx, "s", 20)
	require.NoError(t, err)
	require.Empty(t, in.Messages)
	require.Zero(t, in.State.Pending())

	// Another tenant sees none of it.
	_, err = db.Store.Tenant("other").CurrentSummary(ctx, "s")
	require.ErrorIs(t, err, store.ErrNotFound)
	other := v1
	other.TenantID = "other"
	_, err = db.Store.WriteSummary(ctx, other)
	require.ErrorIs(t, err, store.ErrNotFound)

	// Deleting the session deletes its summaries.
	_, err = ten.DeleteSession(ctx, "s")
	require.NoError(t, err)
	versions, err = ten.SummaryVersions(ctx, "s", 10)
	require.NoError(t, err)
	require.Empty(t, versions)
}

// TestSummaryInputReadsOldestUnread: a backlog is read oldest first, at most
// maxMessages at a time, and a message that commits after a summary whose
// range already passed its event time is read by the next version.
func TestSummaryInputReadsOldestUnread(t *testing.T) {
	t.Parallel()
	db := testenv.NewDB(t)
	ctx := context.Background()
	ten := db.Store.Tenant("t")
	var batch []store.StoredTurn
	for i := range 30 {
		batch = append(batch, turn("t", "s", fmt.Sprintf("e%02d", i), t0.Add(time.Duration(i)*time.Second)))
	}
	sys := turn("t", "s", "sys", t0.Add(time.Hour))
	sys.Turn.Role = events.RoleSystem
	batch = append(batch, sys)
	_, err := db.Store.InsertTurns(ctx, batch)
	require.NoError(t, err)
	in, err := ten.SummaryInput(ctx, "s", 20)
	require.NoError(t, err)
	require.Len(t, in.Messages, 20)
	require.Equal(t, "e00", in.Messages[0].EventID, "the oldest 20, oldest first")
	require.Equal(t, "e19", in.Messages[19].EventID)
	require.EqualValues(t, 30, in.State.Counted)
	require.Nil(t, in.Previous)
	_, err = ten.SummaryInput(ctx, "nope", 20)
	require.ErrorIs(t, err, store.ErrNotFound)

	_, err = db.Store.WriteSummary(ctx, summaryOf(t, db, "t", "s", 1, 0))
	require.NoError(t, err)
	in, err = ten.SummaryInput(ctx, "s", 20)
	require.NoError(t, err)
	require.Equal(t, []string{"e20", "e29"}, []string{in.Messages[0].EventID, in.Messages[9].EventID}, "the rest, system prompts never")
	require.Len(t, in.Messages, 10)
	_, err = db.Store.WriteSummary(ctx, summaryOf(t, db, "t", "s", 2, 20))
	require.NoError(t, err)

	// Two messages commit late: event times before the summary's end.
	_, err = db.Store.InsertTurns(ctx, []store.StoredTurn{turn("t", "s", "late-b", t0.Add(15*time.Second)), turn("t", "s", "late-a", t0.Add(-time.Minute))})
	require.NoError(t, err)
	in, err = ten.SummaryInput(ctx, "s", 20)
	require.NoError(t, err)
	require.Equal(t, []string{"late-a", "late-b"}, in.EventIDs())
	require.EqualValues(t, 2, in.State.Pending())
	v3 := summaryOf(t, db, "t", "s", 3, 30)
	_, err = db.Store.WriteSummary(ctx, v3)
	require.NoError(t, err)
	cur, err := ten.CurrentSummary(ctx, "s")
	require.NoError(t, err)
	require.EqualValues(t, 32, cur.ThroughCount)
	require.Equal(t, t0.Add(-time.Minute), cur.CoversFrom, "the late message moves the start back")
	require.Equal(t, t0.Add(29*time.Second), cur.CoversTo, "and not the end")
	require.Equal(t, t0.Add(15*time.Second), cur.LastAt)
	require.Zero(t, unread(t, db, "t", "s"))
	st, err := ten.SummaryState(ctx, "s")
	require.NoError(t, err)
	require.Zero(t, st.Pending())
}

// unread counts a session's non-system messages no summary has read.
func unread(t *testing.T, db *testenv.DB, tenant, session string) int {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), db.URL)
	require.NoError(t, err)
	defer conn.Close(context.Background())
	var n int
	require.NoError(t, conn.QueryRow(context.Background(),
		`SELECT count(*) FROM messages WHERE tenant_id = $1 AND session_id = $2 AND role <> 'system' AND NOT summarized`,
		tenant, session).Scan(&n))
	return n
}

// TestWriteSummaryChecksWhatWasRead: a version writes only over messages that
// are still unread, and its count must be what it read.
func TestWriteSummaryChecksWhatWasRead(t *testing.T) {
	t.Parallel()
	db := testenv.NewDB(t)
	ctx := context.Background()
	ten := db.Store.Tenant("t")
	var batch []store.StoredTurn
	for i := range 5 {
		batch = append(batch, turn("t", "s", fmt.Sprintf("e%d", i), t0.Add(time.Duration(i)*time.Second)))
	}
	_, err := db.Store.InsertTurns(ctx, batch)
	require.NoError(t, err)

	bad := summaryOf(t, db, "t", "s", 1, 0)
	bad.Summary.ThroughCount = 7
	_, err = db.Store.WriteSummary(ctx, bad)
	require.ErrorContains(t, err, "not from_count 0 plus the 5 messages read")

	// A message read is deleted before the version commits (its session is
	// forgotten and comes back, say): nothing is written.
	gone := summaryOf(t, db, "t", "s", 1, 0)
	gone.Read = append(gone.Read[:4:4], "deleted")
	_, err = db.Store.WriteSummary(ctx, gone)
	require.ErrorIs(t, err, store.ErrSummaryConflict)
	_, err = ten.CurrentSummary(ctx, "s")
	require.ErrorIs(t, err, store.ErrNotFound)
	require.Equal(t, 5, unread(t, db, "t", "s"))

	// Messages without text are accounted for without a version, once.
	moved, err := ten.AdvanceSummarized(ctx, "s", 0, []string{"e0", "e1"})
	require.NoError(t, err)
	require.True(t, moved)
	moved, err = ten.AdvanceSummarized(ctx, "s", 0, []string{"e0", "e1"})
	require.NoError(t, err)
	require.False(t, moved, "the range had moved")
	require.Equal(t, 3, unread(t, db, "t", "s"))
	in, err := ten.SummaryInput(ctx, "s", 20)
	require.NoError(t, err)
	require.Equal(t, []string{"e2", "e3", "e4"}, in.EventIDs())
	require.EqualValues(t, 2, in.State.Summarized)
}

// TestSummaryCoverageMigration: on an existing database, the messages up to
// each session's current summary count as read, the rest do not, and the
// versions get the range they cover.
func TestSummaryCoverageMigration(t *testing.T) {
	t.Parallel()
	db := testenv.NewDB(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, db.URL)
	require.NoError(t, err)
	defer conn.Close(ctx)
	log := testenv.Logger(t)
	version := migrationVersion(t, "summary_coverage")
	_, err = store.MigrateDown(ctx, conn, version-1, log)
	require.NoError(t, err)

	exec := func(sql string, args ...any) {
		t.Helper()
		_, err := conn.Exec(ctx, sql, args...)
		require.NoError(t, err, sql)
	}
	// Session a: 25 messages; version 1 read e00-e09, version 2 e10-e19 (so
	// it accounts for 20); e05b came late and was never read; e20-e24 are new.
	// Session b: 3 messages, no summary.
	for i := range 25 {
		exec(`INSERT INTO messages (tenant_id, event_id, session_id, user_id, role, content, occurred_at) VALUES ('t', $1, 'a', 'u', 'user', 'x', $2)`,
			fmt.Sprintf("e%02d", i), t0.Add(time.Duration(i)*time.Minute))
	}
	exec(`INSERT INTO messages (tenant_id, event_id, session_id, user_id, role, content, occurred_at) VALUES ('t', 'e05b', 'a', 'u', 'user', 'x', $1)`, t0.Add(5*time.Minute+time.Second))
	exec(`INSERT INTO messages (tenant_id, event_id, session_id, user_id, role, content, occurred_at) VALUES ('t', 'sys', 'a', 'u', 'system', 'x', $1)`, t0.Add(time.Hour))
	for i := range 3 {
		exec(`INSERT INTO messages (tenant_id, event_id, session_id, user_id, role, content, occurred_at) VALUES ('t', $1, 'b', 'u', 'user', 'x', $2)`,
			fmt.Sprintf("b%d", i), t0.Add(time.Duration(i)*time.Minute))
	}
	exec(`INSERT INTO sessions (tenant_id, session_id, user_id, message_count, system_count, first_message_at, last_message_at, summarized_count, summary_requested_count)
	      VALUES ('t', 'a', 'u', 27, 1, $1, $2, 20, 26), ('t', 'b', 'u', 3, 0, $1, $3, 0, 0)`, t0, t0.Add(time.Hour), t0.Add(2*time.Minute))
	for v, r := range [][2]int{{0, 9}, {10, 19}} {
		exec(`INSERT INTO session_summaries (tenant_id, session_id, user_id, version, from_count, through_count, first_event_id, first_at,
		      last_event_id, last_at, messages_read, summary, model, reason, current) VALUES ('t', 'a', 'u', $1, $2, $3, $4, $5, $6, $7, 10, 'x', 'extractive', 'threshold', $8)`,
			v+1, r[0], r[1]+1, fmt.Sprintf("e%02d", r[0]), t0.Add(time.Duration(r[0])*time.Minute), fmt.Sprintf("e%02d", r[1]), t0.Add(time.Duration(r[1])*time.Minute), v == 1)
	}

	_, err = store.Migrate(ctx, conn, 0, log)
	require.NoError(t, err)
	ten := db.Store.Tenant("t")
	in, err := ten.SummaryInput(ctx, "a", 20)
	require.NoError(t, err)
	require.Equal(t, []string{"e20", "e21", "e22", "e23", "e24"}, in.EventIDs(), "what the summaries read (or passed) counts as read")
	require.EqualValues(t, 21, in.State.Summarized, "e00-e19 and e05b")
	require.EqualValues(t, 5, in.State.Pending())
	require.Equal(t, t0, in.Previous.CoversFrom)
	require.Equal(t, t0.Add(19*time.Minute), in.Previous.CoversTo)
	v, err := ten.SummaryVersions(ctx, "a", 10)
	require.NoError(t, err)
	require.Equal(t, t0.Add(9*time.Minute), v[1].CoversTo)
	in, err = ten.SummaryInput(ctx, "b", 20)
	require.NoError(t, err)
	require.Len(t, in.Messages, 3)
	require.Zero(t, in.State.Summarized)

	// The next version continues from there.
	_, err = db.Store.WriteSummary(ctx, summaryOf(t, db, "t", "a", 3, 21))
	require.NoError(t, err)
	require.Zero(t, unread(t, db, "t", "a"))
}

// migrationVersion is the number of the migration with the given name.
func migrationVersion(t *testing.T, name string) int {
	t.Helper()
	all, err := store.Migrations()
	require.NoError(t, err)
	for _, m := range all {
		if m.Name == name {
			return m.Version
		}
	}
	t.Fatalf("no migration %s", name)
	return 0
}

func TestSweepIdleSessions(t *testing.T) {
	t.Parallel()
	db := testenv.NewDB(t)
	ctx := context.Background()
	var batch []store.StoredTurn
	for s := range 7 {
		for i := range 3 {
			batch = append(batch, turn(fmt.Sprintf("t%d", s%2), fmt.Sprintf("s%d", s), fmt.Sprintf("s%d-%d", s, i), t0.Add(time.Duration(s)*time.Minute+time.Duration(i)*time.Second)))
		}
	}
	_, err := db.Store.InsertTurns(ctx, batch)
	require.NoError(t, err)
	// s0 is summarized already.
	_, err = db.Store.WriteSummary(ctx, summaryOf(t, db, "t0", "s0", 1, 0))
	require.NoError(t, err)

	var pages []int
	sweepUpTo := func(before time.Time, page, most int) ([]string, bool) {
		var got []string
		pages = pages[:0]
		n, swept, err := db.Store.SweepIdleSessions(ctx, before, page, most, func(ss []store.IdleSession) error {
			pages = append(pages, len(ss))
			for _, s := range ss {
				require.EqualValues(t, 3, s.Counted)
				got = append(got, s.SessionID)
			}
			return nil
		})
		require.NoError(t, err)
		require.Equal(t, len(got), n)
		return got, swept
	}
	sweep := func(before time.Time, page int) ([]string, bool) { return sweepUpTo(before, page, 100) }
	got, swept := sweep(t0.Add(4*time.Minute), 2)
	require.True(t, swept)
	require.Equal(t, []string{"s1", "s2", "s3"}, got, "idle before the cut, unsummarized, oldest first, across pages")
	require.Equal(t, []int{2, 1}, pages)
	got, _ = sweep(t0.Add(time.Hour), 500)
	require.Equal(t, []string{"s1", "s2", "s3", "s4", "s5", "s6"}, got)
	require.Equal(t, []int{6}, pages)
	got, _ = sweepUpTo(t0.Add(time.Hour), 2, 5)
	require.Equal(t, []string{"s1", "s2", "s3", "s4", "s5"}, got, "at most the sweep's bound, the oldest")
	require.Equal(t, []int{2, 2, 1}, pages)
	got, _ = sweepUpTo(t0.Add(time.Hour), 2, 4)
	require.Equal(t, []int{2, 2}, pages, "a bound that ends on a page hands no empty page")
	require.Len(t, got, 4)

	// A page fn refuses ends the sweep with its error; the pages before it
	// were handed on.
	handed := 0
	n, _, err := db.Store.SweepIdleSessions(ctx, t0.Add(time.Hour), 2, 100, func(ss []store.IdleSession) error {
		if handed == 2 {
			return errors.New("publish failed")
		}
		handed += len(ss)
		return nil
	})
	require.ErrorContains(t, err, "publish failed")
	require.Equal(t, 2, n)

	// Another replica holding the sweep lock: this one skips.
	conn, err := pgx.Connect(ctx, db.URL)
	require.NoError(t, err)
	defer conn.Close(ctx)
	tx, err := conn.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(ctx) }()
	var locked bool
	require.NoError(t, tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock($1)`, int64(0x7265_6361_6c6c_0053)).Scan(&locked))
	require.True(t, locked)
	got, swept = sweep(t0.Add(time.Hour), 500)
	require.False(t, swept)
	require.Empty(t, got)
}

func TestResetSummaryRequests(t *testing.T) {
	t.Parallel()
	db := testenv.NewDB(t)
	ctx := context.Background()
	var batch []store.StoredTurn
	for i := range 10 {
		batch = append(batch, turn("t", "s", fmt.Sprintf("e%d", i), t0.Add(time.Duration(i)*time.Second)))
	}
	res, err := db.Store.IngestTurns(ctx, batch, defaultTrigger)
	require.NoError(t, err)
	require.Len(t, res.Due, 1)
	require.NoError(t, db.Store.ResetSummaryRequests(ctx, res.Due))
	res, err = db.Store.IngestTurns(ctx, []store.StoredTurn{turn("t", "s", "e10", t0.Add(time.Minute))}, defaultTrigger)
	require.NoError(t, err)
	require.Len(t, res.Due, 1, "after a reset the next batch asks again")
	require.EqualValues(t, 11, res.Due[0].ThroughCount)
}
