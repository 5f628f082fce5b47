package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/recallhq/recall/pkg/queue"
	"github.com/recallhq/recall/pkg/record"
	"github.com/recallhq/recall/pkg/worker"
	"github.com/recallhq/recall/pkg/workers"
	"github.com/recallhq/recall/pkg/workers/extractor"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/deps"
	"github.com/recallhq/recall/pkg/envconfig"
	"github.com/recallhq/recall/pkg/events"
)

// The extractor's output is deleted and rebuilt by a replay: the same facts,
// weights, counts and times come back, because every time rule runs on event
// time. A replay of one user touches only that user.
func TestReplayExtractorRebuildsFacts(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	db := testenv.NewDB(t)
	n := testenv.NewNATS(t)

	// The live extractor on its durable consumer.
	testenv.StartWorker(t, n, db, extractor.Def, nil)
	cfg := envconfig.Defaults[deps.Config]()
	cfg.DB.URL, cfg.NATS.URL = db.URL, n.URL
	d, closeDeps, err := deps.Open(ctx, cfg, "test", testenv.Logger(t))
	require.NoError(t, err)
	defer closeDeps()
	// Each replay is its own process in real use, with its own metrics
	// registry; the worker's config is read as `recall replay` reads it.
	replayWorker := func(name string, o queue.ReplayOptions, out io.Writer) (queue.ReplayProgress, error) {
		w, err := workers.Get(name)
		if err != nil {
			return queue.ReplayProgress{}, err
		}
		wc, err := w.Load(map[string]string{})
		require.NoError(t, err)
		dd := *d
		dd.Registry = prometheus.NewRegistry()
		return replay(ctx, worker.NewDeps(&dd, cfg, testenv.Logger(t)), queue.NewRunnerMetrics(nil), wc, o, out)
	}

	lines := []string{
		"我最近在看《三体》，刘慈欣写得真好",
		"推荐几部科幻电影吧，我喜欢《星际穿越》",
		"I have been reading Dune by Frank Herbert",
		"周杰伦的《晴天》百听不厌",
		"有没有类似《流浪地球》的电影",
	}
	base := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	var turns []events.Turn
	for i := range 60 {
		turns = append(turns, events.Turn{
			V: events.Version, ID: fmt.Sprintf("e%03d", i), TenantID: "acme", UserID: fmt.Sprintf("u%d", i%3),
			SessionID: fmt.Sprintf("s%d", i%6), OccurredAt: base.Add(time.Duration(i) * 37 * time.Hour),
			Role: events.RoleUser, Content: lines[i%len(lines)],
		})
	}
	_, err = queue.NewPublisher(n.JS).PublishTurns(ctx, turns)
	require.NoError(t, err)
	n.WaitSettled(t, queue.TurnsStream, "extractor")

	facts := func() map[string][]record.Fact {
		out := map[string][]record.Fact{}
		for u := range 3 {
			user := fmt.Sprintf("u%d", u)
			fs, err := d.Store.Tenant("acme").Facts(ctx, user, []string{"active", "archived", "expired"}, 1000)
			require.NoError(t, err)
			out[user] = fs
		}
		return out
	}
	want := facts()
	require.NotEmpty(t, want["u0"])
	require.NotEmpty(t, want["u1"])

	wipe := func(user string) {
		for _, table := range []string{"facts", "fact_mentions"} {
			_, err := d.Store.Pool().Exec(ctx, "DELETE FROM "+table+" WHERE tenant_id = 'acme' AND ($1 = '' OR user_id = $1)", user)
			require.NoError(t, err)
		}
	}
	wipe("")
	var out bytes.Buffer
	p, err := replayWorker("extractor", queue.ReplayOptions{}, &out)
	require.NoError(t, err)
	require.Equal(t, uint64(60), p.Done)
	require.Contains(t, out.String(), "replayed 60 message(s) through extractor")
	require.Equal(t, want, facts(), "a full replay rebuilds the same facts")

	// Replaying again changes nothing (idempotent writes).
	_, err = replayWorker("extractor", queue.ReplayOptions{}, &out)
	require.NoError(t, err)
	require.Equal(t, want, facts())

	// One user: only their turns are read.
	wipe("u1")
	p, err = replayWorker("extractor", queue.ReplayOptions{Tenant: "acme", User: "u1"}, &out)
	require.NoError(t, err)
	require.Equal(t, uint64(20), p.Done)
	require.Equal(t, want, facts())

	_, err = replayWorker("summarise", queue.ReplayOptions{}, &out)
	require.ErrorContains(t, err, `unknown worker "summarise"`)

	_, err = replayWorker("decayer", queue.ReplayOptions{}, &out)
	require.ErrorContains(t, err, "decayer reads no stream")
}

func TestReplayFlags(t *testing.T) {
	t.Parallel()
	_, err := replayFlags{}.options()
	require.ErrorContains(t, err, "-worker is required")
	_, err = replayFlags{worker: "extractor", since: "yesterday"}.options()
	require.ErrorContains(t, err, `-since "yesterday"`)
	_, err = replayFlags{worker: "extractor", since: "2026-01-01", fromSeq: 3}.options()
	require.ErrorContains(t, err, "not both")
	_, err = replayFlags{worker: "extractor", user: "u1"}.options()
	require.ErrorContains(t, err, "-user needs -tenant")
	o, err := replayFlags{worker: "extractor", since: "2026-01-01", tenant: "t", user: "u"}.options()
	require.NoError(t, err)
	require.Equal(t, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), o.Since)
	require.Equal(t, "u", o.User)
}
