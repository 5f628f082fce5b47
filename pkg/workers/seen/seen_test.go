package seen_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/recallhq/recall/pkg/queue"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/store"
	"github.com/recallhq/recall/pkg/workers/seen"
)

var t0 = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

type bundle struct {
	db   *testenv.DB
	nats *testenv.NATS
	reg  *prometheus.Registry
}

func setup(t *testing.T) *bundle {
	t.Helper()
	return &bundle{db: testenv.NewDB(t), nats: testenv.NewNATS(t), reg: prometheus.NewRegistry()}
}

// start runs the worker with cfg's Cap; the returned function stops it
// (graceful drain). Only the first worker of a test registers its metrics.
func (b *bundle) start(t *testing.T, cfg seen.Config) func() {
	t.Helper()
	var opts []testenv.StartOption
	if b.reg != nil {
		opts = append(opts, testenv.WithRegistry(b.reg))
		b.reg = nil
	}
	_, stop := testenv.StartWorker(t, b.nats, b.db, seen.Def, func(c *seen.Config) {
		c.Cap = cfg.Cap
		c.Queue.Runner.BatchSize = 100
		c.Queue.Runner.RetryInitial, c.Queue.Runner.RetryMax = 10*time.Millisecond, 100*time.Millisecond
	}, opts...)
	return stop
}

func (b *bundle) settle(t *testing.T) {
	t.Helper()
	b.nats.WaitSettled(t, queue.TurnsStream, seen.Def.Binding.Durable)
}

func (b *bundle) publish(t *testing.T, turns ...events.Turn) {
	t.Helper()
	_, err := queue.NewPublisher(b.nats.JS).PublishTurns(context.Background(), turns)
	require.NoError(t, err)
}

func (b *bundle) publishRaw(t *testing.T, subject string, data []byte, msgID string) {
	t.Helper()
	m := nats.NewMsg(subject)
	m.Data = data
	m.Header.Set(jetstream.MsgIDHeader, msgID)
	_, err := b.nats.JS.PublishMsg(context.Background(), m)
	require.NoError(t, err)
}

func (b *bundle) seen(t *testing.T, tenant, user string) map[string]store.SeenItem {
	t.Helper()
	items, err := b.db.Store.Tenant(tenant).SeenItems(context.Background(), user, 1000)
	require.NoError(t, err)
	out := map[string]store.SeenItem{}
	for _, it := range items {
		out[it.Ref] = it
	}
	return out
}

func chat(id, user, session string, at time.Time) events.Turn {
	return events.Turn{ID: id, TenantID: "t1", UserID: user, SessionID: session, OccurredAt: at, Role: events.RoleUser, Content: "recommend something " + id}
}

func list(id, user, session string, at time.Time, refs ...string) events.Turn {
	t := chat(id, user, session, at)
	t.Role, t.Content = events.RoleAssistant, "here you are"
	for i, r := range refs {
		t.Items = append(t.Items, events.Item{Ref: r, Title: "title " + r, Attrs: json.RawMessage(fmt.Sprintf(`{"rating":%d}`, i+1))})
	}
	return t
}

