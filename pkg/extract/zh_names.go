package extract

import (
	"strings"
	"unicode/utf8"
)

// isDot reports whether r separates the parts of a transliterated name.
func isDot(r rune) bool {
	switch r {
	case '·', '・', '•', '‧', '･', '∙':
		return true
	}
	return false
}

// dotNames finds transliterated foreign names such as 尼克·卡索维茨. Chinese
// text has no spaces, so the first part is cut where the transliteration
// characters stop (导演是|尼克) and the last part likewise (卡索维茨|这个人),
// both at word boundaries of the segmentation. A run between two dots that
// is not itself a name part (泰勒和费雯 in 罗伯特·泰勒和费雯·丽) ends one name
// and starts the next.
func (st *state) dotNames() {
	text := st.text
	st.rule = "dot"
	start := -1 // start of the name being built, or -1
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !isDot(r) {
			i += size
			continue
		}
		left := hanRunStart(text, i)
		part := i + size // the part after this dot
		end := hanRunEnd(text, part)
		if left == i || end == part {
			start = -1
			i = part
			continue
		}
		if start < 0 {
			start = st.nameStart(left, i)
		}
		nextDot := false
		if end < len(text) {
			r2, _ := utf8.DecodeRuneInString(text[end:])
			nextDot = isDot(r2)
		}
		if nextDot && st.innerPart(part, end) {
			i = end // a middle part: the name goes on
			continue
		}
		if stop := st.nameEnd(part, end); start >= 0 && stop > part {
			st.add(start, stop, st.personKind(start, stop), scoreDotName)
		}
		start = -1
		if nextDot {
			// This run ends one name and begins the next.
			start = st.nameStart(part, end)
		}
		i = end
	}
}

// innerPart reports whether text[s:e], a run between two dots, is a whole
// middle part of a name: short and made of transliteration characters.
func (st *state) innerPart(s, e int) bool {
	n := 0
	for _, r := range st.text[s:e] {
		if !st.r.lex.translit[r] {
			return false
		}
		n++
	}
	return n > 0 && n <= maxNamePart
}

// maxNamePart bounds one part of a transliterated name.
const maxNamePart = 8

// nameStart finds where the first part of a transliterated name begins
// inside text[runStart:dot]: the earliest word boundary from which only
// transliteration characters follow, or, failing that, the last word.
// It returns -1 when no part is left.
func (st *state) nameStart(runStart, dot int) int {
	lx := st.r.lex
	best := -1
	n := 0
	for i := dot; i > runStart; {
		r, size := utf8.DecodeLastRuneInString(st.text[:i])
		if !lx.translit[r] || n >= maxNamePart {
			break
		}
		i -= size
		n++
		if st.bound[i] {
			best = i
		}
	}
	if best < 0 {
		// No transliteration run: take the last word if it is short.
		for i := dot; i > runStart; {
			_, size := utf8.DecodeLastRuneInString(st.text[:i])
			i -= size
			if st.bound[i] {
				if runeCount(st.text[i:dot]) <= 3 {
					best = i
				}
				break
			}
		}
	}
	if best < 0 {
		return -1
	}
	// A single grammar character glued in front (和马克, 由威廉) is not part
	// of the name.
	if r, size := utf8.DecodeRuneInString(st.text[best:]); st.zh.leadRunes[r] && runeCount(st.text[best+size:dot]) >= 2 {
		best += size
	}
	return best
}

// nameEnd finds where the last part of a transliterated name ends inside
// text[partStart:runEnd], mirroring nameStart.
func (st *state) nameEnd(partStart, runEnd int) int {
	lx := st.r.lex
	best := -1
	n := 0
	for i := partStart; i < runEnd; {
		r, size := utf8.DecodeRuneInString(st.text[i:])
		if !lx.translit[r] || n >= maxNamePart {
			break
		}
		i += size
		n++
		if st.bound[i] {
			best = i
		}
	}
	if best < 0 {
		for i := partStart; i < runEnd; {
			_, size := utf8.DecodeRuneInString(st.text[i:])
			i += size
			if st.bound[i] {
				if runeCount(st.text[partStart:i]) <= 3 {
					best = i
				}
				break
			}
		}
	}
	return best
}

