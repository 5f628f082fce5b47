package queue_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/queue"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/events"
)

// A handler rejects two messages; an operator lists the dead letters, fixes the
// cause, re-drives one and deletes the other.
func TestDeadLettersListRedriveDelete(t *testing.T) {
	t.Parallel()
	b := setupRunner(t)
	ctx := context.Background()
	var fixed atomic.Bool
	var mu sync.Mutex
	handled := map[string]int{}
	h := queue.PerMessage(func(_ context.Context, m queue.Message) error {
		if !fixed.Load() && (string(m.Data) == "bad-a" || string(m.Data) == "bad-b") {
			return queue.Permanent(errors.New("cannot parse " + string(m.Data)))
		}
		mu.Lock()
		handled[string(m.Data)]++
		mu.Unlock()
		return nil
	})
	b.start(t, h, queue.DefaultConsumerConfig, fastRetry())

	pub := func(subject, data, id string) {
		m := nats.NewMsg(subject)
		m.Data = []byte(data)
		m.Header.Set("X-Trace", "trace-"+data)
		if id != "" {
			m.Header.Set(jetstream.MsgIDHeader, id)
		}
		_, err := b.nats.JS.PublishMsg(ctx, m)
		require.NoError(t, err)
	}
	pub(events.TurnSubject("t1", "u1", "s1"), "ok-1", "t1:ok-1")
	// Published without a dedupe id, so the re-drive is not a duplicate.
	pub(events.TurnSubject("t1", "u.2", "s1"), "bad-a", "")
	pub(events.TurnSubject("t1", "u1", "s2"), "bad-b", "t1:bad-b")
	require.Eventually(t, func() bool { return len(b.nats.DeadLetters(t)) == 2 }, 10*time.Second, 10*time.Millisecond)

	var all []queue.DeadLetterEntry
	require.NoError(t, queue.ListDeadLetters(ctx, b.nats.JS, "", func(e queue.DeadLetterEntry) error {
		all = append(all, e)
		return nil
	}))
	require.Len(t, all, 2)
	a := all[0]
	require.Equal(t, "test", a.Consumer)
	require.Equal(t, queue.TurnsStream, a.Stream)
	require.Equal(t, uint64(2), a.StreamSeq)
	require.Equal(t, events.TurnSubject("t1", "u.2", "s1"), a.Subject)
	require.Equal(t, "cannot parse bad-a", a.Reason)
	require.Equal(t, uint64(1), a.Deliveries)
	require.WithinDuration(t, time.Now(), a.FailedAt, time.Minute)
	require.Equal(t, "bad-a", string(a.Data))
	require.Equal(t, "trace-bad-a", a.Header.Get("X-Trace"), "original headers kept")
	for k := range a.Header {
		require.NotContains(t, k, "Recall-Dlq-", "dead-letter headers are not part of the original")
	}
	require.Equal(t, "t1:bad-b", all[1].EventID)
	require.Equal(t, "t1:bad-b", all[1].Header.Get(jetstream.MsgIDHeader), "the original id is restored")

	var none int
	require.NoError(t, queue.ListDeadLetters(ctx, b.nats.JS, "other", func(queue.DeadLetterEntry) error { none++; return nil }))
	require.Zero(t, none, "filtered by consumer")

	fixed.Store(true)
	// The original id of bad-b is still remembered by the stream: re-driving it
	// now would be dropped as a duplicate, so it is refused and kept.
	redriveErr := queue.Redrive(ctx, b.nats.JS, all[1])
	require.ErrorIs(t, redriveErr, queue.ErrStillDuplicate)
	// It says when a re-drive will work: the stream forgets the id a
	// duplicate window after it stored the copy.
	var dup *queue.DuplicateError
	require.ErrorAs(t, redriveErr, &dup)
	turns, err := b.nats.JS.Stream(ctx, queue.TurnsStream)
	require.NoError(t, err)
	stored, err := turns.GetMsg(ctx, all[1].StreamSeq)
	require.NoError(t, err)
	window := turns.CachedInfo().Config.Duplicates
	require.Positive(t, window)
	require.Equal(t, window, dup.Window)
	require.Equal(t, "t1:bad-b", dup.MsgID)
	require.Equal(t, all[1].StreamSeq, dup.StreamSeq)
	require.True(t, stored.Time.Add(window).Equal(dup.Until), "until %s, stored %s + %s", dup.Until, stored.Time, window)
	require.Contains(t, redriveErr.Error(), dup.Until.Format(time.RFC3339))
	_, err = queue.GetDeadLetter(ctx, b.nats.JS, all[1].Seq)
	require.NoError(t, err, "still in the dead-letter stream")

	require.NoError(t, queue.Redrive(ctx, b.nats.JS, a))
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return handled["bad-a"] == 1
	}, 10*time.Second, 10*time.Millisecond, "the fixed handler got the re-driven message")
	_, err = queue.GetDeadLetter(ctx, b.nats.JS, a.Seq)
	require.ErrorContains(t, err, "not found")

	// A dead letter of an older copy of bad-b (as when a message stored
	// twice ran out of deliveries twice, and the other dead letter was
	// re-driven first): the stream holds a newer copy, which every consumer
	// is handed, so re-driving it only removes it.
	older := all[1]
	older.StreamSeq = all[1].StreamSeq - 1
	require.NoError(t, queue.Redrive(ctx, b.nats.JS, older))
	require.Empty(t, b.nats.DeadLetters(t))
	require.Equal(t, 2.0, testutil.ToFloat64(b.metrics.DeadLettered.WithLabelValues("test")))
}

// A message several consumers gave up on is re-driven once: the copy goes to
// every consumer, and their dead letters of it go with the one re-driven.
// Another message's dead letter on the same subject stays.
func TestRedriveMessageOfSeveralConsumers(t *testing.T) {
	t.Parallel()
	n := testenv.NewNATS(t)
	ctx := t.Context()
	subject := events.TurnSubject("t1", "u1", "s1")
	letter := func(consumer string, seq uint64, data string) {
		require.NoError(t, queue.DeadLetter(ctx, n.JS, consumer, queue.TurnsStream,
			queue.Message{Subject: subject, Data: []byte(data), Header: nats.Header{}, Seq: seq, Deliveries: 1}, consumer+" gave up"))
	}
	letter("ingest", 7, "seven")
	letter("extractor", 7, "seven")
	letter("indexer", 8, "eight")
	letter("indexer", 7, "seven")
	var all []queue.DeadLetterEntry
	require.NoError(t, queue.ListDeadLetters(ctx, n.JS, "", func(e queue.DeadLetterEntry) error {
		all = append(all, e)
		return nil
	}))
	require.Len(t, all, 4)

	others, err := queue.RedriveMessage(ctx, n.JS, all[1])
	require.NoError(t, err)
	require.Equal(t, []uint64{all[0].Seq, all[3].Seq}, others)
	left := n.DeadLetters(t)
	require.Len(t, left, 1)
	require.Equal(t, all[2].Seq, left[0].Sequence, "the dead letter of another message is kept")

	turns, err := n.JS.Stream(ctx, queue.TurnsStream)
	require.NoError(t, err)
	info, err := turns.Info(ctx)
	require.NoError(t, err)
	require.Equal(t, uint64(1), info.State.Msgs, "published once for the three consumers")
}
