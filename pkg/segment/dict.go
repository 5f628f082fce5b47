package segment

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// slot is one entry of the dictionary's open-addressing hash table: a word,
// or a proper prefix of words that ends where one of their elements ends
// (splitText), which tells a lookup that walks a text element by element that
// a longer word may still follow. It holds no pointer, so the collector never
// looks inside the table.
type slot struct {
	// ref is where the key's bytes are: the source (ref>>refShift, an index
	// into Segmenter.src) and the offset in it.
	ref uint32
	// dist is a word's path cost, gse's log2(total frequency) - log2(its
	// frequency) in float32.
	dist float32
	// tag is the hash's bits that the table index does not use, compared
	// before the key's bytes.
	tag uint16
	// n is the key's length in bytes; 0 marks an empty slot.
	n uint8
	// pos is 1 + the word's tag in Segmenter.tags; 0 for a prefix only.
	pos uint8
}

const (
	refShift  = 30
	refOffset = 1<<refShift - 1
	// maxLoad is the table's fill, in 1/8, past which it doubles while it
	// is built.
	maxLoad = 4
	// finalLoad is the fill, in 1/100, of the table a load ends with: the
	// words and prefixes are rehashed into as many slots as that takes
	// (not a power of two: the index is the hash scaled to the table), so
	// that the table is no larger than its contents need. The lookup walks
	// a text and asks for prefixes most of which are not there, so misses
	// dominate; see docs/benchmarks.md (History) for the fill chosen.
	finalLoad = 50
	// unknownDist is the cost of a character no dictionary word starts
	// with, gse's pseudo-word: a constant, not derived from frequencies.
	unknownDist = 32
)

// errUnsupported is the dictionary text outside what the compact form
// replicates exactly; gse's data has none of it.
var errUnsupported = errors.New("unsupported dictionary line")

// builder holds what loading needs besides the table: the frequencies'
// total in gse's order, the tags' indexes, the keys lower-cased into a
// source of their own, and a buffer for element boundaries.
type builder struct {
	s       *Segmenter
	total   float64
	tagIdx  map[string]uint8
	lowered strings.Builder
	ends    []int
	entries int
}

// load builds the dictionary from gse's dictionary files, in the order gse
// reads them, each line "word frequency tag" as gse's LoadDictStr reads it:
// words of fewer than two characters get frequency 2, words under
// frequency 2 are left out, and of two lines with the same word (after
// lower-casing its ASCII letters) the first wins.
func load(files ...string) (*Segmenter, error) {
	if len(files) > 1<<(32-refShift)-1 {
		return nil, fmt.Errorf("%d dictionary files: %w", len(files), errUnsupported)
	}
	lines := 0
	for _, f := range files {
		lines += strings.Count(f, "\n") + 1
	}
	b := &builder{s: &Segmenter{}, tagIdx: map[string]uint8{}}
	b.s.slots = make([]slot, 1<<bits.Len(uint(2*lines)))
	b.s.src = make([]string, len(files)+1)
	copy(b.s.src, files)
	lowered := len(files)
	// Lines are read across the files as if they were one text, as gse
	// reads their concatenation: a file that does not end in a newline
	// runs into the next one's first line.
	var carry string
	for fi, f := range files {
		for off := 0; off <= len(f); {
			end := strings.IndexByte(f[off:], '\n')
			if end < 0 {
				if fi < len(files)-1 {
					carry += f[off:]
					break
				}
				end = len(f)
			} else {
				end += off
			}
			line, src, base := f[off:end], fi, off
			if carry != "" {
				line, src, base = carry+line, -1, 0
				carry = ""
			}
			if err := b.add(line, src, base); err != nil {
				return nil, err
			}
			off = end + 1
		}
	}
	if b.total == 0 {
		return nil, errors.New("the dictionary has no words")
	}
	logTotal := float32(math.Log2(b.total))
	for i := range b.s.slots {
		if sl := &b.s.slots[i]; sl.pos != 0 {
			sl.dist = logTotal - sl.dist
		}
	}
	// The table the load ends with is made outside the heap (newTable).
	table, offHeap := newTable(max(b.entries*100/finalLoad, b.entries+1))
	b.moveTo(table)
	b.s.offHeap = offHeap
	unknown, err := b.tag("x")
	if err != nil {
		return nil, err
	}
	b.s.unknown = unknown
	if len(b.s.src[lowered]) > refOffset {
		return nil, fmt.Errorf("lower-cased words of %d bytes: %w", len(b.s.src[lowered]), errUnsupported)
	}
	return b.s, nil
}

