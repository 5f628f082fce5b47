package extract

import (
	"strings"
	"unicode/utf8"
)

// nearCue returns the kind of the cue closest to text[start:end] within
// window runes on either side, or "" when there is none. Cues after a title
// and cues before it count the same: 《X》这首歌 and 听过《X》 are both music.
func (st *state) nearCue(start, end, window int) Kind {
	text := st.text
	ls := start
	for n := 0; n < window && ls > 0; n++ {
		_, size := utf8.DecodeLastRuneInString(text[:ls])
		ls -= size
	}
	re := end
	for n := 0; n < window && re < len(text); n++ {
		_, size := utf8.DecodeRuneInString(text[re:])
		re += size
	}
	left := foldASCII(text[ls:start])
	right := foldASCII(text[end:re])
	// A cue can be found only where its first byte is: most are not in
	// a window of a few words (the Chinese cues never in English text).
	var firsts [4]uint64
	for _, w := range [2]string{left, right} {
		for i := 0; i < len(w); i++ {
			firsts[w[i]>>6] |= 1 << (w[i] & 63)
		}
	}
	best, bestDist := Kind(""), len(text)+1
	for _, c := range st.r.lex.cues {
		if b := c.word[0]; firsts[b>>6]&(1<<(b&63)) == 0 {
			continue
		}
		if i := strings.LastIndex(left, c.word); i >= 0 {
			if d := len(left) - i - len(c.word); d < bestDist && cueBoundary(left, i) {
				best, bestDist = c.kind, d
			}
		}
		if i := strings.Index(right, c.word); i >= 0 && i < bestDist && cueBoundary(right, i) {
			best, bestDist = c.kind, i
		}
	}
	return best
}

// cueBoundary rejects an English cue that is the tail of a longer word
// ("bread" is not "read").
func cueBoundary(s string, i int) bool {
	if i == 0 || s[i] >= utf8.RuneSelf {
		return true
	}
	prev, _ := utf8.DecodeLastRuneInString(s[:i])
	return !isLatinWordRune(prev)
}

// textCue returns the kind whose cues occur most often in the whole text,
// or "" when no cue occurs. It is the fallback for titles without a cue
// nearby, which is common when a whole conversation is extracted at once.
func (st *state) textCue() Kind {
	if st.textKindDone {
		return st.textKind
	}
	st.textKindDone = true
	folded := foldASCII(st.text)
	counts := map[Kind]int{}
	for _, c := range st.r.lex.cues {
		if n := strings.Count(folded, c.word); n > 0 {
			counts[c.kind] += n
		}
	}
	best := 0
	for _, k := range []Kind{KindBookTitle, KindFilm, KindMusic} {
		if counts[k] > best {
			best, st.textKind = counts[k], k
		}
	}
	return st.textKind
}

// titleKind decides the kind of a title at text[start:end]: the closest cue
// wins, then the cues of the whole text, then the configured default.
func (st *state) titleKind(start, end int) Kind {
	if k := st.nearCue(start, end, 12); k != "" {
		return k
	}
	if k := st.textCue(); k != "" {
		return k
	}
	return st.r.titleKind
}

// personKind types a person name: someone mentioned next to books is an
// author, anyone else a person. English spends more characters per word, so
// its window is wider.
func (st *state) personKind(start, end int) Kind {
	window := 8
	if r, _ := utf8.DecodeRuneInString(st.text[start:]); isLatinWordRune(r) {
		window = 30
	}
	if st.nearCue(start, end, window) == KindBookTitle {
		return KindAuthor
	}
	return KindPerson
}
