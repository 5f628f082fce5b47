package extract

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/recallhq/recall/pkg/segment"
)

// RulesOptions configures a Rules extractor. The zero value is ready to use.
type RulesOptions struct {
	// DefaultTitleKind is the kind given to a bracketed or quoted title when
	// no word nearby says whether it is a book, a film or music. It must be
	// a title kind; empty means KindBookTitle, because 《》 is the Chinese
	// book-title mark and books are its most common use.
	DefaultTitleKind Kind
	// SkipChinese turns off Chinese segmentation, so that deployments that
	// only see English text do not load the segmenter's dictionary. Bracket
	// titles, lexicon terms and English rules still run.
	SkipChinese bool
}

// Rules finds interest facts with hand-written rules: bracketed and quoted
// titles, transliterated and Chinese person names, context patterns such as
// "知道X吗" or "books by X", capitalised English phrases, and genres and
// topics from the embedded lexicon. It keeps no state between calls and is
// safe for concurrent use.
type Rules struct {
	titleKind Kind
	lex       *lexicon
	seg       *segment.Segmenter
}

// NewRules validates opts and loads the shared dictionaries. The first call
// in a process pays for loading the Chinese segmenter (about two seconds);
// later calls reuse it.
func NewRules(opts RulesOptions) (*Rules, error) {
	kind := opts.DefaultTitleKind
	if kind == "" {
		kind = KindBookTitle
	}
	if !kind.IsTitle() {
		return nil, fmt.Errorf("extract: DefaultTitleKind %q is not a title kind", opts.DefaultTitleKind)
	}
	lex, err := loadLexicon()
	if err != nil {
		return nil, err
	}
	r := &Rules{titleKind: kind, lex: lex}
	if !opts.SkipChinese {
		if r.seg, err = segment.Shared(); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Confidence levels of candidate spans. When two candidates overlap, the
// more confident one wins; ties go to the longer span.
const (
	scoreBracket   = 100 // 《title》 and friends
	scoreQuote     = 90  // “title” with a cue
	scoreDotName   = 85  // 尼克·卡索维茨
	scoreLexicon   = 75  // genre or topic from the lexicon
	scoreStrong    = 70  // X between two anchors, or before a typed anchor (这首歌)
	scoreAnchor    = 60  // X after a typed anchor (主演是X)
	scoreEnglish   = 60  // English pattern or capitalised phrase
	scoreNameTag   = 55  // person tag from the dictionary
	scoreWeak      = 50  // X in 知道X吗
	scoreList      = 45  // sibling of an accepted entity in a list
	scoreAssembled = 40  // person name rebuilt from single characters
)

// cand is a candidate span of the input text.
type cand struct {
	start, end int // byte offsets into the text
	kind       Kind
	score      int
	display    string // overrides the span text (lexicon display names)
	rule       string // which rule proposed the span, for tests and tuning
}

// state is the scratch space of one Extract call.
type state struct {
	r     *Rules
	text  string
	cands []cand
	toks  []token
	// bound[i] is true when a word starts or ends at byte i of text.
	bound []bool
	zh    *zhWords
	en    *enWords
	// textKind caches the kind whose cues dominate the whole text.
	textKind     Kind
	textKindDone bool
	rule         string // name of the rule currently adding candidates
	accepted     []cand // candidates that became facts, for tests
	// names and directives are what aimed.go found: where the names of
	// the conversation's own people stand, and the sentences aimed at the
	// assistant.
	names      []ownName
	directives []span
}

// Source implements Sourced: facts the rules answer are recorded as "rules".
func (r *Rules) Source() string { return "rules" }

// Extract implements Extractor.
func (r *Rules) Extract(ctx context.Context, in Input) ([]Fact, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	text := in.Text
	if strings.TrimSpace(text) == "" {
		return nil, nil
	}
	return r.newState(text).run(), nil
}

// newState prepares the scratch space for one text.
func (r *Rules) newState(text string) *state {
	return &state{r: r, text: text, zh: r.lex.zh, en: r.lex.en}
}

// run applies every rule and resolves the candidates into facts.
func (st *state) run() []Fact {
	st.titles()
	st.lexiconTerms()
	hasHan, hasLatin := scripts(st.text)
	if hasHan && st.r.seg != nil {
		st.chinese()
	}
	if hasHan {
		st.aimedChinese()
	}
	if hasLatin {
		st.english()
	}
	st.dropAimed()
	return st.resolve()
}

// scripts reports whether text contains Chinese characters and Latin
// letters, so that the more expensive passes run only when useful.
func scripts(text string) (han, latin bool) {
	for _, r := range text {
		if r < utf8.RuneSelf {
			if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
				latin = true
			}
		} else if isHan(r) {
			han = true
		}
		if han && latin {
			return
		}
	}
	return
}

// add records a candidate.
func (st *state) add(start, end int, kind Kind, score int) {
	if start < 0 || end > len(st.text) || start >= end {
		return
	}
	st.cands = append(st.cands, cand{start: start, end: end, kind: kind, score: score, rule: st.rule})
}

// resolve picks non-overlapping candidates, most confident first, and turns
// them into facts in text order.
func (st *state) resolve() []Fact {
	cs := st.cands
	// A lexicon term strictly inside an entity span is part of a name
	// (科幻世界 is a magazine, not the genre); an entity span that is exactly
	// a lexicon term is the term.
	lexSpans := make(map[[2]int]bool)
	for _, c := range cs {
		if c.score == scoreLexicon {
			lexSpans[[2]int{c.start, c.end}] = true
		}
	}
	kept := cs[:0]
	for _, c := range cs {
		if c.score == scoreLexicon {
			inside := false
			for _, o := range cs {
				if o.score != scoreLexicon && o.start <= c.start && o.end >= c.end && o.end-o.start > c.end-c.start {
					inside = true
					break
				}
			}
			if inside {
				continue
			}
		} else if lexSpans[[2]int{c.start, c.end}] {
			continue
		}
		kept = append(kept, c)
	}
	cs = kept
	sort.SliceStable(cs, func(i, j int) bool {
		if cs[i].score != cs[j].score {
			return cs[i].score > cs[j].score
		}
		if li, lj := cs[i].end-cs[i].start, cs[j].end-cs[j].start; li != lj {
			return li > lj
		}
		return cs[i].start < cs[j].start
	})
	var acc []cand
	for _, c := range cs {
		overlap := false
		for _, a := range acc {
			if c.start < a.end && a.start < c.end {
				overlap = true
				break
			}
		}
		if !overlap {
			acc = append(acc, c)
		}
	}
	acc = st.expandLists(acc)
	sort.Slice(acc, func(i, j int) bool { return acc[i].start < acc[j].start })
	st.accepted = acc
	facts := make([]Fact, 0, len(acc))
	for _, c := range acc {
		surface := c.display
		if surface == "" {
			surface = st.text[c.start:c.end]
		}
		if f, ok := newFact(c.kind, surface); ok {
			facts = append(facts, f)
		}
	}
	return Dedupe(facts)
}

// titles finds titles in book-title marks, corner brackets and quotes.
func (st *state) titles() {
	text := st.text
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		closer, ok := titleCloser(r)
		if !ok {
			i += size
			continue
		}
		start := i + size
		end := findCloser(text, start, closer, maxTitleRunes)
		if end < 0 {
			i += size
			continue
		}
		inner := text[start:end]
		after := end + utf8.RuneLen(closer)
		switch {
		case strings.TrimSpace(inner) == "":
		case r == '《' || r == '〈' || r == '『' || r == '﹁':
			st.rule = "bracket"
			st.add(start, end, st.titleKind(start, end), scoreBracket)
		case r == '「' || r == '【':
			// Corner and lenticular brackets also mark quotations,
			// awards and labels; accept a title when it is short and
			// looks like one.
			if runeCount(inner) <= 20 && !strings.ContainsAny(inner, "。！？!?") && st.plausibleTitle(inner) {
				st.rule = "corner"
				st.add(start, end, st.titleKind(start, end), scoreBracket)
			}
		default: // quotes
			// "Finding Freedom." keeps the sentence's full stop inside
			// the quotes in American style; it is not part of the title.
			qend := start + len(strings.TrimRight(inner, ".,!?;:。，！？"))
			if st.quotedTitle(text[start:qend], start, qend) {
				st.rule = "quote"
				st.add(start, qend, st.titleKind(start, qend), scoreQuote)
			}
		}
		i = after
	}
}