// add reads one line of source src (-1: a line made of two files' ends),
// which starts at byte base of it.
func (b *builder) add(line string, src, base int) error {
	// gse splits the line at single spaces: the word, its frequency, its
	// tag; more fields are ignored, fewer than two skip the line.
	word, rest, ok := strings.Cut(line, " ")
	if !ok {
		return nil
	}
	freqText, rest, hasTag := strings.Cut(rest, " ")
	tagText, _, _ := strings.Cut(rest, " ")
	text := strings.TrimSpace(word)
	freq, err := strconv.ParseFloat(strings.TrimSpace(freqText), 64)
	if err != nil || freq < 2 {
		return nil
	}
	if utf8.RuneCountInString(text) < 2 {
		freq = 2
	}
	tag := ""
	if hasTag {
		tag = strings.TrimSpace(tagText)
	}
	if text == "" || len(text) > math.MaxUint8 {
		// gse would keep an empty word and match it on a NUL byte, and
		// slot.n holds no longer one.
		return fmt.Errorf("word %q: %w", text, errUnsupported)
	}
	// The key is the word with its ASCII letters lower-cased, as gse
	// stores it (every ASCII letter is part of a run of letters and digits,
	// the only part gse lower-cases). It stays in its file unless a letter
	// changes.
	key := text
	ref := base + len(word) - len(strings.TrimLeftFunc(word, unicode.IsSpace))
	if src < 0 || line[ref-base:ref-base+len(text)] != text || hasUpperASCII(text) {
		if hasUpperASCII(text) {
			key = lowerASCII(text)
		}
		src, ref = len(b.s.src)-1, b.lowered.Len()
		b.lowered.WriteString(key)
		b.s.src[src] = b.lowered.String()
	}
	if ref > refOffset {
		return fmt.Errorf("dictionary file of %d bytes: %w", ref, errUnsupported)
	}
	at := uint32(src)<<refShift | uint32(ref)
	b.ends = splitText(key, b.ends[:0])
	sl := b.insert(key, at)
	if sl.pos != 0 {
		return nil // a word seen before: gse keeps the first
	}
	if sl.pos, err = b.tag(tag); err != nil {
		return err
	}
	// The cost is finished once the total is known (load); gse sums the
	// frequencies in this order.
	sl.dist = float32(math.Log2(freq))
	b.total += freq
	b.s.maxElems = max(b.s.maxElems, len(b.ends))
	for _, e := range b.ends[:len(b.ends)-1] {
		b.insert(key[:e], at)
	}
	return nil
}

// tag is the index of a part-of-speech tag, plus one.
func (b *builder) tag(t string) (uint8, error) {
	if i, ok := b.tagIdx[t]; ok {
		return i, nil
	}
	if len(b.s.tags) == math.MaxUint8 {
		return 0, fmt.Errorf("more than %d part-of-speech tags: %w", math.MaxUint8-1, errUnsupported)
	}
	b.s.tags = append(b.s.tags, t)
	i := uint8(len(b.s.tags))
	b.tagIdx[t] = i
	return i, nil
}

// insert finds key's slot, filling an empty one (a prefix, pos 0) whose
// bytes are at at when the key is new.
func (b *builder) insert(key string, at uint32) *slot {
	h := hashAdd(hashSeed, key)
	if sl := b.s.find(h, key, false); sl != nil {
		return sl
	}
	if (b.entries+1)*8 > len(b.s.slots)*maxLoad {
		b.grow()
	}
	b.entries++
	sl := b.s.empty(h)
	*sl = slot{ref: at, tag: uint16(mix(h)), n: uint8(len(key))}
	return sl
}

