// Package segment splits Chinese text into words with gse's dictionary. The
// dictionary has about 590k words and holds a few hundred megabytes once
// loaded, so a process loads it at most once (Shared) and every part that
// segments text (the extractor's rules, the summarizer's keywords, the search
// index) reads the same copy; segmentation never modifies it.
package segment

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/go-ego/gse"
)

// Segmenter is the loaded dictionary. It is safe for concurrent use.
type Segmenter struct {
	seg *gse.Segmenter
}

var (
	once   sync.Once
	shared *Segmenter
	err    error
)

// Shared returns the process's segmenter, loading gse's embedded simplified
// and traditional dictionaries on the first call (about two seconds).
// Callers that may never see Chinese call it only when they do (see
// search.SharedAnalyzer).
func Shared() (*Segmenter, error) {
	once.Do(func() {
		// A process that meets Chinese only after it started (the indexer,
		// the API: they load the dictionary on the first Han text) set its
		// soft memory limit without it (service.LimitMemory). The limit is
		// lifted while the dictionary loads (loading leaves about as much
		// garbage as it keeps, and the runtime would collect without end to
		// stay under the old limit), then set again, higher by what the
		// dictionary holds. A limit an operator set (GOMEMLIMIT) is theirs.
		limit := debug.SetMemoryLimit(-1)
		own := limit < math.MaxInt64 && os.Getenv("GOMEMLIMIT") == ""
		var before uint64
		if own {
			debug.FreeOSMemory()
			before = held()
			debug.SetMemoryLimit(math.MaxInt64)
		}
		seg := &gse.Segmenter{SkipLog: true}
		if e := seg.LoadDictEmbed("zh"); e != nil {
			err = fmt.Errorf("segment: load dictionary: %w", e)
			if own {
				debug.SetMemoryLimit(limit)
			}
			return
		}
		shared = &Segmenter{seg: seg}
		loaded.Store(true)
		// Collect the loading's garbage and hand the pages back now, so a
		// process's resident size starts near what it holds instead of
		// near its peak.
		runtime.GC()
		debug.FreeOSMemory()
		if own {
			debug.SetMemoryLimit(limit + max(int64(held())-int64(before), 0))
		}
	})
	return shared, err
}

// Loaded reports whether this process holds the dictionary.
func Loaded() bool {
	return loaded.Load()
}

var loaded atomic.Bool

// held is the memory the Go runtime holds from the OS.
func held() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.Sys - ms.HeapReleased
}

// Token is one word of segmented text: its byte span in the original string
// and its part-of-speech tag from the dictionary ("x" when the dictionary does
// not know the word).
type Token struct {
	Start, End int
	Pos        string
}

// Tokens segments text and appends its words to dst. It uses gse's
// shortest-path segmentation without the HMM for unknown words: the HMM is two
// orders of magnitude slower, and callers that need unknown names rebuild them
// from the single characters it leaves behind.
func (s *Segmenter) Tokens(text string, dst []Token) []Token {
	for _, w := range s.seg.Segment([]byte(text)) {
		dst = append(dst, Token{Start: w.Start(), End: w.End(), Pos: w.Token().Pos()})
	}
	return dst
}
