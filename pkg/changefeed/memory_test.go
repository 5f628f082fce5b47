package changefeed_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/changefeed"
	"github.com/recallhq/recall/pkg/contract"
	"github.com/recallhq/recall/pkg/eventmsg"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/queue"
	"github.com/recallhq/recall/pkg/store"
	"github.com/recallhq/recall/pkg/workers/decayer"
	"github.com/recallhq/recall/pkg/workers/extractor"
	"github.com/recallhq/recall/pkg/workers/ingest"
	"github.com/recallhq/recall/pkg/workers/seen"
	"github.com/recallhq/recall/pkg/workers/summarizer"
)

// ofType are the changes of one type.
func ofType(cs []contract.Change, typ string) []contract.Change {
	var out []contract.Change
	for _, c := range cs {
		if c.Type == typ {
			out = append(out, c)
		}
	}
	return out
}

// delivery is a message as the runner hands it to a worker, delivered the
// nth time.
func delivery(m *nats.Msg, n uint64) []queue.Message {
	return []queue.Message{{Subject: m.Subject, Data: m.Data, Header: m.Header, Seq: 1, Deliveries: n}}
}

// clock is a decayer's clock, set by the test.
type clock struct{ at time.Time }

func (c *clock) Now() time.Time { return c.at }

// A fact first mentioned is told once (fact.new, at the mention's time);
// mentioned again, published again under another message id, or replayed,
// it is told nothing more. The decayer tells of it archived, then expired,
// each once, at the event time its rule counts from the last mention, not
// at the run's time; a second run, and a later run, tell nothing.
func TestFactChanges(t *testing.T) {
	t.Parallel()
	b := setup(t, false)
	ctx := context.Background()
	testenv.StartWorker(t, b.nats, b.db, extractor.Def, extractorConfig)
	first := turn("read-1", "u1", "我最近在读刘慈欣的《三体》，很喜欢。", t0)
	again := turn("read-2", "u1", "《三体》的第二部我也读完了。", t0.Add(time.Hour))

	b.publish(t, first)
	got := ofType(b.changes(t, "u1"), contract.ChangeFactNew)
	require.NotEmpty(t, got)
	var book contract.Change
	for _, c := range got {
		f := c.Fact
		require.Equal(t, t0, c.At, "the mention's event time")
		require.Equal(t, "read-1", f.EventID)
		require.Equal(t, "active", f.Status)
		require.Equal(t, "s1", f.SessionID)
		require.EqualValues(t, 1, f.MentionCount)
		require.Equal(t, changefeed.ID(c.Type, "acme", "u1", f.Type, f.Value, "read-1"), c.ID)
		if f.Value == "三体" {
			book = c
		}
	}
	require.NotNil(t, book.Fact, "the book is a fact: %+v", got)
	n := b.stored(t)
	b.outlastDedupe(t)

	// Mentioned again: the fact is not new.
	b.publish(t, again)
	books := 0
	for _, c := range ofType(b.changes(t, "u1"), contract.ChangeFactNew) {
		if c.Fact.Value == "三体" {
			books++
		}
	}
	require.Equal(t, 1, books, "a fact mentioned again is not new")
	n = b.stored(t)
	b.outlastDedupe(t)

	// The same turns under other message ids, and a replay of the extractor.
	for _, tr := range []events.Turn{first, again} {
		m, err := eventmsg.Turn(&tr)
		require.NoError(t, err)
		m.Header.Set(jetstream.MsgIDHeader, "again-"+tr.ID)
		_, err = b.nats.JS.PublishMsg(ctx, m)
		require.NoError(t, err)
	}
	b.nats.WaitSettled(t, queue.TurnsStream, extractor.Def.Binding.Durable)
	cfg := extractor.Def.Defaults()
	w, _, err := extractor.Def.Build(ctx, cfg, testenv.Deps(t, b.nats, b.db))
	require.NoError(t, err)
	_, err = extractor.Def.Binding.Replay(ctx, b.nats.JS, queue.ReplayOptions{Tenant: "acme", User: "u1",
		Consumer: cfg.Queue.Consumer, Runner: cfg.Queue.Runner}, w.Handle, testenv.Logger(t), nil)
	require.NoError(t, err)
	require.Equal(t, n, b.stored(t), "a duplicate and a replay tell nothing")

	// The decayer, long after the last mention.
	dcfg := decayer.Def.Defaults()
	dcfg.Habits.Derive = false
	// Archived two days after the last mention (×0.5 a day, below 0.3),
	// long before its expiry (FACT_TTL, 90 days).
	dcfg.Decay.Period, dcfg.Decay.Factor, dcfg.Decay.Floor = 24*time.Hour, 0.5, 0.3
	clk := &clock{}
	d, err := decayer.New(decayer.Options{Config: dcfg, Store: b.db.Store, Changes: changefeed.NewPublisher(b.nats.JS),
		Log: testenv.Logger(t), Now: clk.Now})
	require.NoError(t, err)
	facts, err := b.db.Store.Tenant("acme").Facts(ctx, "u1", []string{"active"}, 50)
	require.NoError(t, err)
	var stored store.FactRow
	for _, f := range facts {
		if f.Value == "三体" {
			stored.Fact = f
		}
	}
	require.Equal(t, t0.Add(time.Hour), stored.LastMentionedAt)
	archivedAt, ok := d.Policy().ArchivedAt(stored.Type, stored.Weight, stored.LastMentionedAt)
	require.True(t, ok)
	require.Equal(t, stored.LastMentionedAt.Add(48*time.Hour), archivedAt)
	require.True(t, archivedAt.Before(stored.ExpiresAt))

	clk.at = archivedAt.Add(time.Minute)
	_, err = d.RunOnce(ctx)
	require.NoError(t, err)
	archived := ofType(b.changes(t, "u1"), contract.ChangeFactArchived)
	require.NotEmpty(t, archived)
	var bookArchived *contract.Change
	for i, c := range archived {
		if c.Fact.Value == "三体" {
			bookArchived = &archived[i]
		}
	}
	require.NotNil(t, bookArchived)
	require.Equal(t, archivedAt, bookArchived.At, "when its weight fell below the floor, not the run's time")
	require.Equal(t, "archived", bookArchived.Fact.Status)
	require.Less(t, bookArchived.Fact.Weight, bookArchived.Fact.BaseWeight)
	require.Equal(t, changefeed.ID(contract.ChangeFactArchived, "acme", "u1", "book_title", "三体", archivedAt.Format(time.RFC3339Nano)), bookArchived.ID)
	n = b.stored(t)
	b.outlastDedupe(t)

	// The same run again, and a later one within the fact's life: nothing.
	_, err = d.RunOnce(ctx)
	require.NoError(t, err)
	clk.at = clk.at.Add(24 * time.Hour)
	_, err = d.RunOnce(ctx)
	require.NoError(t, err)
	require.Equal(t, n, b.stored(t), "a second run tells nothing")

	// Past its expiry: expired, once, at its expiry.
	clk.at = stored.ExpiresAt.Add(time.Hour)
	_, err = d.RunOnce(ctx)
	require.NoError(t, err)
	expired := ofType(b.changes(t, "u1"), contract.ChangeFactExpired)
	var bookExpired *contract.Change
	for i, c := range expired {
		if c.Fact.Value == "三体" {
			bookExpired = &expired[i]
		}
	}
	require.NotNil(t, bookExpired)
	require.Equal(t, stored.ExpiresAt, bookExpired.At)
	require.Equal(t, "expired", bookExpired.Fact.Status)
	n = b.stored(t)
	b.outlastDedupe(t)
	_, err = d.RunOnce(ctx)
	require.NoError(t, err)
	require.Equal(t, n, b.stored(t), "an expired fact is told once")
	require.Len(t, b.nats.DeadLetters(t), 0)
}

