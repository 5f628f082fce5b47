package embed

import (
	"context"
	"fmt"
	"math"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/recallhq/recall/pkg/extract"
)

// DefaultHashingDimension is the Hashing dimension used when none is given:
// large enough that short titles rarely collide, small enough that an
// interest vector costs one kilobyte.
const DefaultHashingDimension = 256

// hashingVersion is part of Hashing's model name. Bump it whenever the
// features, weights or hash change, so that stored vectors from the old
// scheme are recognised as a different model and re-embedded.
const hashingVersion = "v1"

// Feature weights. A whole word counts like one n-gram: a shared word also
// shares all of its n-grams, so exact matches already dominate, and weighting
// the word more would starve partial matches ("科幻" in "科幻小说", "novel" in
// "novels") of credit. Single CJK characters recur across unrelated words
// (小 in 小说 and 小提琴), so they are light features and count half.
const (
	weightFeature    = 1.0
	weightCJKUnigram = 0.5
)

// Every feature is added to probes buckets, each with its own sign. With a
// single bucket, one unlucky collision with an opposite-signed feature wipes a
// shared feature out (at 256 dimensions, "科幻小说" and "科幻电影" lost every
// shared feature that way); with two, a collision costs half a feature. The
// weight is scaled so that a feature's total squared weight stays its weight
// squared.
const (
	probes     = 2
	probeScale = 0.7071067811865476 // 1/sqrt(probes)
)

// Feature classes are hashed into every key so that the word "sci" and the
// n-gram "sci" inside "science" are different features.
const (
	classWord byte = 'w'
	classGram byte = 'g'
)

// Hashing is a deterministic local embedder: no network, no model weights,
// the same vector for the same text on every machine and every run, so the
// pipeline works offline and replays reproduce memory exactly.
//
// Text is normalised like extract.Normalize (NFKC, lower case), then split
// into runs of CJK characters and runs of other letters and digits. A CJK run
// yields its character 1-, 2- and 3-grams (Chinese and Japanese do not mark
// word boundaries, so overlapping short grams stand in for words); any other
// run is a word and yields its 3- to 5-grams with '<' and '>' marking its
// ends (so prefixes and suffixes are features of their own). Every run also
// counts as a whole word. Features are hashed with FNV-1a into two of the
// Dimension() buckets, a further hash bit per bucket picks the sign (so
// collisions cancel on average instead of piling up), repeated features count
// 1+ln(tf) (so a word said five times does not drown the rest), and the
// result is L2-normalised.
//
// Similar spellings therefore land close together; synonyms with no letters
// in common ("sci-fi" and "science fiction" share only "sci") do so only
// weakly. That is the price of needing no model.
//
// A text with no letters or digits, such as the empty string, maps to the
// zero vector: it has no direction, Cosine gives 0 against anything, and
// Combine ignores it.
type Hashing struct {
	dim   int
	model string
}

// NewHashing returns a Hashing embedder with dim components, or
// DefaultHashingDimension when dim <= 0.
func NewHashing(dim int) *Hashing {
	if dim <= 0 {
		dim = DefaultHashingDimension
	}
	return &Hashing{dim: dim, model: fmt.Sprintf("hashing-%s-%d", hashingVersion, dim)}
}

// Dimension is the number of hash buckets.
func (h *Hashing) Dimension() int { return h.dim }

// Model is "hashing-v1-<dim>": the version and the dimension both change the
// vector space.
func (h *Hashing) Model() string { return h.model }

// Embed embeds every text with Vector. It fails only when ctx is done, which
// it checks every few dozen texts so that a huge batch can be abandoned.
func (h *Hashing) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("hashing embed: %w", err)
			}
		}
		out[i] = h.Vector(t)
	}
	return out, nil
}

// Vector embeds one text. It cannot fail, which makes it convenient for
// tests and for callers that embed a single name.
func (h *Hashing) Vector(text string) []float32 {
	vec := make([]float32, h.dim)
	s := extract.Normalize(text)
	if s == "" {
		return vec
	}
	sc := scratchPool.Get().(*scratch)
	defer sc.release()
	sc.count(sc.features(s))
	for i, key := range sc.table {
		n := sc.counts[i]
		if n == 0 {
			continue
		}
		addProbes(vec, key, float32(keyWeight(key)*termFrequency(n)*probeScale))
	}
	normalize(vec)
	return vec
}

// termFrequency is 1 + ln(n) for a feature that occurs n > 0 times: read
// from a table for the small counts nearly every feature has (a logarithm
// for each distinct feature was a sixth of Vector's time), the same values
// math.Log gives.
func termFrequency(n uint32) float64 {
	if n < uint32(len(smallTF)) {
		return smallTF[n]
	}
	return 1 + math.Log(float64(n))
}

var smallTF = func() (t [64]float64) {
	for n := 1; n < len(t); n++ {
		t[n] = 1 + math.Log(float64(n))
	}
	return t
}()

