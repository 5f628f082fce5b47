package extract

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/recallhq/recall/pkg/script"
)

// Normalize returns the key under which mentions of the same name are
// merged, so that 《三体》, 三体, "三体 " and ＂三体＂ are one fact.
//
// It applies NFKC (full-width letters, digits and quotes become their
// half-width forms, Ⅱ becomes II), lower-cases, writes every middle-dot
// variant used in transliterated names as U+00B7, collapses runs of
// whitespace to one space, drops whitespace next to CJK characters (Chinese
// does not separate words with spaces, so "Start 自选集" and "Start自选集" are
// the same title) and strips brackets, quotes and whitespace from both ends.
func Normalize(s string) string {
	if s == "" {
		return ""
	}
	if script.ASCII(s) {
		return trimEdges(normalizeASCII(s))
	}
	return trimEdges(normalizeRunes(s))
}

// normalizeRunes is Normalize before the edges are trimmed: NFKC, then
// each character folded (foldRune), white space collapsed to one space and
// dropped next to CJK characters.
func normalizeRunes(s string) string {
	s = norm.NFKC.String(s)
	var b strings.Builder
	b.Grow(len(s))
	pendingSpace := false
	var prev rune
	for _, r := range s {
		if unicode.IsSpace(r) {
			pendingSpace = true
			continue
		}
		r = foldRune(r)
		if pendingSpace {
			if b.Len() > 0 && !isCJK(prev) && !isCJK(r) {
				b.WriteByte(' ')
			}
			pendingSpace = false
		}
		b.WriteRune(r)
		prev = r
	}
	return b.String()
}

// normalizeASCII is normalizeRunes for ASCII text, most of what is read
// (NFKC leaves ASCII as it is, and no ASCII character is CJK): lower case,
// runs of whitespace as one space, none leading. It returns s itself when
// that changes nothing.
func normalizeASCII(s string) string {
	if normalASCII(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	pendingSpace := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if asciiSpace(c) {
			pendingSpace = true
			continue
		}
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if pendingSpace && b.Len() > 0 {
			b.WriteByte(' ')
		}
		pendingSpace = false
		b.WriteByte(c)
	}
	return b.String()
}

// normalASCII reports whether normalizeASCII leaves s as it is: no capital,
// and no white space but single spaces between other characters.
func normalASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 'A' && c <= 'Z':
			return false
		case c == ' ':
			if i == 0 || i+1 == len(s) || asciiSpace(s[i+1]) {
				return false
			}
		case asciiSpace(c):
			return false
		}
	}
	return true
}

// asciiSpace reports whether an ASCII byte is white space (unicode.IsSpace).
func asciiSpace(c byte) bool {
	return c == ' ' || c >= '\t' && c <= '\r'
}

// foldRune maps one rune to its comparison form: lower case, and one
// middle dot for the several dots people type between the parts of a
// transliterated name.
func foldRune(r rune) rune {
	switch r {
	case '・', '･', '•', '‧', '∙', '⋅', '●':
		return '·'
	}
	return unicode.ToLower(r)
}

// edgeRunes are stripped from both ends of a name: brackets and quotes mark
// a title in running text but are not part of it.
const edgeRunes = "《》〈〉「」『』【】〔〕﹁﹂﹃﹄“”‘’\"'`<>«»‹›"

// trimEdges removes brackets, quotes and whitespace from both ends of s,
// repeatedly, so nested marks such as “《三体》” disappear too.
func trimEdges(s string) string {
	return strings.TrimFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune(edgeRunes, r)
	})
}

// cleanDisplay turns a raw span into the form shown to users: whitespace
// collapsed and brackets and quotes removed from the ends, but the original
// script and case kept.
func cleanDisplay(s string) string {
	s = trimEdges(s)
	if !strings.ContainsFunc(s, unicode.IsSpace) {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// isCJK reports whether r is written without spaces between words.
func isCJK(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r) ||
		(r >= 0x3000 && r <= 0x303F) || (r >= 0xFF00 && r <= 0xFFEF)
}

// isHan reports whether r is a Chinese character.
func isHan(r rune) bool {
	return r >= 0x2E80 && unicode.Is(unicode.Han, r)
}

// isLatinWordRune reports whether r can be part of a Latin-script word,
// which is how word boundaries are decided for English names.
func isLatinWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
	}
	return unicode.IsLetter(r) && !isCJK(r) || unicode.IsDigit(r) && !isCJK(r)
}

// runeCount is utf8.RuneCountInString under a shorter name, because the
// rules measure spans in runes all the time.
func runeCount(s string) int {
	return utf8.RuneCountInString(s)
}
