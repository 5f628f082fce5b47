package domain

import (
	"bytes"
	"slices"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Threshold is the weight a domain needs in a text for Of to report it:
// about one word that belongs to the domain in most of its senses ("hotel",
// "bake", "飞机"), or two that belong to it in part.
const Threshold = 0.45

// Of returns the domains a text touches (its Scores at Threshold or more),
// by the embedded lexicon.
func Of(text string) Set { return Default().Of(text) }

// Scores returns a text's weight per domain by the embedded lexicon.
func Scores(text string) Vector { return Default().Scores(text) }

// Explain returns the words of a text that have a domain, by the embedded
// lexicon.
func Explain(text string) []Match { return Default().Explain(text) }

// Match is a word or phrase of a text that has a domain, as the lexicon
// found it (lower-cased), and the weights it adds to the text's Scores.
type Match struct {
	Text    string
	Weights Vector
}

// Explain returns the words of a text that have a domain, in order, with
// the weights each adds to its Scores: why a text is about what Of says.
func (l *Lexicon) Explain(text string) []Match {
	var out []Match
	l.scores(text, &out)
	return out
}

// Of returns the domains a text touches: its Scores at Threshold or more.
func (l *Lexicon) Of(text string) Set { return l.Scores(text).Set(Threshold) }

// Scores returns a text's weight per domain: the sum of its words' weights.
// English words are lower-cased and looked up as they are, as phrases of
// several words (the longest first: "air travel", "floor plans"), and by
// their base forms (flights, flying, ate); an unknown word made of two known
// ones counts as both, each at a lesser weight (motorsports). Chinese is cut
// into the words the lexicon knows (scoreZH).
func (l *Lexicon) Scores(text string) Vector { return l.scores(text, nil) }

func (l *Lexicon) scores(text string, explain *[]Match) Vector {
	var v Vector
	b := bufPool.Get().(*buffer)
	b.reset()
	b.explain = explain
	defer func() { b.explain = nil }()
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			// ASCII, the common case, without decoding.
			if isASCIIWord(c) {
				j := i + 1
				for j < len(text) {
					if isASCIIWord(text[j]) {
						j++
						continue
					}
					if (text[j] == '\'' || text[j] == '-') && j+1 < len(text) && startsWord(text[j+1:]) {
						j++
						continue
					}
					if text[j] >= utf8.RuneSelf && startsWord(text[j:]) {
						_, s := utf8.DecodeRuneInString(text[j:])
						j += s
						continue
					}
					break
				}
				b.add(text[i:j])
				i = j
				continue
			}
			if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
				// Punctuation ends a phrase; spaces do not.
				l.flushEN(b, &v)
			}
			i++
			continue
		}
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
			l.flushEN(b, &v)
			l.scoreZH(text[i:j], b, &v)
			i = j
		case isWordRune(r):
			j := i + size
			for j < len(text) {
				r2, s2 := utf8.DecodeRuneInString(text[j:])
				if isWordRune(r2) || r2 == '’' && j+s2 < len(text) && startsWord(text[j+s2:]) {
					j += s2
					continue
				}
				break
			}
			b.add(text[i:j])
			i = j
		default:
			if !unicode.IsSpace(r) {
				l.flushEN(b, &v)
			}
			i += size
		}
	}
	l.flushEN(b, &v)
	bufPool.Put(b)
	return v
}

// buffer is a scorer's working memory, pooled.
type buffer struct {
	// text holds the pending English words lower-cased, separated by
	// single spaces; words are their spans in it.
	text  []byte
	words [][2]int
	// runes are the byte offsets of a Chinese run's characters; fwd and
	// bwd its cuts from the left and from the right.
	runes    []int
	fwd, bwd []piece
	// scratch is where base forms and phrases are built.
	scratch, base []byte
	// explain collects the words that add weights, when not nil
	// (Explain).
	explain *[]Match
}

// found adds a word's weights, scaled, to v, and notes it when explaining.
func (b *buffer) found(v *Vector, word []byte, e entry, scale float32) {
	e.addTo(v, scale)
	if b.explain != nil && e.n() > 0 {
		b.note(string(word), e, scale)
	}
}

// foundString is found for a word given as a string.
func (b *buffer) foundString(v *Vector, word string, e entry, scale float32) {
	e.addTo(v, scale)
	if b.explain != nil && e.n() > 0 {
		b.note(word, e, scale)
	}
}

func (b *buffer) note(word string, e entry, scale float32) {
	var w Vector
	e.addTo(&w, scale)
	*b.explain = append(*b.explain, Match{Text: word, Weights: w})
}

var bufPool = sync.Pool{New: func() any { return &buffer{} }}

func (b *buffer) reset() {
	b.text = b.text[:0]
	b.words = b.words[:0]
}