// maxTitleRunes bounds how far a closing mark is searched for, so a stray
// opening quote does not swallow a whole message.
const maxTitleRunes = 40

// titleCloser returns the closing mark of an opening title mark or quote.
func titleCloser(open rune) (rune, bool) {
	switch open {
	case '《':
		return '》', true
	case '〈':
		return '〉', true
	case '「':
		return '」', true
	case '『':
		return '』', true
	case '【':
		return '】', true
	case '﹁':
		return '﹂', true
	case '“':
		return '”', true
	case '‘':
		return '’', true
	case '"', '＂':
		return open, true
	}
	return 0, false
}

// findCloser returns the byte offset of closer in text at or after start,
// or -1 when it is missing, further than limit runes, or past a line break.
func findCloser(text string, start int, closer rune, limit int) int {
	n := 0
	for i, r := range text[start:] {
		if r == closer {
			return start + i
		}
		if r == '\n' || n >= limit {
			return -1
		}
		n++
	}
	return -1
}

// quotedTitle decides whether a quoted span is a title rather than speech
// or emphasis: English needs title case or a cue word nearby, Chinese needs
// a cue word right next to the quotes.
func (st *state) quotedTitle(inner string, start, end int) bool {
	inner = strings.TrimSpace(inner)
	n := runeCount(inner)
	if n == 0 || n > 30 || strings.ContainsAny(inner, "。！？；!?;\n") {
		return false
	}
	first, _ := utf8.DecodeRuneInString(inner)
	if isLatinWordRune(first) {
		words := strings.Fields(inner)
		if len(words) > 8 || strings.HasSuffix(inner, ".") || strings.HasSuffix(inner, ",") {
			return false
		}
		if st.nearCue(start, end, 24) != "" {
			return true
		}
		return st.titleCase(words)
	}
	// Chinese quotes mostly mark emphasis or coined terms; a title needs a
	// cue right next to it (听“稻香”, “流浪地球”这部电影).
	return st.plausibleTitle(inner) && st.nearCue(start, end, 3) != ""
}

