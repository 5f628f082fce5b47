package summarize_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/summarize"
)

func TestPolicyDue(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	p := summarize.DefaultPolicy
	cases := []struct {
		name         string
		pending      int64
		last, summAt time.Time
		due          bool
	}{
		{"first summary: the count alone", 10, t0, time.Time{}, true},
		{"first summary: below the count", 9, t0.Add(time.Hour), time.Time{}, false},
		{"count without time", 25, t0.Add(4*time.Minute + 59*time.Second), t0, false},
		{"time without count", 9, t0.Add(time.Hour), t0, false},
		{"count and time", 10, t0.Add(5 * time.Minute), t0, true},
	}
	for _, c := range cases {
		require.Equal(t, c.due, p.Due(c.pending, c.last, c.summAt), c.name)
	}
	require.False(t, summarize.Policy{EveryMessages: -1}.Due(100, t0, time.Time{}), "a negative count turns it off")
	require.Equal(t, summarize.DefaultPolicy, summarize.Policy{}.WithDefaults())
}
