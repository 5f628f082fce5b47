package script

import "unicode/utf8"

// WordEnd is the end of the word that starts at i.
func WordEnd(text string, i int) int {
	for i < len(text) && IsWordByte(text[i]) {
		i++
	}
	return i
}

// WordAfter is the word that follows end after spaces only (ok false when
// there is none).
func WordAfter(text string, end int) (start, wend int, ok bool) {
	i := end
	for i < len(text) && text[i] == ' ' {
		i++
	}
	if i == end || i == len(text) || !IsWordByte(text[i]) {
		return 0, 0, false
	}
	return i, WordEnd(text, i), true
}

// IsWordByte reports whether c is an ASCII letter or digit: a byte of an
// English word, as the time expressions and the questions are read.
func IsWordByte(c byte) bool { return asciiWordBytes[c] }

// asciiWordBytes are the bytes of IsWordByte: one load a byte, where
// three range checks were most of reading a turn for its relative dates.
var asciiWordBytes = func() (t [256]bool) {
	for c := range t {
		t[c] = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	}
	return t
}()

// HasHan reports whether s holds a CJK ideograph (U+4E00 to U+9FFF,
// whose UTF-8 encodings begin with the bytes 0xE4 to 0xE9).
func HasHan(s string) bool {
	for i := 0; i < len(s); i++ {
		// Eight bytes of ASCII at a time: no lead byte among them.
		for i+8 <= len(s) && (uint64(s[i])|uint64(s[i+1])<<8|uint64(s[i+2])<<16|uint64(s[i+3])<<24|
			uint64(s[i+4])<<32|uint64(s[i+5])<<40|uint64(s[i+6])<<48|uint64(s[i+7])<<56)&0x8080808080808080 == 0 {
			i += 8
		}
		if i == len(s) {
			break
		}
		if c := s[i]; c >= 0xE4 && c <= 0xE9 {
			if r, _ := utf8.DecodeRuneInString(s[i:]); r >= 0x4E00 && r <= 0x9FFF {
				return true
			}
		}
	}
	return false
}