// plausibleTitle rejects marked spans that name awards, rankings or
// categories rather than works: 【最佳导演】, “年度最畅销专辑奖”, 【美国电影】.
func (st *state) plausibleTitle(s string) bool {
	for _, w := range st.zh.awardWords {
		if strings.Contains(s, w) {
			return false
		}
	}
	if st.zh.genericWords[s] || hasSuffixAny(s, st.zh.categoryEnds) {
		return false
	}
	for _, r := range s {
		if r == '、' || r == '，' || r == ',' {
			return false
		}
	}
	return true
}

// titleCase reports whether words look like an English title: the first
// word and every word that is not a short connector start with a capital.
func (st *state) titleCase(words []string) bool {
	if len(words) == 0 {
		return false
	}
	for i, w := range words {
		r, _ := utf8.DecodeRuneInString(w)
		if unicode.IsUpper(r) || unicode.IsDigit(r) {
			continue
		}
		if i > 0 && st.en.connectors[strings.ToLower(w)] {
			continue
		}
		return false
	}
	if len(words) == 1 && st.r.lex.enStop[strings.ToLower(words[0])] {
		return false
	}
	return true
}

// lexiconTerms finds genres and topics. Matching runs on an ASCII-folded
// copy of the text so that byte offsets stay those of the original.
func (st *state) lexiconTerms() {
	lx := st.r.lex
	folded := foldASCII(st.text)
	var buf [16]acMatch
	matches := lx.matcher.findAll(folded, buf[:0])
	matches = leftmostLongest(matches, func(m acMatch) bool {
		return latinBoundaries(folded, m.start, m.end)
	})
	for _, m := range matches {
		e := lx.entries[lx.patEntry[m.pattern]]
		st.cands = append(st.cands, cand{start: m.start, end: m.end, kind: e.kind, score: scoreLexicon, display: e.display, rule: "lexicon"})
	}
}

// foldASCII lower-cases ASCII letters only, which keeps byte offsets.
func foldASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if c := b[j]; c >= 'A' && c <= 'Z' {
					b[j] = c + 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// latinBoundaries reports whether text[start:end] does not cut a Latin word
// in two: a match that begins or ends with a Latin letter or digit must not
// touch another one.
func latinBoundaries(text string, start, end int) bool {
	if start > 0 {
		first, _ := utf8.DecodeRuneInString(text[start:])
		prev, _ := utf8.DecodeLastRuneInString(text[:start])
		if isLatinWordRune(first) && isLatinWordRune(prev) {
			return false
		}
	}
	if end < len(text) {
		last, _ := utf8.DecodeLastRuneInString(text[:end])
		next, _ := utf8.DecodeRuneInString(text[end:])
		if isLatinWordRune(last) && isLatinWordRune(next) {
			return false
		}
	}
	return true
}
