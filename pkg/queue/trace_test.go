package queue

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/natsserver"
	"github.com/recallhq/recall/pkg/service"
	"github.com/recallhq/recall/pkg/telemetry"
)

// Nothing in this package's tests starts tracing, so the runner and the
// publisher run as they do with no OTEL_* variable set: the end-to-end
// traces are tested in package telemetry, where tests may switch tracing on.

// TestTracingOffRunnerTracesNothing: with tracing off a runner has no
// tracer, its messages no span, handlers get the runner's own context, and
// published messages carry no trace context.
func TestTracingOffRunnerTracesNothing(t *testing.T) {
	t.Parallel()
	require.False(t, telemetry.Enabled())
	srv, err := natsserver.Start(natsserver.Options{Port: -1, StoreDir: t.TempDir()})
	require.NoError(t, err)
	t.Cleanup(func() { srv.Shutdown(); srv.WaitForShutdown() })
	nc, err := nats.Connect(srv.ClientURL())
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	ctx := t.Context()
	require.NoError(t, EnsureStreams(ctx, js, DefaultStreamConfig))

	turns := make([]events.Turn, 3)
	for i := range turns {
		turns[i] = events.Turn{ID: string(rune('a' + i)), TenantID: "t", UserID: "u", SessionID: "s",
			OccurredAt: time.Date(2026, 11, 22, 8, 0, i, 0, time.UTC), Role: "user", Content: "hello"}
	}
	_, err = NewPublisher(js).PublishTurns(ctx, turns)
	require.NoError(t, err)

	type seen struct {
		same    bool
		span    bool
		headers nats.Header
	}
	var mu sync.Mutex
	var got []seen
	h := PerMessage(func(hctx context.Context, m Message) error {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, seen{same: m.Context(hctx) == hctx, span: m.span != nil, headers: m.Header})
		return nil
	})
	rctx, cancel := context.WithCancel(ctx)
	r, err := NewRunner(rctx, js, TurnsStream, DurableConsumer("test", events.TurnsSubjects, service.Defaults[ConsumerConfig]()), h, RunnerDefaults(10, 1), slog.New(slog.DiscardHandler), nil)
	require.NoError(t, err)
	require.Nil(t, r.tracer)
	done := make(chan error, 1)
	go func() { done <- r.Run(rctx) }()
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(got) == len(turns) }, 10*time.Second, 5*time.Millisecond)
	cancel()
	require.NoError(t, <-done)
	for _, s := range got {
		require.True(t, s.same)
		require.False(t, s.span)
		require.Empty(t, s.headers.Get("traceparent"))
	}
}

// TestTracingOffAllocatesNothing: the tracing hooks on the runner's and the
// publisher's paths allocate nothing per message with tracing off. Not
// parallel: AllocsPerRun counts every goroutine's allocations.
func TestTracingOffAllocatesNothing(t *testing.T) {
	require.False(t, telemetry.Enabled())
	ctx := context.Background()
	msgs := make([]Message, 100)
	for i := range msgs {
		msgs[i] = Message{Subject: "recall.turns.t.u.s", Header: nats.Header{jetstream.MsgIDHeader: {"t:1"}}, Seq: uint64(i + 1), Deliveries: 1}
	}
	out := []*nats.Msg{nats.NewMsg("recall.turns.t.u.s")}
	handle := PerMessage(func(context.Context, Message) error { return nil })
	allocs := testing.AllocsPerRun(100, func() {
		endSend(startSend(ctx, TurnsStream, out), nil)
		if errs := handle(ctx, msgs); errs != nil {
			t.Fatal(errs)
		}
	})
	require.Zero(t, allocs)
	require.Empty(t, out[0].Header.Get("traceparent"))
}