// The mentions of a turn stored by a handling whose publish never happened
// (a crash: a worker with no NATS) are told by the redelivery, not by a
// first delivery elsewhere; a further redelivery is dropped by the dedupe.
func TestFactNewRedelivered(t *testing.T) {
	t.Parallel()
	b := setup(t, true)
	ctx := context.Background()
	cfg := extractor.Def.Defaults()
	d := testenv.Deps(t, b.nats, b.db)
	crashed := *d
	crashed.JS = nil
	lost, _, err := extractor.Def.Build(ctx, cfg, &crashed)
	require.NoError(t, err)
	live, _, err := extractor.Def.Build(ctx, cfg, d)
	require.NoError(t, err)

	tr := turn("read-1", "u1", "我最近在读刘慈欣的《三体》，很喜欢。", t0)
	m, err := eventmsg.Turn(&tr)
	require.NoError(t, err)
	require.Equal(t, []error{nil}, lost.Handle(ctx, delivery(m, 1)))
	require.Zero(t, b.stored(t), "stored, not told")
	require.Equal(t, []error{nil}, live.Handle(ctx, delivery(m, 1)))
	require.Zero(t, b.stored(t), "a first delivery finds nothing new")
	require.Equal(t, []error{nil}, live.Handle(ctx, delivery(m, 2)))
	got := ofType(b.changes(t, "u1"), contract.ChangeFactNew)
	require.NotEmpty(t, got)
	for _, c := range got {
		require.Equal(t, "read-1", c.Fact.EventID)
		require.Equal(t, t0, c.At)
	}
	n := b.stored(t)
	require.Equal(t, []error{nil}, live.Handle(ctx, delivery(m, 3)))
	require.Equal(t, n, b.stored(t), "a redelivery within the duplicate window adds nothing")
}

