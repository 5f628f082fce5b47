package changefeed_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/changefeed"
	"github.com/recallhq/recall/pkg/contract"
	"github.com/recallhq/recall/pkg/eventmsg"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/forget"
	"github.com/recallhq/recall/pkg/pause"
	"github.com/recallhq/recall/pkg/queue"
	"github.com/recallhq/recall/pkg/workers/extractor"
	"github.com/recallhq/recall/pkg/workers/signals"
)

var t0 = time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC)

type bundle struct {
	db   *testenv.DB
	nats *testenv.NATS
}

// setup is a database and a JetStream with Recall's streams. With dedupe
// false, the change feed's duplicate window is 100ms, its least: a change
// published twice is stored twice, so that the test sees what the
// publishers publish, not what the stream's dedupe hides.
func setup(t *testing.T, dedupe bool) *bundle {
	t.Helper()
	b := &bundle{db: testenv.NewDB(t), nats: testenv.NewNATS(t)}
	if !dedupe {
		c := queue.DefaultStreamConfig
		c.DuplicateWindow = 100 * time.Millisecond
		_, err := b.nats.JS.UpdateStream(context.Background(), queue.ChangesStreamConfig(c))
		require.NoError(t, err)
	}
	return b
}

// extractorConfig is the extractor's default config, retrying fast.
func extractorConfig(c *extractor.Config) {
	c.Queue.Runner.RetryInitial, c.Queue.Runner.RetryMax = 10*time.Millisecond, 50*time.Millisecond
}

func turn(id, user, content string, at time.Time) events.Turn {
	return events.Turn{ID: id, TenantID: "acme", UserID: user, SessionID: "s1", OccurredAt: at, Role: events.RoleUser, Content: content}
}

// changes are the change feed's messages for one user, in stream order,
// each checked against its subject and its Nats-Msg-Id.
func (b *bundle) changes(t *testing.T, user string) []contract.Change {
	t.Helper()
	ctx := context.Background()
	s, err := b.nats.JS.Stream(ctx, queue.ChangesStream)
	require.NoError(t, err)
	subject := events.ChangeSubject("acme", user)
	var out []contract.Change
	for seq := uint64(1); ; seq++ {
		m, err := s.GetMsg(ctx, seq, jetstream.WithGetMsgSubject(subject))
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			return out
		}
		require.NoError(t, err)
		var c contract.Change
		require.NoError(t, json.Unmarshal(m.Data, &c))
		require.Equal(t, subject, m.Subject)
		require.Equal(t, c.ID, m.Header.Get(jetstream.MsgIDHeader))
		out = append(out, c)
		seq = m.Sequence
	}
}

// stored is how many messages the change feed holds.
func (b *bundle) stored(t *testing.T) uint64 {
	t.Helper()
	s, err := b.nats.JS.Stream(context.Background(), queue.ChangesStream)
	require.NoError(t, err)
	info, err := s.Info(context.Background())
	require.NoError(t, err)
	return info.State.Msgs
}

// outlastDedupe waits until the newest change is out of setup's short
// duplicate window: a change published again from now on would be stored.
func (b *bundle) outlastDedupe(t *testing.T) {
	t.Helper()
	s, err := b.nats.JS.Stream(context.Background(), queue.ChangesStream)
	require.NoError(t, err)
	info, err := s.Info(context.Background())
	require.NoError(t, err)
	pause.Until(context.Background(), info.State.LastTime.Add(info.Config.Duplicates+10*time.Millisecond))
}

func (b *bundle) publish(t *testing.T, turns ...events.Turn) {
	t.Helper()
	_, err := queue.NewPublisher(b.nats.JS).PublishTurns(context.Background(), turns)
	require.NoError(t, err)
	b.nats.WaitSettled(t, queue.TurnsStream, extractor.Def.Binding.Durable)
}

// brief is what a test says of a change: its type, and the value's key,
// value, status and what ended it.
type brief struct{ typ, key, value, status, endedBy string }

func briefs(cs []contract.Change) []brief {
	out := make([]brief, len(cs))
	for i, c := range cs {
		out[i].typ = c.Type
		if a := c.Attribute; a != nil {
			out[i].key, out[i].value, out[i].status, out[i].endedBy = a.Key, a.Value, a.Status, a.EndedBy
		}
	}
	return out
}

