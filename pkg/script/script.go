// Package script reads which writing systems a text is in, as Recall's
// choices between English and Chinese need it: whether it is ASCII only,
// and how many of its letters are Han characters. Both read ASCII byte by
// byte and decode only the characters outside it: they run on every turn
// and every context.
package script

import (
	"encoding/binary"
	"unicode"
	"unicode/utf8"
)

// ASCII reports whether s is ASCII only, eight bytes at a time.
func ASCII(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if binary.LittleEndian.Uint64([]byte(s[i:i+8]))&0x8080808080808080 != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// Count counts the Han characters of s and its other letters.
func Count(s string) (han, other int) {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c|0x20 >= 'a' && c|0x20 <= 'z' {
				other++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r >= 0x2E80 && unicode.Is(unicode.Han, r):
			han++
		case unicode.IsLetter(r):
			other++
		}
	}
	return han, other
}
