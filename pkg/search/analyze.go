// Package search is the core of memory search: the analyzer that turns Chinese
// and English text into lexical terms, the builders of the search entries the
// indexer stores (turns, session summaries, interest facts), and the searcher
// that answers a query over one user's history with the store's hybrid
// (lexical + vector) search.
package search

import (
	"hash/maphash"
	"strings"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
	"golang.org/x/text/unicode/norm"

	"github.com/recallhq/recall/pkg/script"
	"github.com/recallhq/recall/pkg/segment"
)

// Analyzer turns text into the terms the lexical index stores and queries
// look up. Indexing and querying must use the same analyzer: a term only
// matches a term made the same way.
//
// Text is NFKC-normalized (full-width letters and digits become ASCII) and
// cut into runs of Han characters and chunks of other letters and digits:
//
//   - a Han run is segmented into words with the shared gse dictionary
//     (segment.Shared). Words of three or more characters also yield their
//     character bigrams, and two or more single-character words in a row
//     that are not function words yield the bigrams across them: the same
//     name is segmented differently in different sentences (科幻小说 as one
//     word in a question, 科幻 + 小说 in the answer) and a name the dictionary
//     does not know comes out as single characters (三体 as 三 + 体); the
//     bigrams are what the spellings share. Single-character function words
//     (pronouns, particles, prepositions, conjunctions, adverbs) are dropped
//     by their part of speech.
//   - an English word is lower-cased, its contraction or possessive ending
//     dropped, and stemmed with the Snowball (Porter 2) English stemmer;
//     Snowball's English stopwords and single letters are dropped.
//   - anything holding a digit is kept as it is written, lower-cased: 2023,
//     823d, gpt4. A chunk joined by - _ . / : @ + & that holds a digit is kept
//     whole as well as in its parts, so an id such as B-1234, a date such as
//     2023-05-01 or a URL path's /book/823D matches when asked for whole or by
//     its parts.
//
// Punctuation and symbols are never terms.
//
// Each choice was measured with BM25 (the store's formula) over real
// conversations, KdConv for Chinese and LoCoMo for English, against its
// alternatives (docs/benchmarks.md, History): keeping or dropping every
// single character, or taking every bigram of a Han run, finds less than
// dropping the function words; the bigrams of long words and single runs
// are what finds a title the dictionary splits; in English, stemming and
// the stopwords each find more.
type Analyzer struct {
	// seg returns the segmenter, loading it on the first call.
	seg func() (*segment.Segmenter, error)
}

// SharedAnalyzer returns an analyzer over the process's shared segmenter,
// which it loads on the first text with a Han character (about a quarter of
// a second of CPU, and some 20 MB held from then on). A process that never
// meets Chinese never holds the dictionary: its memory stays small. (gse's
// own dictionary, which package segment used to load, was millions of
// objects that every garbage collection marked, which under load set the
// API's tail latency: docs/benchmarks.md, History.)
// Should the dictionary fail to load (it is embedded in the binary, so only
// a broken build or memory exhausted), Han runs are indexed and searched as
// character bigrams: coarser, but nothing is lost.
func SharedAnalyzer() *Analyzer {
	return &Analyzer{seg: segment.Shared}
}

// MaxTermBytes bounds a term: longer runs of letters and digits are hashes,
// keys or base64 that no one types into a question, and PostgreSQL caps a
// lexeme at 2047 bytes anyway.
const MaxTermBytes = 64

// maxJoinedBytes bounds a joined chunk (B-1234, 2023-05-01, a URL path) kept
// whole; longer ones are kept only in their parts.
const maxJoinedBytes = 48

