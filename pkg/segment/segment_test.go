package segment_test

import (
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/segment"
)

// A process that set its soft memory limit before it met Chinese (the
// indexer, the API) gets the limit raised by what the dictionary holds
// when it loads, instead of a runtime collecting without end under it.
// This is the package's only test, so the first call to Shared is this one
// (its fuzz target, FuzzTokens, runs after it).
func TestSharedRaisesTheMemoryLimit(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "") // the limit below is the process's own
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	limit := int64(ms.Sys-ms.HeapReleased) + 64<<20
	prev := debug.SetMemoryLimit(limit)
	t.Cleanup(func() { debug.SetMemoryLimit(prev) })

	require.False(t, segment.Loaded())
	seg, err := segment.Shared()
	require.NoError(t, err)
	require.True(t, segment.Loaded())
	raised := debug.SetMemoryLimit(-1)
	require.Greater(t, raised, limit+100<<20, "the dictionary holds well over 100 MB")

	runtime.ReadMemStats(&ms)
	require.Less(t, int64(ms.HeapAlloc), raised, "what is live fits under the raised limit")
	var toks []segment.Token
	toks = seg.Tokens("我喜欢科幻小说", toks)
	require.NotEmpty(t, toks)

	again, err := segment.Shared()
	require.NoError(t, err)
	require.Same(t, seg, again)
	require.Equal(t, raised, debug.SetMemoryLimit(-1), "loaded once, raised once")
}
