package extract

import (
	"strings"
	"unicode/utf8"
)

// hanRunStart returns where the run of Chinese characters ending at i
// starts.
func hanRunStart(text string, i int) int {
	for i > 0 {
		r, size := utf8.DecodeLastRuneInString(text[:i])
		if !isHan(r) {
			break
		}
		i -= size
	}
	return i
}

// hanRunEnd returns where the run of Chinese characters starting at i ends.
func hanRunEnd(text string, i int) int {
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !isHan(r) {
			break
		}
		i += size
	}
	return i
}

// endsWith returns the longest anchor of set that ends at byte i of the
// text on a word boundary, or false.
func (st *state) endsWith(i int, set *anchorSet) (anchor, bool) {
	if i == 0 {
		return anchor{}, false
	}
	last, _ := utf8.DecodeLastRuneInString(st.text[:i])
	prefix := st.text[:i]
	for _, a := range set.byLast[last] {
		if strings.HasSuffix(prefix, a.word) && st.bound[i-len(a.word)] {
			return a, true
		}
	}
	return anchor{}, false
}

// startsWith returns the longest anchor of set that starts at byte i of
// the text on a word boundary, or false.
func (st *state) startsWith(i int, set *anchorSet) (anchor, bool) {
	if i >= len(st.text) {
		return anchor{}, false
	}
	first, _ := utf8.DecodeRuneInString(st.text[i:])
	rest := st.text[i:]
	for _, a := range set.byFirst[first] {
		if strings.HasPrefix(rest, a.word) && st.bound[i+len(a.word)] {
			return a, true
		}
	}
	return anchor{}, false
}

// isBreak reports whether the rune at byte i ends a clause. Full stops count
// only when they are not inside a Latin name such as S.H.E.
func isBreak(text string, i int) bool {
	r, size := utf8.DecodeRuneInString(text[i:])
	switch r {
	case '，', '。', '！', '？', '；', '：', '、', ',', '!', '?', ';', ':', '…', '~', '～', '（', '）',
		'(', ')', '“', '”', '"', '「', '」', '《', '》', '【', '】', '\n', '\t', '\r', '—', '|', '/':
		return true
	case '.':
		if i+size >= len(text) {
			return true
		}
		next, _ := utf8.DecodeRuneInString(text[i+size:])
		return !isLatinWordRune(next)
	case ' ':
		// A space separates Latin words but ends a Chinese clause.
		if i == 0 || i+size >= len(text) {
			return true
		}
		prev, _ := utf8.DecodeLastRuneInString(text[:i])
		next, _ := utf8.DecodeRuneInString(text[i+size:])
		return !isLatinWordRune(prev) || !isLatinWordRune(next)
	}
	return false
}

// clauseStart returns where the clause containing byte i begins.
func (st *state) clauseStart(i int) int {
	for i > 0 {
		_, size := utf8.DecodeLastRuneInString(st.text[:i])
		if isBreak(st.text, i-size) {
			return i
		}
		i -= size
	}
	return 0
}

// clauseEnd returns where the clause containing byte i ends.
func (st *state) clauseEnd(i int) int {
	for i < len(st.text) {
		if isBreak(st.text, i) {
			return i
		}
		_, size := utf8.DecodeRuneInString(st.text[i:])
		i += size
	}
	return i
}

// tokenStarting returns the index of the token starting at byte i, or -1.
func (st *state) tokenStarting(i int) int {
	lo, hi := 0, len(st.toks)
	for lo < hi {
		mid := (lo + hi) / 2
		switch t := st.toks[mid]; {
		case t.start == i:
			return mid
		case t.start < i:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return -1
}

// tokenEnding returns the index of the token ending at byte i, or -1.
func (st *state) tokenEnding(i int) int {
	lo, hi := 0, len(st.toks)
	for lo < hi {
		mid := (lo + hi) / 2
		switch t := st.toks[mid]; {
		case t.end == i:
			return mid
		case t.end < i:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return -1
}

// word returns the text of token i.
func (st *state) word(i int) string {
	return st.text[st.toks[i].start:st.toks[i].end]
}

// hasLatin reports whether text[s:e] contains a Latin letter.
func (st *state) hasLatin(s, e int) bool {
	for _, r := range st.text[s:e] {
		if r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return true
		}
	}
	return false
}

func hasSuffixAny(s string, suffixes []string) bool {
	for _, suf := range suffixes {
		if strings.HasSuffix(s, suf) {
			return true
		}
	}
	return false
}

// latinToken reports whether token i is a Latin word or the space between
// two of them, which lets English names inside Chinese text pass.
func (st *state) latinToken(i int) bool {
	t := st.toks[i]
	r, _ := utf8.DecodeRuneInString(st.text[t.start:])
	if isLatinWordRune(r) || r == '.' && t.start > 0 && t.end < len(st.text) {
		return true
	}
	if r == ' ' && t.start > 0 && t.end < len(st.text) {
		prev, _ := utf8.DecodeLastRuneInString(st.text[:t.start])
		next, _ := utf8.DecodeRuneInString(st.text[t.end:])
		return isLatinWordRune(prev) && isLatinWordRune(next)
	}
	return false
}
