package search

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/recallhq/recall/pkg/assemble"
	"github.com/recallhq/recall/pkg/listsel"
	"github.com/recallhq/recall/pkg/script"
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

// passageQuery is what a passage is looked for by: the message's terms,
// and the entries of a list it names by position (listsel.Positions: "the
// fifth bottle", 第三本).
type passageQuery struct {
	terms     []string
	positions []int
}

// passage returns text cut to n characters around what matches the query:
// its opening (a third of n, at least passageMinHead up to half of n),
// " … ", and from the start of the sentence that holds most of the terms
// (the earliest of equals) as much as fits, marked "…" where it is cut. A
// line that starts the list entry the message names by its position ("5.
// Absinthe: …" for "what was the fifth bottle?") comes before any
// sentence. A sentence too long to be shown whole is shown from a little
// before its matches when that shows more of them (window). It returns ""
// when text fits in n, or when no sentence past what a plain cut shows
// holds more of the terms than the opening: the caller then cuts as
// before.
//
// A term is found in a sentence where a word starts with it (the query's
// terms are stems: "fare" finds "fares"), a Han term anywhere: cheaper
// than analyzing every sentence, and a passage needs no more.
func passage(q passageQuery, text string, n int) string {
	if len(q.terms) == 0 && len(q.positions) == 0 || n <= 0 || !assemble.Longer(text, n) {
		return ""
	}
	head := max(n/passageHeadShare, min(n/2, passageMinHead))
	plain := byteOffset(text, n-8) // what a plain cut shows, less a word
	scan := text[:min(len(text), passageScanBytes)]
	// Lower-cased once when that keeps every offset (ASCII), else by
	// sentence.
	lower := ""
	if script.ASCII(scan) {
		lower = strings.ToLower(scan)
	}
	lowered := func(from, to int) string {
		if lower != "" {
			return lower[from:to]
		}
		return strings.ToLower(scan[from:to])
	}
	best, bestStart, shownBest, listed := 0, -1, 0, false
	for start := 0; start < len(scan); {
		end := sentenceEnd(scan, start)
		score := termsIn(lowered(start, end), q.terms)
		entry := false
		if len(q.positions) > 0 && (start == 0 || scan[start-1] == '\n') {
			line := start + lineLen(scan[start:])
			if m, ok := listsel.Marker(scan[start:line]); ok && slices.Contains(q.positions, m) {
				score, entry = len(q.terms)+1+termsIn(lowered(start, line), q.terms), true
			}
		}
		if end <= plain {
			shownBest = max(shownBest, score)
		} else if score > best {
			best, bestStart, listed = score, start, entry
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
	if room < 2 {
		return "" // no room after the opening for a word and its "…"
	}
	if !assemble.Longer(rest, room) {
		b.WriteString(rest)
		return b.String()
	}
	if !listed {
		rest = window(rest, q.terms, room)
	}
	b.WriteString(cutAtWord(rest, room-1))
	b.WriteString("…")
	return b.String()
}

// lineLen is the length in bytes of s's first line, without its line break.
func lineLen(s string) int {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return i
	}
	return len(s)
}

// window is rest, which starts with the passage's sentence and is longer
// than room characters, from where a cut to room shows the most of the
// terms its first sentence holds: from its start when that shows as many
// as any later start, else from a fifth of room before a match, at a word
// start and marked "…". "By the way, I'm really looking forward to owning
// a home … remember when I got pre-approved for $400,000 from Wells
// Fargo?" is shown from "…remember when" for a message about the
// pre-approval, rather than cut before the amount.
func window(rest string, terms []string, room int) string {
	end := sentenceEnd(rest[:min(len(rest), passageScanBytes)], 0)
	if end <= byteOffset(rest, room-2) {
		return rest // the sentence is shown whole from its start
	}
	sentence := strings.ToLower(rest[:end])
	if len(sentence) != end {
		return rest // lower-casing moved the offsets
	}
	type match struct{ at, term int }
	var matches []match
	for k, t := range terms {
		for i := matchAt(sentence, t, 0); i >= 0; i = matchAt(sentence, t, i+len(t)) {
			matches = append(matches, match{i, k})
		}
	}
	// shown counts the distinct terms matched in the room-long cut of rest
	// from byte offset from.
	seen := make([]bool, len(terms))
	shown := func(from int) int {
		to := from + byteOffset(rest[from:], room-4)
		clear(seen)
		n := 0
		for _, m := range matches {
			if m.at >= from && m.at+len(terms[m.term]) <= to && !seen[m.term] {
				seen[m.term] = true
				n++
			}
		}
		return n
	}
	best, bestFrom := shown(0), 0
	for _, m := range matches {
		from := wordStartBefore(rest, m.at, room/5)
		if from > 0 {
			if c := shown(from); c > best {
				best, bestFrom = c, from
			}
		}
	}
	if bestFrom == 0 {
		return rest
	}
	return "…" + rest[bestFrom:]
}

// wordStartBefore is the byte offset in s of the start of a word about
// lead characters before byte offset at: at the first word that starts
// after that point, or exactly there in text without spaces.
func wordStartBefore(s string, at, lead int) int {
	from := at
	for k := 0; k < lead && from > 0; k++ {
		_, size := utf8.DecodeLastRuneInString(s[:from])
		from -= size
	}
	if from == 0 {
		return 0
	}
	if i := strings.IndexAny(s[from:at], " \n\t"); i >= 0 {
		from += i
		for from < at && (s[from] == ' ' || s[from] == '\n' || s[from] == '\t') {
			from++
		}
	}
	return from
}

// termsIn counts the terms a lower-cased sentence holds: at the start of a
// word, or anywhere for a term that begins with a Han character.
func termsIn(sentence string, terms []string) int {
	n := 0
	for _, t := range terms {
		if matchAt(sentence, t, 0) >= 0 {
			n++
		}
	}
	return n
}

// matchAt is the byte offset of the first match of term in the lower-cased
// sentence at or after from (as termsIn finds them), or -1.
func matchAt(sentence, term string, from int) int {
	if term == "" {
		return -1
	}
	first, _ := utf8.DecodeRuneInString(term)
	han := isHan(first)
	for from < len(sentence) {
		i := strings.Index(sentence[from:], term)
		if i < 0 {
			return -1
		}
		i += from
		if han || i == 0 || !isWordRune(lastRune(sentence[:i])) {
			return i
		}
		from = i + len(term)
	}
	return -1
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
		// An ASCII byte is its own rune: most of a turn is, and a passage
		// reads up to passageScanBytes of every hit it cuts.
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
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
