package search

import (
	"strings"
	"unicode/utf8"

	"github.com/recallhq/recall/pkg/assemble"
)

// Passages: a long turn recalled for a message shows its opening, which
// names the turn, and then the passage that matches the message, rather
// than only its first characters: in a long answer the sentence the
// message needs is often far from the start.

// passageHead is how much of a long turn's opening its snippet keeps
// before the matching passage, as a share of the snippet (a third).
const passageHeadShare = 3

// passageMinHead is the least opening a short snippet keeps (up to half
// of it): enough to tell which turn it is.
const passageMinHead = 100

// passageScanBytes bounds how much of a turn is looked through for the
// passage: the analysis of a 64 KB turn on every context would cost more
// than the passage is worth.
const passageScanBytes = 16 << 10

// passage returns text cut to n characters around what matches the query
// terms: its opening (a third of n, at least passageMinHead up to half of
// n), " … ", and from the start of the sentence that holds most of the
// terms (the earliest of equals) as much as fits, marked "…" where it is
// cut. It returns "" when text fits in n, or when no sentence past what a
// plain cut shows holds more of the terms than the opening: the caller
// then cuts as before.
//
// A term is found in a sentence where a word starts with it (the query's
// terms are stems: "fare" finds "fares"), a Han term anywhere: cheaper
// than analyzing every sentence, and a passage needs no more.
func passage(terms []string, text string, n int) string {
	if len(terms) == 0 || n <= 0 || !assemble.Longer(text, n) {
		return ""
	}
	head := max(n/passageHeadShare, min(n/2, passageMinHead))
	plain := byteOffset(text, n-8) // what a plain cut shows, less a word
	scan := text[:min(len(text), passageScanBytes)]
	// Lower-cased once when that keeps every offset (ASCII), else by
	// sentence.
	lower := ""
	if ascii(scan) {
		lower = strings.ToLower(scan)
	}
	best, bestStart, shownBest := 0, -1, 0
	for start := 0; start < len(scan); {
		end := sentenceEnd(scan, start)
		var sentence string
		if lower != "" {
			sentence = lower[start:end]
		} else {
			sentence = strings.ToLower(scan[start:end])
		}
		score := termsIn(sentence, terms)
		if end <= plain {
			shownBest = max(shownBest, score)
		} else if score > best {
			best, bestStart = score, start
		}
		start = end
	}
	if bestStart < 0 || best <= shownBest {
		return ""
	}
	var b strings.Builder
	b.WriteString(cutAtWord(text, head))
	b.WriteString(" … ")
	rest := strings.TrimLeft(text[bestStart:], " \t\n")
	room := n - utf8.RuneCountInString(b.String())
	if !assemble.Longer(rest, room) {
		b.WriteString(rest)
	} else {
		b.WriteString(cutAtWord(rest, room-1))
		b.WriteString("…")
	}
	return b.String()
}

// termsIn counts the terms a lower-cased sentence holds: at the start of a
// word, or anywhere for a term that begins with a Han character.
func termsIn(sentence string, terms []string) int {
	n := 0
	for _, t := range terms {
		if t == "" {
			continue
		}
		first, _ := utf8.DecodeRuneInString(t)
		han := isHan(first)
		for from := 0; from < len(sentence); {
			i := strings.Index(sentence[from:], t)
			if i < 0 {
				break
			}
			i += from
			if han || i == 0 || !isWordRune(lastRune(sentence[:i])) {
				n++
				break
			}
			from = i + len(t)
		}
	}
	return n
}

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func lastRune(s string) rune {
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}

// sentenceEnd is the end of the sentence that starts at start: just past
// its closing punctuation (. ! ? and the full-width 。！？；) and the spaces
// after it, or past a line break; the end of s when there is none.
func sentenceEnd(s string, start int) int {
	for i := start; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch r {
		case '\n', '。', '！', '？', '；':
			return i
		case '.', '!', '?':
			if i == len(s) || s[i] == ' ' || s[i] == '\n' {
				for i < len(s) && s[i] == ' ' {
					i++
				}
				return i
			}
		}
	}
	return len(s)
}

// byteOffset is the byte offset of the n-th character of s (len(s) when
// s is shorter).
func byteOffset(s string, n int) int {
	for i := range s {
		if n <= 0 {
			return i
		}
		n--
	}
	return len(s)
}

// cutAtWord is assemble.CutAtWord without trailing spaces.
func cutAtWord(s string, n int) string {
	return strings.TrimRight(assemble.CutAtWord(s, n), " ")
}