func TestRecordsPresentedItemsOnce(t *testing.T) {
	t.Parallel()
	b := setup(t)
	reg := b.reg
	stop := b.start(t, seen.Config{})
	b.publish(t,
		chat("c1", "u1", "s1", t0),
		list("l1", "u1", "s1", t0.Add(time.Second), "/mv/1", "/mv/2", "/mv/3"),
		chat("c2", "u1", "s1", t0.Add(2*time.Second)),
		list("l2", "u1", "s2", t0.Add(time.Hour), "/mv/3", "/mv/4"),
		list("l3", "u2", "s3", t0, "/mv/1"),
	)
	b.settle(t)
	u1 := b.seen(t, "t1", "u1")
	require.Len(t, u1, 4)
	require.EqualValues(t, 2, u1["/mv/3"].TimesShown)
	require.Equal(t, t0.Add(time.Second), u1["/mv/3"].FirstSeenAt)
	require.Equal(t, t0.Add(time.Hour), u1["/mv/3"].LastSeenAt)
	require.Equal(t, "s2", u1["/mv/3"].LastSessionID)
	require.JSONEq(t, `{"rating":1}`, string(u1["/mv/3"].Attrs), "attrs of the newest showing")
	require.Len(t, b.seen(t, "t1", "u2"), 1)
	require.Equal(t, 3.0, counterValue(t, reg, "recall_seen_turns_total", "recorded"))
	require.Equal(t, 2.0, counterValue(t, reg, "recall_seen_turns_total", "no_list"))
	require.Equal(t, 6.0, counterValue(t, reg, "recall_seen_items_total", ""))

	// Published again past JetStream's dedupe window (another message id), and
	// redelivered after a restart: nothing is counted twice.
	stop()
	again := list("l1", "u1", "s1", t0.Add(time.Second), "/mv/1", "/mv/2", "/mv/3")
	data, err := json.Marshal(again)
	require.NoError(t, err)
	b.publishRaw(t, events.TurnSubject("t1", "u1", "s1"), data, "replay-1")
	b.start(t, seen.Config{})
	b.settle(t)
	require.EqualValues(t, 2, b.seen(t, "t1", "u1")["/mv/3"].TimesShown)
	require.EqualValues(t, 1, b.seen(t, "t1", "u1")["/mv/1"].TimesShown)
	require.Empty(t, b.nats.DeadLetters(t))
}

func TestCapFromConfig(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.start(t, seen.Config{Cap: 2})
	b.publish(t, list("l1", "u1", "s1", t0, "/a", "/b"), list("l2", "u1", "s1", t0.Add(time.Minute), "/c"))
	b.settle(t)
	got := b.seen(t, "t1", "u1")
	require.Len(t, got, 2)
	require.NotContains(t, got, "/a", "first seen longest ago goes first; of a tie, the smaller ref")
	require.Contains(t, got, "/c")
}

// Invalid turns are dead-lettered by this worker too, naming it; a turn whose
// "items" key is spelled with escapes is still read.
func TestInvalidAndEscapedTurns(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.start(t, seen.Config{})
	subj := events.TurnSubject("t1", "u1", "s1")
	bad := `{"id":"bad","tenant_id":"t1","user_id":"u1","session_id":"s1","occurred_at":"2026-03-01T10:00:00Z","role":"assistant","content":"","items":[{"title":"no ref"}]}`
	b.publishRaw(t, subj, []byte(bad), "t1:bad")
	escaped := `{"id":"esc","tenant_id":"t1","user_id":"u1","session_id":"s1","occurred_at":"2026-03-01T10:00:00Z","role":"assistant","content":"","\u0069tems":[{"ref":"/x"}]}`
	b.publishRaw(t, subj, []byte(escaped), "t1:esc")
	other := strings.Replace(escaped, `"user_id":"u1"`, `"user_id":"someone-else"`, 1)
	b.publishRaw(t, subj, []byte(strings.Replace(other, `"esc"`, `"esc2"`, 1)), "t1:esc2")
	b.settle(t)
	require.Contains(t, b.seen(t, "t1", "u1"), "/x")
	dl := b.nats.DeadLetters(t)
	require.Len(t, dl, 2, "the invalid turn and the one whose body claims another user than its subject")
	for _, m := range dl {
		require.Equal(t, seen.Def.Binding.Durable, m.Header.Get("Recall-Dlq-Consumer"))
		require.NotEmpty(t, m.Header.Get("Recall-Dlq-Reason"))
	}
}

// counterValue reads a counter (with the given outcome label, when not empty).
func counterValue(t *testing.T, reg *prometheus.Registry, name, outcome string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	require.NoError(t, err)
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			if outcome == "" {
				return m.GetCounter().GetValue()
			}
			for _, l := range m.GetLabel() {
				if l.GetName() == "outcome" && l.GetValue() == outcome {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	t.Fatalf("no %s{outcome=%q}", name, outcome)
	return 0
}