// scratch holds the buffers one Vector call needs, pooled so that embedding
// allocates little more than the result.
type scratch struct {
	keys []uint64 // one hashed key per feature occurrence
	// table and counts are an open-addressing count of keys: a slot holds
	// a distinct key and how often it occurs (0: the slot is empty).
	table  []uint64
	counts []uint32
	buf    []byte // the current run, with word markers for non-CJK runs
	offs   []int  // byte offsets of rune starts in buf, plus len(buf)
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// maxPooledFeatures keeps one huge text from pinning a huge buffer in the
// pool for the life of the process.
const maxPooledFeatures = 1 << 16

func (sc *scratch) release() {
	if cap(sc.keys) > maxPooledFeatures {
		return
	}
	scratchPool.Put(sc)
}

// count tallies keys into sc.table and sc.counts, which it sizes to a power
// of two at least twice len(keys) and clears. Slots are probed linearly
// from the key's low bits above the weight flag; keys are already mixed
// hashes, so no further hashing is needed. The slots' order, and so the
// order Vector adds features in, depends on the text alone.
func (sc *scratch) count(keys []uint64) {
	size := 16
	for size < 2*len(keys) {
		size <<= 1
	}
	if cap(sc.table) < size {
		sc.table, sc.counts = make([]uint64, size), make([]uint32, size)
	}
	sc.table, sc.counts = sc.table[:size], sc.counts[:size]
	clear(sc.counts)
	mask := uint64(size - 1)
	for _, k := range keys {
		i := (k >> 1) & mask
		for sc.counts[i] != 0 && sc.table[i] != k {
			i = (i + 1) & mask
		}
		sc.table[i] = k
		sc.counts[i]++
	}
}

// features splits the normalised text s into runs and returns the key of
// every feature occurrence. The result aliases sc.keys.
func (sc *scratch) features(s string) []uint64 {
	sc.keys = sc.keys[:0]
	start, kind := 0, runNone
	for i, r := range s {
		k := runKind(r)
		if k == runMark && kind == runWord {
			continue // a combining mark belongs to the word it follows
		}
		if k != kind {
			sc.addRun(s[start:i], kind)
			start, kind = i, k
		}
	}
	sc.addRun(s[start:], kind)
	return sc.keys
}

// Kinds of runs.
const (
	runNone = iota // spaces, punctuation, symbols: separators
	runWord        // letters and digits of scripts that separate words
	runCJK         // Han, kana and Hangul
	runMark        // a combining mark
)

// runKind classifies r for splitting text into runs.
func runKind(r rune) int {
	switch {
	case r < utf8.RuneSelf:
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r >= 'A' && r <= 'Z' {
			return runWord
		}
		return runNone
	case unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r),
		r == 'ー' || r == '々' || r == '〆': // in-word marks of no script of their own
		return runCJK
	case unicode.IsLetter(r) || unicode.IsDigit(r):
		return runWord
	case unicode.Is(unicode.Mn, r):
		return runMark
	}
	return runNone
}

// addRun appends the features of one run.
func (sc *scratch) addRun(run string, kind int) {
	switch kind {
	case runWord:
		sc.keys = append(sc.keys, featureKey(classWord, run, false))
		sc.buf = append(append(append(sc.buf[:0], '<'), run...), '>')
		sc.grams(3, 5)
	case runCJK:
		sc.keys = append(sc.keys, featureKey(classWord, run, false))
		sc.buf = append(sc.buf[:0], run...)
		sc.grams(1, 3)
	}
}

// grams appends the lo- to hi-rune n-grams of sc.buf.
func (sc *scratch) grams(lo, hi int) {
	sc.offs = sc.offs[:0]
	for i := range string(sc.buf) {
		sc.offs = append(sc.offs, i)
	}
	sc.offs = append(sc.offs, len(sc.buf))
	runes := len(sc.offs) - 1
	for n := lo; n <= hi && n <= runes; n++ {
		light := n == 1 // only CJK runs have unigrams
		for i := 0; i+n <= runes; i++ {
			sc.keys = append(sc.keys, featureKey(classGram, sc.buf[sc.offs[i]:sc.offs[i+n]], light))
		}
	}
}

// addProbes adds w to the two buckets of key, with their signs. The probes
// take their bits from disjoint parts of the key (bit 0 is the weight flag):
// 30 for the bucket and one for the sign each. The second probe skips the
// first's bucket, where an opposite sign would cancel the feature outright.
func addProbes(vec []float32, key uint64, w float32) {
	dim := uint64(len(vec))
	p1, p2 := key>>1, key>>32
	b1 := (p1 & (1<<30 - 1)) % dim
	b2 := (p2 & (1<<30 - 1)) % dim
	if b2 == b1 {
		b2 = (b2 + 1) % dim
	}
	vec[b1] += signed(w, p1&(1<<30) != 0)
	vec[b2] += signed(w, p2&(1<<30) != 0)
}

func signed(w float32, neg bool) float32 {
	if neg {
		return -w
	}
	return w
}

// featureKey hashes a feature into its key. Bit 0 of the key flags a light
// (CJK unigram) feature, so that keys alone can be sorted and counted and
// still carry their weight.
func featureKey[T string | []byte](class byte, s T, light bool) uint64 {
	k := hashFeature(class, s) &^ 1
	if light {
		k |= 1
	}
	return k
}

// keyWeight is the weight of one occurrence of the feature with key k.
func keyWeight(k uint64) float64 {
	if k&1 != 0 {
		return weightCJKUnigram
	}
	return weightFeature
}

// FNV-1a, 64-bit.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// hashFeature is FNV-1a over the class byte and the feature, followed by a
// 64-bit finaliser: FNV's bits mix poorly for short inputs, and the two
// probes' buckets and signs are taken from different bits, which must be
// independent of each other.
func hashFeature[T string | []byte](class byte, s T) uint64 {
	h := uint64(fnvOffset)
	h ^= uint64(class)
	h *= fnvPrime
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime
	}
	// splitmix64 finaliser.
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	h ^= h >> 31
	return h
}
