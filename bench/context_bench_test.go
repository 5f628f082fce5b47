package bench

import (
	"context"
	"encoding/json"
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

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/api"
	"github.com/recallhq/recall/pkg/envconfig"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/record"
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

// BenchmarkContext measures GET /v1/context under 32 concurrent clients, next to
// the raw PostgreSQL round trip of the same reads, in two phases on one
// database of 100k users, each with one session (BENCH_CONTEXT_SESSIONS scales it):
//
//  1. the turn pipeline's context: 1M messages loaded, so the context is the
//     recent window;
//  2. the full context: each user also has 20 interest facts, the summaries of
//     three previous sessions, this session's own summary (its window no longer
//     holds its start) and a five-item list presented by its newest turn.
//
// The load comes from wrk, a separate process on loopback, as it would from other
// hosts in production: an in-process Go client would spend as much CPU as the
// server it measures.
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

	ts, st, cfg := benchAPI(b, db, now)

	// Phase 1. One request to check the answer is a real, full window.
	c := getContextJSON(b, ts.URL, 7)
	require.Len(b, c.Window.Messages, perSession)
	require.Contains(b, c.Window.Messages[perSession-1].Content, "Message 9 of session 7", "oldest first, the newest last")
	tenant := st.Tenant("bench")
	// The floor: the store's context batch alone (session, window, facts,
	// summaries, list, attributes in one round trip), from as many
	// goroutines.
	rawContext := func() [2]time.Duration {
		return rawContextReads(b, sessions, 16000, clients, func(ctx context.Context, s int) error {
			_, err := tenant.Context(ctx, store.ContextRead{SessionID: fmt.Sprintf("s%d", s), UserID: fmt.Sprintf("u%d", s),
				Messages: cfg.ContextMaxMessages, Facts: cfg.ContextMaxFacts * 4, Summaries: cfg.ContextMaxSummaries, Statements: true})
			return err
		})
	}
	rawWindow := rawContext()

	settle(b)
	w := runWrk(b, wrk, ts.URL, sessions, seconds, clients)
	fmt.Printf("  GET /v1/context window, %d clients (wrk), %ds: p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, %.0f req/s (target p99 <= 10 ms)\n",
		clients, seconds, w.p50, w.p90, w.p99, w.rate)
	fmt.Printf("    raw PostgreSQL, the context's batch in one round trip, %d goroutines: p50 %.2f ms, p99 %.2f ms\n", clients, ms(rawWindow[0]), ms(rawWindow[1]))

	// Phase 2: every part present.
	loadStart = time.Now()
	facts, summaries := loadContextParts(b, db, sessions, now)
	fmt.Printf("context: loaded %d facts, %d summaries, %d lists in %s\n", facts, summaries, sessions, time.Since(loadStart).Round(time.Millisecond))
	c = getContextJSON(b, ts.URL, 7)
	require.NotNil(b, c.List, "list")
	require.Len(b, c.List.Items, 5)
	require.Equal(b, "/b/7-3", c.List.Items[2].Ref, "item 3 of the list")
	require.Len(b, c.Window.Messages, cfg.ContextMaxMessages)
	require.NotNil(b, c.Summaries.Current, "this session's summary: the window no longer holds its start")
	require.Len(b, c.Summaries.Previous, cfg.ContextMaxSummaries)
	require.Len(b, c.Facts.Facts, cfg.ContextMaxFacts)
	require.Contains(b, c.Prompt, "ref: /b/7-3")
	fmt.Printf("  one full context: %d list items, %d messages, %d+1 summaries, %d facts, %d of %d budget chars used\n",
		len(c.List.Items), len(c.Window.Messages), len(c.Summaries.Previous), len(c.Facts.Facts), c.Budget.Used, c.Budget.Limit)
	rawFull := rawContext()

	settle(b)
	b.ResetTimer()
	for range b.N {
		full := runWrk(b, wrk, ts.URL, sessions, seconds, clients)
		b.ReportMetric(w.p50, "p50_ms")
		b.ReportMetric(w.p99, "p99_ms")
		b.ReportMetric(w.rate, "req/s")
		b.ReportMetric(full.p50, "full_p50_ms")
		b.ReportMetric(full.p99, "full_p99_ms")
		b.ReportMetric(full.rate, "full_req/s")
		fmt.Printf("  GET /v1/context all parts, %d clients (wrk), %ds: p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, %.0f req/s (target p99 <= 15 ms)\n",
			clients, seconds, full.p50, full.p90, full.p99, full.rate)
		fmt.Printf("    raw PostgreSQL, the context's batch in one round trip, %d goroutines: p50 %.2f ms, p99 %.2f ms\n", clients, ms(rawFull[0]), ms(rawFull[1]))
	}
}