// add appends a word, lower-cased, with the typographic apostrophe made
// plain.
func (b *buffer) add(w string) {
	if len(b.words) > 0 {
		b.text = append(b.text, ' ')
	}
	start := len(b.text)
	for i := 0; i < len(w); {
		c := w[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			b.text = append(b.text, c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(w[i:])
		if r == '’' {
			b.text = append(b.text, '\'')
		} else {
			b.text = utf8.AppendRune(b.text, unicode.ToLower(r))
		}
		i += size
	}
	b.words = append(b.words, [2]int{start, len(b.text)})
}

// flushEN scores the pending English words: at each word the longest phrase
// the lexicon knows, else the word alone.
func (l *Lexicon) flushEN(b *buffer, v *Vector) {
	words := b.words
	for i := 0; i < len(words); {
		w := b.text[words[i][0]:words[i][1]]
		e, ok := l.lookupEN(b, w)
		n := 1
		for k := min(e.span(), len(words)-i); k >= 2; k-- {
			if pe, pok := l.phrase(b, words[i:i+k]); pok {
				e, ok, n = pe, true, k
				break
			}
		}
		if ok {
			b.found(v, b.text[words[i][0]:words[i+n-1][1]], e, 1)
		} else {
			l.compound(b, w, v)
		}
		i += n
	}
	b.reset()
}

// phrase looks up consecutive words as one phrase, as written and with the
// last word in a base form ("floor plans"). A phrase known without a domain
// is found too: it is read whole, its words not on their own.
func (l *Lexicon) phrase(b *buffer, ws [][2]int) (entry, bool) {
	start, end := ws[0][0], ws[len(ws)-1][1]
	if e, ok := l.en.get(b.text[start:end]); ok {
		return e, true
	}
	lastStart := ws[len(ws)-1][0]
	for _, rule := range rulesByLast[b.text[end-1]] {
		var ok bool
		b.base, ok = appendBase(b.base[:0], b.text[lastStart:end], rule)
		if !ok {
			continue
		}
		b.scratch = append(append(b.scratch[:0], b.text[start:lastStart]...), b.base...)
		if e, ok := l.en.get(b.scratch); ok && e.pos()&baseRules[rule].pos != 0 {
			return e, true
		}
	}
	return 0, false
}

// lookupEN finds an English word as written, else by its base forms (the
// heavier weight of each domain across them), else as its hyphenated parts.
// A word known with no domain as written (often the first word of phrases,
// "sports car") is still looked up by its base forms; its span is kept.
func (l *Lexicon) lookupEN(b *buffer, w []byte) (entry, bool) {
	exact, ok := l.en.get(w)
	if ok && exact.n() > 0 {
		return exact, true
	}
	span := exact & (spanMask << spanShift)
	if i := bytes.IndexByte(w, '\''); i > 0 {
		// A possessive counts as its word (driver's); a contraction
		// (don't, I'm, we'll) is of function words.
		if string(w[i:]) != "'s" && i != len(w)-1 {
			return exact, ok
		}
		w = w[:i]
		if e, found := l.en.get(w); found && e.n() > 0 {
			return e | span, true
		}
	}
	if e, found := l.lookupBase(b, w); found && e.n() > 0 {
		return e | span, true
	}
	if bytes.IndexByte(w, '-') > 0 {
		// A hyphenated word the lexicon lacks counts as its parts.
		var v Vector
		found := false
		for part := range bytes.SplitSeq(w, []byte{'-'}) {
			if pe, pok := l.lookupBase(b, part); pok {
				pe.addTo(&v, 1)
				found = true
			}
		}
		if found {
			return packVector(v) | span, true
		}
	}
	return exact, ok
}

// lookupBase finds a word as written or by its base forms. A form only a
// verb has (booked, booking) takes the base's weights as a verb where the
// lexicon has them apart ("book#v").
func (l *Lexicon) lookupBase(b *buffer, w []byte) (entry, bool) {
	if e, ok := l.en.get(w); ok && e.n() > 0 {
		return e &^ (spanMask << spanShift), true
	}
	verbal := hasSuffix(w, "ed") || hasSuffix(w, "ing")
	var e entry
	found := false
	if len(w) == 0 {
		return 0, false
	}
	for _, rule := range rulesByLast[w[len(w)-1]] {
		var ok bool
		b.base, ok = appendBase(b.base[:0], w, rule)
		if !ok {
			continue
		}
		be, bok := l.en.get(b.base)
		bok = bok && be.pos()&baseRules[rule].pos != 0
		if verbal {
			b.base = append(b.base, "#v"...)
			if ve, vok := l.en.get(b.base); vok {
				be, bok = ve, true
			}
		}
		if bok {
			e, found = merge(e, be), true
		}
	}
	return e &^ (spanMask << spanShift), found
}

// compound counts an unknown word made of two known ones of minPart letters
// or more ("motorsports", "skincare") as both, each at compoundScale.
func (l *Lexicon) compound(b *buffer, w []byte, v *Vector) {
	const minPart, compoundScale = 4, 0.7
	if len(w) < 2*minPart || bytes.ContainsAny(w, "-'") {
		return
	}
	for i := len(w) - minPart; i >= minPart; i-- {
		left, ok := l.en.get(w[:i])
		if !ok {
			continue
		}
		right, ok := l.lookupBase(b, w[i:])
		if !ok {
			continue
		}
		b.found(v, w[:i], left, compoundScale)
		b.found(v, w[i:], right, compoundScale)
		return
	}
}

// scoreZH cuts a run of Chinese characters into words the lexicon knows
// and adds their weights. The run is cut both ways, the longest word first
// from the left and from the right, and the cut with fewer pieces wins, then
// the one with fewer single characters, then the cut from the right (换工作:
// 换 + 工作, not 换工, to exchange labour, + 作), as maximum matching does
// in both directions.
func (l *Lexicon) scoreZH(run string, b *buffer, v *Vector) {
	b.runes = b.runes[:0]
	for i := range run {
		b.runes = append(b.runes, i)
	}
	b.runes = append(b.runes, len(run))
	n := len(b.runes) - 1
	b.fwd = b.fwd[:0]
	for i := 0; i < n; {
		first, ok := l.zh.getString(run[b.runes[i]:b.runes[i+1]])
		step := 1
		for k := min(first.span(), n-i); k >= 2; k-- {
			if e, found := l.zh.getString(run[b.runes[i]:b.runes[i+k]]); found {
				first, ok, step = e, true, k
				break
			}
		}
		b.fwd = append(b.fwd, piece{i, step, first, ok})
		i += step
	}
	b.bwd = b.bwd[:0]
	for j := n; j > 0; {
		last, ok := l.zh.getString(run[b.runes[j-1]:b.runes[j]])
		step := 1
		for k := min(last.endSpan(), j); k >= 2; k-- {
			if e, found := l.zh.getString(run[b.runes[j-k]:b.runes[j]]); found {
				last, ok, step = e, true, k
				break
			}
		}
		b.bwd = append(b.bwd, piece{j - step, step, last, ok})
		j -= step
	}
	// The cut from the right was made last word first.
	slices.Reverse(b.bwd)
	cut := b.bwd
	if len(b.fwd) < len(b.bwd) || len(b.fwd) == len(b.bwd) && singles(b.fwd) < singles(b.bwd) {
		cut = b.fwd
	}
	for _, p := range cut {
		if p.ok {
			b.foundString(v, run[b.runes[p.at]:b.runes[p.at+p.n]], p.e, 1)
		}
	}
}

// piece is one word of a cut: where it starts, in characters, how many it
// has, and its entry if the lexicon knows it.
type piece struct {
	at, n int
	e     entry
	ok    bool
}

func singles(cut []piece) int {
	n := 0
	for _, p := range cut {
		if p.n == 1 {
			n++
		}
	}
	return n
}

// baseRules are WordNet's detachment rules (morphy): a suffix, what
// replaces it, and the parts of speech the base must have (the noun rules,
// the verb rules, the adjective rules, merged). Irregular forms (ate,
// children) are entries of the lexicon themselves.
var baseRules = [...]struct {
	suffix, repl string
	pos          int
}{
	{"ies", "y", posNoun | posVerb}, {"ses", "s", posNoun}, {"xes", "x", posNoun},
	{"zes", "z", posNoun}, {"ches", "ch", posNoun}, {"shes", "sh", posNoun},
	{"es", "e", posVerb}, {"es", "", posVerb}, {"s", "", posNoun | posVerb},
	{"men", "man", posNoun},
	{"ing", "", posVerb}, {"ing", "e", posVerb}, {"ed", "", posVerb}, {"ed", "e", posVerb},
	{"est", "", posAdj}, {"est", "e", posAdj}, {"er", "", posAdj}, {"er", "e", posAdj},
}

// rulesByLast are the baseRules whose suffix ends with a byte, by that
// byte: most words end with none of them.
var rulesByLast = func() (out [256][]int) {
	for i, r := range baseRules {
		last := r.suffix[len(r.suffix)-1]
		out[last] = append(out[last], i)
	}
	return out
}()

// appendBase appends to dst the base form rule gives w, if it applies.
func appendBase(dst, w []byte, rule int) ([]byte, bool) {
	r := baseRules[rule]
	if len(w) <= len(r.suffix)+1 || !hasSuffix(w, r.suffix) {
		return dst, false
	}
	if r.suffix == "s" && hasSuffix(w, "ss") {
		return dst, false
	}
	return append(append(dst, w[:len(w)-len(r.suffix)]...), r.repl...), true
}

func hasSuffix(w []byte, suffix string) bool {
	return len(w) >= len(suffix) && string(w[len(w)-len(suffix):]) == suffix
}

func isHan(r rune) bool { return r >= 0x2E80 && unicode.Is(unicode.Han, r) }

func isASCIIWord(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return isASCIIWord(byte(r))
	}
	return !isHan(r) && (unicode.IsLetter(r) || unicode.IsDigit(r))
}

func startsWord(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return isWordRune(r)
}
