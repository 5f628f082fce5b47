package recallrun

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/natsserver"
	"github.com/recallhq/recall/pkg/queue"
)

// Settle waits for a durable consumer to finish its backlog and reports what
// it handled and for how long it was seen busy.
func TestSettleReportsEachConsumersDrain(t *testing.T) {
	t.Parallel()
	srv, err := natsserver.Start(natsserver.Options{Port: -1, StoreDir: t.TempDir()})
	require.NoError(t, err)
	t.Cleanup(func() { srv.Shutdown(); srv.WaitForShutdown() })
	nc, err := nats.Connect(srv.ClientURL())
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "WORK", Subjects: []string{"work.>"}})
	require.NoError(t, err)
	cons, err := st.CreateConsumer(ctx, jetstream.ConsumerConfig{Durable: "slow", AckPolicy: jetstream.AckExplicitPolicy})
	require.NoError(t, err)
	for range 20 {
		_, err := js.Publish(ctx, "work.x", []byte("x"))
		require.NoError(t, err)
	}
	// The consumer works through its backlog slowly, one message at a time.
	go func() {
		for range 20 {
			msgs, err := cons.Fetch(1)
			if err != nil {
				return
			}
			for m := range msgs.Messages() {
				time.Sleep(20 * time.Millisecond)
				_ = m.Ack()
			}
		}
	}()
	since := time.Now()
	res, err := Settle(ctx, func(context.Context) (int64, error) { return 1, nil }, 1,
		SettleOptions{NATS: queue.NATSConfig{URL: srv.ClientURL()}, Quiet: 200 * time.Millisecond, Timeout: 20 * time.Second, Poll: 10 * time.Millisecond, Since: since},
		slog.New(slog.NewTextHandler(io.Discard, nil)))
	require.NoError(t, err)
	require.Len(t, res.Drains, 1)
	d := res.Drains[0]
	require.Equal(t, "WORK/slow", d.Consumer)
	require.Equal(t, uint64(20), d.Acked)
	require.Greater(t, d.Busy, 300*time.Millisecond, "20 messages at 20 ms each")
	require.LessOrEqual(t, d.Busy, res.Took+time.Since(since))
	require.InDelta(t, 20/d.Busy.Seconds(), d.Rate(), 1e-9)
}