// A user says where they live, then that they moved, then is forgotten:
// the feed holds each change once, in order, with ids derived from what
// changed; the same turns again (a duplicate publish, a replay of the
// extractor), turns that change nothing and turns refused publish nothing.
func TestConversationChanges(t *testing.T) {
	t.Parallel()
	b := setup(t, false)
	testenv.StartWorker(t, b.nats, b.db, extractor.Def, extractorConfig)
	lyon := turn("said-1", "u1", "I live in Lyon.", t0)
	toronto := turn("said-2", "u1", "We finally moved to Toronto last week!", t0.Add(time.Hour))

	b.publish(t, lyon)
	b.publish(t, toronto)
	got := b.changes(t, "u1")
	// At each time, the values ended come first, then the values put; among
	// themselves by id (changefeed.Sort).
	want := []brief{
		{contract.ChangeAttributeAsserted, "location", "Lyon", "superseded", "said-2"},
		{contract.ChangeAttributeAsserted, "statements", "I live in Lyon.", "superseded", "said-2"},
		{contract.ChangeAttributeSuperseded, "location", "Lyon", "superseded", "said-2"},
		{contract.ChangeAttributeSuperseded, "statements", "I live in Lyon.", "superseded", "said-2"},
		{contract.ChangeAttributeAsserted, "location", "Toronto", "current", ""},
		{contract.ChangeAttributeAsserted, "statements", "We finally moved to Toronto last week!", "current", ""},
	}
	// The first turn's values were current when they were published.
	want[0].status, want[0].endedBy, want[1].status, want[1].endedBy = "current", "", "current", ""
	require.Len(t, got, len(want), "%+v", briefs(got))
	for _, k := range [][2]int{{0, 2}, {2, 4}, {4, 6}} {
		require.ElementsMatch(t, want[k[0]:k[1]], briefs(got[k[0]:k[1]]))
		require.True(t, slices.IsSortedFunc(got[k[0]:k[1]], func(x, y contract.Change) int { return strings.Compare(x.ID, y.ID) }), "ordered by id")
	}
	for _, c := range got {
		a := c.Attribute
		require.Equal(t, contract.ChangeVersion, c.V)
		require.Equal(t, "acme", c.TenantID)
		require.Equal(t, "u1", c.UserID)
		require.Equal(t, "stated", a.Source)
		require.Equal(t, []string{a.EventID}, a.Evidence, "the turn it was read from")
		require.Equal(t, "s1", a.SessionID)
		switch c.Type {
		case contract.ChangeAttributeAsserted:
			require.Equal(t, a.ValidFrom, c.At, "the turn's event time")
			require.Equal(t, changefeed.ID(c.Type, "acme", "u1", a.EventID, a.Key, a.Item, a.Op), c.ID)
		case contract.ChangeAttributeSuperseded:
			require.Equal(t, toronto.OccurredAt, c.At, "when the value ended: the next turn's event time")
			require.Equal(t, changefeed.ID(c.Type, "acme", "u1", a.EventID, a.Key, a.Item, a.Op, a.EndedBy), c.ID)
		}
	}
	require.Len(t, slices.CompactFunc(slices.Clone(got), func(x, y contract.Change) bool { return x.ID == y.ID }), len(got), "unique ids")
	n := b.stored(t)
	require.EqualValues(t, len(want), n)
	b.outlastDedupe(t)

	// The same turns published again under other message ids (the turn
	// stream takes them): stored again by nobody, published again by nobody.
	for _, tr := range []events.Turn{lyon, toronto} {
		m, err := eventmsg.Turn(&tr)
		require.NoError(t, err)
		m.Header.Set(jetstream.MsgIDHeader, "again-"+tr.ID)
		_, err = b.nats.JS.PublishMsg(context.Background(), m)
		require.NoError(t, err)
	}
	b.nats.WaitSettled(t, queue.TurnsStream, extractor.Def.Binding.Durable)
	require.Equal(t, n, b.stored(t), "a duplicate publishes nothing")

	// A replay of the extractor over the whole stream.
	cfg := extractor.Def.Defaults()
	w, _, err := extractor.Def.Build(context.Background(), cfg, testenv.Deps(t, b.nats, b.db))
	require.NoError(t, err)
	_, err = extractor.Def.Binding.Replay(context.Background(), b.nats.JS, queue.ReplayOptions{Tenant: "acme", User: "u1",
		Consumer: cfg.Queue.Consumer, Runner: cfg.Queue.Runner}, w.Handle, testenv.Logger(t), nil)
	require.NoError(t, err)
	require.Equal(t, n, b.stored(t), "a replay publishes nothing")

	// Turns that change nothing: nothing said of the user; a body that
	// claims another user than its subject (dead-lettered); a statement
	// the schema refuses is no assertion at all.
	b.publish(t, turn("said-3", "u1", "What is the weather like today?", t0.Add(2*time.Hour)))
	bad := turn("said-4", "u2", "I live in Paris.", t0.Add(3*time.Hour))
	m, err := eventmsg.Turn(&bad)
	require.NoError(t, err)
	m.Subject = events.TurnSubject("acme", "u1", "s1")
	_, err = b.nats.JS.PublishMsg(context.Background(), m)
	require.NoError(t, err)
	b.nats.WaitSettled(t, queue.TurnsStream, extractor.Def.Binding.Durable)
	require.Len(t, b.nats.DeadLetters(t), 1)
	require.Equal(t, n, b.stored(t), "turns that change nothing publish nothing")

	// Forgotten: the user's changes are erased with the rest, and the forget
	// is the one change left, with its report.
	rep, err := forget.User(context.Background(), b.db.Store, b.nats.JS, "acme", "u1")
	require.NoError(t, err)
	require.EqualValues(t, len(want), rep.StreamMessages[queue.ChangesStream])
	got = b.changes(t, "u1")
	require.Len(t, got, 1)
	f := got[0]
	require.Equal(t, contract.ChangeUserForgotten, f.Type)
	require.Equal(t, "acme", f.Forgotten.TenantID)
	require.Equal(t, "u1", f.Forgotten.UserID)
	require.Equal(t, rep.Rows, f.Forgotten.Rows)
	require.Positive(t, f.Forgotten.Rows["attribute_assertions"])
	require.Equal(t, rep.StreamMessages, f.Forgotten.StreamMessages)
	require.Equal(t, changefeed.ID(f.Type, "acme", "u1", f.At.Format(time.RFC3339Nano)), f.ID)

	// Forgotten again: nothing of theirs was left but that change, which
	// goes too; nothing is published.
	rep, err = forget.User(context.Background(), b.db.Store, b.nats.JS, "acme", "u1")
	require.NoError(t, err)
	require.EqualValues(t, 1, rep.StreamMessages[queue.ChangesStream])
	require.Empty(t, b.changes(t, "u1"))
	require.Zero(t, b.stored(t))
}