// benchAPI serves the API over db as the API binary runs it: its config from
// the environment, its GC target, and its pool as deployed
// (DATABASE_MAX_CONNS), not the tests' small one; the clock fixed at now.
// Everything stops when the benchmark ends.
func benchAPI(b *testing.B, db *testenv.DB, now time.Time) (*httptest.Server, *store.Store, api.Config) {
	nt := testenv.NewNATS(b)
	reg := service.NewRegistry()
	cfg, err := envconfig.Load[api.Config]()
	require.NoError(b, err)
	if cfg.ApplyGC() {
		b.Cleanup(func() { debug.SetGCPercent(100) })
	}
	dbCfg, err := envconfig.Load[store.Config]()
	require.NoError(b, err)
	st, err := store.Open(context.Background(), store.Config{URL: db.URL, MaxConns: dbCfg.MaxConns})
	require.NoError(b, err)
	b.Cleanup(st.Close)
	srv, err := api.New(api.Options{Config: cfg, Limits: events.DefaultLimits, Store: st, JS: nt.JS, Log: testenv.Logger(b), Registry: reg, Now: func() time.Time { return now }})
	require.NoError(b, err)
	ts := httptest.NewServer(srv.Handler(reg))
	b.Cleanup(ts.Close)
	return ts, st, cfg
}

type wrkResult struct {
	p50, p90, p99, rate float64
	// failed counts the answers that were not 2xx and the requests that
	// failed (a timeout, after 5 s), when counted (runWrkCounted).
	failed int
	// over is the share of the requests, in percent, that took longer
	// than the gateway's memory timeout (recall.lua's over_pct, with
	// runWrkCounted).
	over float64
}

// runWrk loads GET /v1/context for random sessions (context.lua), and fails on
// any non-2xx answer or connection error.
func runWrk(b *testing.B, wrk, url string, sessions, seconds, clients int) wrkResult {
	return runWrkScript(b, wrk, url, "context.lua", seconds, clients, fmt.Sprintf("BENCH_SESSIONS=%d", sessions))
}

// runWrkScript runs wrk with a script of this folder and the given
// environment, and fails on any non-2xx answer or connection error.
func runWrkScript(b *testing.B, wrk, url, script string, seconds, clients int, env ...string) wrkResult {
	r := runWrkCounted(b, wrk, url, script, seconds, clients, env...)
	require.Zero(b, r.failed, "non-2xx answers and failed requests")
	return r
}

// runWrkCounted is runWrkScript counting the failures (wrkResult.failed)
// instead of failing on them: for a load the system may not keep up with.
func runWrkCounted(b *testing.B, wrk, url, script string, seconds, clients int, env ...string) wrkResult {
	cmd := exec.Command(wrk, fmt.Sprintf("-t%d", min(2, clients)), fmt.Sprintf("-c%d", clients), fmt.Sprintf("-d%ds", seconds), "--timeout", "5s", "-s", script, url)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	require.NoError(b, err, string(out))
	i := strings.Index(string(out), "RESULT")
	require.GreaterOrEqual(b, i, 0, string(out))
	var p50, p90, p99, maxUS, requests, non2xx, errs int
	_, err = fmt.Sscanf(string(out[i:]), "RESULT p50_us=%d p90_us=%d p99_us=%d max_us=%d requests=%d non2xx=%d errors=%d",
		&p50, &p90, &p99, &maxUS, &requests, &non2xx, &errs)
	require.NoError(b, err, string(out))
	var over float64
	if j := strings.Index(string(out), "over_pct="); j >= 0 {
		_, err = fmt.Sscanf(string(out[j:]), "over_pct=%f", &over)
		require.NoError(b, err, string(out))
	}
	return wrkResult{p50: float64(p50) / 1000, p90: float64(p90) / 1000, p99: float64(p99) / 1000, rate: float64(requests) / float64(seconds),
		failed: non2xx + errs, over: over}
}

// contextAnswer is the part of GET /v1/context's answer the benchmark checks.
type contextAnswer struct {
	List *struct {
		Items []struct {
			Ref string `json:"ref"`
		} `json:"items"`
	} `json:"list"`
	Window struct {
		Messages []struct {
			Content string `json:"content"`
		} `json:"messages"`
	} `json:"window"`
	Summaries struct {
		Previous []json.RawMessage `json:"previous"`
		Current  json.RawMessage   `json:"current"`
	} `json:"summaries"`
	Facts struct {
		Facts []json.RawMessage `json:"facts"`
	} `json:"facts"`
	Budget struct {
		Limit int `json:"limit"`
		Used  int `json:"used"`
	} `json:"budget"`
	Prompt string `json:"prompt"`
}

func getContextJSON(b *testing.B, base string, s int) contextAnswer {
	req, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("%s/v1/context?user_id=u%d&session_id=s%d", base, s, s), nil)
	req.Header.Set("X-Tenant-ID", "bench")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(b, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(b, http.StatusOK, resp.StatusCode, string(body))
	var c contextAnswer
	require.NoError(b, json.Unmarshal(body, &c), string(body))
	return c
}

