package habits

import (
	"unicode"

	"github.com/abadojack/whatlanggo"
)

// Language is the language a message is written in, by its English name
// ("English", "Chinese"), or "" when it cannot be told reliably.
//
// Chinese, Japanese and Korean are told by their scripts: a text is theirs
// when its CJK characters outweigh its other letters, a CJK character
// weighing as much as three letters (about a short word), so "推荐几本像 The
// Three-Body Problem 的书" is Chinese. Kana (a fifth of the CJK characters or
// more) makes it Japanese, Hangul outnumbering the rest Korean. Any other
// text goes to whatlanggo (trigram profiles of some 80 languages, by
// script), and counts only when it calls its answer reliable: "ok" or
// "thanks" tell nothing, and neither does a title. A reliable answer is
// also a unique one (its best language strictly ahead), so the result does
// not depend on the library's map order: the same text, the same answer.
func Language(text string) string {
	var han, kana, hangul, other int
	for _, r := range text {
		switch {
		case unicode.Is(unicode.Han, r):
			han++
		case unicode.In(r, unicode.Hiragana, unicode.Katakana):
			kana++
		case unicode.Is(unicode.Hangul, r):
			hangul++
		case unicode.IsLetter(r):
			other++
		}
	}
	cjk := han + kana + hangul
	if cjk > 0 && cjk*3 >= other {
		switch {
		case kana > 0 && kana*5 >= cjk:
			return "Japanese"
		case hangul > han+kana:
			return "Korean"
		case han > 0:
			return "Chinese"
		}
		return ""
	}
	if other == 0 {
		return ""
	}
	info := whatlanggo.Detect(text)
	if !info.IsReliable() {
		return ""
	}
	if info.Lang == whatlanggo.Cmn {
		return "Chinese"
	}
	return info.Lang.String()
}
