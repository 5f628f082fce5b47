package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/embed"
	"github.com/recallhq/recall/pkg/eventmsg"
	"github.com/recallhq/recall/pkg/queue"
	"github.com/recallhq/recall/pkg/search"
	"github.com/recallhq/recall/pkg/store"
	"github.com/recallhq/recall/pkg/workers/indexer"
	"github.com/recallhq/recall/pkg/workers/ingest"
)

// BenchmarkLarge measures what growth costs: two databases, one of
// BENCH_LARGE_BASE_USERS (10000) and one of BENCH_LARGE_USERS (100000) users
// of 100 LoCoMo turns each (1M and 10M messages and search entries), and for
// each, in the same run:
//
//   - GET /v1/context with a query under 32 clients (wrk), the API binary
//     started afresh in its own process against it, with its resident memory;
//     BENCH_LARGE_ROUNDS (2) rounds, the sizes taking turns within each, so
//     that whatever else the machine does falls on both alike;
//   - ingest and the indexer end to end: BENCH_LARGE_TURNS (50000) new turns
//     of new users published and taken in by both workers (publish → committed,
//     publish → searchable) on top of what the database holds;
//   - the tables' and indexes' sizes, and bytes per message.
//
// Then the larger size against the smaller as ratios (target: p99 within
// 1.5×). `make bench-large` runs it; `make bench` leaves it out (the load
// alone takes longer than every other benchmark together).
//
// The histories are those BenchmarkRecall loads (user u's kth turn is
// historyText(texts, u, k), in sessions of 10, a day apart), written
// server-side: each distinct text is analyzed and embedded once by the
// indexer's own analyzer and embedder and stored through the store's write
// path, as a template, and every user's rows are made from the templates by
// INSERT … SELECT, into the tables with their indexes in place, as a
// running system grows them.
func BenchmarkLarge(b *testing.B) {
	base := envInt("BENCH_LARGE_BASE_USERS", 10_000)
	users := envInt("BENCH_LARGE_USERS", 100_000)
	turns := envInt("BENCH_LARGE_TURNS", 50_000)
	rounds := envInt("BENCH_LARGE_ROUNDS", 2)
	seconds := envInt("BENCH_CONTEXT_SECONDS", 15)
	require.Greater(b, users, base)
	const perUser, clients = 100, 32
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	wrk, err := exec.LookPath("wrk")
	require.NoError(b, err, "wrk is needed for the load (make bench-large installs it)")
	texts, questions := locomoText(b)
	an := search.SharedAnalyzer()
	emb := embed.NewHashing(0)
	ctx := context.Background()

	qfile := filepath.Join(b.TempDir(), "queries.txt")
	var lines []string
	for _, q := range questions {
		lines = append(lines, url.QueryEscape(q))
	}
	require.NoError(b, os.WriteFile(qfile, []byte(strings.Join(lines, "\n")+"\n"), 0o644))

	// BENCH_LARGE_KEEP=1 keeps the databases (recall_large_<users>) for the
	// next run, which then measures without loading again.
	keep := os.Getenv("BENCH_LARGE_KEEP") != ""
	rows := []*largeRow{{users: base}, {users: users}}
	for _, r := range rows {
		r.messages = r.users * perUser
		loaded := false
		if keep {
			var created bool
			r.db, created = testenv.KeptDB(b, fmt.Sprintf("recall_large_%d", r.users))
			loaded = !created && largeLoaded(b, r.db, r.messages)
		} else {
			r.db = testenv.NewDB(b)
		}
		conn, err := pgx.Connect(ctx, r.db.URL)
		require.NoError(b, err)
		start := time.Now()
		if loaded {
			// What an earlier run's pipelineRates added goes, so that the sizes
			// are the histories'.
			_, err = conn.Exec(ctx, `DELETE FROM messages WHERE user_id LIKE 'new%'; DELETE FROM sessions WHERE user_id LIKE 'new%';
				DELETE FROM search_entries WHERE user_id LIKE 'new%'`)
			require.NoError(b, err)
			for _, sql := range []string{"VACUUM (ANALYZE) messages", "VACUUM (ANALYZE) sessions", "VACUUM (ANALYZE) search_entries"} {
				_, err = conn.Exec(ctx, sql)
				require.NoError(b, err, sql)
			}
		} else {
			_, err = conn.Exec(ctx, `TRUNCATE messages, sessions, search_entries; DROP TABLE IF EXISTS bench_templates`)
			require.NoError(b, err)
			writeTemplates(b, r.db, conn, texts, an, emb)
			growHistories(b, conn, 0, r.users, perUser, len(texts), now)
		}
		r.sizes = tableSizes(b, conn)
		require.NoError(b, conn.Close(ctx))
		fmt.Printf("large: %d users x %d turns (%d messages) loaded in %s (kept: %v, reused: %v): %s\n",
			r.users, perUser, r.messages, time.Since(start).Round(time.Second), keep, loaded, r.sizes)
	}

	b.ResetTimer()
	for range b.N {
		for round := range rounds {
			for _, r := range rows {
				apiURL, apiProc := startAPIBinary(b, r.db)
				checkRecalled(b, apiURL, r.users-1, questions[0])
				settle(b)
				c := runWrkScript(b, wrk, apiURL, "recall.lua", seconds, clients, fmt.Sprintf("BENCH_USERS=%d", r.users), "BENCH_QUERIES="+qfile)
				m := rss(b, apiProc.Process.Pid)
				stop(apiProc)
				r.context = append(r.context, c)
				r.api = max(r.api, m.peak)
				fmt.Printf("  round %d, %s messages: GET /v1/context with query, %d clients (wrk), %ds: p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, %.0f req/s; api %d MB (peak %d MB)\n",
					round+1, millions(r.messages), clients, seconds, c.p50, c.p90, c.p99, c.rate, m.now>>20, m.peak>>20)
			}
		}
		for _, r := range rows {
			var perTurn float64
			r.ingest, r.index, perTurn = pipelineRates(b, r.db, turns, fmt.Sprintf("new%d-%d-", r.users, time.Now().Unix()))
			fmt.Printf("  %s messages: %d new turns end to end: ingest %.0f turns/s (publish -> stored), indexer %.0f turns/s (publish -> searchable); the turn stream holds %.0f bytes a turn\n",
				millions(r.messages), turns, r.ingest, r.index, perTurn)
		}
		small, large := rows[0], rows[1]
		for _, r := range rows {
			fmt.Printf("  %s\n", r)
		}
		ratio := large.p99() / small.p99()
		fmt.Printf("  %s / %s messages: context p99 x%.2f (target <= 1.5), p50 x%.2f, req/s x%.2f; ingest x%.2f, indexer x%.2f; api peak RSS x%.2f; bytes a message %d -> %d\n",
			millions(large.messages), millions(small.messages), ratio, large.mean(func(w wrkResult) float64 { return w.p50 })/small.mean(func(w wrkResult) float64 { return w.p50 }),
			large.mean(func(w wrkResult) float64 { return w.rate })/small.mean(func(w wrkResult) float64 { return w.rate }),
			large.ingest/small.ingest, large.index/small.index, float64(large.api)/float64(small.api),
			small.sizes.perMessage(small.messages), large.sizes.perMessage(large.messages))
		b.ReportMetric(small.p99(), "p99_ms_small")
		b.ReportMetric(large.p99(), "p99_ms_large")
		b.ReportMetric(ratio, "p99_ratio")
		b.ReportMetric(large.ingest, "ingest_turns/s_large")
		b.ReportMetric(large.index, "index_turns/s_large")
	}
}

