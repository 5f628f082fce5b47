package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/recallhq/recall/pkg/queue"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/deploycheck"
	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/eventmsg"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/extract"
	"github.com/recallhq/recall/pkg/workers/extractor"
	"github.com/recallhq/recall/pkg/workers/ingest"
)

// kdconvUtterances reads real Chinese dialogue (film and music) from
// ../shared/data, the texts the extractor sees in production.
func kdconvUtterances(b *testing.B) []string {
	var out []string
	for _, domain := range []string{"film", "music"} {
		raw, err := os.ReadFile(filepath.Join(deploycheck.RepoRoot(), "..", "shared", "data", "kdconv", domain, "dev.json"))
		require.NoError(b, err, "the KdConv data must sit beside the repository in ../shared/data")
		var convs []struct {
			Messages []struct {
				Message string `json:"message"`
			} `json:"messages"`
		}
		require.NoError(b, json.Unmarshal(raw, &convs))
		for _, c := range convs {
			for _, m := range c.Messages {
				out = append(out, m.Message)
			}
		}
	}
	return out
}

// BenchmarkExtract measures, in one run: the rules extractor alone on one core
// (turns/s), and the extractor worker end to end, from the first publish to the
// last fact committed, as a ratio to the ingest worker's rate on the same turns.
func BenchmarkExtract(b *testing.B) {
	texts := kdconvUtterances(b)
	n := min(benchTurns()/4, 50_000)
	base := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	msgs := make([]*nats.Msg, n)
	for i := range msgs {
		s := i % 500
		t := events.Turn{ID: fmt.Sprintf("x%07d", i), TenantID: "bench", UserID: fmt.Sprintf("u%03d", s), SessionID: fmt.Sprintf("s%03d", s),
			OccurredAt: base.Add(time.Duration(i) * time.Second), Role: events.RoleUser, Content: texts[i%len(texts)]}
		m, err := eventmsg.Turn(&t)
		require.NoError(b, err)
		msgs[i] = m
	}
	rules, err := extract.NewRules(extract.RulesOptions{})
	require.NoError(b, err)

	b.ResetTimer()
	for range b.N {
		// Rules alone, one goroutine: per-core throughput.
		runtime.GC()
		start := time.Now()
		facts := 0
		for _, text := range texts {
			fs, err := rules.Extract(context.Background(), extract.Input{Text: text})
			require.NoError(b, err)
			facts += len(fs)
		}
		perCore := float64(len(texts)) / time.Since(start).Seconds()

		ingestRate := workerRate(b, msgs, func(nt *testenv.NATS, db *testenv.DB) (func(), string) {
			_, stop := testenv.StartWorker(b, nt, db, ingest.Def, nil)
			return stop, ingest.Def.Binding.Durable
		})
		extractRate := workerRate(b, msgs, func(nt *testenv.NATS, db *testenv.DB) (func(), string) {
			_, stop := testenv.StartWorker(b, nt, db, extractor.Def, nil)
			return stop, extractor.Def.Binding.Durable
		})
		b.ReportMetric(perCore, "rules_turns/s/core")
		b.ReportMetric(extractRate, "extractor_turns/s")
		b.ReportMetric(extractRate/ingestRate, "extractor/ingest")
		fmt.Printf("extract: %d KdConv utterances, %d turns through the workers\n", len(texts), n)
		fmt.Printf("  rules extractor, one core:          %9.0f turns/s (%.1f facts/turn)\n", perCore, float64(facts)/float64(len(texts)))
		fmt.Printf("  extractor worker, publish -> facts: %9.0f turns/s\n", extractRate)
		fmt.Printf("  ingest worker, same turns:          %9.0f turns/s\n", ingestRate)
		fmt.Printf("  extractor / ingest = %.2f\n", extractRate/ingestRate)
	}
}

// workerRate publishes msgs to a fresh stream with one worker running and
// measures from the first publish to the worker's last ack (acks follow commits).
func workerRate(b *testing.B, msgs []*nats.Msg, start func(*testenv.NATS, *testenv.DB) (stop func(), durable string)) float64 {
	ctx := context.Background()
	db := testenv.NewDB(b)
	nt := testenv.NewNATS(b)
	stop, name := start(nt, db)
	defer stop()
	begin := time.Now()
	publishAll(b, nt.JS, msgs, func(m *nats.Msg) string { return m.Subject })
	cons, err := nt.JS.Consumer(ctx, queue.TurnsStream, name)
	require.NoError(b, err)
	for {
		info, err := cons.Info(ctx)
		require.NoError(b, err)
		if info.AckFloor.Stream >= uint64(len(msgs)) {
			break
		}
		time.Sleep(2 * time.Millisecond)
	}
	return float64(len(msgs)) / time.Since(begin).Seconds()
}
