package queue_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/recallhq/recall/pkg/queue"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/trace"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/telemetry"
)

type runnerBundle struct {
	nats    *testenv.NATS
	metrics *queue.RunnerMetrics
}

func setupRunner(t *testing.T) *runnerBundle {
	t.Helper()
	return &runnerBundle{nats: testenv.NewNATS(t), metrics: queue.NewRunnerMetrics(nil)}
}

// start runs a runner on a fresh durable consumer until the test ends; it
// returns a function that stops it and reports Run's error.
func (b *runnerBundle) start(t *testing.T, h queue.BatchHandler, cc queue.ConsumerConfig, rc queue.RunnerConfig) func() error {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r, err := queue.NewRunner(ctx, b.nats.JS, queue.TurnsStream, queue.DurableConsumer("test", events.TurnsSubjects, cc), h, rc, testenv.Logger(t), b.metrics)
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	var once sync.Once
	var runErr error
	stop := func() error {
		once.Do(func() {
			cancel()
			select {
			case runErr = <-done:
			case <-time.After(30 * time.Second):
				runErr = errors.New("runner did not stop")
			}
		})
		return runErr
	}
	t.Cleanup(func() { _ = stop() })
	return stop
}

func (b *runnerBundle) publish(t *testing.T, n int) {
	t.Helper()
	for i := range n {
		m := nats.NewMsg(events.TurnSubject("t1", "u1", "s1"))
		m.Data = []byte(strconv.Itoa(i))
		m.Header.Set(jetstream.MsgIDHeader, fmt.Sprintf("t1:%d", i))
		_, err := b.nats.JS.PublishMsg(context.Background(), m)
		require.NoError(t, err)
	}
}

func fastRetry() queue.RunnerConfig {
	c := queue.RunnerDefaults(1, 1)
	c.RetryInitial, c.RetryMax = 10*time.Millisecond, 50*time.Millisecond
	return c
}

func TestRunnerAcksAndRetries(t *testing.T) {
	t.Parallel()
	b := setupRunner(t)
	var mu sync.Mutex
	seen := map[string]int{}
	h := queue.PerMessage(func(_ context.Context, m queue.Message) error {
		mu.Lock()
		defer mu.Unlock()
		seen[string(m.Data)]++
		if string(m.Data) == "3" && seen["3"] == 1 {
			require.Equal(t, uint64(1), m.Deliveries)
			return errors.New("transient")
		}
		return nil
	})
	b.start(t, h, queue.DefaultConsumerConfig, fastRetry())
	b.publish(t, 10)
	require.Eventually(t, func() bool {
		return testutil.ToFloat64(b.metrics.Processed.WithLabelValues("test")) == 10
	}, 10*time.Second, 10*time.Millisecond)
	mu.Lock()
	require.Equal(t, 2, seen["3"], "retried once")
	require.Equal(t, 1, seen["4"])
	mu.Unlock()
	require.Equal(t, 1.0, testutil.ToFloat64(b.metrics.Retried.WithLabelValues("test")))
	require.Equal(t, 1.0, testutil.ToFloat64(b.metrics.Failed.WithLabelValues("test", "retry")))
	require.Empty(t, b.nats.DeadLetters(t))
}

// TestRunnerTracingOff: with tracing off (nothing in these tests starts it)
// a handler gets the runner's own context, with no span, for every message,
// and published messages carry no trace context.
func TestRunnerTracingOff(t *testing.T) {
	t.Parallel()
	require.False(t, telemetry.Enabled())
	b := setupRunner(t)
	turns := make([]events.Turn, 3)
	for i := range turns {
		turns[i] = events.Turn{ID: strconv.Itoa(i), TenantID: "t1", UserID: "u1", SessionID: "s1",
			OccurredAt: time.Date(2026, 11, 22, 8, 0, i, 0, time.UTC), Role: "user", Content: "hello"}
	}
	_, err := queue.NewPublisher(b.nats.JS).PublishTurns(context.Background(), turns)
	require.NoError(t, err)
	h := queue.PerMessage(func(ctx context.Context, m queue.Message) error {
		if m.Context(ctx) != ctx || trace.SpanContextFromContext(ctx).IsValid() || m.Header.Get("traceparent") != "" {
			return queue.Permanent(errors.New("traced with tracing off"))
		}
		return nil
	})
	b.start(t, h, queue.DefaultConsumerConfig, queue.RunnerDefaults(10, 1))
	require.Eventually(t, func() bool {
		return testutil.ToFloat64(b.metrics.Processed.WithLabelValues("test")) == 3
	}, 10*time.Second, 10*time.Millisecond)
	require.Empty(t, b.nats.DeadLetters(t))
}

