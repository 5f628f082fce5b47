package listsel

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxPositions is the most positions Positions returns for one message.
const MaxPositions = 3

// maxPositionsRunes bounds how much of a message Positions reads: a
// question that points back at a list names the entry early, and a long
// pasted text would cost a scan of every word for nothing.
const maxPositionsRunes = 2000

// Positions are the entries of a list that a message of any length names by
// their position, in order and without repeats (at most MaxPositions): "what
// was the 7th job in the list you gave me?", "remind me of the fifth
// bottle", "the twenty-seventh parameter", "tell me again about number 3",
// "step 4", "#2", "你推荐的第三本书叫什么", "第7条". Select reads a short
// message that is only a pick; Positions finds the positions inside a
// question, so that a long turn recalled for it can show that entry
// (search's passages).
//
// An English ordinal counts after "the" (or "your", "that", "this", "its")
// and not before a word of time or of a date ("the first time", "the second
// week", "the 3rd of May"); a cardinal counts after "number", "item",
// "option", "entry", "step", "point" or "#". A Chinese position is 第 and a
// number followed by a measure word of things ("第三个", "第7条"), not of
// times, days or pages ("第二次", "第3天", "第5页").
func Positions(message string) []int {
	if utf8.RuneCountInString(message) > maxPositionsRunes {
		message = string([]rune(message)[:maxPositionsRunes])
	}
	var out []int
	add := func(n int) {
		if n < 1 || len(out) >= MaxPositions {
			return
		}
		for _, m := range out {
			if m == n {
				return
			}
		}
		out = append(out, n)
	}
	words := positionWords(message)
	for i, w := range words {
		next := func(k int) string {
			if i+k < len(words) {
				return words[i+k]
			}
			return ""
		}
		switch {
		case enPositionDet[w]:
			n, size := enOrdinalAt(words[i+1:])
			if n > 0 && !notAnEntry[next(1+size)] {
				add(n)
			}
		case enPositionMark[w]:
			if n, size := enCardinalAt(words[i+1:]); size > 0 {
				add(n)
			}
		case strings.HasPrefix(w, "#"):
			if n, count, size := leadingDigits(w[1:]); count > 0 && size == len(w)-1 {
				add(n)
			}
		}
	}
	if !strings.ContainsRune(message, '第') {
		return out
	}
	rs := []rune(message)
	for i := 0; i+2 < len(rs); i++ {
		if rs[i] != '第' {
			continue
		}
		n, size := 0, 0
		for size < 3 && i+1+size < len(rs) && isDigit(halfWidth(rs[i+1+size])) {
			n = n*10 + int(halfWidth(rs[i+1+size])-'0')
			size++
		}
		if size == 0 {
			if z, zs, notPos := zhNumber(rs[i+1:]); zs > 0 && !notPos {
				n, size = z, zs
			}
		}
		if size > 0 && i+1+size < len(rs) && strings.ContainsRune(zhMeasures, rs[i+1+size]) {
			add(n)
		}
	}
	return out
}

// enPositionDet are the words an English ordinal that names an entry comes
// after: "the third", "your fifth".
var enPositionDet = map[string]bool{"the": true, "your": true, "that": true, "this": true, "its": true}

// enPositionMark are the words a cardinal that names an entry comes after:
// "number 3", "item seven".
var enPositionMark = map[string]bool{"number": true, "item": true, "option": true, "entry": true, "step": true, "point": true}

// notAnEntry are the words after an ordinal that make it a time, a date or
// a share rather than an entry of a list: "the first time", "the second
// week", "the 3rd of May", "the second half".
var notAnEntry = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields("time times day days night nights week weeks weekend month months year years " +
		"morning afternoon evening hour hours minute minutes date anniversary birthday season semester term " +
		"quarter half century decade of grade") {
		m[w] = true
	}
	return m
}()

// positionWords splits a message into lower-cased English words, numbers
// with their suffixes ("27th") and "#" numbers; hyphens split too, so
// "twenty-seventh" is two words.
func positionWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return r != '#' && (r >= utf8.RuneSelf || !unicode.IsLetter(r) && !unicode.IsDigit(r))
	})
}

// enOrdinalAt reads an ordinal at the start of words: "third", "27th",
// "twenty seventh"; its value and how many words it took (0, 0: none).
func enOrdinalAt(words []string) (n, size int) {
	if len(words) == 0 {
		return 0, 0
	}
	w := words[0]
	if v, ok := enOrdinals[w]; ok {
		return v, 1
	}
	if enTens[w] && len(words) > 1 {
		if d, ok := enOrdinals[words[1]]; ok && d < 10 {
			return enCardinals[w] + d, 2
		}
	}
	if v, count, size := leadingDigits(w); count > 0 && count <= 3 {
		switch w[size:] {
		case "st", "nd", "rd", "th":
			return v, 1
		}
	}
	return 0, 0
}

// enCardinalAt reads a cardinal at the start of words: "3", "seven",
// "twenty one"; its value and how many words it took (0, 0: none).
func enCardinalAt(words []string) (n, size int) {
	if len(words) == 0 {
		return 0, 0
	}
	w := words[0]
	if v, ok := enCardinals[w]; ok {
		if enTens[w] && len(words) > 1 {
			if d, ok := enCardinals[words[1]]; ok && d < 10 {
				return v + d, 2
			}
		}
		return v, 1
	}
	if v, count, size := leadingDigits(w); count > 0 && size == len(w) && v > 0 {
		return v, 1
	}
	return 0, 0
}

// Marker is the number of the list entry a line starts with ("5. X", "5) X",
// "**5.** X", "- 5. X", "(5) X", "第五，X", "五、X"), as Entries reads it;
// ok is false when the line starts with none.
func Marker(line string) (n int, ok bool) {
	n, _, ok = lineMarker(strings.TrimSpace(line))
	return n, ok
}
