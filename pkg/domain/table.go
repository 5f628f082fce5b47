package domain

import (
	"hash/maphash"
	"math/bits"
)

// entry is a word's domains packed in 64 bits: up to maxPairs pairs of a
// domain (5 bits) and a weight in hundredths (7 bits) in the low 48 bits,
// heaviest first; in bits 48 to 53 the most words (English) or characters
// (Chinese) of a lexicon entry that starts with this word, when more than
// one; in bits 54 to 57 the word's parts of speech (posNoun ...; all of them
// for a word the data gives none), or for a Chinese character in bits 54 to
// 59 the most characters of a word that ends with it; the number of pairs
// in bits 60 to 62;
// and bit 63 set for every stored entry, so that a known word with no domain
// is told apart from an empty slot.
type entry uint64

const (
	maxPairs   = 4
	pairBits   = 12
	spanShift  = 48
	spanMask   = 63
	posShift   = 54
	countShift = 60
	known      = entry(1) << 63
)

// Parts of speech, as bits of an entry's posShift field.
const (
	posNoun = 1 << iota
	posVerb
	posAdj
	posAdv
	posAll = posNoun | posVerb | posAdj | posAdv
)

func (e entry) pos() int { return int(e>>posShift) & posAll }

// A Chinese entry has no parts of speech; the same bits hold its end span:
// the most characters of a word that ends with this character.
const endShift = posShift

func (e entry) endSpan() int { return int(e>>endShift) & spanMask }

func (e entry) withEndSpan(n int) entry {
	n = min(n, spanMask)
	if n <= e.endSpan() {
		return e
	}
	return e&^(spanMask<<endShift) | entry(n)<<endShift | known
}

func (e entry) withPOS(p int) entry {
	return e&^(posAll<<posShift) | entry(p)<<posShift
}

func (e entry) n() int { return int(e>>countShift) & 7 }

func (e entry) pair(i int) (Domain, float32) {
	p := uint64(e>>(i*pairBits)) & (1<<pairBits - 1)
	return Domain(p & 31), float32(p>>5) / 100
}

// span is the most words (or characters) of an entry that starts with this
// one; 0 when none is longer than the word itself.
func (e entry) span() int { return int(e>>spanShift) & spanMask }

func (e entry) withSpan(n int) entry {
	n = min(n, spanMask)
	if n <= e.span() {
		return e
	}
	return e&^(spanMask<<spanShift) | entry(n)<<spanShift | known
}

// addTo adds e's weights, scaled, to v.
func (e entry) addTo(v *Vector, scale float32) {
	for i := range e.n() {
		d, w := e.pair(i)
		v[d] += w * scale
	}
}

// pack makes an entry of weights in hundredths (1 to 100) by domain; the
// heaviest maxPairs are kept.
func pack(w *[Count]uint8) entry {
	e := known
	n := 0
	for n < maxPairs {
		best, bw := -1, uint8(0)
		for d, x := range w {
			if x > bw {
				best, bw = d, x
			}
		}
		if best < 0 {
			break
		}
		e |= entry(uint64(best)|uint64(min(bw, 100))<<5) << (n * pairBits)
		w[best] = 0
		n++
	}
	return e | entry(n)<<countShift
}

func packVector(v Vector) entry {
	var w [Count]uint8
	for d, x := range v {
		if x > 0 {
			w[d] = uint8(min(x, 1)*100 + 0.5)
		}
	}
	return pack(&w)
}

// merge is the weight per domain of the heavier of e and o.
func merge(e, o entry) entry {
	if e.n() == 0 {
		return o
	}
	if o.n() == 0 {
		return e
	}
	var w [Count]uint8
	for _, x := range []entry{e, o} {
		for i := range x.n() {
			d, f := x.pair(i)
			w[d] = max(w[d], uint8(f*100+0.5))
		}
	}
	return pack(&w)
}

// table is an open-addressing hash table of words to entries. Its keys are
// slices of one string and its slots hold no pointer, so that the garbage
// collector neither scans it nor a string per word.
type table struct {
	keys  string
	slots []slot
	seed  maphash.Seed
}

type slot struct {
	e   entry // 0: empty
	off uint32
	n   uint32
}

// tableLoad is the fill, in hundredths, of a built table.
const tableLoad = 70

// buildTable makes a table of keys (slices of blob, which it keeps) and
// their entries.
func buildTable(blob string, spans [][2]uint32, entries []entry) *table {
	t := &table{keys: blob, seed: maphash.MakeSeed()}
	t.slots = make([]slot, len(spans)*100/tableLoad+1)
	for i, s := range spans {
		t.put(s[0], s[1], entries[i])
	}
	return t
}

func (t *table) index(h uint64) int {
	hi, _ := bits.Mul64(h, uint64(len(t.slots)))
	return int(hi)
}

// put stores an entry; a key stored twice keeps the later entry.
func (t *table) put(off, n uint32, e entry) {
	key := t.keys[off : off+n]
	for i := t.index(maphash.String(t.seed, key)); ; i++ {
		if i == len(t.slots) {
			i = 0
		}
		s := &t.slots[i]
		if s.e == 0 || t.keys[s.off:s.off+s.n] == key {
			*s = slot{e, off, n}
			return
		}
	}
}

// get finds a key given as bytes.
func (t *table) get(key []byte) (entry, bool) {
	if len(t.slots) == 0 {
		return 0, false
	}
	for i := t.index(maphash.Bytes(t.seed, key)); ; i++ {
		if i == len(t.slots) {
			i = 0
		}
		s := &t.slots[i]
		if s.e == 0 {
			return 0, false
		}
		if int(s.n) == len(key) && t.keys[s.off:s.off+s.n] == string(key) {
			return s.e, true
		}
	}
}

// getString finds a key given as a string.
func (t *table) getString(key string) (entry, bool) {
	if len(t.slots) == 0 {
		return 0, false
	}
	for i := t.index(maphash.String(t.seed, key)); ; i++ {
		if i == len(t.slots) {
			i = 0
		}
		s := &t.slots[i]
		if s.e == 0 {
			return 0, false
		}
		if int(s.n) == len(key) && t.keys[s.off:s.off+s.n] == key {
			return s.e, true
		}
	}
}

func (t *table) len() int {
	n := 0
	for _, s := range t.slots {
		if s.e != 0 {
			n++
		}
	}
	return n
}

// size is the memory the table holds, in bytes.
func (t *table) size() int { return len(t.keys) + len(t.slots)*16 }