// loadContextParts gives every user of loadSessions the rest of a full context,
// as the workers would have left it: 20 active interest facts mentioned over the
// last month, the current summaries of three earlier sessions and of this one,
// and a newest turn presenting a five-item list (with the search that found it).
// It returns how many facts and summaries it wrote.
func loadContextParts(b *testing.B, db *testenv.DB, sessions int, now time.Time) (int, int) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, db.URL)
	require.NoError(b, err)
	defer conn.Close(ctx)
	const factsPerUser, previous = 20, 3
	types := [...]string{"book", "author", "film", "music", "topic"}

	i := 0
	_, err = conn.CopyFrom(ctx, pgx.Identifier{"facts"},
		[]string{"tenant_id", "user_id", "type", "value", "display", "weight", "mention_count", "first_seen_at", "last_mentioned_at", "expires_at", "status", "source", "source_session_id"},
		pgx.CopyFromFunc(func() ([]any, error) {
			if i >= sessions*factsPerUser {
				return nil, nil
			}
			s, k := i/factsPerUser, i%factsPerUser
			i++
			last := now.Add(-time.Duration(k*36+s%24) * time.Hour)
			display := fmt.Sprintf("Interest %d of reader %d", k, s)
			return []any{"bench", fmt.Sprintf("u%d", s), types[k%len(types)], strings.ToLower(display), display, 1.0, int64(1 + k%4),
				last.Add(-30 * 24 * time.Hour), last, last.Add(90 * 24 * time.Hour), record.FactActive, "rules", fmt.Sprintf("s%d", s)}, nil
		}))
	require.NoError(b, err)

	i = 0
	_, err = conn.CopyFrom(ctx, pgx.Identifier{"session_summaries"},
		[]string{"tenant_id", "session_id", "user_id", "version", "from_count", "through_count", "first_event_id", "first_at",
			"last_event_id", "last_at", "covers_from", "covers_to", "messages_read", "summary", "key_topics", "model", "reason", "created_at"},
		pgx.CopyFromFunc(func() ([]any, error) {
			if i >= sessions*(previous+1) {
				return nil, nil
			}
			s, k := i/(previous+1), i%(previous+1)
			i++
			// k 0 is this session (its first ten messages), 1..3 earlier sessions,
			// a week apart.
			session, last := fmt.Sprintf("s%d", s), now.Add(-time.Minute)
			if k > 0 {
				session, last = fmt.Sprintf("s%d-prev%d", s, k), now.Add(-time.Duration(k)*7*24*time.Hour)
			}
			text := fmt.Sprintf("The reader asked for novels for a long flight in session %s and liked the science fiction picks; "+
				"they had finished The Three-Body Problem and wanted something with the same scale, but shorter.", session)
			return []any{"bench", session, fmt.Sprintf("u%d", s), int32(1), int64(0), int64(10), session + "-first", last.Add(-10 * time.Minute),
				session + "-last", last, last.Add(-10 * time.Minute), last, int32(10), text, []string{"science fiction", "long flight"}, "extractive", "threshold", last}, nil
		}))
	require.NoError(b, err)

	items := func(s int) string {
		var sb strings.Builder
		sb.WriteByte('[')
		for j := 1; j <= 5; j++ {
			if j > 1 {
				sb.WriteByte(',')
			}
			fmt.Fprintf(&sb, `{"ref":"/b/%d-%d","title":"Novel %d picked for reader %d","attrs":{"rating":%d.5,"year":%d}}`, s, j, j, s, 3+j%2, 2010+j)
		}
		sb.WriteByte(']')
		return sb.String()
	}
	i = 0
	listAt := now.Add(-30 * time.Second)
	_, err = conn.CopyFrom(ctx, pgx.Identifier{"messages"},
		[]string{"tenant_id", "event_id", "session_id", "user_id", "role", "content", "tool_calls", "items", "occurred_at"},
		pgx.CopyFromFunc(func() ([]any, error) {
			if i >= sessions {
				return nil, nil
			}
			s := i
			i++
			return []any{"bench", fmt.Sprintf("e%d-list", s), fmt.Sprintf("s%d", s), fmt.Sprintf("u%d", s), events.RoleAssistant,
				"Here are five novels for a long flight; tell me a number for more.",
				`[{"name":"search","arguments":{"q":"novels long flight"},"result":{"hits":5},"status":"ok","duration_ms":38}]`,
				items(s), listAt}, nil
		}))
	require.NoError(b, err)
	_, err = conn.Exec(ctx, `UPDATE sessions SET message_count = message_count + 1, last_message_at = $1, summarized_count = 10, summarized_at = $2
		WHERE tenant_id = 'bench'`, listAt, now.Add(-time.Minute))
	require.NoError(b, err)
	for _, sql := range []string{"VACUUM (ANALYZE) messages", "VACUUM (ANALYZE) sessions", "VACUUM (ANALYZE) facts", "VACUUM (ANALYZE) session_summaries", "CHECKPOINT"} {
		_, err = conn.Exec(ctx, sql)
		require.NoError(b, err, sql)
	}
	return sessions * factsPerUser, sessions * (previous + 1)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// rawContextReads times read for n random sessions from the given number of
// goroutines, without HTTP, JSON or assembly: the floor under the API's latency.
// It returns p50 and p99.
func rawContextReads(b *testing.B, sessions, n, clients int, read func(context.Context, int) error) [2]time.Duration {
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
				if err := read(ctx, s); err != nil {
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
