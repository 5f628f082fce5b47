package domain

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode/utf8"
)

// The generated lexicons (tools/gendomains; SOURCES.md).
var (
	//go:embed en.tsv.gz
	enData []byte
	//go:embed zh.tsv.gz
	zhData []byte
)

// Vector is a text's weight per domain: the sum of its words' weights, each
// word's between 0 and 1.
type Vector [Count]float32

// Set is the domains of v whose weight is at least min (and above zero).
func (v Vector) Set(min float32) Set {
	var s Set
	for d, x := range v {
		if x >= min && x > 0 {
			s = s.With(Domain(d))
		}
	}
	return s
}

// Top is v's heaviest domain and its weight (false when v is zero).
func (v Vector) Top() (Domain, float32, bool) {
	best, w := Domain(0), float32(0)
	for d, x := range v {
		if x > w {
			best, w = Domain(d), x
		}
	}
	return best, w, w > 0
}

// Lexicon maps words to their domains. The package's functions use the
// embedded one (Default); tools and tests may build their own (NewLexicon).
// It is safe for concurrent use.
type Lexicon struct {
	en, zh *table
}

// NewLexicon builds a lexicon from English words and phrases (lower-case,
// words separated by single spaces; "word#v" for a word's weights as a verb)
// and Chinese words, each with its weight per domain (0 to 1). A word with
// no weight is known to have no domain.
func NewLexicon(en, zh map[string]Vector) *Lexicon {
	var be, bz builder
	for w, v := range en {
		be.add(w, packVector(v).withPOS(posAll))
	}
	for w, v := range zh {
		bz.add(w, packVector(v))
	}
	return &Lexicon{en: be.table(enSpan, posAll), zh: bz.zhTable()}
}

// Size is the number of English and Chinese words the lexicon holds,
// known words without a domain included.
func (l *Lexicon) Size() (en, zh int) { return l.en.len(), l.zh.len() }

// Bytes is the memory the lexicon holds.
func (l *Lexicon) Bytes() int { return l.en.size() + l.zh.size() }

// Word is the weight per domain the lexicon gives one English word or
// phrase, or one Chinese word, as the text scorer finds it (lower-cased,
// inflections and compounds resolved).
func (l *Lexicon) Word(w string) Vector {
	var v Vector
	if e, ok := l.zh.getString(w); ok {
		e.addTo(&v, 1)
		return v
	}
	b := bufPool.Get().(*buffer)
	defer bufPool.Put(b)
	b.reset()
	b.add(w)
	if e, ok := l.lookupEN(b, b.text); ok {
		e.addTo(&v, 1)
	}
	return v
}

var (
	loadOnce sync.Once
	loaded   *Lexicon
	loadErr  error
)

// Default returns the embedded lexicon, loading it on the first call. The
// embedded data is generated and tested with the package, so it does not
// fail to load; if it did, Default panics.
func Default() *Lexicon {
	loadOnce.Do(func() {
		loaded, loadErr = Load()
	})
	if loadErr != nil {
		panic(loadErr)
	}
	return loaded
}

// Load reads the embedded lexicons into a new Lexicon. Default does it once
// per process; Load is for measuring it.
func Load() (*Lexicon, error) { return ReadLexicon(enData, zhData) }

// ReadLexicon reads English and Chinese lexicons in the format
// tools/gendomains writes (gzip-compressed; see readData); either may be
// nil, an empty lexicon. The generator scores CC-CEDICT's glosses with the
// English lexicon read this way, as the package reads it.
func ReadLexicon(en, zh []byte) (*Lexicon, error) {
	l := &Lexicon{en: &table{}, zh: &table{}}
	var err error
	if en != nil {
		if l.en, err = readData(en, false); err != nil {
			return nil, fmt.Errorf("domain: English lexicon: %w", err)
		}
	}
	if zh != nil {
		if l.zh, err = readData(zh, true); err != nil {
			return nil, fmt.Errorf("domain: Chinese lexicon: %w", err)
		}
	}
	return l, nil
}

// enSpan is the first word of an English phrase and its number of words.
func enSpan(key string) (string, int) {
	first, _, ok := strings.Cut(key, " ")
	if !ok {
		return key, 1
	}
	return first, strings.Count(key, " ") + 1
}

// zhSpan is the first character of a Chinese word and its number of
// characters.
func zhSpan(key string) (string, int) {
	_, size := utf8.DecodeRuneInString(key)
	return key[:size], utf8.RuneCountInString(key)
}

// builder collects a table's keys into one string.
type builder struct {
	blob    strings.Builder
	spans   [][2]uint32
	entries []entry
}

func (b *builder) add(key string, e entry) {
	b.spans = append(b.spans, [2]uint32{uint32(b.blob.Len()), uint32(len(key))})
	b.blob.WriteString(key)
	b.entries = append(b.entries, e)
}