// A turn's statements stored by a handling whose publish never happened (a
// crash between the commit and the publish: here a worker with no NATS)
// are not published by a first delivery elsewhere, which finds nothing new,
// but by the redelivery the crash causes; a further redelivery is dropped
// by the stream's dedupe.
func TestRedeliveryPublishesWhatACrashLost(t *testing.T) {
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

	tr := turn("said-1", "u1", "I live in Lyon.", t0)
	nm, err := eventmsg.Turn(&tr)
	require.NoError(t, err)
	delivery := func(n uint64) []queue.Message {
		return []queue.Message{{Subject: nm.Subject, Data: nm.Data, Header: nm.Header, Seq: 1, Deliveries: n}}
	}
	require.Equal(t, []error{nil}, lost.Handle(ctx, delivery(1)))
	require.Zero(t, b.stored(t), "stored, not published")
	require.Equal(t, []error{nil}, live.Handle(ctx, delivery(1)))
	require.Zero(t, b.stored(t), "a first delivery finds nothing new")
	require.Equal(t, []error{nil}, live.Handle(ctx, delivery(2)))
	got := b.changes(t, "u1")
	require.ElementsMatch(t, []brief{
		{contract.ChangeAttributeAsserted, "location", "Lyon", "current", ""},
		{contract.ChangeAttributeAsserted, "statements", "I live in Lyon.", "current", ""},
	}, briefs(got))
	require.Equal(t, []error{nil}, live.Handle(ctx, delivery(3)))
	require.EqualValues(t, 2, b.stored(t), "a redelivery within the duplicate window adds nothing")
}

// Explicit edits (the catalog worker's): a value put, replaced and removed
// is asserted, superseded and removed, each once; an edit the schema
// refuses is dead-lettered and publishes nothing.
func TestAttributeEditChanges(t *testing.T) {
	t.Parallel()
	b := setup(t, false)
	testenv.StartWorker(t, b.nats, b.db, signals.Def, func(c *signals.Config) {
		c.Queue.Runner.RetryInitial, c.Queue.Runner.RetryMax = 10*time.Millisecond, 50*time.Millisecond
	})
	edit := func(id, op, key, value string, at time.Time) {
		t.Helper()
		_, err := queue.NewPublisher(b.nats.JS).PublishAttributeEdits(context.Background(), []events.AttributeEdit{{
			ID: id, TenantID: "acme", UserID: "u1", OccurredAt: at, Key: key, Op: op, Value: value}})
		require.NoError(t, err)
		b.nats.WaitSettled(t, queue.SignalsStream, signals.Def.Binding.Durable)
	}
	edit("e1", "put", "location", "Berlin", t0)
	edit("e2", "put", "location", "Munich", t0.Add(time.Hour))
	edit("e3", "remove", "location", "", t0.Add(2*time.Hour))
	got := b.changes(t, "u1")
	require.Equal(t, []brief{
		{contract.ChangeAttributeAsserted, "location", "Berlin", "current", ""},
		{contract.ChangeAttributeSuperseded, "location", "Berlin", "superseded", "e2"},
		{contract.ChangeAttributeAsserted, "location", "Munich", "current", ""},
		{contract.ChangeAttributeRemoved, "location", "Munich", "retracted", "e3"},
	}, briefs(got))
	for _, c := range got {
		require.Equal(t, "explicit", c.Attribute.Source)
		require.Equal(t, "about", c.Attribute.Group)
	}
	require.Equal(t, t0.Add(2*time.Hour), got[3].At, "removed at the removal's event time")
	b.outlastDedupe(t)

	// A removal of what is no longer there, and an edit the schema refuses.
	edit("e4", "remove", "location", "", t0.Add(3*time.Hour))
	edit("e5", "put", "no_such_key", "x", t0.Add(4*time.Hour))
	require.Len(t, b.nats.DeadLetters(t), 1)
	require.Len(t, b.changes(t, "u1"), len(got), "edits that change nothing publish nothing")
}
