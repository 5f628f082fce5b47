package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/recallhq/recall/pkg/queue"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/events"
)

func TestDLQCommands(t *testing.T) {
	t.Parallel()
	n := testenv.NewNATS(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r, err := queue.NewRunner(ctx, n.JS, queue.TurnsStream, queue.DurableConsumer("ingest", events.TurnsSubjects, queue.DefaultConsumerConfig),
		queue.PerMessage(func(context.Context, queue.Message) error {
			return queue.Permanent(errors.New("turn: field \"role\": unknown role"))
		}),
		queue.RunnerDefaults(1, 1), testenv.Logger(t), nil)
	require.NoError(t, err)
	go func() { _ = r.Run(ctx) }()
	for _, body := range []string{`{"id":"a"}`, `{"id":"b"}`} {
		m := nats.NewMsg(events.TurnSubject("t1", "u1", "s1"))
		m.Data = []byte(body)
		_, err := n.JS.PublishMsg(ctx, m)
		require.NoError(t, err)
	}
	require.Eventually(t, func() bool { return len(n.DeadLetters(t)) == 2 }, 10*time.Second, 10*time.Millisecond)
	cancel()

	run := func(args ...string) (string, error) {
		var out bytes.Buffer
		a, err := parseDLQ(args)
		if err != nil {
			return "", err
		}
		err = runDLQ(context.Background(), n.JS, a, &out)
		return out.String(), err
	}
	out, err := run("list")
	require.NoError(t, err)
	require.Contains(t, out, `unknown role`)
	require.Contains(t, out, "recall.turns.t1.u1.s1")
	require.Contains(t, out, "2 dead letter(s)")

	out, err = run("list", "-consumer", "extractor")
	require.NoError(t, err)
	require.Contains(t, out, "0 dead letter(s)")

	out, err = run("show", "1")
	require.NoError(t, err)
	var shown struct {
		Seq      uint64 `json:"seq"`
		Consumer string `json:"consumer"`
		Data     string `json:"data"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &shown))
	require.Equal(t, uint64(1), shown.Seq)
	require.Equal(t, "ingest", shown.Consumer)
	require.Equal(t, `{"id":"a"}`, shown.Data)

	_, err = run("redrive")
	require.ErrorContains(t, err, "give sequences or -all")
	_, err = run("show", "x")
	require.ErrorContains(t, err, `"x" is not a dead-letter sequence`)

	out, err = run("redrive", "1")
	require.NoError(t, err)
	require.Contains(t, out, "re-driven: 1, kept: 0")
	out, err = run("delete", "2")
	require.NoError(t, err)
	require.Contains(t, out, "deleted 2")
	require.Empty(t, n.DeadLetters(t))

	s, err := n.JS.Stream(context.Background(), queue.TurnsStream)
	require.NoError(t, err)
	info, err := s.Info(context.Background())
	require.NoError(t, err)
	require.Equal(t, uint64(3), info.State.Msgs, "the re-driven turn is back in the turn stream")
}

// TestDLQRedriveOnceForAllConsumers: a message two workers gave up on is
// published again once by `recall dlq redrive -all`, for both, and both dead
// letters of it go.
func TestDLQRedriveOnceForAllConsumers(t *testing.T) {
	t.Parallel()
	n := testenv.NewNATS(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, name := range []string{"ingest", "extractor"} {
		r, err := queue.NewRunner(ctx, n.JS, queue.TurnsStream, queue.DurableConsumer(name, events.TurnsSubjects, queue.DefaultConsumerConfig),
			queue.PerMessage(func(context.Context, queue.Message) error {
				return queue.Permanent(errors.New("turn: field \"role\": unknown role"))
			}),
			queue.RunnerDefaults(1, 1), testenv.Logger(t), nil)
		require.NoError(t, err)
		go func() { _ = r.Run(ctx) }()
	}
	m := nats.NewMsg(events.TurnSubject("t1", "u1", "s1"))
	m.Data = []byte(`{"id":"a"}`)
	_, err := n.JS.PublishMsg(ctx, m)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return len(n.DeadLetters(t)) == 2 }, 10*time.Second, 10*time.Millisecond)
	cancel()

	a, err := parseDLQ([]string{"redrive", "-all"})
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, runDLQ(context.Background(), n.JS, a, &out))
	require.Contains(t, out.String(), "re-driven: 2, kept: 0")
	require.Contains(t, out.String(), "the other consumers' dead letters of it")
	require.Empty(t, n.DeadLetters(t))
	s, err := n.JS.Stream(context.Background(), queue.TurnsStream)
	require.NoError(t, err)
	info, err := s.Info(context.Background())
	require.NoError(t, err)
	require.Equal(t, uint64(2), info.State.Msgs, "the message and one copy of it, not one per consumer")
}
