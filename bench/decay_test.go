package bench

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/recallhq/recall/pkg/queue"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/store"
	"github.com/recallhq/recall/pkg/workers/decayer"
)

// benchDecayFacts is the size of the decay benchmark (BENCH_DECAY_FACTS).
func benchDecayFacts(b *testing.B) int {
	if v := os.Getenv("BENCH_DECAY_FACTS"); v != "" {
		n, err := strconv.Atoi(v)
		require.NoError(b, err, "BENCH_DECAY_FACTS")
		return n
	}
	return 1_000_000
}

// loadDecayFacts fills a fresh database with n facts of 20 per user, every
// one of them due for a change at the run's time: decayed one or more
// periods, archived, or expired.
func loadDecayFacts(b *testing.B, db *testenv.DB, n int, at time.Time) {
	ctx := context.Background()
	_, err := db.Store.Pool().Exec(ctx, `
		INSERT INTO facts (tenant_id, user_id, type, value, display, weight, mention_count,
		                   first_seen_at, last_mentioned_at, expires_at, status, source)
		SELECT 'bench', 'u' || (i % greatest($1::int / 20, 1)), (ARRAY['book_title', 'author', 'topic', 'genre'])[i % 4 + 1],
		       'v' || i, 'v' || i, 1.0, 1, l.last, l.last,
		       l.last + CASE WHEN i % 5 = 0 THEN interval '60 days' ELSE interval '4000 days' END, 'active', 'bench'
		FROM generate_series(0, $1::int - 1) AS i,
		     LATERAL (SELECT $2::timestamptz - (30 + i % 900) * interval '1 day' - (i % 86400) * interval '1 second' AS last) l`,
		n, at)
	require.NoError(b, err)
	_, err = db.Store.Pool().Exec(ctx, `VACUUM (ANALYZE) facts`)
	require.NoError(b, err)
}

// BenchmarkDecay measures a decayer run over BENCH_DECAY_FACTS facts (1M),
// every one of them due for a change, next to the same rows updated by one raw
// UPDATE (no batches, no lock, no refresh events) on an identical table in the
// same run: the ratio is what the decayer's bounded batches, its formula and
// its outbox cost.
func BenchmarkDecay(b *testing.B) {
	n := benchDecayFacts(b)
	at := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	for range b.N {
		dbRun, dbRaw := testenv.NewDB(b), testenv.NewDB(b)
		nt := testenv.NewNATS(b)
		start := time.Now()
		loadDecayFacts(b, dbRun, n, at)
		loadDecayFacts(b, dbRaw, n, at)
		load := time.Since(start)

		// Config zero: the purge step is off, so the run does what the raw
		// UPDATE does.
		d, err := decayer.New(decayer.Options{Store: dbRun.Store, Publisher: queue.NewRefresher(nt.JS, queue.DefaultRefreshBucket),
			Log: testenv.Logger(b), Now: func() time.Time { return at }})
		require.NoError(b, err)
		settle(b)

		b.ResetTimer()
		start = time.Now()
		rep, err := d.RunOnce(context.Background())
		runTime := time.Since(start)
		require.NoError(b, err)
		var facts store.DecayCounts
		facts.Decayed = rep.Count(decayer.StepFacts, decayer.OutcomeDecayed)
		facts.Archived = rep.Count(decayer.StepFacts, decayer.OutcomeArchived)
		facts.Expired = rep.Count(decayer.StepFacts, decayer.OutcomeExpired)
		changed := facts.Decayed + facts.Archived + facts.Expired
		require.Equal(b, int64(n), changed, "every fact was due")
		settle(b)

		start = time.Now()
		tag, err := dbRaw.Store.Pool().Exec(context.Background(), `
			UPDATE facts
			SET decayed_weight = weight * 0.9, decayed_at = $1, updated_at = now(),
			    status = CASE WHEN expires_at <= $1 THEN 'expired' ELSE 'active' END
			WHERE status <> 'expired'`, at)
		rawTime := time.Since(start)
		require.NoError(b, err)
		require.Equal(b, int64(n), tag.RowsAffected())
		b.StopTimer()

		batches := rep.Steps[0].Batches
		ratio := runTime.Seconds() / rawTime.Seconds()
		b.ReportMetric(float64(n)/runTime.Seconds(), "facts/s")
		b.ReportMetric(ratio, "run/raw")
		fmt.Printf("decay: %d facts  decayer run %.2f s (%d batches)  raw UPDATE %.2f s  ratio %.2f  (%d decayed, %d archived, %d expired, %d users refreshed; load %.1f s)\n",
			n, runTime.Seconds(), batches, rawTime.Seconds(), ratio, facts.Decayed, facts.Archived, facts.Expired,
			rep.Count(decayer.StepRefresh, decayer.OutcomeUsersRefreshed), load.Seconds())
	}
}
