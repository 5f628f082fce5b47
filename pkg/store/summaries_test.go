package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testenv"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/store"
)

func TestSummaryPolicyDue(t *testing.T) {
	t.Parallel()
	p := store.DefaultSummaryPolicy
	cases := []struct {
		name         string
		pending      int64
		last, summAt time.Time
		due          bool
	}{
		{"first summary: the count alone", 10, t0, time.Time{}, true},
		{"first summary: below the count", 9, t0.Add(time.Hour), time.Time{}, false},
		{"count without time", 25, t0.Add(4*time.Minute + 59*time.Second), t0, false},
		{"time without count", 9, t0.Add(time.Hour), t0, false},
		{"count and time", 10, t0.Add(5 * time.Minute), t0, true},
	}
	for _, c := range cases {
		require.Equal(t, c.due, p.Due(c.pending, c.last, c.summAt), c.name)
	}
	require.False(t, store.SummaryPolicy{EveryMessages: -1}.Due(100, t0, time.Time{}), "a negative count turns it off")
	require.Equal(t, store.DefaultSummaryPolicy, store.SummaryPolicy{}.WithDefaults())
}

// summaryOf is a summary row covering a session's range up to its newest message.
func summaryOf(t *testing.T, db *testenv.DB, tenant, session string, version int, from int64) store.Summary {
	t.Helper()
	in, err := db.Store.Tenant(tenant).SummaryInput(context.Background(), session, 20)
	require.NoError(t, err)
	first, last := in.Messages[0], in.Messages[len(in.Messages)-1]
	return store.Summary{SessionID: session, UserID: in.State.UserID, Version: version, FromCount: from, ThroughCount: in.State.Counted,
		FirstEventID: first.EventID, FirstAt: first.OccurredAt, LastEventID: last.EventID, LastAt: last.OccurredAt,
		MessagesRead: len(in.Messages), Text: fmt.Sprintf("version %d", version), KeyTopics: []string{"科幻"}, Model: "extractive", Reason: "threshold"}
}

// TestIngestTurnsSummaryThreshold drives the threshold with event times, the
// clock the rule runs on: count without time, time without count, both, and
// one ask per summary.
func TestIngestTurnsSummaryThreshold(t *testing.T) {
	t.Parallel()
	db := testenv.NewDB(t)
	ctx := context.Background()
	policy := store.SummaryPolicy{EveryMessages: 10, MinInterval: 5 * time.Minute}
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
	_, err = db.Store.WriteSummary(ctx, store.SummaryWrite{TenantID: "t", Summary: summaryOf(t, db, "t", "s", 1, 0)})
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

	_, err = db.Store.WriteSummary(ctx, store.SummaryWrite{TenantID: "t", Summary: summaryOf(t, db, "t", "s", 2, 15)})
	require.NoError(t, err)
	// Time without count: an hour later, but only three messages.
	require.Empty(t, ingest(3, func(i int) time.Time { return t0.Add(time.Hour + time.Duration(i)*time.Second) }))

	// Off.
	res, err = db.Store.IngestTurns(ctx, []store.StoredTurn{turn("t", "s2", "x1", t0)}, store.SummaryPolicy{EveryMessages: -1})
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
	res, err := db.Store.IngestTurns(ctx, batch, store.SummaryPolicy{})
	require.NoError(t, err)
	require.EqualValues(t, 30, res.Sessions)
	require.Len(t, res.Due, 20)
	for _, d := range res.Due {
		require.Contains(t, []int64{10, 11}, d.ThroughCount, d.SessionID)
		require.Equal(t, "u-"+d.SessionID, d.UserID)
	}
	res, err = db.Store.IngestTurns(ctx, batch, store.SummaryPolicy{})
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
	mentions := []store.Mention{mention("t", "u-s", store.SummaryEventID("s", 0, 12), "genre", "科幻", "科幻", v1.LastAt)}
	users, err := db.Store.WriteSummary(ctx, store.SummaryWrite{TenantID: "t", Summary: v1, Mentions: mentions})
	require.NoError(t, err)
	require.Equal(t, []store.UserRef{{TenantID: "t", UserID: "u-s"}}, users)

	// A second writer of the same range loses, and writes nothing.
	_, err = db.Store.WriteSummary(ctx, store.SummaryWrite{TenantID: "t", Summary: v1, Mentions: mentions})
	require.ErrorIs(t, err, store.ErrSummaryConflict)
	facts, err := ten.Facts(ctx, "u-s", []string{store.FactActive}, 10)
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
	require.Equal(t, []string{"科幻"}, cur.KeyTopics)

	// Version 2 rolls forward from 12; the input reads only what is new.
	_, err = db.Store.InsertTurns(ctx, []store.StoredTurn{turn("t", "s", "e12", t0.Add(20*time.Minute)), turn("t", "s", "e13", t0.Add(21*time.Minute))})
	require.NoError(t, err)
	in, err := ten.SummaryInput(ctx, "s", 20)
	require.NoError(t, err)
	require.Equal(t, 1, in.Previous.Version)
	require.Equal(t, []string{"e12", "e13"}, []string{in.Messages[0].EventID, in.Messages[1].EventID})
	require.EqualValues(t, 2, in.State.Pending())
	_, err = db.Store.WriteSummary(ctx, store.SummaryWrite{TenantID: "t", Summary: summaryOf(t, db, "t", "s", 2, 12)})
	require.NoError(t, err)
	versions, err := ten.SummaryVersions(ctx, "s", 10)
	require.NoError(t, err)
	require.Len(t, versions, 2, "earlier versions are kept")
	require.Equal(t, []int{2, 1}, []int{versions[0].Version, versions[1].Version})
	cur, err = ten.CurrentSummary(ctx, "s")
	require.NoError(t, err)
	require.Equal(t, 2, cur.Version)

	// At most maxMessages of the newest are read.
	in, err = ten.SummaryInput(ctx, "s", 20)
	require.NoError(t, err)
	require.Empty(t, in.Messages)
	require.Zero(t, in.State.Pending())

	// Another tenant sees none of it.
	_, err = db.Store.Tenant("other").CurrentSummary(ctx, "s")
	require.ErrorIs(t, err, store.ErrNotFound)
	_, err = db.Store.WriteSummary(ctx, store.SummaryWrite{TenantID: "other", Summary: v1})
	require.ErrorIs(t, err, store.ErrNotFound)

	// Deleting the session deletes its summaries.
	_, err = ten.DeleteSession(ctx, "s")
	require.NoError(t, err)
	versions, err = ten.SummaryVersions(ctx, "s", 10)
	require.NoError(t, err)
	require.Empty(t, versions)
}

