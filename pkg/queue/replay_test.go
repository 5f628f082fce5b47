package queue_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/recallhq/recall/pkg/queue"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/events"
)

func TestScopeFilter(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		filter, tenant, user, want string
		ok                         bool
	}{
		{events.TurnsSubjects, "", "", "recall.turns.>", true},
		{events.TurnsSubjects, "acme", "", "recall.turns.acme.>", true},
		{events.TurnsSubjects, "acme", "u.1", "recall.turns.acme." + events.EncodeToken("u.1") + ".>", true},
		{events.ShelfSubjects, "acme", "", "recall.shelf.acme.>", true},
		{events.ShelfSubjects, "acme", "u1", "recall.shelf.acme.u1", true},
		{events.CatalogSubjects, "acme", "", "recall.catalog.acme", true},
		{events.CatalogSubjects, "acme", "u1", "", false},
		{events.ProfileTaskSubjects, "acme", "u1", "recall.tasks.profile.acme.u1", true},
		{events.SummarizeTaskSubjects, "acme", "u1", "recall.tasks.summarize.acme.u1.>", true},
	} {
		got, ok, err := queue.ScopeFilter(c.filter, c.tenant, c.user)
		require.NoError(t, err)
		require.Equal(t, c.ok, ok, c)
		require.Equal(t, c.want, got, c)
	}
	_, _, err := queue.ScopeFilter(events.TurnsSubjects, "", "u1")
	require.ErrorContains(t, err, "needs a tenant")
	_, _, err = queue.ScopeFilter("recall.other.>", "t", "")
	require.ErrorContains(t, err, "no tenant/user layout")
}

// A replay reads the whole stream (or from a sequence, or one tenant's or
// user's subjects) through its own consumer, leaves the live consumer alone,
// reports progress and removes its consumer when done.
func TestReplay(t *testing.T) {
	t.Parallel()
	n := testenv.NewNATS(t)
	ctx := context.Background()
	// A live durable consumer exists and has its own position.
	_, err := n.JS.CreateOrUpdateConsumer(ctx, queue.TurnsStream, queue.DurableConsumer("live", events.TurnsSubjects, queue.DefaultConsumerConfig))
	require.NoError(t, err)
	for i := range 300 {
		m := nats.NewMsg(events.TurnSubject(fmt.Sprintf("t%d", i%2), fmt.Sprintf("u%d", i%3), "s"))
		m.Data = []byte(fmt.Sprint(i))
		_, err := n.JS.PublishMsg(ctx, m)
		require.NoError(t, err)
	}
	b := queue.Binding{Durable: "worker", Stream: queue.TurnsStream, Filters: []string{events.TurnsSubjects}}
	run := func(o queue.ReplayOptions) (map[string]int, queue.ReplayProgress) {
		var mu sync.Mutex
		seen := map[string]int{}
		h := queue.PerMessage(func(_ context.Context, m queue.Message) error {
			mu.Lock()
			seen[m.Subject]++
			mu.Unlock()
			return nil
		})
		o.Consumer = queue.DefaultConsumerConfig
		o.Runner = queue.RunnerDefaults(50, 2)
		var last queue.ReplayProgress
		o.Progress = func(p queue.ReplayProgress) { last = p }
		o.ProgressEvery = 10 * time.Millisecond
		p, err := b.Replay(ctx, n.JS, o, h, testenv.Logger(t), nil)
		require.NoError(t, err)
		require.Equal(t, p, last, "the final progress is reported")
		return seen, p
	}
	total := func(m map[string]int) (s int) {
		for _, v := range m {
			s += v
		}
		return s
	}

	seen, p := run(queue.ReplayOptions{})
	require.Equal(t, 300, total(seen))
	require.Equal(t, uint64(300), p.Done)
	require.Equal(t, uint64(300), p.Total)
	require.Zero(t, p.ETA)

	seen, _ = run(queue.ReplayOptions{FromSeq: 201})
	require.Equal(t, 100, total(seen))

	seen, _ = run(queue.ReplayOptions{Tenant: "t1"})
	require.Equal(t, 150, total(seen))
	seen, _ = run(queue.ReplayOptions{Tenant: "t1", User: "u2"})
	require.Equal(t, 50, total(seen)) // i odd and i%3 == 2
	require.Equal(t, map[string]int{"recall.turns.t1.u2.s": 50}, seen)

	seen, _ = run(queue.ReplayOptions{Since: time.Now().Add(time.Hour)})
	require.Zero(t, total(seen))

	stream, err := n.JS.Stream(ctx, queue.TurnsStream)
	require.NoError(t, err)
	names := stream.ConsumerNames(ctx)
	var left []string
	for name := range names.Name() {
		left = append(left, name)
	}
	require.Equal(t, []string{"live"}, left, "replays remove their consumers")
	live, err := n.JS.Consumer(ctx, queue.TurnsStream, "live")
	require.NoError(t, err)
	require.Equal(t, uint64(300), live.CachedInfo().NumPending, "the live consumer is untouched")
}