// Terms appends the terms of text to dst in order of appearance, repeats
// included: the sequence an index entry is built from (a term's position is
// its index plus one).
func (a *Analyzer) Terms(text string, dst []string) []string {
	if text == "" {
		return dst
	}
	fresh := dst == nil
	if fresh {
		// About a term in eight bytes of English, fewer of Chinese: grown
		// once or not at all, where appending doubled it five or six times
		// for a long turn.
		dst = make([]string, 0, len(text)/8+4)
	}
	if !norm.NFKC.IsNormalString(text) {
		text = norm.NFKC.String(text)
	}
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case isHan(r):
			j := i + size
			for j < len(text) {
				r2, s2 := utf8.DecodeRuneInString(text[j:])
				if !isHan(r2) {
					break
				}
				j += s2
			}
			dst = a.han(text[i:j], dst)
			i = j
		case isWordRune(r):
			j := i + size
			for j < len(text) {
				r2, s2 := utf8.DecodeRuneInString(text[j:])
				if isWordRune(r2) {
					j += s2
					continue
				}
				if isJoiner(r2) && j+s2 < len(text) {
					if r3, _ := utf8.DecodeRuneInString(text[j+s2:]); isWordRune(r3) {
						j += s2
						continue
					}
				}
				break
			}
			dst = a.chunk(text[i:j], dst)
			i = j
		default:
			i += size
		}
	}
	if len(dst) == 0 && fresh {
		return nil // no terms: nothing to index, as before it was sized
	}
	return dst
}

