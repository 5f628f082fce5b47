package bench

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/recallhq/recall/pkg/queue"

	"github.com/jackc/pgx/v5"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/eventmsg"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/workers/ingest"
)

// benchTurns is how many turns each ingest phase moves; BENCH_TURNS overrides.
func benchTurns() int {
	if n, err := strconv.Atoi(os.Getenv("BENCH_TURNS")); err == nil && n > 0 {
		return n
	}
	return 200_000
}

// makeTurns builds realistic turns: 1000 sessions, alternating roles, ~120 bytes of
// content, every tenth assistant turn with a tool call and a three-item list.
func makeTurns(n int) []events.Turn {
	base := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	out := make([]events.Turn, n)
	for i := range out {
		s := i % 1000
		t := events.Turn{
			ID: fmt.Sprintf("ev-%08d", i), TenantID: "bench", UserID: fmt.Sprintf("u%04d", s), SessionID: fmt.Sprintf("s%04d", s),
			OccurredAt: base.Add(time.Duration(i) * time.Millisecond), Role: events.RoleUser,
			Content: fmt.Sprintf("Turn %d: I am looking for a science fiction novel like the one we discussed, maybe something by Liu Cixin.", i),
		}
		if i%2 == 1 {
			t.Role = events.RoleAssistant
			if i%10 == 1 {
				t.ToolCalls = []events.ToolCall{{Name: "search", Arguments: []byte(`{"q":"sci-fi"}`), Result: []byte(`{"hits":3}`), Status: "ok", DurationMS: 42}}
				t.Items = []events.Item{{Ref: "/b/1", Title: "The Three-Body Problem"}, {Ref: "/b/2", Title: "Ball Lightning"}, {Ref: "/b/3", Title: "Supernova Era"}}
			}
		}
		out[i] = t
	}
	return out
}

// BenchmarkIngest measures, in one run: (a) the raw JetStream ceiling (async
// publish + consume with ack on a stream with the turn stream's settings), (b) the
// raw PostgreSQL ceiling for the messages table (COPY), (c) end-to-end ingest from
// the first publish to the last commit, and (c) ÷ min(a, b).
func BenchmarkIngest(b *testing.B) {
	n := benchTurns()
	turns := makeTurns(n)
	msgs := make([]*nats.Msg, n)
	for i := range turns {
		m, err := eventmsg.Turn(&turns[i])
		require.NoError(b, err)
		msgs[i] = m
	}
	b.ResetTimer()
	for range b.N {
		jsRate := rawJetStream(b, msgs)
		pgRate := rawCopy(b, turns)
		e2e := endToEnd(b, msgs, false)
		catchUp := endToEnd(b, msgs, true)
		ceiling := min(jsRate, pgRate)
		b.ReportMetric(jsRate, "jetstream_raw_msgs/s")
		b.ReportMetric(pgRate, "postgres_copy_rows/s")
		b.ReportMetric(e2e, "ingest_turns/s")
		b.ReportMetric(e2e/ceiling, "ratio")
		b.ReportMetric(catchUp, "catchup_turns/s")
		fmt.Printf("ingest: %d turns\n", n)
		fmt.Printf("  (a) jetstream raw publish+consume+ack: %9.0f msgs/s\n", jsRate)
		fmt.Printf("  (b) postgres raw COPY into messages:   %9.0f rows/s\n", pgRate)
		fmt.Printf("  (c) end-to-end publish -> commit:      %9.0f turns/s\n", e2e)
		fmt.Printf("  (c) / min(a, b) = %.2f  (targets: ratio >= 0.5, >= 10000 turns/s)\n", e2e/ceiling)
		fmt.Printf("  catch-up of a %d-turn backlog:       %9.0f turns/s\n", n, catchUp)
	}
}

func publishAll(b *testing.B, js jetstream.JetStream, msgs []*nats.Msg, subject func(*nats.Msg) string) {
	for i, m := range msgs {
		out := &nats.Msg{Subject: subject(m), Data: m.Data, Header: m.Header}
		for {
			_, err := js.PublishMsgAsync(out)
			if err == nil {
				break
			}
			// Too many outstanding acks: wait for some, then go on.
			select {
			case <-js.PublishAsyncComplete():
			case <-time.After(time.Second):
			}
		}
		_ = i
	}
	select {
	case <-js.PublishAsyncComplete():
	case <-time.After(2 * time.Minute):
		b.Fatal("publish acks did not complete")
	}
}

