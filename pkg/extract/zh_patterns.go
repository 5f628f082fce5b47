package extract

import (
	"strings"
	"unicode/utf8"
)

// anchored applies the context patterns at every word boundary.
func (st *state) anchored() {
	for ti, t := range st.toks {
		if ti > 0 {
			st.afterAnchors(t.start)
		}
		st.beforeAnchors(t.start)
	}
}

// afterAnchors handles patterns where X ends at b: X这首歌, X唱的, X吗.
func (st *state) afterAnchors(b int) {
	if a, ok := st.startsWith(b, &st.zh.typedAfter); ok {
		st.rule = "typedAfter"
		switch a.kind {
		case KindPerson:
			if s := st.personEndingAt(b, false); s >= 0 {
				st.add(s, b, st.personKind(s, b), scoreStrong)
				return
			}
			// Foreign names the grammar does not cover (多布杰这个人).
			s, _, _ := st.introStart(b, &st.zh.introBefore)
			if s < b && st.validX(s, b) && runeCount(st.text[s:b]) <= 6 && st.titleLike(s, b, true) {
				st.add(s, b, st.personKind(s, b), scoreStrong)
			}
		case KindTopic:
			s, _, _ := st.introStart(b, &st.zh.introBefore)
			if st.validX(s, b) && runeCount(st.text[s:b]) <= 12 {
				st.add(s, b, KindTopic, scoreStrong)
			}
		default:
			s, _, found := st.introStart(b, &st.zh.introBefore)
			if st.validX(s, b) && st.titleLike(s, b, !found) {
				st.add(s, b, a.kind, scoreStrong)
			}
		}
		return
	}
	if _, ok := st.startsWith(b, &st.zh.personAfter); ok {
		st.rule = "personAfter"
		if s := st.personEndingAt(b, false); s >= 0 {
			st.add(s, b, st.personKind(s, b), scoreAnchor)
		}
	} else if _, ok := st.startsWith(b, &st.zh.personAfterWeak); ok {
		st.rule = "personAfterWeak"
		if s := st.personEndingAt(b, true); s >= 0 && !st.shortNameWord(s, b) {
			st.add(s, b, st.personKind(s, b), scoreWeak)
		}
	}
	if _, ok := st.startsWith(b, &st.zh.questionAfter); ok {
		st.rule = "question"
		s, intro, found := st.introStart(b, &st.zh.questionBefore)
		if !found || !st.validX(s, b) {
			return
		}
		if st.personSpanAt(s, b, true) && !st.shortNameWord(s, b) {
			st.add(s, b, st.personKind(s, b), scoreWeak)
			return
		}
		if st.titleLike(s, b, true) {
			kind := st.titleKind(s, b)
			switch intro.word {
			case "看过":
				kind = KindFilm
			case "听过":
				kind = KindMusic
			case "读过":
				kind = KindBookTitle
			}
			st.add(s, b, kind, scoreWeak)
		}
	}
}

// beforeAnchors handles patterns where X starts at b: 主演是X, 代表作X.
func (st *state) beforeAnchors(b int) {
	if _, ok := st.endsWith(b, &st.zh.personBefore); ok {
		st.rule = "personBefore"
		if e := st.personStartingAt(b, false); e >= 0 {
			st.add(b, e, st.personKind(b, e), scoreAnchor)
		}
	} else if _, ok := st.endsWith(b, &st.zh.personBeforeWeak); ok {
		st.rule = "personBeforeWeak"
		if e := st.personStartingAt(b, true); e >= 0 && !st.shortNameWord(b, e) {
			st.add(b, e, st.personKind(b, e), scoreWeak)
		}
	}
	if a, ok := st.endsWith(b, &st.zh.workBefore); ok {
		st.rule = "workBefore"
		if e, ok := st.spanAfterAnchor(b); ok {
			kind := a.kind
			if kind == "" {
				kind = st.titleKind(b, e)
			}
			st.add(b, e, kind, scoreAnchor)
		}
	} else if _, ok := st.endsWith(b, &st.zh.nameBefore); ok {
		st.rule = "nameBefore"
		if e := st.personStartingAt(b, false); e >= 0 && st.closed(e) {
			st.add(b, e, st.personKind(b, e), scoreAnchor)
		} else if e, ok := st.spanAfterAnchor(b); ok {
			st.add(b, e, st.titleKind(b, e), scoreAnchor)
		}
	}
}

