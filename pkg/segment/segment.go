// Package segment splits Chinese text into words with gse's dictionary
// (about 590k simplified and traditional words), exactly as gse's
// shortest-path segmentation does, from a compact copy of it.
//
// gse's own loaded dictionary is a heap of about 234 MB of small objects and
// pointers (a trie, and per word slices of byte slices), which the garbage
// collector marks on every cycle: under a soft memory limit most of a
// worker's collection time went to it. Here the words are a hash table of
// fixed-size entries without pointers (20 MB, which the collector does not
// scan) whose keys are read in place from gse's embedded dictionary text
// (source.go). gse is only needed as the source of that text, and by the
// tests, which require the same tokens as gse's Segment for every input
// (docs/benchmarks.md, History).
//
// A process loads the dictionary at most once (Shared) and every part that
// segments text (the extractor's rules, the summarizer's keywords, the search
// index) reads the same copy; segmentation never modifies it.
package segment

import (
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Segmenter is the loaded dictionary. It is safe for concurrent use.
type Segmenter struct {
	// slots is the hash table of words and of their prefixes (slot).
	slots []slot
	// src holds the keys' bytes: gse's dictionary files, then the keys
	// that differ from their line (lower-cased).
	src []string
	// tags are the part-of-speech tags, unknown the index of "x" plus one,
	// gse's tag for a character no word starts with.
	tags    []string
	unknown uint8
	// maxElems is the most elements (splitText) a word has.
	maxElems int
	// offHeap says the table is mapped outside the Go heap (newTable).
	offHeap bool
}

var (
	once   sync.Once
	shared *Segmenter
	err    error
)

// Shared returns the process's segmenter, loading the dictionary on the
// first call (about a quarter of a second). Callers that may never see
// Chinese call it only when they do (see search.SharedAnalyzer).
func Shared() (*Segmenter, error) {
	once.Do(func() {
		s, e := load(simplified, traditional)
		if e != nil {
			err = fmt.Errorf("segment: load dictionary: %w", e)
			return
		}
		// A process that meets Chinese only after it started (the
		// indexer, the API: they load the dictionary on the first Han
		// text) set its soft memory limit without it
		// (service.LimitMemory); the limit is raised by what the
		// dictionary holds, or the runtime would collect more often to
		// stay under the old one. A limit an operator set (GOMEMLIMIT)
		// is theirs.
		if os.Getenv("GOMEMLIMIT") == "" {
			if limit := debug.SetMemoryLimit(-1); limit < math.MaxInt64 {
				debug.SetMemoryLimit(limit + s.held())
			}
		}
		shared = s
		loaded.Store(true)
		// Building the table left garbage as large as a good part of
		// it; give those pages back now rather than at the runtime's
		// leisure, so a process that holds the dictionary is as small as
		// it can be from then on (a one-off collection, a few ms).
		debug.FreeOSMemory()
	})
	return shared, err
}

// Loaded reports whether this process holds the dictionary.
func Loaded() bool {
	return loaded.Load()
}

var loaded atomic.Bool

// held is the heap memory the dictionary holds: its lower-cased keys and
// tags, and its table unless that is mapped outside the heap (newTable);
// gse's dictionary text is in the binary's read-only data.
func (s *Segmenter) held() int64 {
	n := len(s.src[len(s.src)-1])
	if !s.offHeap {
		n += cap(s.slots) * int(unsafe.Sizeof(slot{}))
	}
	for _, t := range s.tags {
		n += len(t)
	}
	return int64(n)
}

// Token is one word of segmented text: its byte span in the original string
// and its part-of-speech tag from the dictionary ("x" when the dictionary does
// not know the word).
type Token struct {
	Start, End int
	Pos        string
}

// jumper is the best segmentation found so far of the text up to an
// element: its cost (0 while none is known, as in gse), and the last word's
// length in elements and tag.
type jumper struct {
	dist  float32
	elems uint8
	pos   uint8
}

// update keeps the word of cost dist ending at j when it is the first or
// cheaper than the best so far (gse's updateJumper: of equal costs the first
// found stays).
func (j *jumper) update(dist float32, elems int, pos uint8) {
	if j.dist == 0 || j.dist > dist {
		*j = jumper{dist: dist, elems: uint8(elems), pos: pos}
	}
}

// scratch is one call's working memory, reused across calls.
type scratch struct {
	ends    []int
	jumpers []jumper
}

var scratches = sync.Pool{New: func() any { return new(scratch) }}

// maxPooled is the most elements whose scratch goes back to the pool, so
// that one huge text does not keep its buffers for good.
const maxPooled = 1 << 16

// Tokens segments text and appends its words to dst. It is gse's
// shortest-path segmentation without the HMM for unknown words: the HMM is
// two orders of magnitude slower, and callers that need unknown names
// rebuild them from the single characters it leaves behind.
//
// The text is cut into elements (splitText); from each element, the words
// of the dictionary that start there (their ASCII letters matched
// regardless of case) are candidates, and a character no word of one
// element starts with is a word of its own, of tag "x" and cost 32. The
// words kept are those of the cheapest path, each word costing
// log2(total frequency / its frequency), summed in float32 as gse does.
func (s *Segmenter) Tokens(text string, dst []Token) []Token {
	if text == "" {
		return dst
	}
	sc := scratches.Get().(*scratch)
	sc.ends = splitText(text, sc.ends[:0])
	ends := sc.ends
	sc.jumpers = slices.Grow(sc.jumpers[:0], len(ends))[:len(ends)]
	jumpers := sc.jumpers
	clear(jumpers)
	fold := hasUpperASCII(text)
	start := 0
	for cur := range ends {
		var base float32
		if cur > 0 {
			base = jumpers[cur-1].dist
		}
		found, first := 0, 0
		h := hashSeed
		for j, prev := cur, start; j < min(cur+s.maxElems, len(ends)); j++ {
			h = hashAdd(h, text[prev:ends[j]])
			prev = ends[j]
			sl := s.find(h, text[start:ends[j]], fold)
			if sl == nil {
				break
			}
			if sl.pos == 0 {
				continue
			}
			if found == 0 {
				first = j - cur + 1
			}
			found++
			jumpers[j].update(base+sl.dist, j-cur+1, sl.pos)
		}
		if found == 0 || first > 1 {
			jumpers[cur].update(base+unknownDist, 1, s.unknown)
		}
		start = ends[cur]
	}
	n := 0
	for i := len(ends) - 1; i >= 0; i -= int(jumpers[i].elems) {
		n++
	}
	dst = slices.Grow(dst, n)
	out := dst[len(dst) : len(dst)+n]
	for i := len(ends) - 1; i >= 0; i -= int(jumpers[i].elems) {
		n--
		begin := 0
		if k := i - int(jumpers[i].elems); k >= 0 {
			begin = ends[k]
		}
		out[n] = Token{Start: begin, End: ends[i], Pos: s.tags[jumpers[i].pos-1]}
	}
	if len(ends) <= maxPooled {
		scratches.Put(sc)
	}
	return dst[:len(dst)+len(out)]
}