func TestRunnerPermanentErrorDeadLettersAtOnce(t *testing.T) {
	t.Parallel()
	b := setupRunner(t)
	var calls atomic.Int32
	h := queue.PerMessage(func(_ context.Context, m queue.Message) error {
		if string(m.Data) == "2" {
			calls.Add(1)
			return queue.Permanent(errors.New("cannot parse"))
		}
		return nil
	})
	b.start(t, h, queue.DefaultConsumerConfig, fastRetry())
	b.publish(t, 5)
	require.Eventually(t, func() bool { return len(b.nats.DeadLetters(t)) == 1 }, 10*time.Second, 10*time.Millisecond)
	require.Eventually(t, func() bool {
		return testutil.ToFloat64(b.metrics.Processed.WithLabelValues("test")) == 4
	}, 10*time.Second, 10*time.Millisecond)
	d := b.nats.DeadLetters(t)[0]
	require.Equal(t, "2", string(d.Data), "the original payload is kept")
	require.Equal(t, "recall.dlq.test.turns.t1.u1.s1", d.Subject)
	require.Equal(t, "cannot parse", d.Header.Get(queue.HeaderReason))
	require.Equal(t, "test", d.Header.Get(queue.HeaderConsumer))
	require.Equal(t, queue.TurnsStream, d.Header.Get(queue.HeaderStream))
	require.Equal(t, "3", d.Header.Get(queue.HeaderStreamSeq))
	require.Equal(t, "t1:2", d.Header.Get(queue.HeaderOriginalMsgID))
	require.Equal(t, int32(1), calls.Load(), "never retried")
	require.Equal(t, 1.0, testutil.ToFloat64(b.metrics.Failed.WithLabelValues("test", "permanent")))
	require.Equal(t, 1.0, testutil.ToFloat64(b.metrics.DeadLettered.WithLabelValues("test")))
}

func TestRunnerMaxDeliverDeadLetters(t *testing.T) {
	t.Parallel()
	b := setupRunner(t)
	var calls atomic.Int32
	h := queue.PerMessage(func(_ context.Context, m queue.Message) error {
		if string(m.Data) == "0" {
			calls.Add(1)
			return errors.New("db says no")
		}
		return nil
	})
	cc := queue.DefaultConsumerConfig
	cc.MaxDeliver = 3
	b.start(t, h, cc, fastRetry())
	b.publish(t, 3)
	require.Eventually(t, func() bool { return len(b.nats.DeadLetters(t)) == 1 }, 10*time.Second, 10*time.Millisecond)
	d := b.nats.DeadLetters(t)[0]
	require.Equal(t, "gave up after 3 deliveries: db says no", d.Header.Get(queue.HeaderReason))
	require.Equal(t, "3", d.Header.Get(queue.HeaderDeliveries))
	require.Equal(t, int32(3), calls.Load())
	require.Equal(t, 2.0, testutil.ToFloat64(b.metrics.Failed.WithLabelValues("test", "retry")))
	require.Equal(t, 1.0, testutil.ToFloat64(b.metrics.Failed.WithLabelValues("test", "exhausted")))
	require.Equal(t, 2.0, testutil.ToFloat64(b.metrics.Processed.WithLabelValues("test")), "the others flowed on")
}

func TestRunnerRecoversPanics(t *testing.T) {
	t.Parallel()
	b := setupRunner(t)
	var calls atomic.Int32
	h := queue.PerMessage(func(_ context.Context, m queue.Message) error {
		if calls.Add(1) == 1 {
			panic("boom")
		}
		return nil
	})
	b.start(t, h, queue.DefaultConsumerConfig, fastRetry())
	b.publish(t, 1)
	require.Eventually(t, func() bool {
		return testutil.ToFloat64(b.metrics.Processed.WithLabelValues("test")) == 1
	}, 10*time.Second, 10*time.Millisecond)
	require.Equal(t, int32(2), calls.Load())
}