// QueryTerms returns the distinct terms of a query, in order of first
// appearance.
func (a *Analyzer) QueryTerms(text string) []string {
	all := a.Terms(text, nil)
	seen := make(map[string]bool, len(all))
	out := all[:0]
	for _, t := range all {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// han appends the terms of a run of Han characters.
func (a *Analyzer) han(run string, dst []string) []string {
	seg, err := a.seg()
	if err != nil {
		if utf8.RuneCountInString(run) == 1 {
			return append(dst, run)
		}
		return appendBigrams(run, dst)
	}
	var buf [32]segment.Token
	// singles is the start of the current run of single-character content
	// words (-1 outside one), count its length.
	singles, count := -1, 0
	flush := func(end int) {
		if count >= 2 {
			dst = appendBigrams(run[singles:end], dst)
		}
		singles, count = -1, 0
	}
	for _, t := range seg.Tokens(run, buf[:0]) {
		w := run[t.Start:t.End]
		n := utf8.RuneCountInString(w)
		if n == 1 && !isHanFunctionTag(t.Pos) {
			if singles < 0 {
				singles = t.Start
			}
			count++
			dst = append(dst, w)
			continue
		}
		flush(t.Start)
		if n == 1 || len(w) > MaxTermBytes {
			continue
		}
		dst = append(dst, w)
		if n >= 3 {
			dst = appendBigrams(w, dst)
		}
	}
	flush(len(run))
	return dst
}

// isHanFunctionTag reports whether gse's part-of-speech tag marks a function
// word: pronouns (我, 你, 什么), particles (的, 了, 吗, 呢), prepositions
// (在, 对), conjunctions (和, 但), adverbs (也, 都, 不), interjections and
// onomatopoeia. Dropping more (gse's bound morphemes such as 很 and 啊,
// single-character verbs such as 是, measure words) also drops 村, 园, 看 and
// 唱, and measured worse on the topic questions above (docs/benchmarks.md,
// History); frequent characters such as 是 weigh little anyway, as their IDF
// within a user's history is low.
func isHanFunctionTag(pos string) bool {
	if pos == "" {
		return false
	}
	switch pos[0] {
	case 'r', 'u', 'y', 'p', 'c', 'd', 'e', 'o':
		return true
	}
	return false
}

// appendBigrams appends the character bigrams of a Han string.
func appendBigrams(s string, dst []string) []string {
	prev := -1
	for i := range s {
		if prev >= 0 {
			_, size := utf8.DecodeRuneInString(s[i:])
			dst = append(dst, s[prev:i+size])
		}
		prev = i
	}
	return dst
}

// chunk appends the terms of a chunk of letters and digits (with the joiners
// between them).
func (a *Analyzer) chunk(c string, dst []string) []string {
	lower := strings.ToLower(c)
	hasDigit := strings.ContainsAny(lower, "0123456789")
	parts := 0
	start := 0
	emit := func(p string) {
		parts++
		if p == "" {
			return
		}
		if strings.ContainsAny(p, "0123456789") {
			if p = strings.ReplaceAll(strings.ReplaceAll(p, "'", ""), "’", ""); len(p) <= MaxTermBytes {
				dst = append(dst, p)
			}
			return
		}
		dst = a.word(p, dst)
	}
	first := len(dst)
	for i, r := range lower {
		if isJoiner(r) && r != '\'' && r != '’' {
			emit(lower[start:i])
			start = i + utf8.RuneLen(r)
		}
	}
	emit(lower[start:])
	if parts > 1 && hasDigit && len(lower) <= maxJoinedBytes {
		// the whole chunk goes first, where it was written
		dst = append(dst, "")
		copy(dst[first+1:], dst[first:])
		dst[first] = strings.ReplaceAll(strings.ReplaceAll(lower, "'", ""), "’", "")
	}
	return dst
}

// word appends the term of a lower-case word of letters, if it is one.
func (a *Analyzer) word(w string, dst []string) []string {
	w = strings.ReplaceAll(w, "’", "'")
	if i := strings.IndexByte(w, '\''); i >= 0 {
		base, suffix := w[:i], w[i+1:]
		switch {
		case suffix == "t" && strings.HasSuffix(base, "n"):
			switch base {
			case "can":
			case "won":
				base = "will"
			case "shan":
				base = "shall"
			default:
				base = strings.TrimSuffix(base, "n")
			}
			w = base
		case suffix == "s" || suffix == "m" || suffix == "re" || suffix == "ve" || suffix == "ll" || suffix == "d" || suffix == "":
			w = base
		default:
			w = strings.ReplaceAll(w, "'", "")
		}
	}
	if utf8.RuneCountInString(w) < 2 {
		return dst
	}
	if english.IsStopWord(w) {
		return dst
	}
	if full, ok := titles[w]; ok {
		w = full
	}
	if script.ASCII(w) {
		w = stem(w)
	}
	if w == "" || len(w) > MaxTermBytes {
		return dst
	}
	return append(dst, w)
}

// titles are the abbreviated titles people write before a name, each as
// the word it stands for: "my ENT specialist, Dr. Patel" is what a question
// about doctors must find, and "Dr. Patel" is what a question naming her
// may say of a turn that calls her "my doctor". Only titles: an
// abbreviation of anything else ("St.", "Ave.", "appt") can mean more than
// one word, or is rarely written out.
var titles = map[string]string{"dr": "doctor", "prof": "professor"}

// stemCacheWords is the number of slots of the stem cache, a power of two:
// the most used words of a language are a few thousand and make most of
// any text.
const stemCacheWords = 1 << 14

// stemmed is a word and its stem, as a slot of the cache holds them.
type stemmed struct{ word, stem string }

// stems holds the stems of recently stemmed words. Stemming is most of the
// cost of analyzing English (the Snowball stemmer converts each word to
// runes and tries its suffix lists in turn), and the same few thousand
// words recur in every text; a stem is a function of its word alone, so the
// cache is shared by every analyzer of the process. A word has one slot,
// by its hash, and a word stemmed later takes it over: reading is a load
// and a comparison, with no lock and no order of use to keep (an LRU list
// behind a mutex was 4% of a backfill's CPU, under every worker at once).
var (
	stems    [stemCacheWords]atomic.Pointer[stemmed]
	stemSeed = maphash.MakeSeed()
)

// stem returns the Snowball stem of a lower-case ASCII word.
func stem(w string) string {
	slot := &stems[maphash.String(stemSeed, w)&(stemCacheWords-1)]
	if e := slot.Load(); e != nil && e.word == w {
		return e.stem
	}
	// The word may point into a longer text: the cache keeps a copy (and
	// a stem made of it), not the text it came from.
	w = strings.Clone(w)
	s := english.Stem(w, true)
	slot.Store(&stemmed{word: w, stem: s})
	return s
}

func isHan(r rune) bool { return unicode.Is(unicode.Han, r) }

// isWordRune reports whether r belongs in a chunk: a letter or digit that is
// not Han (Han runs are segmented instead).
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
	}
	return (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)) && !isHan(r)
}

// isJoiner reports whether r joins letters and digits on both its sides into
// one chunk: ids (B-1234), versions (v1.2), dates (2023-05-01), paths
// (/book/823D), addresses (a@b.com), contractions (don't).
func isJoiner(r rune) bool {
	switch r {
	case '-', '_', '.', '/', ':', '@', '+', '&', '\'', '’':
		return true
	}
	return false
}
