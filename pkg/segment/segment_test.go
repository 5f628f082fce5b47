package segment_test

import (
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/segment"
)

// A process that set its soft memory limit before it met Chinese (the
// indexer, the API) gets the limit raised by what the dictionary holds when
// it loads, instead of a runtime collecting more often under it; and the
// dictionary holds at most 60 MB of heap (gse's own held 235 MB). It must be
// the first test to load the dictionary: the tests that compare with gse are
// in a file sorted after this one, and fuzz targets run after a package's
// tests.
func TestSharedRaisesTheMemoryLimit(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "") // the limit below is the process's own
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	before := ms.HeapAlloc
	limit := int64(ms.Sys-ms.HeapReleased) + 64<<20
	prev := debug.SetMemoryLimit(limit)
	t.Cleanup(func() { debug.SetMemoryLimit(prev) })

	require.False(t, segment.Loaded())
	seg, err := segment.Shared()
	require.NoError(t, err)
	require.True(t, segment.Loaded())
	raised := debug.SetMemoryLimit(-1)

	runtime.GC()
	runtime.ReadMemStats(&ms)
	held := int64(ms.HeapAlloc) - int64(before)
	t.Logf("the dictionary holds %.1f MB; the limit was raised by %.1f MB", float64(held)/(1<<20), float64(raised-limit)/(1<<20))
	require.Less(t, held, int64(60<<20), "the dictionary holds at most 60 MB")
	require.Greater(t, held, int64(10<<20), "the dictionary is loaded")
	require.InDelta(t, held, raised-limit, 1<<20, "the limit is raised by what the dictionary holds")

	var toks []segment.Token
	toks = seg.Tokens("我喜欢科幻小说", toks)
	require.NotEmpty(t, toks)

	again, err := segment.Shared()
	require.NoError(t, err)
	require.Same(t, seg, again)
	require.Equal(t, raised, debug.SetMemoryLimit(-1), "loaded once, raised once")
}
