package listsel

import "unicode/utf8"

// Number words, for reading "number two", "the third", "第三个" and "一、".

// enCardinals are the English cardinals up to nineteen, and the tens.
var enCardinals = map[string]int{
	"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
	"ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
	"sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
	"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
}

// enOrdinals are the English ordinals up to nineteenth, and the tens.
var enOrdinals = map[string]int{
	"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
	"eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13,
	"fourteenth": 14, "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18,
	"nineteenth": 19, "twentieth": 20, "thirtieth": 30, "fortieth": 40, "fiftieth": 50,
}

// enTens are the cardinals a unit may follow ("twenty-one", "twenty first").
var enTens = map[string]bool{"twenty": true, "thirty": true, "forty": true, "fifty": true}

// zhDigits are the Chinese numerals one to nine.
var zhDigits = map[rune]int{'一': 1, '二': 2, '三': 3, '四': 4, '五': 5, '六': 6, '七': 7, '八': 8, '九': 9}

// zhNumber reads a number written in Chinese numerals at the start of rs, up
// to 99 ("三", "十", "十二", "二十", "二十一"), and returns its value and length
// in runes; size 0 when rs does not start with one. "两" is two, but only
// as a count ("两个", "前两部"), never a position: notPos says so.
func zhNumber(rs []rune) (n, size int, notPos bool) {
	if len(rs) == 0 {
		return 0, 0, false
	}
	if rs[0] == '两' {
		return 2, 1, true
	}
	tens, i := 0, 0
	if d, ok := zhDigits[rs[0]]; ok && len(rs) > 1 && rs[1] == '十' {
		tens, i = d, 2
	} else if rs[0] == '十' {
		tens, i = 1, 1
	}
	if i < len(rs) {
		if d, ok := zhDigits[rs[i]]; ok {
			return tens*10 + d, i + 1, false
		}
	}
	if tens > 0 {
		return tens * 10, i, false
	}
	return 0, 0, false
}

// leadingDigits reads the ASCII or full-width digits at the start of s: how
// many there are, their length in bytes, and their value when there are at
// most three (0 otherwise: a year or a phone number is not a position).
func leadingDigits(s string) (n, count, size int) {
	for size < len(s) {
		r, w := utf8.DecodeRuneInString(s[size:])
		if r = halfWidth(r); !isDigit(r) {
			break
		}
		n = n*10 + int(r-'0')
		size += w
		count++
		if count > 3 {
			n = 0
		}
	}
	return n, count, size
}

// isDigit reports whether r is an ASCII digit.
func isDigit(r rune) bool { return r >= '0' && r <= '9' }
