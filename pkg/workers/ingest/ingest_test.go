package ingest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/recallhq/recall/pkg/queue"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/eventmsg"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/workers/ingest"
)

type bundle struct {
	db   *testenv.DB
	nats *testenv.NATS
	cfg  ingest.Config
}

func setup(t *testing.T) *bundle {
	t.Helper()
	cfg := ingest.Def.Defaults()
	cfg.Queue.Runner.BatchSize = 200
	cfg.Queue.Runner.RetryInitial, cfg.Queue.Runner.RetryMax = 10*time.Millisecond, 100*time.Millisecond
	return &bundle{db: testenv.NewDB(t), nats: testenv.NewNATS(t), cfg: cfg}
}

// start runs the ingest worker; the returned function stops it (graceful drain).
func (b *bundle) start(t *testing.T) func() {
	t.Helper()
	_, stop := testenv.StartWorker(t, b.nats, b.db, ingest.Def, func(c *ingest.Config) { *c = b.cfg })
	return stop
}

func turn(tenant, session string, i int, at time.Time) events.Turn {
	role := events.RoleUser
	if i%2 == 1 {
		role = events.RoleAssistant
	}
	return events.Turn{
		ID: fmt.Sprintf("%s-%d", session, i), TenantID: tenant, UserID: "user-of-" + session, SessionID: session,
		OccurredAt: at, Role: role, Content: fmt.Sprintf("message %d of %s", i, session),
	}
}

func (b *bundle) count(t *testing.T, sql string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, b.db.Store.Pool().QueryRow(context.Background(), sql, args...).Scan(&n))
	return n
}

func (b *bundle) publishRaw(t *testing.T, subject string, data []byte, msgID string) {
	t.Helper()
	m := nats.NewMsg(subject)
	m.Data = data
	if msgID != "" {
		m.Header.Set(jetstream.MsgIDHeader, msgID)
	}
	_, err := b.nats.JS.PublishMsg(context.Background(), m)
	require.NoError(t, err)
}

// Ten thousand turns over a hundred sessions, a few hundred of them published
// twice (some within JetStream's dedupe window, some as if after it), and the worker
// stopped and restarted mid-stream: exactly one row per turn, exact aggregates.
func TestIngestExactlyOnce(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	const sessions, perSession = 100, 100
	base := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	var all []events.Turn
	for s := range sessions {
		for i := range perSession {
			all = append(all, turn("t1", fmt.Sprintf("s%03d", s), i, base.Add(time.Duration(s)*time.Hour+time.Duration(i)*time.Second)))
		}
	}
	pub := queue.NewPublisher(b.nats.JS)
	publish := func(turns []events.Turn) {
		for len(turns) > 0 {
			n := min(500, len(turns))
			_, err := pub.PublishTurns(ctx, turns[:n])
			require.NoError(t, err)
			turns = turns[n:]
		}
	}

	stop := b.start(t)
	publish(all[:4000])
	require.Eventually(t, func() bool { return b.count(t, `SELECT count(*) FROM messages`) >= 2000 }, 30*time.Second, 5*time.Millisecond)
	stop()
	stored := b.count(t, `SELECT count(*) FROM messages`)
	t.Logf("stopped the worker at %d stored rows", stored)

	publish(all[4000:])
	// 150 duplicates with the same dedupe id: JetStream drops them.
	publish(all[100:250])
	// 150 duplicates as if published again after the dedupe window: they reach the
	// stream and the database must skip them.
	for _, tn := range all[5000:5150] {
		m, err := eventmsg.Turn(&tn)
		require.NoError(t, err)
		b.publishRaw(t, m.Subject, m.Data, "")
	}
	b.start(t)
	// Every message acked, retries included.
	b.nats.WaitSettled(t, queue.TurnsStream, ingest.Def.Binding.Durable)

	require.Equal(t, 10000, b.count(t, `SELECT count(*) FROM messages`))
	require.Equal(t, 10000, b.count(t, `SELECT count(DISTINCT event_id) FROM messages`))
	require.Equal(t, sessions, b.count(t, `SELECT count(*) FROM sessions`))
	require.Equal(t, sessions, b.count(t, `SELECT count(*) FROM sessions WHERE message_count = $1`, perSession))
	require.Equal(t, 0, b.count(t, `
		SELECT count(*) FROM sessions s
		JOIN (SELECT session_id, min(occurred_at) f, max(occurred_at) l FROM messages GROUP BY session_id) m USING (session_id)
		WHERE s.first_message_at <> m.f OR s.last_message_at <> m.l`))
	require.Empty(t, b.nats.DeadLetters(t))
}