func TestRunnerHeartbeatKeepsSlowMessages(t *testing.T) {
	t.Parallel()
	b := setupRunner(t)
	var calls atomic.Int32
	h := queue.PerMessage(func(ctx context.Context, m queue.Message) error {
		calls.Add(1)
		// Three times AckWait: without InProgress the server would redeliver.
		select {
		case <-time.After(3 * time.Second):
		case <-ctx.Done():
		}
		return nil
	})
	cc := queue.DefaultConsumerConfig
	cc.AckWait = time.Second
	rc := fastRetry()
	rc.Concurrency = 2 // a free worker would pick up a redelivery
	b.start(t, h, cc, rc)
	b.publish(t, 1)
	require.Eventually(t, func() bool {
		return testutil.ToFloat64(b.metrics.Processed.WithLabelValues("test")) == 1
	}, 10*time.Second, 10*time.Millisecond)
	require.Equal(t, int32(1), calls.Load(), "not redelivered while in progress")
	require.Positive(t, testutil.ToFloat64(b.metrics.Heartbeats.WithLabelValues("test")))
}

func TestRunnerBatchesAndDrains(t *testing.T) {
	t.Parallel()
	b := setupRunner(t)
	started := make(chan struct{})
	release := make(chan struct{})
	var maxBatch, total atomic.Int32
	var once sync.Once
	h := func(ctx context.Context, msgs []queue.Message) []error {
		if int32(len(msgs)) > maxBatch.Load() {
			maxBatch.Store(int32(len(msgs)))
		}
		once.Do(func() { close(started); <-release })
		total.Add(int32(len(msgs)))
		return nil
	}
	stop := b.start(t, h, queue.DefaultConsumerConfig, func() queue.RunnerConfig {
		c := queue.RunnerDefaults(50, 1)
		c.BatchWait = 50 * time.Millisecond
		return c
	}())
	b.publish(t, 200)
	<-started
	// Shut down while a batch is in flight: the batch must complete and be acked.
	stopped := make(chan error, 1)
	go func() { stopped <- stop() }()
	close(release)
	require.NoError(t, <-stopped)
	first := total.Load()
	require.Positive(t, first)
	require.Greater(t, maxBatch.Load(), int32(1), "messages were batched")

	// A new runner on the same durable consumer gets exactly the rest.
	b.start(t, h, queue.DefaultConsumerConfig, queue.RunnerDefaults(50, 1))
	require.Eventually(t, func() bool { return total.Load() == 200 }, 10*time.Second, 10*time.Millisecond)
	cons, err := b.nats.JS.Consumer(context.Background(), queue.TurnsStream, "test")
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		info, err := cons.Info(context.Background())
		return err == nil && info.NumAckPending == 0 && info.NumPending == 0
	}, 10*time.Second, 10*time.Millisecond)
}

func TestDLQSubject(t *testing.T) {
	t.Parallel()
	require.Equal(t, "recall.dlq.ingest.turns.t1.u1.s1", queue.DLQSubject("ingest", "recall.turns.t1.u1.s1"))
	require.Equal(t, "recall.dlq.ingest.other."+events.EncodeToken("foo.bar"), queue.DLQSubject("ingest", "foo.bar"))
}

func TestRetryDelayGrowsAndCaps(t *testing.T) {
	t.Parallel()
	prev := 0.0
	for n := uint64(1); n <= 4; n++ {
		d := queue.RetryDelay(n, 100_000_000, 10_000_000_000).Seconds()
		// ±20% jitter around 0.1·2^(n-1).
		want := 0.1 * float64(uint(1)<<(n-1))
		require.InDelta(t, want, d, want*0.21, "delivery %d", n)
		require.Greater(t, d, prev*1.2)
		prev = d
	}
	require.LessOrEqual(t, queue.RetryDelay(30, 100_000_000, 1_000_000_000).Seconds(), 1.2)
}

// The lag gauge follows the server's view of the consumer, and falls to zero
// once the consumer is idle (it used to keep the count seen by the last batch).
func TestRunnerLagGaugeFallsToZeroWhenIdle(t *testing.T) {
	t.Parallel()
	b := setupRunner(t)
	release := make(chan struct{})
	h := queue.PerMessage(func(ctx context.Context, _ queue.Message) error {
		select {
		case <-release:
		case <-ctx.Done():
		}
		return nil
	})
	b.publish(t, 50)
	rc := queue.RunnerDefaults(1, 1)
	rc.LagEvery = 20 * time.Millisecond
	b.start(t, h, queue.DefaultConsumerConfig, rc)
	gauge := func() float64 { return testutil.ToFloat64(b.metrics.Pending.WithLabelValues("test")) }
	require.Eventually(t, func() bool { return gauge() > 0 }, 5*time.Second, 10*time.Millisecond, "lag seen while busy")
	close(release)
	require.Eventually(t, func() bool { return gauge() == 0 }, 10*time.Second, 10*time.Millisecond, "lag back to zero when idle")
}

