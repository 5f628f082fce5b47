package queue

import (
	"context"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/telemetry"
)

// Nothing in this package's tests starts tracing, so the runner and the
// publishers run as they do with no OTEL_* variable set; the traces
// themselves are tested in package telemetry, whose tests may switch tracing
// on.

// TestTracingOffAllocatesNothing: the tracing hooks on the runner's and the
// publishers' paths allocate nothing per message with tracing off. Not
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