// summarizeMsg is the request for a session's summary through n messages.
func summarizeMsg(t *testing.T, user, session string, n int64) *nats.Msg {
	t.Helper()
	m, err := eventmsg.Summarize(&events.SummarizeRequest{TenantID: "acme", UserID: user, SessionID: session,
		Reason: events.SummarizeRequested, FromCount: 0, ThroughCount: n, RequestedAt: t0})
	require.NoError(t, err)
	return m
}

// A session's summary: its version is told once (summary.updated, at the
// newest turn it covers), with the facts its key topics mentioned first; a
// request served again tells nothing. A version stored by a handling that
// crashed before it told is told by the request's redelivery.
func TestSummaryChanges(t *testing.T) {
	t.Parallel()
	b := setup(t, false)
	ctx := context.Background()
	testenv.StartWorker(t, b.nats, b.db, ingest.Def, func(c *ingest.Config) { c.Queue.Runner.RetryInitial = 10 * time.Millisecond })
	lines := []string{"我最近在读刘慈欣的《三体》，很喜欢硬科幻小说。", "《三体》确实很精彩。", "周末我打算去爬山。", "听起来不错。"}
	var turns []events.Turn
	for i, l := range lines {
		tr := turn(fmt.Sprintf("sum-%d", i), "u1", l, t0.Add(time.Duration(i)*time.Minute))
		if i%2 == 1 {
			tr.Role = events.RoleAssistant
		}
		turns = append(turns, tr)
	}
	_, err := queue.NewPublisher(b.nats.JS).PublishTurns(ctx, turns)
	require.NoError(t, err)
	b.nats.WaitSettled(t, queue.TurnsStream, ingest.Def.Binding.Durable)

	cfg := summarizer.Def.Defaults()
	cfg.Infer = false
	deps := testenv.Deps(t, b.nats, b.db)
	w, _, err := summarizer.Def.Build(ctx, cfg, deps)
	require.NoError(t, err)
	req := summarizeMsg(t, "u1", "s1", int64(len(lines)))
	require.Equal(t, []error{nil}, w.Handle(ctx, delivery(req, 1)))
	got := b.changes(t, "u1")
	sums := ofType(got, contract.ChangeSummaryUpdated)
	require.Len(t, sums, 1)
	s := sums[0]
	require.Equal(t, turns[len(turns)-1].OccurredAt, s.At, "the newest turn it covers")
	require.Equal(t, "s1", s.Summary.SessionID)
	require.Equal(t, 1, s.Summary.Version)
	require.NotEmpty(t, s.Summary.Text)
	require.EqualValues(t, len(lines), s.Summary.ThroughCount)
	require.False(t, s.Summary.CreatedAt.IsZero())
	stored, err := b.db.Store.Tenant("acme").CurrentSummary(ctx, "s1")
	require.NoError(t, err)
	require.Equal(t, stored.Text, s.Summary.Text)
	facts := ofType(got, contract.ChangeFactNew)
	require.NotEmpty(t, facts, "its key topics are facts first mentioned")
	for _, c := range facts {
		require.Equal(t, "summary", c.Fact.Source)
		require.Equal(t, store.SummaryEventID("s1", 0, int64(len(lines))), c.Fact.EventID)
	}
	n := b.stored(t)
	b.outlastDedupe(t)

	// Served again (a duplicate request): covered, nothing told.
	require.Equal(t, []error{nil}, w.Handle(ctx, delivery(req, 1)))
	require.Equal(t, n, b.stored(t), "a request served again tells nothing")

	// Another session, summarized by a worker that crashed before it told:
	// the redelivery tells, with the same ids the first would have had.
	var more []events.Turn
	for i, l := range lines {
		tr := turn(fmt.Sprintf("sum2-%d", i), "u1", l, t0.Add(time.Hour+time.Duration(i)*time.Minute))
		tr.SessionID = "s2"
		more = append(more, tr)
	}
	_, err = queue.NewPublisher(b.nats.JS).PublishTurns(ctx, more)
	require.NoError(t, err)
	b.nats.WaitSettled(t, queue.TurnsStream, ingest.Def.Binding.Durable)
	crashed := *deps
	crashed.JS = nil
	lost, _, err := summarizer.Def.Build(ctx, cfg, &crashed)
	require.NoError(t, err)
	req2 := summarizeMsg(t, "u1", "s2", int64(len(lines)))
	require.Equal(t, []error{nil}, lost.Handle(ctx, delivery(req2, 1)))
	require.Equal(t, n, b.stored(t), "stored, not told")
	require.Equal(t, []error{nil}, w.Handle(ctx, delivery(req2, 2)))
	sums = ofType(b.changes(t, "u1"), contract.ChangeSummaryUpdated)
	require.Len(t, sums, 2)
	require.Equal(t, "s2", sums[1].Summary.SessionID)
	v2, err := b.db.Store.Tenant("acme").CurrentSummary(ctx, "s2")
	require.NoError(t, err)
	require.Equal(t, changefeed.SummaryUpdated("acme", v2).ID, sums[1].ID)
	require.Equal(t, v2.Text, sums[1].Summary.Text)
	require.Empty(t, b.nats.DeadLetters(t))
}