func TestSummaryInputReadsNewestMessages(t *testing.T) {
	t.Parallel()
	db := testenv.NewDB(t)
	ctx := context.Background()
	var batch []store.StoredTurn
	for i := range 30 {
		batch = append(batch, turn("t", "s", fmt.Sprintf("e%02d", i), t0.Add(time.Duration(i)*time.Second)))
	}
	sys := turn("t", "s", "sys", t0.Add(time.Hour))
	sys.Turn.Role = events.RoleSystem
	batch = append(batch, sys)
	_, err := db.Store.InsertTurns(ctx, batch)
	require.NoError(t, err)
	in, err := db.Store.Tenant("t").SummaryInput(ctx, "s", 20)
	require.NoError(t, err)
	require.Len(t, in.Messages, 20)
	require.Equal(t, "e10", in.Messages[0].EventID, "the newest 20, oldest first")
	require.Equal(t, "e29", in.Messages[19].EventID, "system prompts are never read")
	require.EqualValues(t, 30, in.State.Counted)
	require.Nil(t, in.Previous)
	_, err = db.Store.Tenant("t").SummaryInput(ctx, "nope", 20)
	require.ErrorIs(t, err, store.ErrNotFound)
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
	_, err = db.Store.WriteSummary(ctx, store.SummaryWrite{TenantID: "t0", Summary: summaryOf(t, db, "t0", "s0", 1, 0)})
	require.NoError(t, err)

	sweep := func(before time.Time, page int) ([]string, bool) {
		var got []string
		n, swept, err := db.Store.SweepIdleSessions(ctx, before, page, 100, func(ss []store.IdleSession) error {
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
	got, swept := sweep(t0.Add(4*time.Minute), 2)
	require.True(t, swept)
	require.Equal(t, []string{"s1", "s2", "s3"}, got, "idle before the cut, unsummarized, oldest first, across pages")
	got, _ = sweep(t0.Add(time.Hour), 500)
	require.Equal(t, []string{"s1", "s2", "s3", "s4", "s5", "s6"}, got)

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
	res, err := db.Store.IngestTurns(ctx, batch, store.SummaryPolicy{})
	require.NoError(t, err)
	require.Len(t, res.Due, 1)
	require.NoError(t, db.Store.ResetSummaryRequests(ctx, res.Due))
	res, err = db.Store.IngestTurns(ctx, []store.StoredTurn{turn("t", "s", "e10", t0.Add(time.Minute))}, store.SummaryPolicy{})
	require.NoError(t, err)
	require.Len(t, res.Due, 1, "after a reset the next batch asks again")
	require.EqualValues(t, 11, res.Due[0].ThroughCount)
}