// personEndingAt returns the start of the longest personal name whose last
// word ends at b, or -1. strict is passed on to personSpan.
func (st *state) personEndingAt(b int, strict bool) int {
	tj := st.tokenEnding(b)
	if tj < 0 {
		return -1
	}
	best := -1
	for a := tj; a >= 0 && tj-a < maxNameWords; a-- {
		if isBreak(st.text, st.toks[a].start) && !st.latinToken(a) {
			break
		}
		if st.personSpan(a, tj, strict) {
			best = st.toks[a].start
		}
	}
	return best
}

// personStartingAt returns the end of the longest personal name whose first
// word starts at b, or -1. strict is passed on to personSpan.
func (st *state) personStartingAt(b int, strict bool) int {
	ti := st.tokenStarting(b)
	if ti < 0 {
		return -1
	}
	best := -1
	for z := ti; z < len(st.toks) && z-ti < maxNameWords; z++ {
		if isBreak(st.text, st.toks[z].start) && !st.latinToken(z) {
			break
		}
		if st.personSpan(ti, z, strict) {
			best = st.toks[z].end
		}
	}
	return best
}

// shortNameWord reports whether text[s:e] is a single two-character word
// of the dictionary, which is too often an ordinary word tagged as a name
// (余生, 明白) to be trusted without a strong anchor.
func (st *state) shortNameWord(s, e int) bool {
	a := st.tokenStarting(s)
	return a >= 0 && st.toks[a].end == e && runeCount(st.text[s:e]) <= 2
}

// personSpanAt reports whether text[s:e] is exactly a personal name.
func (st *state) personSpanAt(s, e int, strict bool) bool {
	a, z := st.tokenStarting(s), st.tokenEnding(e)
	if a < 0 || z < a {
		return false
	}
	if strings.ContainsFunc(st.text[s:e], isDot) {
		return true
	}
	return st.personSpan(a, z, strict)
}

// maxNameWords bounds how many words a name spans; Latin names count their
// spaces as words.
const maxNameWords = 7

// maxPersonRunes bounds a Chinese personal name (欧阳娜娜 has four).
const maxPersonRunes = 4

// personSpan reports whether tokens a..z form a personal name: Latin words,
// a word the dictionary tags as a name, or a family name followed by
// characters that can be a given name (包|小|柏, 常|春晓). strict, for
// contexts that do not vouch for a name, accepts only common family names.
func (st *state) personSpan(a, z int, strict bool) bool {
	s, e := st.toks[a].start, st.toks[z].end
	x := st.text[s:e]
	if st.latinToken(a) {
		for i := a; i <= z; i++ {
			if !st.latinToken(i) {
				return false
			}
		}
		lower := strings.ToLower(x)
		if !st.latinToken(z) || st.text[e-1] == ' ' || !st.hasLatin(s, e) || len(x) > 40 ||
			st.r.lex.enStop[lower] || st.en.generic[lower] {
			return false
		}
		// A short all-capital word is usually an abbreviation (DVD,
		// CCTV) unless the context vouches for a name.
		return !strict || len(x) > 4 || strings.ToUpper(x) != x
	}
	n := runeCount(x)
	if n < 2 || n > maxPersonRunes+1 || st.zh.genericWords[x] || hasSuffixAny(x, st.zh.placeEnds) {
		return false
	}
	lx := st.r.lex
	first := st.word(a)
	if a == z {
		if isNameTag(st.toks[a].pos) {
			return lx.isSurnameStart(x, strict) || !strict && n >= 3
		}
		// The dictionary lists some Japanese names as plain nouns (村上春树).
		rs := []rune(x)
		return !strict && n >= 3 && (lx.jpNames[string(rs[:2])] || lx.surnames2[string(rs[:2])])
	}
	fr := []rune(first)
	switch {
	case len(fr) == 1 && lx.surnames[fr[0]] && !st.zh.functionRunes[fr[0]] && (!strict || lx.common[fr[0]]):
	case len(fr) == 2 && (lx.surnames2[first] || lx.jpNames[first]):
	case len(fr) == 2 && isNameTag(st.toks[a].pos) && lx.isSurnameStart(first, strict):
	default:
		return false
	}
	if len(fr) == 1 && n > 3 {
		// A one-character family name takes a given name of one or two
		// characters; four characters need a two-character family name
		// (欧阳娜娜, 中谷美纪).
		return false
	}
	for i := a + 1; i <= z; i++ {
		w := st.word(i)
		for _, r := range w {
			if !isHan(r) || st.zh.givenBlack[r] {
				return false
			}
		}
		if runeCount(w) > 1 {
			// A given name the dictionary knows as a word is tagged as
			// a name, a time word (春晓) or a rare morpheme, not as an
			// ordinary noun, verb or place (国际, 形容, 北京).
			if st.zh.genericWords[w] || runeCount(w) > 3 {
				return false
			}
			switch st.toks[i].pos {
			case "nr", "nrt", "nrfg", "nz", "t", "ng", "g", "zg", "j", "x", "":
			case "n":
				// Japanese given names are often ordinary words
				// (村上|春树); Chinese ones rarely are.
				if len(fr) != 2 || !lx.jpNames[first] {
					return false
				}
			default:
				return false
			}
		}
	}
	return true
}

