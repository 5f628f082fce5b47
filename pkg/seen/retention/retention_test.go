package retention_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/seen/retention"
)

func TestCutoff(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	require.Equal(t, 2160*time.Hour, retention.DefaultPolicy.MaxAge)
	cut, ok := retention.DefaultPolicy.Cutoff(now)
	require.True(t, ok)
	require.Equal(t, now.AddDate(0, 0, -90), cut)
	for _, age := range []time.Duration{0, -time.Hour} {
		_, ok := retention.Policy{MaxAge: age}.Cutoff(now)
		require.False(t, ok, "MaxAge %v keeps everything", age)
	}
}