// grow doubles the table; gse's data never needs it, as load sizes the
// table from the number of lines.
func (b *builder) grow() { b.resize(2 * len(b.s.slots)) }

// resize moves the entries into a table of n slots (at least one more than
// there are entries, so that a miss ends at an empty slot).
func (b *builder) resize(n int) { b.moveTo(make([]slot, max(n, b.entries+1))) }

// moveTo moves the entries into table, zeroed and with more slots than
// there are entries.
func (b *builder) moveTo(table []slot) {
	old := b.s.slots
	b.s.slots = table
	for _, sl := range old {
		if sl.n != 0 {
			*b.s.empty(hashAdd(hashSeed, b.s.key(&sl))) = sl
		}
	}
}

// home is the first slot a key of mixed hash m is looked for in: m scaled
// to the table's size (the high word of m × size), any size.
func (s *Segmenter) home(m uint64) int {
	hi, _ := bits.Mul64(m, uint64(len(s.slots)))
	return int(hi)
}

// empty is the slot where a key of hash h that the table lacks goes.
func (s *Segmenter) empty(h uint64) *slot {
	m := mix(h)
	for i := s.home(m); ; i++ {
		if i == len(s.slots) {
			i = 0
		}
		if s.slots[i].n == 0 {
			return &s.slots[i]
		}
	}
}

// find is the slot of key, whose hash (hashAdd) is h, or nil. With fold, key
// may hold ASCII capitals, which match the lower-case letters of the table's
// keys.
func (s *Segmenter) find(h uint64, key string, fold bool) *slot {
	m := mix(h)
	tag := uint16(m)
	for i := s.home(m); ; i++ {
		if i == len(s.slots) {
			i = 0
		}
		sl := &s.slots[i]
		if sl.n == 0 {
			return nil
		}
		if sl.tag == tag && int(sl.n) == len(key) && equalKey(s.key(sl), key, fold) {
			return sl
		}
	}
}

// key is the bytes of a slot's key.
func (s *Segmenter) key(sl *slot) string {
	off := int(sl.ref & refOffset)
	return s.src[sl.ref>>refShift][off : off+int(sl.n)]
}

// equalKey reports whether text matches a table key k of the same length,
// its ASCII capitals lower-cased when fold.
func equalKey(k, text string, fold bool) bool {
	if !fold {
		return k == text
	}
	for i := 0; i < len(k); i++ {
		c := text[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != k[i] {
			return false
		}
	}
	return true
}

// hashSeed and hashAdd are FNV-1a over the bytes with ASCII capitals
// lower-cased, so that a key's hash grows with it, one element at a time.
const hashSeed uint64 = 14695981039346656037

func hashAdd(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		h = (h ^ uint64(c)) * 1099511628211
	}
	return h
}

// mix spreads an FNV hash over all its bits: the table index is its top
// bits and the slot's tag its bottom ones.
func mix(h uint64) uint64 {
	h ^= h >> 31
	h *= 0x7fb5d329728ea185
	h ^= h >> 27
	h *= 0x81dadef4bc2dd44d
	return h ^ h>>33
}

// hasUpperASCII reports whether s holds an ASCII capital.
func hasUpperASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			return true
		}
	}
	return false
}

// lowerASCII lower-cases s's ASCII capitals, and nothing else.
func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// splitText appends to dst where each element of text ends, gse's units of
// segmentation (SplitTextToWords): a run of letters and digits of one or two
// bytes each (Latin, Greek, Cyrillic, …) is one element, any other
// character, and any byte that is not UTF-8, is one of its own.
func splitText(text string, dst []int) []int {
	run := false
	for cur := 0; cur < len(text); {
		r, size := utf8.DecodeRuneInString(text[cur:])
		if size <= 2 && (unicode.IsLetter(r) || unicode.IsNumber(r)) {
			run = true
		} else {
			if run && cur != 0 {
				dst = append(dst, cur)
			}
			run = false
			dst = append(dst, cur+size)
		}
		cur += size
	}
	if run {
		dst = append(dst, len(text))
	}
	return dst
}