// largeLoaded tells whether a kept database holds the histories of
// growHistories whole: its messages, less those pipelineRates added.
func largeLoaded(b *testing.B, db *testenv.DB, messages int) bool {
	var n int
	require.NoError(b, db.Store.Pool().QueryRow(context.Background(), `SELECT count(*) FROM messages WHERE user_id NOT LIKE 'new%'`).Scan(&n))
	return n == messages
}

// millions writes n as millions ("1M", "10M", "0.1M").
func millions(n int) string { return strconv.FormatFloat(float64(n)/1e6, 'f', -1, 64) + "M" }

// checkRecalled asks for user u's context with a query once and fails unless
// the hybrid search recalled turns of that user's own history.
func checkRecalled(b *testing.B, apiURL string, u int, query string) {
	req, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("%s/v1/context?user_id=u%d&session_id=ask%d&query=%s", apiURL, u, u, url.QueryEscape(query)), nil)
	req.Header.Set("X-Tenant-ID", "bench")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(b, err)
	defer resp.Body.Close()
	require.Equal(b, http.StatusOK, resp.StatusCode)
	var answer struct {
		Recalled struct {
			Search string `json:"search"`
			Hits   []struct {
				SessionID string `json:"session_id"`
			} `json:"hits"`
		} `json:"recalled"`
	}
	require.NoError(b, json.NewDecoder(resp.Body).Decode(&answer))
	require.Equal(b, "hybrid", answer.Recalled.Search)
	require.NotEmpty(b, answer.Recalled.Hits)
	for _, h := range answer.Recalled.Hits {
		require.True(b, strings.HasPrefix(h.SessionID, fmt.Sprintf("s%d-", u)), "the user's own history: %s", h.SessionID)
	}
}

