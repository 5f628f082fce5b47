package pause_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/pause"
)

func TestFor(t *testing.T) {
	t.Parallel()
	start := time.Now()
	require.True(t, pause.For(t.Context(), 20*time.Millisecond))
	require.GreaterOrEqual(t, time.Since(start), 20*time.Millisecond)
	require.True(t, pause.For(t.Context(), 0), "nothing to wait, the context live")
	require.True(t, pause.Until(t.Context(), time.Now().Add(-time.Second)))

	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(10*time.Millisecond, cancel)
	start = time.Now()
	require.False(t, pause.For(ctx, time.Minute), "the context ended first")
	require.Less(t, time.Since(start), 10*time.Second)
	require.False(t, pause.For(ctx, 0), "an ended context")
	require.False(t, pause.Until(ctx, time.Now().Add(time.Minute)))
}