// A list an assistant's turn presented is told once (list.presented, at the
// turn's time, its items numbered from 1); the same turn under another
// message id tells nothing, nor does a turn without a list; a list recorded
// by a handling that crashed before it told is told by the redelivery.
func TestListChanges(t *testing.T) {
	t.Parallel()
	b := setup(t, false)
	ctx := context.Background()
	testenv.StartWorker(t, b.nats, b.db, seen.Def, func(*seen.Config) {})
	list := events.Turn{ID: "list-1", TenantID: "acme", UserID: "u1", SessionID: "s1", OccurredAt: t0, Role: events.RoleAssistant,
		Content: "Two films:\n1. Arrival\n2. Contact", Items: []events.Item{
			{Ref: "/films/arrival", Title: "Arrival", Attrs: json.RawMessage(`{"year":2016}`)},
			{Ref: "/films/contact", Title: "Contact"}}}
	publish := func(tr events.Turn, msgID string) {
		t.Helper()
		m, err := eventmsg.Turn(&tr)
		require.NoError(t, err)
		if msgID != "" {
			m.Header.Set(jetstream.MsgIDHeader, msgID)
		}
		_, err = b.nats.JS.PublishMsg(ctx, m)
		require.NoError(t, err)
		b.nats.WaitSettled(t, queue.TurnsStream, seen.Def.Binding.Durable)
	}
	publish(list, "")
	got := b.changes(t, "u1")
	require.Len(t, got, 1)
	c := got[0]
	require.Equal(t, contract.ChangeListPresented, c.Type)
	require.Equal(t, t0, c.At)
	require.Equal(t, changefeed.ID(c.Type, "acme", "u1", "list-1"), c.ID)
	require.Equal(t, &contract.ChangedList{SessionID: "s1", EventID: "list-1", Count: 2, Items: []contract.ListEntry{
		{N: 1, Ref: "/films/arrival", Title: "Arrival", Attrs: json.RawMessage(`{"year":2016}`)},
		{N: 2, Ref: "/films/contact", Title: "Contact"}}}, c.List)
	b.outlastDedupe(t)

	publish(list, "again-list-1")
	publish(turn("plain-1", "u1", "Thanks!", t0.Add(time.Minute)), "")
	require.EqualValues(t, 1, b.stored(t), "a list recorded before, and a turn without one, tell nothing")

	// A crash between the record and the publish.
	cfg := seen.Def.Defaults()
	deps := testenv.Deps(t, b.nats, b.db)
	crashed := *deps
	crashed.JS = nil
	lost, _, err := seen.Def.Build(ctx, cfg, &crashed)
	require.NoError(t, err)
	live, _, err := seen.Def.Build(ctx, cfg, deps)
	require.NoError(t, err)
	other := list
	other.ID, other.OccurredAt = "list-2", t0.Add(time.Hour)
	m, err := eventmsg.Turn(&other)
	require.NoError(t, err)
	require.Equal(t, []error{nil}, lost.Handle(ctx, delivery(m, 1)))
	require.Equal(t, []error{nil}, live.Handle(ctx, delivery(m, 1)))
	require.EqualValues(t, 1, b.stored(t), "a first delivery finds nothing new")
	require.Equal(t, []error{nil}, live.Handle(ctx, delivery(m, 2)))
	got = b.changes(t, "u1")
	require.Len(t, got, 2)
	require.Equal(t, "list-2", got[1].List.EventID)
	require.Equal(t, other.OccurredAt, got[1].At)
}

