package listsel

import (
	"strings"
	"unicode"
)

// normalize is the form in which a title is looked for in an entry's text:
// case folded, full-width forms made half-width, every punctuation mark and
// symbol (quotes, brackets, 《》「」, dashes, emoji) turned into a space,
// spaces collapsed and trimmed, and no space left between two CJK characters.
// Both sides go through it, so "《三体》：地球往事" names the title "三体：地球往事"
// and "DUNE: Part Two" names "Dune – Part Two". Dropping the space between
// CJK characters keeps Chinese text, which is written without spaces, the same
// whether or not punctuation stood between two words.
//
// normalize(a) is a prefix of normalize(a+b) except for at most a trailing
// space, which lets Match measure an entry's head in normalized text.
func normalize(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	var prev rune // last rune written; 0 at the start
	pending := false
	for _, r := range s {
		r = foldRune(halfWidth(r))
		if !isWordRune(r) && !unicode.IsMark(r) {
			pending = prev != 0
			continue
		}
		if pending && !(isCJK(prev) && isCJK(r)) {
			b.WriteByte(' ')
		}
		pending = false
		b.WriteRune(r)
		prev = r
	}
	return b.String()
}

// halfWidth maps the full-width forms of ASCII (U+FF01–U+FF5E) and the
// ideographic space to their ASCII counterparts, as Chinese input methods
// write "１．" or "（３）" for "1." and "(3)".
func halfWidth(r rune) rune {
	switch {
	case r >= 0xFF01 && r <= 0xFF5E:
		return r - 0xFEE0
	case r == 0x3000:
		return ' '
	}
	return r
}

// foldRune is simple Unicode case folding: every rune of a case-folding orbit
// (K, k and the Kelvin sign; Σ, σ and ς) maps to the same rune, the lower case
// of the orbit's smallest member.
func foldRune(r rune) rune {
	min := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f < min {
			min = f
		}
	}
	return unicode.ToLower(min)
}

// isWordRune reports whether r is part of a word: a letter or a digit.
func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// isCJK reports whether r belongs to a script written without spaces between
// words (Han, kana, Hangul), where a word boundary cannot be seen and a title
// may be followed directly by the next word.
func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// isSpacedWordRune reports whether r is a letter or digit of a script written
// with spaces between words. A title is not named when such a rune touches it
// ("it" in "with", "Dune" in "Dunes", "流浪地球" in "流浪地球2").
func isSpacedWordRune(r rune) bool { return isWordRune(r) && !isCJK(r) }