// A turn the database refuses forever is dead-lettered with the reason after
// MaxDeliver attempts while the rest of its batch is stored; malformed JSON and a
// body claiming another tenant than its subject are dead-lettered at once. Nothing
// is lost: every published message is either a row or a dead letter.
func TestIngestPoisonAndMalformed(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	b.cfg.Queue.Consumer.MaxDeliver = 3
	_, err := b.db.Store.Pool().Exec(ctx, `ALTER TABLE messages ADD CONSTRAINT no_poison CHECK (content <> 'poison')`)
	require.NoError(t, err)
	b.start(t)

	base := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	var turns []events.Turn
	for i := range 50 {
		tn := turn("t1", "s1", i, base.Add(time.Duration(i)*time.Second))
		if i == 25 {
			tn.Content = "poison"
		}
		turns = append(turns, tn)
	}
	_, err = queue.NewPublisher(b.nats.JS).PublishTurns(ctx, turns)
	require.NoError(t, err)
	b.publishRaw(t, events.TurnSubject("t1", "u1", "s2"), []byte(`{"id": "broken"`), "t1:broken")
	other := turn("t2", "s3", 0, base)
	data, err := json.Marshal(other)
	require.NoError(t, err)
	b.publishRaw(t, events.TurnSubject("t1", other.UserID, "s3"), data, "t1:cross")

	require.Eventually(t, func() bool { return len(b.nats.DeadLetters(t)) == 3 }, 30*time.Second, 10*time.Millisecond)
	require.Equal(t, 49, b.count(t, `SELECT count(*) FROM messages`))
	require.Equal(t, 49, b.count(t, `SELECT message_count FROM sessions WHERE session_id = 's1'`))

	reasons := map[string]*jetstream.RawStreamMsg{}
	for _, m := range b.nats.DeadLetters(t) {
		reasons[m.Header.Get(queue.HeaderOriginalMsgID)] = m
	}
	poison := reasons["t1:s1-25"]
	require.NotNil(t, poison)
	require.Contains(t, poison.Header.Get(queue.HeaderReason), "gave up after 3 deliveries")
	require.Contains(t, poison.Header.Get(queue.HeaderReason), "no_poison")
	var back events.Turn
	require.NoError(t, json.Unmarshal(poison.Data, &back))
	require.Equal(t, "poison", back.Content, "the original is preserved")

	broken := reasons["t1:broken"]
	require.NotNil(t, broken)
	require.Equal(t, "1", broken.Header.Get(queue.HeaderDeliveries), "malformed JSON is not retried")
	require.Contains(t, broken.Header.Get(queue.HeaderReason), "malformed JSON")
	require.Equal(t, `{"id": "broken"`, string(broken.Data))

	cross := reasons["t1:cross"]
	require.NotNil(t, cross)
	require.Contains(t, cross.Header.Get(queue.HeaderReason), "tenant_id")
	require.Equal(t, 0, b.count(t, `SELECT count(*) FROM messages WHERE tenant_id = 't2'`))
}

func TestIngestRejectsNothingSilently(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.start(t)
	// Invalid per the contract (unknown role): dead-lettered with the field named.
	bad := turn("t1", "s1", 0, time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC))
	bad.Role = "bot"
	data, err := json.Marshal(bad)
	require.NoError(t, err)
	b.publishRaw(t, events.TurnSubject("t1", bad.UserID, "s1"), data, "t1:bad")
	require.Eventually(t, func() bool { return len(b.nats.DeadLetters(t)) == 1 }, 30*time.Second, 10*time.Millisecond)
	require.Contains(t, b.nats.DeadLetters(t)[0].Header.Get(queue.HeaderReason), `role: unknown role "bot"`)
	require.Equal(t, 0, b.count(t, `SELECT count(*) FROM messages`))
}