// A user's usage habits, derived by the decayer: each derived value is told
// once (attribute.asserted, source derived, at the newest message's time);
// a second run, which derives nothing new, tells nothing; new messages that
// change a value tell its end and the new value.
func TestHabitChanges(t *testing.T) {
	t.Parallel()
	b := setup(t, false)
	ctx := context.Background()
	start := t0.AddDate(0, 0, -14)
	var turns []store.StoredTurn
	add := func(from time.Time, days int, text string) events.Turn {
		var last events.Turn
		for d := range days {
			for _, h := range []int{12, 13, 14} {
				at := from.AddDate(0, 0, d).Add(time.Duration(h)*time.Hour + 10*time.Minute)
				last = events.Turn{V: events.Version, ID: fmt.Sprintf("h-%s-%02d-%02d", from.Format("0102"), d, h), TenantID: "acme",
					UserID: "u1", SessionID: "s1", SiteID: "shop", AgentID: "librarian", OccurredAt: at, Role: events.RoleUser, Content: text}
				turns = append(turns, store.StoredTurn{Turn: last})
			}
		}
		_, err := b.db.Store.InsertTurns(ctx, turns)
		require.NoError(t, err)
		turns = nil
		return last
	}
	newest := add(start, 7, "Could you recommend a few novels about the history of the sea?")
	dcfg := decayer.Def.Defaults()
	dcfg.Habits.Derive = true
	dcfg.Habits.Window = 10 * 24 * time.Hour
	clk := &clock{at: t0}
	d, err := decayer.New(decayer.Options{Config: dcfg, Store: b.db.Store, Changes: changefeed.NewPublisher(b.nats.JS),
		Log: testenv.Logger(t), Now: clk.Now})
	require.NoError(t, err)
	_, err = d.RunOnce(ctx)
	require.NoError(t, err)
	got := b.changes(t, "u1")
	require.NotEmpty(t, got)
	keys := map[string]bool{}
	for _, c := range got {
		require.Equal(t, contract.ChangeAttributeAsserted, c.Type)
		require.Equal(t, "derived", c.Attribute.Source)
		require.Equal(t, newest.OccurredAt, c.At, "the newest message's event time")
		require.Equal(t, "derived:"+c.Attribute.Key+":"+newest.ID, c.Attribute.EventID)
		keys[c.Attribute.Key] = true
	}
	require.True(t, keys["message_length"] && keys["languages"], "%v", keys)
	n := b.stored(t)
	b.outlastDedupe(t)

	clk.at = t0.Add(time.Hour)
	_, err = d.RunOnce(ctx)
	require.NoError(t, err)
	require.Equal(t, n, b.stored(t), "a second run derives and tells nothing")

	// A week of short messages: the length changes; the old value ends.
	later := add(t0, 7, "ok thanks")
	clk.at = t0.AddDate(0, 0, 8)
	_, err = d.RunOnce(ctx)
	require.NoError(t, err)
	got = b.changes(t, "u1")[n:]
	var ended, put bool
	for _, c := range got {
		if c.Attribute.Key != "message_length" {
			continue
		}
		switch c.Type {
		case contract.ChangeAttributeSuperseded:
			ended = true
			require.Equal(t, "derived:message_length:"+later.ID, c.Attribute.EndedBy)
		case contract.ChangeAttributeAsserted:
			put = true
			require.Equal(t, "current", c.Attribute.Status)
		}
	}
	require.True(t, ended && put, "%+v", briefs(got))
}
