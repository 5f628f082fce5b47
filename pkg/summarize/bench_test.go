package summarize_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/eval/datasets"
	"github.com/recallhq/recall/internal/testkit/deploycheck"
	"github.com/recallhq/recall/pkg/summarize"
)

var (
	longMemOnce   sync.Once
	longMemInputs []summarize.Input
	longMemErr    error
)

// longMemSessions is the first sessions of ../shared/data's LongMemEval
// histories as the summarizer reads them: long turns (about 1,000
// characters), ten or so a session, the bulk of a backfill's summaries.
func longMemSessions(b *testing.B, n int) []summarize.Input {
	longMemOnce.Do(func() {
		convs, err := datasets.LoadLongMemEval(filepath.Join(deploycheck.RepoRoot(), "..", "shared", "data"))
		if err != nil {
			longMemErr = err
			return
		}
		bySession := map[string]int{}
		for _, c := range convs[:20] {
			for _, t := range c.Turns {
				i, ok := bySession[t.SessionID]
				if !ok {
					i = len(longMemInputs)
					bySession[t.SessionID] = i
					longMemInputs = append(longMemInputs, summarize.Input{})
				}
				longMemInputs[i].Turns = append(longMemInputs[i].Turns, summarize.Turn{Role: t.Role, Text: t.Text})
			}
		}
	})
	require.NoError(b, longMemErr, "the LongMemEval data must sit beside the repository in ../shared/data")
	return longMemInputs[:min(n, len(longMemInputs))]
}

// BenchmarkExtractiveLongMem is one session's offline summary, the
// summarizer's whole work per version when no model is configured.
func BenchmarkExtractiveLongMem(b *testing.B) {
	ins := longMemSessions(b, 200)
	e := summarize.NewExtractive(sharedRules(b), summarize.Options{MaxRunes: 300, MaxTopics: 5})
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if _, err := e.Summarize(ctx, ins[i%len(ins)]); err != nil {
			b.Fatal(err)
		}
	}
}
