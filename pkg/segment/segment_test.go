package segment_test

import (
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/segment"
)

// The dictionary's table (some 20 MB) is mapped outside the Go heap, so
// the heap holds almost nothing of the dictionary: a process whose
// collector target is a multiple of what is live (the API's is ten times)
// does not grow by that multiple of the table once Chinese is loaded (gse's
// own dictionary held 235 MB of heap). A process that set its soft memory
// limit before it met Chinese (the indexer, the API) gets the limit raised
// by what the heap holds of it. It must be the first test to load the
// dictionary: the tests that compare with gse are in a file sorted after
// this one, and fuzz targets run after a package's tests.
func TestSharedHoldsItsTableOffTheHeap(t *testing.T) {
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
	table := segment.TableBytes(seg)
	t.Logf("the dictionary's table is %.1f MB (off the heap: %v); the heap holds %.1f MB more; the limit was raised by %.1f MB",
		float64(table)/(1<<20), segment.OffHeap(seg), float64(held)/(1<<20), float64(raised-limit)/(1<<20))
	require.Greater(t, table, int64(10<<20), "the dictionary is loaded")
	require.Less(t, table, int64(60<<20), "the dictionary's table is at most 60 MB")
	if runtime.GOOS == "linux" {
		require.True(t, segment.OffHeap(seg), "the table is mapped outside the heap")
		require.Less(t, held, int64(2<<20), "the heap holds almost nothing of the dictionary")
	}
	require.InDelta(t, held, raised-limit, 1<<20, "the limit is raised by what the heap holds")

	var toks []segment.Token
	toks = seg.Tokens("我喜欢科幻小说", toks)
	require.NotEmpty(t, toks)

	again, err := segment.Shared()
	require.NoError(t, err)
	require.Same(t, seg, again)
	require.Equal(t, raised, debug.SetMemoryLimit(-1), "loaded once, raised once")
}