// A message whose every delivery ends without an answer (the worker killed
// each time) is dead-lettered with its reason once its deliveries run out,
// instead of being passed over silently by the server.
func TestRunnerDeadLettersMessageWhoseWorkerDiedOnEveryDelivery(t *testing.T) {
	t.Parallel()
	b := setupRunner(t)
	ctx := context.Background()
	cc := queue.ConsumerConfig{AckWait: 200 * time.Millisecond, MaxDeliver: 3, MaxAckPending: 100}
	cons, err := b.nats.JS.CreateOrUpdateConsumer(ctx, queue.TurnsStream, queue.Unlimited(queue.DurableConsumer("test", events.TurnsSubjects, cc)))
	require.NoError(t, err)
	b.publish(t, 1)
	// Three workers each take the message and die before answering.
	for i := 1; i <= 3; i++ {
		batch, err := cons.Fetch(1, jetstream.FetchMaxWait(5*time.Second))
		require.NoError(t, err)
		var got int
		for m := range batch.Messages() {
			md, err := m.Metadata()
			require.NoError(t, err)
			require.Equal(t, uint64(i), md.NumDelivered)
			got++
		}
		require.Equal(t, 1, got, "delivery %d", i)
	}
	var handled atomic.Int32
	b.start(t, queue.PerMessage(func(context.Context, queue.Message) error { handled.Add(1); return nil }), cc, fastRetry())
	require.Eventually(t, func() bool { return len(b.nats.DeadLetters(t)) == 1 }, 10*time.Second, 10*time.Millisecond)
	dl := b.nats.DeadLetters(t)[0]
	require.Contains(t, dl.Header.Get(queue.HeaderReason), "gave up after 3 deliveries without an answer")
	require.Equal(t, "4", dl.Header.Get(queue.HeaderDeliveries))
	require.Zero(t, handled.Load(), "the handler is not run past the limit")
	b.nats.WaitSettled(t, queue.TurnsStream, "test")
}

// TestRunnerHandleTimeout: a handler that waits on something that never
// comes is cut off at the handle timeout, retried, and dead-lettered with
// the reason; one that does not even notice its context ending loses its
// heartbeats, so the server delivers the message again after AckWait, and it
// is dead-lettered once its deliveries run out. Neither holds its message
// forever.
func TestRunnerHandleTimeout(t *testing.T) {
	t.Parallel()
	t.Run("handler that honours its context", func(t *testing.T) {
		t.Parallel()
		b := setupRunner(t)
		h := queue.PerMessage(func(ctx context.Context, m queue.Message) error {
			<-ctx.Done() // a lock that is never released
			return ctx.Err()
		})
		cc := queue.DefaultConsumerConfig
		cc.MaxDeliver = 2
		rc := fastRetry()
		rc.HandleTimeout = 100 * time.Millisecond
		b.start(t, h, cc, rc)
		b.publish(t, 1)
		require.Eventually(t, func() bool { return len(b.nats.DeadLetters(t)) == 1 }, 10*time.Second, 10*time.Millisecond)
		require.Equal(t, "gave up after 2 deliveries: ran past the handle timeout (100ms): context deadline exceeded",
			b.nats.DeadLetters(t)[0].Header.Get(queue.HeaderReason))
	})
	t.Run("handler that never returns", func(t *testing.T) {
		t.Parallel()
		b := setupRunner(t)
		stuck := make(chan struct{})
		h := queue.PerMessage(func(context.Context, queue.Message) error {
			<-stuck
			return nil
		})
		cc := queue.DefaultConsumerConfig
		cc.MaxDeliver, cc.AckWait = 2, 300*time.Millisecond
		rc := fastRetry()
		rc.Concurrency, rc.HandleTimeout = 4, 100*time.Millisecond
		b.start(t, h, cc, rc)
		t.Cleanup(func() { close(stuck) }) // before the runner stops: it waits for its handlers
		b.publish(t, 1)
		require.Eventually(t, func() bool { return len(b.nats.DeadLetters(t)) == 1 }, 15*time.Second, 20*time.Millisecond)
		require.Contains(t, b.nats.DeadLetters(t)[0].Header.Get(queue.HeaderReason), "gave up after 2 deliveries without an answer")
	})
}