func rawJetStream(b *testing.B, msgs []*nats.Msg) float64 {
	ctx := context.Background()
	settle(b)
	nt := testenv.NewNATS(b)
	sc := queue.TurnsStreamConfig(queue.DefaultStreamConfig)
	sc.Name, sc.Subjects = "BENCH_RAW", []string{"bench.raw.>"}
	_, err := nt.JS.CreateStream(ctx, sc)
	require.NoError(b, err)
	cons, err := nt.JS.CreateOrUpdateConsumer(ctx, "BENCH_RAW", queue.DurableConsumer("raw", "bench.raw.>", queue.DefaultConsumerConfig))
	require.NoError(b, err)
	var got atomic.Int64
	done := make(chan struct{})
	total := int64(len(msgs))
	start := time.Now()
	cc, err := cons.Consume(func(m jetstream.Msg) {
		_ = m.Ack()
		if got.Add(1) == total {
			close(done)
		}
	}, jetstream.PullMaxMessages(1000))
	require.NoError(b, err)
	defer cc.Stop()
	publishAll(b, nt.JS, msgs, func(m *nats.Msg) string { return "bench.raw." + m.Subject[len("recall.turns."):] })
	<-done
	require.NoError(b, nt.Conn.Flush())
	return float64(total) / time.Since(start).Seconds()
}

func rawCopy(b *testing.B, turns []events.Turn) float64 {
	ctx := context.Background()
	db := testenv.NewDB(b)
	conn, err := pgx.Connect(ctx, db.URL)
	require.NoError(b, err)
	defer conn.Close(ctx)
	settle(b)
	cols := []string{"tenant_id", "event_id", "session_id", "user_id", "site_id", "agent_id", "role", "content", "tool_calls", "items", "metadata", "occurred_at", "stream_seq"}
	start := time.Now()
	const chunk = 5000
	for off := 0; off < len(turns); off += chunk {
		part := turns[off:min(off+chunk, len(turns))]
		_, err := conn.CopyFrom(ctx, pgx.Identifier{"messages"}, cols, pgx.CopyFromFunc(func() func() ([]any, error) {
			i := 0
			return func() ([]any, error) {
				if i >= len(part) {
					return nil, nil
				}
				t := &part[i]
				i++
				var tc, it any
				if len(t.ToolCalls) > 0 {
					tc = t.ToolCalls
					it = t.Items
				}
				return []any{t.TenantID, t.ID, t.SessionID, t.UserID, t.SiteID, t.AgentID, t.Role, t.Content, tc, it, nil, t.OccurredAt, int64(off + i)}, nil
			}
		}()))
		require.NoError(b, err)
	}
	return float64(len(turns)) / time.Since(start).Seconds()
}

// endToEnd runs the ingest worker and measures from the first publish to the last
// commit (acks follow commits). With backlog set, everything is published first
// and only the worker's catch-up is timed (replay, recovery after an outage).
func endToEnd(b *testing.B, msgs []*nats.Msg, backlog bool) float64 {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	db := testenv.NewDB(b)
	nt := testenv.NewNATS(b)
	settle(b)
	start := time.Now()
	if backlog {
		publishAll(b, nt.JS, msgs, func(m *nats.Msg) string { return m.Subject })
		start = time.Now()
	}
	_, stop := testenv.StartWorker(b, nt, db, ingest.Def, nil)
	defer stop()

	if !backlog {
		publishAll(b, nt.JS, msgs, func(m *nats.Msg) string { return m.Subject })
	}
	cons, err := nt.JS.Consumer(ctx, queue.TurnsStream, ingest.Def.Binding.Durable)
	require.NoError(b, err)
	last := uint64(len(msgs))
	for {
		info, err := cons.Info(ctx)
		require.NoError(b, err)
		if info.AckFloor.Stream >= last {
			break
		}
		time.Sleep(2 * time.Millisecond)
	}
	elapsed := time.Since(start)
	var stored int
	require.NoError(b, db.Store.Pool().QueryRow(ctx, `SELECT count(*) FROM messages`).Scan(&stored))
	require.Equal(b, len(msgs), stored)
	return float64(len(msgs)) / elapsed.Seconds()
}