// isNameTag reports whether a dictionary tag marks a personal name.
func isNameTag(pos string) bool {
	return pos == "nr" || pos == "nrt" || pos == "nrfg"
}

// nameTags accepts words of three or four characters that the dictionary
// tags as personal names and that begin with a family name, and rebuilds
// names the dictionary does not know from a family name followed by
// single characters (郎|雄, 包|小|柏). Two-character name tags are not
// trusted on their own: the dictionary gives that tag to many ordinary
// words (明白, 龙虾).
func (st *state) nameTags() {
	lx := st.r.lex
	for i, t := range st.toks {
		w := st.word(i)
		n := runeCount(w)
		if isNameTag(t.pos) {
			if n >= 3 && n <= maxPersonRunes && lx.isSurnameStart(w, true) && !hasSuffixAny(w, st.zh.placeEnds) && !st.zh.genericWords[w] {
				st.rule = "nr"
				st.add(t.start, t.end, st.personKind(t.start, t.end), scoreNameTag)
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(w)
		if size != len(w) || !lx.common[r] || st.zh.functionRunes[r] || !st.openLeft(i) {
			continue
		}
		if i > 0 && st.zh.classifierBefore[st.word(i-1)] {
			continue // 那张同名专辑: 张 counts things here
		}
		e := st.personStartingAt(t.start, true)
		if e < 0 || runeCount(st.text[t.start:e]) < 3 {
			continue
		}
		if z := st.tokenEnding(e); z >= 0 && st.openRight(z) {
			st.rule = "assembled"
			st.add(t.start, e, st.personKind(t.start, e), scoreAssembled)
		}
	}
}

// openLeft reports whether token i can begin a word: it follows a clause
// break, a grammar character or a word of several characters, not a single
// content character that might belong to the same unknown word.
func (st *state) openLeft(i int) bool {
	if i == 0 {
		return true
	}
	p := st.toks[i-1]
	if isBreak(st.text, p.start) {
		return true
	}
	r, size := utf8.DecodeRuneInString(st.text[p.start:])
	return size != p.end-p.start || st.zh.functionRunes[r] || !isHan(r)
}

// openRight mirrors openLeft for the end of a word.
func (st *state) openRight(i int) bool {
	if i+1 >= len(st.toks) {
		return true
	}
	nx := st.toks[i+1]
	if isBreak(st.text, nx.start) {
		return true
	}
	r, size := utf8.DecodeRuneInString(st.text[nx.start:])
	return size != nx.end-nx.start || st.zh.functionRunes[r] || st.zh.endRunes[r] || !isHan(r)
}