func (b *builder) addBytes(key []byte, e entry) {
	b.spans = append(b.spans, [2]uint32{uint32(b.blob.Len()), uint32(len(key))})
	b.blob.Write(key)
	b.entries = append(b.entries, e)
}

// table builds the table. Each word that starts a longer entry records the
// longest one's length (entry.span), a word of its own with no domain where
// the lexicon lacks it, so that the scorer tries no longer match than there
// is.
func (b *builder) table(span func(string) (string, int), pos int) *table {
	blob := b.blob.String()
	longest := map[string]int{}
	for _, s := range b.spans {
		key := blob[s[0] : s[0]+s[1]]
		if first, n := span(key); n > 1 {
			longest[first] = max(longest[first], n)
		}
	}
	index := make(map[string]int, len(longest))
	for i, s := range b.spans {
		if key := blob[s[0] : s[0]+s[1]]; longest[key] > 0 {
			index[key] = i
		}
	}
	// The builder only appends, so blob stays valid as more is written.
	for first, n := range longest {
		if i, ok := index[first]; ok {
			b.entries[i] = b.entries[i].withSpan(n)
			continue
		}
		b.add(first, known.withSpan(n).withPOS(pos))
	}
	return buildTable(b.blob.String(), b.spans, b.entries)
}

// zhTable builds a Chinese table: each character also records the longest
// word that ends with it (entry.endSpan), for the cut from the right.
func (b *builder) zhTable() *table {
	for i := range b.entries {
		b.entries[i] = b.entries[i].withPOS(0)
	}
	blob := b.blob.String()
	longest := map[string]int{}
	for _, s := range b.spans {
		key := blob[s[0] : s[0]+s[1]]
		if n := utf8.RuneCountInString(key); n > 1 {
			_, size := utf8.DecodeLastRuneInString(key)
			last := key[len(key)-size:]
			longest[last] = max(longest[last], n)
		}
	}
	index := make(map[string]int, len(longest))
	for i, s := range b.spans {
		if key := blob[s[0] : s[0]+s[1]]; longest[key] > 0 {
			index[key] = i
		}
	}
	for last, n := range longest {
		if i, ok := index[last]; ok {
			b.entries[i] = b.entries[i].withEndSpan(n)
			continue
		}
		b.add(last, known.withEndSpan(n))
	}
	return b.table(zhSpan, 0)
}

// domainNames finds a domain by its stable name.
var domainNames = func() map[string]Domain {
	m := map[string]Domain{}
	for _, d := range All() {
		m[d.String()] = d
	}
	return m
}()

// readData reads a data file written by tools/gendomains: "#" lines, then
// "word<TAB>parts of speech<TAB>name:percent name:percent" lines (the
// parts of speech as letters n, v, a, r; none, all of them; no domain, a
// known word).
func readData(data []byte, chinese bool) (*table, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return nil, err
	}
	var b builder
	b.blob.Grow(len(raw) / 2)
	n := bytes.Count(raw, []byte{'\n'})
	b.spans = make([][2]uint32, 0, n)
	b.entries = make([]entry, 0, n)
	text := raw
	for len(text) > 0 {
		line := text
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = nil
		}
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		word, tags, pairs := line, []byte(nil), []byte(nil)
		if i := bytes.IndexByte(line, '\t'); i >= 0 {
			word, tags = line[:i], line[i+1:]
			if j := bytes.IndexByte(tags, '\t'); j >= 0 {
				tags, pairs = tags[:j], tags[j+1:]
			}
		}
		pos := 0
		for _, c := range tags {
			switch c {
			case 'n':
				pos |= posNoun
			case 'v':
				pos |= posVerb
			case 'a':
				pos |= posAdj
			case 'r':
				pos |= posAdv
			default:
				return nil, fmt.Errorf("line %q", line)
			}
		}
		if pos == 0 {
			pos = posAll
		}
		var w [Count]uint8
		for len(pairs) > 0 {
			f := pairs
			if i := bytes.IndexByte(pairs, ' '); i >= 0 {
				f, pairs = pairs[:i], pairs[i+1:]
			} else {
				pairs = nil
			}
			colon := bytes.IndexByte(f, ':')
			if colon < 0 {
				return nil, fmt.Errorf("line %q", line)
			}
			d, ok := domainNames[string(f[:colon])]
			pct := 0
			for _, c := range f[colon+1:] {
				if c < '0' || c > '9' {
					ok = false
					break
				}
				pct = pct*10 + int(c-'0')
			}
			if !ok || pct < 1 || pct > 100 {
				return nil, fmt.Errorf("line %q", line)
			}
			w[d] = uint8(pct)
		}
		b.addBytes(word, pack(&w).withPOS(pos))
	}
	if chinese {
		return b.zhTable(), nil
	}
	return b.table(enSpan, posAll), nil
}
