package extract

import (
	"context"
	"os"
	"strings"
	"testing"
)

// loadTurns reads the benchmark's chat turns from testdata.
func loadTurns(tb testing.TB) []string {
	tb.Helper()
	raw, err := os.ReadFile("testdata/turns.txt")
	if err != nil {
		tb.Fatal(err)
	}
	var turns []string
	for _, line := range strings.Split(string(raw), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			turns = append(turns, line)
		}
	}
	return turns
}

// BenchmarkRules measures the rules extractor on single chat turns, the unit
// of work of the queue worker, and reports turns per second.
func BenchmarkRules(b *testing.B) {
	r, err := NewRules(RulesOptions{})
	if err != nil {
		b.Fatal(err)
	}
	turns := loadTurns(b)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := r.Extract(ctx, Input{Text: turns[i%len(turns)]}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "turns/s")
}

// BenchmarkRulesParallel shows how the extractor scales across workers
// sharing one Rules value.
func BenchmarkRulesParallel(b *testing.B) {
	r, err := NewRules(RulesOptions{})
	if err != nil {
		b.Fatal(err)
	}
	turns := loadTurns(b)
	ctx := context.Background()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			if _, err := r.Extract(ctx, Input{Text: turns[i%len(turns)]}); err != nil {
				b.Error(err)
				return
			}
			i++
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "turns/s")
}