// largeRow is one size's database and measurements.
type largeRow struct {
	users, messages int
	db              *testenv.DB
	context         []wrkResult
	// api is the API's largest peak resident set over the rounds.
	api           int64
	ingest, index float64
	sizes         sizes
}

// mean is the mean of one measure over the rounds.
func (r *largeRow) mean(f func(wrkResult) float64) float64 {
	var sum float64
	for _, c := range r.context {
		sum += f(c)
	}
	return sum / float64(len(r.context))
}

// p99 is the mean of the rounds' p99.
func (r *largeRow) p99() float64 { return r.mean(func(w wrkResult) float64 { return w.p99 }) }

func (r *largeRow) String() string {
	return fmt.Sprintf("%s messages: context with query p50 %.2f ms, p99 %.2f ms, %.0f req/s (mean of %d rounds); api peak %d MB; ingest %.0f turns/s, indexer %.0f turns/s; %s",
		millions(r.messages), r.mean(func(w wrkResult) float64 { return w.p50 }), r.p99(), r.mean(func(w wrkResult) float64 { return w.rate }),
		len(r.context), r.api>>20, r.ingest, r.index, r.sizes)
}

// sizes are the bytes of the tables a message lives in, each with its
// indexes (and TOAST), and the indexes alone.
type sizes struct{ messages, sessions, search, indexes int64 }

func (s sizes) perMessage(n int) int64 { return (s.messages + s.sessions + s.search) / int64(n) }

func (s sizes) String() string {
	gb := func(n int64) float64 { return float64(n) / (1 << 30) }
	return fmt.Sprintf("messages %.2f GB, sessions %.2f GB, search_entries %.2f GB (indexes of the three %.2f GB)",
		gb(s.messages), gb(s.sessions), gb(s.search), gb(s.indexes))
}

func tableSizes(b *testing.B, conn *pgx.Conn) sizes {
	var s sizes
	require.NoError(b, conn.QueryRow(context.Background(), `
		SELECT pg_total_relation_size('messages'), pg_total_relation_size('sessions'), pg_total_relation_size('search_entries'),
		       pg_indexes_size('messages') + pg_indexes_size('sessions') + pg_indexes_size('search_entries')`).
		Scan(&s.messages, &s.sessions, &s.search, &s.indexes))
	return s
}

// writeTemplates stores each distinct text as the search entry of a template
// user, through the store's own write path (the analyzer's terms, the
// embedder's vector at half precision), for growHistories to copy.
func writeTemplates(b *testing.B, db *testenv.DB, conn *pgx.Conn, texts []string, an *search.Analyzer, emb embed.Embedder) {
	ctx := context.Background()
	const batch = 500
	for start := 0; start < len(texts); start += batch {
		part := texts[start:min(start+batch, len(texts))]
		vecs, err := emb.Embed(ctx, part)
		require.NoError(b, err)
		entries := make([]store.SearchEntry, len(part))
		for i, t := range part {
			entries[i] = store.SearchEntry{TenantID: "template", UserID: "template", Kind: store.SearchMessage,
				SourceID: fmt.Sprint(start + i), OccurredAt: time.Unix(0, 0), Text: t, Terms: an.Terms(t, nil),
				Embedding: vecs[i], Model: emb.Model()}
		}
		_, err = db.Store.UpsertSearchEntries(ctx, entries)
		require.NoError(b, err)
	}
	_, err := conn.Exec(ctx, `CREATE TABLE bench_templates AS
		SELECT source_id::int AS idx, body, terms, term_count, embedding, embedding_model
		FROM search_entries WHERE tenant_id = 'template'`)
	require.NoError(b, err)
	_, err = conn.Exec(ctx, `DELETE FROM search_entries WHERE tenant_id = 'template'; CREATE UNIQUE INDEX ON bench_templates (idx)`)
	require.NoError(b, err)
}

