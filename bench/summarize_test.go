package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recallhq/recall/pkg/queue"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/deploycheck"
	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/api"
	"github.com/recallhq/recall/pkg/envconfig"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/extract"
	"github.com/recallhq/recall/pkg/summarize"
	"github.com/recallhq/recall/pkg/workers/ingest"
	"github.com/recallhq/recall/pkg/workers/summarizer"
)

// locomoStretches cuts the LoCoMo conversations in ../shared/data into the
// stretches of 10 turns the summarizer sees at the default threshold
// (speaker_a is the user).
func locomoStretches(b *testing.B) [][]summarize.Turn {
	raw, err := os.ReadFile(filepath.Join(deploycheck.RepoRoot(), "..", "shared", "data", "locomo", "locomo_conv1-5.json"))
	require.NoError(b, err, "the LoCoMo data must sit beside the repository in ../shared/data")
	var convs []struct {
		Conversation map[string]json.RawMessage `json:"conversation"`
	}
	require.NoError(b, json.Unmarshal(raw, &convs))
	var out [][]summarize.Turn
	for _, c := range convs {
		var a string
		require.NoError(b, json.Unmarshal(c.Conversation["speaker_a"], &a))
		keys := make([]string, 0, len(c.Conversation))
		for k := range c.Conversation {
			if strings.HasPrefix(k, "session_") && !strings.HasSuffix(k, "_date_time") {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			var turns []struct{ Speaker, Text string }
			if json.Unmarshal(c.Conversation[k], &turns) != nil {
				continue
			}
			for off := 0; off+10 <= len(turns); off += 10 {
				stretch := make([]summarize.Turn, 10)
				for i, tu := range turns[off : off+10] {
					role := "assistant"
					if tu.Speaker == a {
						role = "user"
					}
					stretch[i] = summarize.Turn{Role: role, Text: tu.Text}
				}
				out = append(out, stretch)
			}
		}
	}
	return out
}

// BenchmarkSummarize measures, in one run: the offline (extractive) summarizer
// on one core over 10-turn LoCoMo stretches, next to the rules extractor alone
// on the same turns (the part of the work it cannot avoid); and the delay from
// publishing a session's 10th message to its summary being readable through
// the API, through real JetStream, the ingest and summarizer workers and the
// API handler, next to the delay until the message itself is readable.
func BenchmarkSummarize(b *testing.B) {
	stretches := locomoStretches(b)
	rules, err := extract.NewRules(extract.RulesOptions{})
	require.NoError(b, err)
	ex := summarize.NewExtractive(rules, summarize.Options{})
	ctx := context.Background()
	samples := envInt("BENCH_SUMMARY_SAMPLES", 200)

	b.ResetTimer()
	for range b.N {
		runtime.GC()
		start := time.Now()
		n := 0
		for time.Since(start) < 3*time.Second || n < len(stretches) {
			_, err := ex.Summarize(ctx, summarize.Input{Turns: stretches[n%len(stretches)]})
			require.NoError(b, err)
			n++
		}
		perSec := float64(n) / time.Since(start).Seconds()

		start = time.Now()
		m := 0
		for time.Since(start) < 2*time.Second || m < len(stretches) {
			for _, tu := range stretches[m%len(stretches)] {
				_, err := rules.Extract(ctx, extract.Input{Text: tu.Text})
				require.NoError(b, err)
			}
			m++
		}
		rulesPerSec := float64(m) / time.Since(start).Seconds()

		ingestDelays, summaryDelays := summaryDelay(b, samples)
		b.ReportMetric(perSec, "summaries/s/core")
		b.ReportMetric(delayMS(delayPercentile(summaryDelays, 50)), "summary_p50_ms")
		b.ReportMetric(delayMS(delayPercentile(summaryDelays, 99)), "summary_p99_ms")
		fmt.Printf("summarize: %d LoCoMo stretches of 10 turns, %d sessions end to end\n", len(stretches), samples)
		fmt.Printf("  offline summarizer: %.0f summaries/s (one core)\n", perSec)
		fmt.Printf("  rules extractor alone on the same turns: %.0f stretches/s (one core)\n", rulesPerSec)
		fmt.Printf("  10th message publish -> summary readable via API: p50 %.1f ms, p99 %.1f ms\n",
			delayMS(delayPercentile(summaryDelays, 50)), delayMS(delayPercentile(summaryDelays, 99)))
		fmt.Printf("  10th message publish -> message readable via API: p50 %.1f ms, p99 %.1f ms\n",
			delayMS(delayPercentile(ingestDelays, 50)), delayMS(delayPercentile(ingestDelays, 99)))
	}
}

// summaryDelay runs the pipeline (ingest, summarizer, API) with the binaries'
// default settings and, for each of n fresh sessions, publishes nine messages,
// waits for them to be stored, publishes the tenth and polls the API until
// the message, then the summary, can be read.
func summaryDelay(b *testing.B, n int) (ingestDelays, summaryDelays []time.Duration) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	db := testenv.NewDB(b)
	nt := testenv.NewNATS(b)
	log := testenv.Logger(b)

	// The binaries' defaults; offline, whatever the environment says.
	testenv.StartWorker(b, nt, db, ingest.Def, nil)
	testenv.StartWorker(b, nt, db, summarizer.Def, nil)
	acfg, err := envconfig.Load[api.Config]()
	require.NoError(b, err)
	srv, err := api.New(api.Options{Config: acfg, Store: db.Store, JS: nt.JS, Log: log})
	require.NoError(b, err)
	hs := httptest.NewServer(srv.Handler(nil))
	defer hs.Close()

	type sessionState struct {
		MessageCount int64           `json:"message_count"`
		Summary      json.RawMessage `json:"summary"`
	}
	client := &http.Client{Timeout: 5 * time.Second}
	read := func(session string) sessionState {
		req, _ := http.NewRequest(http.MethodGet, hs.URL+"/v1/sessions/"+session+"?recent=1", nil)
		req.Header.Set("X-Tenant-ID", "bench")
		resp, err := client.Do(req)
		require.NoError(b, err)
		defer resp.Body.Close()
		var st sessionState
		if resp.StatusCode == http.StatusOK {
			require.NoError(b, json.NewDecoder(resp.Body).Decode(&st))
		}
		return st
	}
	pub := queue.NewPublisher(nt.JS)
	base := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	lines := []string{
		"I'm looking for a science fiction novel like The Three-Body Problem for a long flight.",
		"You might enjoy Ball Lightning by Liu Cixin, or Hyperion by Dan Simmons.",
		"I loved Dune too. Is Hyperion very long?",
		"It is about 480 pages; the sequel continues the story.",
		"Great, I also want something about artificial intelligence for my daughter.",
	}
	for i := range n {
		session := fmt.Sprintf("s%04d", i)
		turns := make([]events.Turn, 10)
		for k := range turns {
			role := events.RoleUser
			if k%2 == 1 {
				role = events.RoleAssistant
			}
			turns[k] = events.Turn{ID: fmt.Sprintf("%s-%d", session, k), TenantID: "bench", UserID: fmt.Sprintf("u%04d", i), SessionID: session,
				OccurredAt: base.Add(time.Duration(i)*time.Hour + time.Duration(k)*time.Second), Role: role, Content: lines[k%len(lines)]}
		}
		_, err := pub.PublishTurns(ctx, turns[:9])
		require.NoError(b, err)
		deadline := time.Now().Add(10 * time.Second)
		for read(session).MessageCount < 9 {
			require.True(b, time.Now().Before(deadline), "the first nine messages were not stored")
			time.Sleep(time.Millisecond)
		}

		_, err = pub.PublishTurns(ctx, turns[9:])
		require.NoError(b, err)
		start := time.Now()
		stored := false
		for {
			st := read(session)
			if !stored && st.MessageCount == 10 {
				stored = true
				ingestDelays = append(ingestDelays, time.Since(start))
			}
			if len(st.Summary) > 0 && string(st.Summary) != "null" {
				if !stored {
					ingestDelays = append(ingestDelays, time.Since(start))
				}
				summaryDelays = append(summaryDelays, time.Since(start))
				break
			}
			require.True(b, time.Since(start) < 10*time.Second, "no summary of %s", session)
			time.Sleep(200 * time.Microsecond)
		}
	}
	return ingestDelays, summaryDelays
}

func delayPercentile(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[min(len(s)-1, (len(s)*p+99)/100-1)]
}

func delayMS(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
