package bench

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/eventmsg"
	"github.com/recallhq/recall/pkg/workers/indexer"
	"github.com/recallhq/recall/pkg/workers/ingest"
)

// BenchmarkIndex measures the indexer end to end, from the first publish to
// the last turn searchable (its entry committed: terms from the analyzer,
// Chinese segmented, and a vector from the offline embedder), next to the
// ingest worker on the same turns, as a ratio (target >= 0.5); and the size
// of the index per million messages. BENCH_INDEX_TURNS (50000) sets the size.
func BenchmarkIndex(b *testing.B) {
	n := 50_000
	if v, err := strconv.Atoi(os.Getenv("BENCH_INDEX_TURNS")); err == nil && v > 0 {
		n = v
	}
	turns := memoryTurns(n)
	// BENCH_INDEX_USERS gives the turns to that many users instead (1: one
	// user's whole life, its sessions of 20 turns in order), to compare the
	// rate per turn of one large user with that of many small ones.
	if users, err := strconv.Atoi(os.Getenv("BENCH_INDEX_USERS")); err == nil && users > 0 {
		for i := range turns {
			u, k := i%users, i/users
			turns[i].UserID, turns[i].SessionID = fmt.Sprintf("u%04d", u), fmt.Sprintf("s%04d-%d", u, k/20)
		}
	}
	msgs := make([]*nats.Msg, n)
	for i := range turns {
		m, err := eventmsg.Turn(&turns[i])
		require.NoError(b, err)
		msgs[i] = m
	}
	b.ResetTimer()
	for range b.N {
		settle(b)
		ingestRate := workerRate(b, msgs, func(nt *testenv.NATS, db *testenv.DB) (func(), string) {
			_, stop := testenv.StartWorker(b, nt, db, ingest.Def, nil)
			return stop, ingest.Def.Binding.Durable
		})
		settle(b)
		var size, entries int64
		indexRate := workerRate(b, msgs, func(nt *testenv.NATS, db *testenv.DB) (func(), string) {
			_, stop := testenv.StartWorker(b, nt, db, indexer.Def, nil)
			return func() {
				stop()
				ctx := context.Background()
				require.NoError(b, db.Store.Pool().QueryRow(ctx, `SELECT pg_total_relation_size('search_entries'), (SELECT count(*) FROM search_entries)`).Scan(&size, &entries))
			}, indexer.Def.Binding.Durable
		})
		perMillion := float64(size) / float64(n) * 1e6 / (1 << 30)
		b.ReportMetric(indexRate, "indexer_turns/s")
		b.ReportMetric(indexRate/ingestRate, "indexer/ingest")
		b.ReportMetric(perMillion, "index_GB/1M_messages")
		fmt.Printf("index: %d turns (English and Chinese), %d entries, offline embedder\n", n, entries)
		fmt.Printf("  indexer worker, publish -> searchable: %9.0f turns/s\n", indexRate)
		fmt.Printf("  ingest worker, same turns:             %9.0f turns/s\n", ingestRate)
		fmt.Printf("  indexer / ingest = %.2f (target >= 0.5); index %.1f MB for %d messages = %.2f GB per million\n",
			indexRate/ingestRate, float64(size)/(1<<20), n, perMillion)
	}
}