// growHistories adds users [from, to) as loadHistories writes them (same
// ids, texts, roles, sessions and times), 2000 users a statement, then
// vacuums, analyzes and checkpoints, as a database in steady state is.
func growHistories(b *testing.B, conn *pgx.Conn, from, to, perUser, texts int, last time.Time) {
	ctx := context.Background()
	const step = 2000
	for u0 := from; u0 < to; u0 += step {
		u1 := min(u0+step, to)
		_, err := conn.Exec(ctx, `
			INSERT INTO messages (tenant_id, event_id, session_id, user_id, role, content, occurred_at)
			SELECT 'bench', 'e' || (u * $3 + k), 's' || u || '-' || (k / 10), 'u' || u,
			       CASE WHEN k % 2 = 1 THEN 'assistant' ELSE 'user' END, t.body,
			       $5::timestamptz - (($3 - k) * interval '1 day')
			FROM generate_series($1::int, $2::int - 1) u CROSS JOIN generate_series(0, $3::int - 1) k
			JOIN bench_templates t ON t.idx = (u * 37 + k) % $4`, u0, u1, perUser, texts, last)
		require.NoError(b, err)
		_, err = conn.Exec(ctx, `
			INSERT INTO sessions (tenant_id, session_id, user_id, message_count, first_message_at, last_message_at)
			SELECT 'bench', 's' || u || '-' || j, 'u' || u, 10,
			       $4::timestamptz - (($3 - j * 10) * interval '1 day'), $4::timestamptz - (($3 - j * 10 - 9) * interval '1 day')
			FROM generate_series($1::int, $2::int - 1) u, generate_series(0, $3::int / 10 - 1) j`, u0, u1, perUser, last)
		require.NoError(b, err)
		_, err = conn.Exec(ctx, `
			INSERT INTO search_entries (tenant_id, user_id, kind, source_id, session_id, role, occurred_at, body, terms, term_count, embedding, embedding_model)
			SELECT 'bench', 'u' || u, 'message', 'e' || (u * $3 + k), 's' || u || '-' || (k / 10),
			       CASE WHEN k % 2 = 1 THEN 'assistant' ELSE 'user' END,
			       $5::timestamptz - (($3 - k) * interval '1 day'), t.body, t.terms, t.term_count, t.embedding, t.embedding_model
			FROM generate_series($1::int, $2::int - 1) u CROSS JOIN generate_series(0, $3::int - 1) k
			JOIN bench_templates t ON t.idx = (u * 37 + k) % $4`, u0, u1, perUser, texts, last)
		require.NoError(b, err)
		if (u1-from)%(10*step) == 0 || u1 == to {
			fmt.Printf("large: %d of %d users written\n", u1, to)
		}
	}
	for _, sql := range []string{"VACUUM (ANALYZE) messages", "VACUUM (ANALYZE) sessions", "VACUUM (ANALYZE) search_entries", "CHECKPOINT"} {
		_, err := conn.Exec(ctx, sql)
		require.NoError(b, err, sql)
	}
}

// pipelineRates publishes n new turns (makeTurns' sessions, of users named
// with prefix) to a JetStream server of their own, with the ingest worker and
// the indexer (offline embedder) consuming them into db, and returns each
// worker's rate from the first publish to its last acknowledgement (which
// follows its commit).
func pipelineRates(b *testing.B, db *testenv.DB, n int, prefix string) (ingestRate, indexRate, streamBytes float64) {
	ctx := context.Background()
	nt := testenv.NewNATS(b)
	turns := makeTurns(n)
	msgs := make([]*nats.Msg, n)
	for i := range turns {
		turns[i].ID = prefix + turns[i].ID
		turns[i].UserID = prefix + turns[i].UserID
		turns[i].SessionID = prefix + turns[i].SessionID
		m, err := eventmsg.Turn(&turns[i])
		require.NoError(b, err)
		msgs[i] = m
	}
	settle(b)
	_, stopIngest := testenv.StartWorker(b, nt, db, ingest.Def, nil)
	defer stopIngest()
	_, stopIndexer := testenv.StartWorker(b, nt, db, indexer.Def, nil)
	defer stopIndexer()
	start := time.Now()
	publishAll(b, nt.JS, msgs, func(m *nats.Msg) string { return m.Subject })
	last := uint64(n)
	done := map[string]time.Duration{}
	for len(done) < 2 {
		for _, durable := range []string{ingest.Def.Binding.Durable, indexer.Def.Binding.Durable} {
			if _, ok := done[durable]; ok {
				continue
			}
			cons, err := nt.JS.Consumer(ctx, queue.TurnsStream, durable)
			require.NoError(b, err)
			info, err := cons.Info(ctx)
			require.NoError(b, err)
			if info.AckFloor.Stream >= last {
				done[durable] = time.Since(start)
			}
		}
		require.Less(b, time.Since(start), 20*time.Minute, "the workers did not take the turns in")
		time.Sleep(5 * time.Millisecond)
	}
	var stored int
	require.NoError(b, db.Store.Pool().QueryRow(ctx, `SELECT count(*) FROM messages WHERE user_id LIKE $1 || '%'`, prefix).Scan(&stored))
	require.Equal(b, n, stored)
	info, err := nt.JS.Stream(ctx, queue.TurnsStream)
	require.NoError(b, err)
	st, err := info.Info(ctx)
	require.NoError(b, err)
	return float64(n) / done[ingest.Def.Binding.Durable].Seconds(), float64(n) / done[indexer.Def.Binding.Durable].Seconds(),
		float64(st.State.Bytes) / float64(st.State.Msgs)
}
