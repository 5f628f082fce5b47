package workers_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/deps"
	"github.com/recallhq/recall/pkg/envconfig"
	"github.com/recallhq/recall/pkg/queue"
	"github.com/recallhq/recall/pkg/store"
	"github.com/recallhq/recall/pkg/worker"
	"github.com/recallhq/recall/pkg/workers"
	"github.com/recallhq/recall/pkg/workers/summarizer"
)

// Every binary's effective defaults, as an empty environment gives them and
// as the start-up log shows them: the shared part, then each worker's queue
// settings (its own batch size and concurrency under the runner's and
// consumer's generic defaults).
func TestEffectiveDefaults(t *testing.T) {
	t.Parallel()
	base := envconfig.Defaults[deps.Config]()
	require.Equal(t, "postgres://postgres@127.0.0.1:5432/recall?sslmode=disable", base.DB.URL)
	require.Equal(t, "nats://127.0.0.1:4222", base.NATS.URL)
	require.Equal(t, ":9090", base.OpsAddr)
	require.Equal(t, 25*time.Second, base.ShutdownTimeout)
	require.Equal(t, "INFO", base.LogLevel.String())

	consumer := queue.ConsumerConfig{AckWait: 30 * time.Second, MaxDeliver: 5, MaxAckPending: 20000}
	runner := func(batch, concurrency int) queue.RunnerConfig {
		return queue.RunnerConfig{BatchSize: batch, BatchWait: 5 * time.Millisecond, Concurrency: concurrency,
			DrainTimeout: 20 * time.Second, RetryInitial: time.Second, RetryMax: 2 * time.Minute, LagEvery: 5 * time.Second,
			HandleTimeout: 5 * time.Minute}
	}
	want := map[string]worker.Queue{
		"ingest":     {Consumer: consumer, Runner: runner(500, 2)},
		"extractor":  {Consumer: consumer, Runner: runner(200, 2)},
		"seen":       {Consumer: consumer, Runner: runner(500, 2)},
		"indexer":    {Consumer: consumer, Runner: runner(200, 2)},
		"catalog":    {Consumer: consumer, Runner: runner(200, 2)},
		"profiler":   {Consumer: consumer, Runner: runner(200, 4)},
		"summarizer": {Consumer: consumer, Runner: runner(16, 8)},
		"webhooks":   {Consumer: consumer, Runner: runner(100, 2)},
		"decayer":    {},
	}
	require.ElementsMatch(t, workers.Names(), func() []string {
		var names []string
		for n := range want {
			names = append(names, n)
		}
		return names
	}())
	for _, w := range workers.All {
		name := w.About().Name
		t.Run(name, func(t *testing.T) {
			c, err := w.Load(map[string]string{})
			require.NoError(t, err)
			require.Equal(t, want[name], c.Queue())
			require.NoError(t, err)
			if w.About().Binding.Stream != "" {
				require.NoError(t, c.Queue().Runner.Validate())
				require.Equal(t, name, w.About().Binding.Durable, "a worker's durable consumer bears its name")
			}
		})
	}
}

// A variable set overrides the worker's default, and a bad one is an error
// naming it.
func TestWorkerConfigFromEnv(t *testing.T) {
	t.Parallel()
	w, err := workers.Get("ingest")
	require.NoError(t, err)
	c, err := w.Load(map[string]string{"INGEST_BATCH_SIZE": "64", "INGEST_CONSUMER_MAX_DELIVER": "9"})
	require.NoError(t, err)
	require.Equal(t, 64, c.Queue().Runner.BatchSize)
	require.Equal(t, 2, c.Queue().Runner.Concurrency)
	require.Equal(t, 9, c.Queue().Consumer.MaxDeliver)
	_, err = w.Load(map[string]string{"INGEST_BATCH_WAIT": "soon"})
	require.ErrorContains(t, err, "INGEST_BATCH_WAIT")
	_, err = workers.Get("summarise")
	require.ErrorContains(t, err, `unknown worker "summarise"`)
	require.NotContains(t, workers.Replayable(), "decayer")
}

// A process's pool holds the store's default plus a connection for every
// handler its workers run at once, unless DATABASE_MAX_CONNS says otherwise.
func TestPoolSizedForTheHandlers(t *testing.T) {
	t.Parallel()
	all, err := worker.Load(workers.All, map[string]string{})
	require.NoError(t, err)
	handlers := 0
	for _, c := range all {
		handlers += c.Queue().Runner.Concurrency
	}
	require.Equal(t, 24, handlers, "the registry's concurrency defaults")
	db := envconfig.Defaults[deps.Config]().DB
	worker.SizePool(&db, all)
	require.Equal(t, store.DefaultMaxConns()+24, db.MaxConns)

	one, err := worker.Load([]worker.Worker{summarizer.Def}, map[string]string{"SUMMARIZER_CONCURRENCY": "3"})
	require.NoError(t, err)
	db = envconfig.Defaults[deps.Config]().DB
	worker.SizePool(&db, one)
	require.Equal(t, store.DefaultMaxConns()+3, db.MaxConns)

	db.MaxConns = 7
	worker.SizePool(&db, all)
	require.Equal(t, int32(7), db.MaxConns, "an operator's DATABASE_MAX_CONNS stands")
}
