package bench

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testenv"
	"github.com/recallhq/recall/pkg/api"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/service"
	"github.com/recallhq/recall/pkg/store"
)

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// loadSessions fills a database with sessions × perSession messages by COPY and
// derives the session rows, as the ingest worker would have left them.
func loadSessions(b *testing.B, db *testenv.DB, sessions, perSession int, last time.Time) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, db.URL)
	require.NoError(b, err)
	defer conn.Close(ctx)
	cols := []string{"tenant_id", "event_id", "session_id", "user_id", "role", "content", "occurred_at"}
	total := sessions * perSession
	i := 0
	_, err = conn.CopyFrom(ctx, pgx.Identifier{"messages"}, cols, pgx.CopyFromFunc(func() ([]any, error) {
		if i >= total {
			return nil, nil
		}
		s, k := i/perSession, i%perSession
		i++
		role := events.RoleUser
		if k%2 == 1 {
			role = events.RoleAssistant
		}
		at := last.Add(-time.Duration(perSession-k) * time.Minute)
		return []any{"bench", fmt.Sprintf("e%d-%d", s, k), fmt.Sprintf("s%d", s), fmt.Sprintf("u%d", s), role,
			fmt.Sprintf("Message %d of session %d: which of these novels would you recommend for a long flight?", k, s), at}, nil
	}))
	require.NoError(b, err)
	_, err = conn.Exec(ctx, `
		INSERT INTO sessions (tenant_id, session_id, user_id, message_count, first_message_at, last_message_at)
		SELECT tenant_id, session_id, min(user_id), count(*), min(occurred_at), max(occurred_at)
		FROM messages GROUP BY tenant_id, session_id`)
	require.NoError(b, err)
	// Steady state, as a running database would be: vacuumed and analyzed (else
	// autovacuum does it during the measurement), and checkpointed.
	for _, sql := range []string{"VACUUM (ANALYZE) messages", "VACUUM (ANALYZE) sessions", "CHECKPOINT"} {
		_, err = conn.Exec(ctx, sql)
		require.NoError(b, err, sql)
	}
}

// BenchmarkContext measures GET /v1/context under 32 concurrent clients with 100k
// sessions and 1M messages loaded (BENCH_CONTEXT_SESSIONS scales it), next to the
// raw PostgreSQL round trip of the same reads. The load comes from wrk, a separate
// process on loopback, as it would from other hosts in production: an in-process
// Go client would spend as much CPU as the server it measures.
func BenchmarkContext(b *testing.B) {
	sessions := envInt("BENCH_CONTEXT_SESSIONS", 100_000)
	const perSession = 10
	seconds := envInt("BENCH_CONTEXT_SECONDS", 15)
	const clients = 32
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	wrk, err := exec.LookPath("wrk")
	require.NoError(b, err, "wrk is needed for the load (make bench installs it)")

	db := testenv.NewDB(b)
	loadStart := time.Now()
	loadSessions(b, db, sessions, perSession, now)
	fmt.Printf("context: loaded %d sessions / %d messages in %s\n", sessions, sessions*perSession, time.Since(loadStart).Round(time.Millisecond))

	nt := testenv.NewNATS(b)
	reg := service.NewRegistry()
	cfg, err := service.LoadConfig[api.Config]()
	require.NoError(b, err)
	// The server runs as the API binary does: its GC target, and its pool as
	// deployed (DATABASE_MAX_CONNS), not the tests' small one.
	if cfg.ApplyGC() {
		defer debug.SetGCPercent(100)
	}
	dbCfg, err := service.LoadConfig[store.Config]()
	require.NoError(b, err)
	st, err := store.Open(context.Background(), store.Config{URL: db.URL, MaxConns: dbCfg.MaxConns})
	require.NoError(b, err)
	defer st.Close()
	srv, err := api.New(api.Options{Config: cfg, Limits: events.DefaultLimits, Store: st, JS: nt.JS, Log: testenv.Logger(b), Registry: reg, Now: func() time.Time { return now }})
	require.NoError(b, err)
	ts := httptest.NewServer(srv.Handler(reg))
	defer ts.Close()

	// One request to check the answer is a real, full window.
	req, _ := http.NewRequest(http.MethodGet, ts.URL+"/v1/context?user_id=u7&session_id=s7", nil)
	req.Header.Set("X-Tenant-ID", "bench")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(b, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(b, http.StatusOK, resp.StatusCode, string(body))
	require.Contains(b, string(body), "Message 9 of session 7")

	raw := rawContextReads(b, st, sessions, 16000, clients)

	b.ResetTimer()
	for range b.N {
		cmd := exec.Command(wrk, "-t2", fmt.Sprintf("-c%d", clients), fmt.Sprintf("-d%ds", seconds), "--timeout", "5s", "-s", "context.lua", ts.URL)
		cmd.Env = append(os.Environ(), fmt.Sprintf("BENCH_SESSIONS=%d", sessions))
		out, err := cmd.CombinedOutput()
		require.NoError(b, err, string(out))
		var p50, p90, p99, maxUS, requests, non2xx, errs int
		line := string(out[strings.Index(string(out), "RESULT"):])
		_, err = fmt.Sscanf(line, "RESULT p50_us=%d p90_us=%d p99_us=%d max_us=%d requests=%d non2xx=%d errors=%d",
			&p50, &p90, &p99, &maxUS, &requests, &non2xx, &errs)
		require.NoError(b, err, string(out))
		require.Zero(b, non2xx+errs, string(out))
		rate := float64(requests) / float64(seconds)
		b.ReportMetric(float64(p50)/1000, "p50_ms")
		b.ReportMetric(float64(p99)/1000, "p99_ms")
		b.ReportMetric(rate, "req/s")
		fmt.Printf("  GET /v1/context, %d clients (wrk), %ds: p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, %.0f req/s (target p99 <= 10 ms)\n",
			clients, seconds, float64(p50)/1000, float64(p90)/1000, float64(p99)/1000, rate)
		fmt.Printf("  raw PostgreSQL, the same reads in one round trip, %d goroutines: p50 %.2f ms, p99 %.2f ms\n", clients, ms(raw[0]), ms(raw[1]))
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// rawContextReads times the session row and the ten newest messages in one round
// trip, without HTTP, JSON or trimming: the floor under the API's latency.
func rawContextReads(b *testing.B, st *store.Store, sessions, n, clients int) [2]time.Duration {
	ctx := context.Background()
	lat := make([]time.Duration, n)
	var wg sync.WaitGroup
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(c), 7))
			for i := c; i < n; i += clients {
				s := rng.IntN(sessions)
				start := time.Now()
				_, _, err := st.Tenant("bench").SessionWithRecent(ctx, fmt.Sprintf("s%d", s), time.Time{}, 10, false)
				if err != nil {
					b.Error(err)
				}
				lat[i] = time.Since(start)
			}
		}()
	}
	wg.Wait()
	slices.Sort(lat)
	return [2]time.Duration{lat[n/2], lat[n*99/100]}
}