// spanAfterAnchor returns the end of a title that starts at b right after
// an anchor and runs to the end of its clause or to a tail word. It fails
// when the span does not look like a title or holds another anchor, which
// then yields the tighter span itself (那部经典代表作|泰坦尼克号).
func (st *state) spanAfterAnchor(b int) (int, bool) {
	e := st.trimTail(b, st.clauseEnd(b))
	if e <= b || !st.bound[e] || !st.validX(b, e) || !st.titleLike(b, e, true) || !st.closed(e) {
		return 0, false
	}
	for i := b + 1; i < e; i++ {
		if !st.bound[i] {
			continue
		}
		if _, ok := st.endsWith(i, &st.zh.workBefore); ok {
			return 0, false
		}
		if _, ok := st.endsWith(i, &st.zh.nameBefore); ok {
			return 0, false
		}
	}
	return e, true
}

// closed reports whether a span ending at e is followed by the end of a
// clause or by a word that ends a mention (吗, 也, 你知道).
func (st *state) closed(e int) bool {
	if e >= len(st.text) || isBreak(st.text, e) {
		return true
	}
	_, ok := st.startsWith(e, &st.zh.tailWords)
	return ok
}

// introStart finds the closest intro anchor from list before b within the
// clause and returns where X starts after it; without one, X starts at the
// clause start after filler words.
func (st *state) introStart(b int, list *anchorSet) (int, anchor, bool) {
	cs := st.clauseStart(b)
	for i := b; i >= cs; {
		if i < b && st.bound[i] {
			if a, ok := st.endsWith(i, list); ok {
				return i, a, true
			}
		}
		if i == cs {
			break
		}
		_, size := utf8.DecodeLastRuneInString(st.text[:i])
		i -= size
	}
	return st.skipFiller(cs, b), anchor{}, false
}

// skipFiller skips pronouns and adverbs at the start of a clause (你也, 我还).
func (st *state) skipFiller(s, b int) int {
	for s < b {
		r, size := utf8.DecodeRuneInString(st.text[s:])
		if !st.zh.fillerRunes[r] || !st.bound[s+size] {
			break
		}
		s += size
	}
	return s
}

// trimTail cuts text[s:e] before the first tail word or list separator.
func (st *state) trimTail(s, e int) int {
	e = st.trimListTail(s, e)
	for i := s; i < e; {
		_, size := utf8.DecodeRuneInString(st.text[i:])
		if i > s && st.bound[i] {
			if _, ok := st.startsWith(i, &st.zh.tailWords); ok {
				return i
			}
		}
		i += size
	}
	return e
}

// trimListTail shortens text[s:e] to its first item when it is a list
// (X和Y, X等) so that the other items are found as siblings.
func (st *state) trimListTail(s, e int) int {
	for i := s; i < e; {
		r, size := utf8.DecodeRuneInString(st.text[i:])
		if i > s && st.bound[i] && (r == '和' || r == '与' || r == '及' || r == '等') && st.bound[i+size] {
			return i
		}
		i += size
	}
	return e
}

// validX rejects spans that are empty, cross a clause break, start or end
// with grammar, ask a question or are generic nouns.
func (st *state) validX(s, e int) bool {
	if s < 0 || e <= s || e > len(st.text) || !st.bound[s] || !st.bound[e] {
		return false
	}
	x := st.text[s:e]
	if n := runeCount(x); n > 20 || st.zh.genericWords[x] {
		return false
	}
	first, _ := utf8.DecodeRuneInString(x)
	last, _ := utf8.DecodeLastRuneInString(x)
	if st.zh.functionRunes[first] || st.zh.endRunes[last] {
		return false
	}
	for i := range x {
		if isBreak(x, i) && !(x[i] == '.' && i+1 < len(x)) {
			return false
		}
	}
	for _, q := range st.zh.questionWords {
		if strings.Contains(x, q) {
			return false
		}
	}
	return true
}

// titleLike reports whether text[s:e] can be the title of a work. Every
// title must not be an award or a description ending in a category noun;
// a strict check, used when no typed anchor vouches for the span, also
// rejects grammar words, digits other than a sequel number, and spans that
// open with a discourse word or an adverb.
func (st *state) titleLike(s, e int, strict bool) bool {
	return st.titleCheck(s, e, strict, false)
}

// titleCheck is titleLike with a list mode for siblings of a known title,
// where a single dictionary word is accepted (终结者 next to 泰坦尼克号).
func (st *state) titleCheck(s, e int, strict, listItem bool) bool {
	x := st.text[s:e]
	n := runeCount(x)
	if n == 0 || n > 15 {
		return false
	}
	for _, w := range st.zh.awardWords {
		if strings.Contains(x, w) {
			return false
		}
	}
	// A long span ending in a category noun is a description (2013年上映的
	// 一部影片); without an anchor, any span ending in one is.
	if (strict || n > 6) && hasSuffixAny(x, st.zh.categoryEnds) {
		return false
	}
	ti := st.tokenStarting(s)
	if ti < 0 {
		return false
	}
	single := st.tokenEnding(e) == ti
	if !strict {
		// Even next to a typed anchor, a lone grammar word is not a
		// title (凭借|这个电影, 知道些|这个专辑).
		if single {
			switch st.toks[ti].pos {
			case "p", "c", "d", "r", "u", "uj", "ul", "y", "v", "vn", "ad", "m", "q", "f":
				return false
			}
		}
		return n >= 2 || st.hasLatin(s, e)
	}
	if n < 2 {
		return false
	}
	digits := 0
	for i, r := range x {
		switch {
		case r >= '0' && r <= '9':
			digits++
			if i < len(x)-2 {
				return false
			}
		case st.zh.functionRunes[r] || st.zh.endRunes[r] || r == '个' || r == '年' || r == '月':
			return false
		}
	}
	if digits == n {
		return false
	}
	if st.zh.discourseWords[st.word(ti)] {
		return false
	}
	if w := st.word(ti); runeCount(w) > 1 {
		switch st.toks[ti].pos {
		case "d", "p", "c", "r", "m", "q", "mq", "t", "f", "ad", "y", "e", "o", "u", "uj", "ul":
			return false
		}
	}
	if single && !st.hasLatin(s, e) && !listItem {
		// A single dictionary word is a title only if the dictionary
		// calls it a proper noun or does not know it.
		switch st.toks[ti].pos {
		case "nz", "nr", "nrt", "nrfg", "x", "":
		default:
			return false
		}
	}
	return true
}

// expandLists adds the siblings of accepted entities in lists such as
// 周润发、张国荣、钟楚红 or 周润发和张国荣: a sibling that passes the same
// checks gets the kind of the entity next to it.
func (st *state) expandLists(acc []cand) []cand {
	if st.bound == nil {
		return acc
	}
	taken := func(s, e int) bool {
		for _, a := range acc {
			if s < a.end && a.start < e {
				return true
			}
		}
		return false
	}
	for i := 0; i < len(acc); i++ {
		c := acc[i]
		if !c.kind.IsEntity() || c.score == scoreBracket {
			continue
		}
		person := c.kind.maybePerson()
		if s, ok := st.listSep(c.end, true, person); ok {
			e := -1
			if person {
				e = st.personStartingAt(s, false)
			} else {
				e = st.trimTail(s, st.clauseEnd(s))
				if !st.titleCheck(s, e, true, true) || !st.closed(e) {
					e = -1
				}
			}
			if e > s && !taken(s, e) && st.validX(s, e) {
				acc = append(acc, cand{start: s, end: e, kind: c.kind, score: scoreList, rule: "list:" + c.rule})
			}
		}
		if e, ok := st.listSep(c.start, false, person); ok {
			s := -1
			if person {
				s = st.personEndingAt(e, false)
			} else {
				s, _, _ = st.introStart(e, &st.zh.introBefore)
				if !st.titleCheck(s, e, true, true) {
					s = -1
				}
			}
			if s >= 0 && s < e && !taken(s, e) && st.validX(s, e) {
				acc = append(acc, cand{start: s, end: e, kind: c.kind, score: scoreList, rule: "list:" + c.rule})
			}
		}
	}
	return acc
}

// listSep checks for a list separator after (forward) or before byte i and
// returns the offset on its far side. Commas separate list items only
// between names: after a title they usually start a new clause.
func (st *state) listSep(i int, forward, person bool) (int, bool) {
	text := st.text
	for _, sep := range []string{"、", "和", "与", "及", "以及", "，", ","} {
		if (sep == "，" || sep == ",") && !person {
			continue
		}
		if forward {
			if strings.HasPrefix(text[i:], sep) && st.bound[i+len(sep)] {
				j := i + len(sep)
				for j < len(text) && text[j] == ' ' {
					j++
				}
				return j, true
			}
		} else if i >= len(sep) && strings.HasSuffix(text[:i], sep) && st.bound[i-len(sep)] {
			return i - len(sep), true
		}
	}
	if !forward && i > 0 && text[i-1] == ' ' {
		j := i
		for j > 0 && text[j-1] == ' ' {
			j--
		}
		if j < i && j > 0 && st.bound[j] {
			return st.listSep(j, false, person)
		}
	}
	return 0, false
}
