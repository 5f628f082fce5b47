package listsel

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/recallhq/recall/pkg/events"
)

// Match is the list of candidates a reply presents, in the reply's order
// (position i+1 is entry i+1), or nil when it cannot be told for certain.
//
// Every entry of Entries(reply) must name exactly one candidate, and no
// candidate (no ref) may be named by two entries; otherwise Match returns nil,
// since a list with one position wrong would hand the user the wrong item.
//
// A candidate's title names it when, normalized (case folded, full-width made
// half-width, quotes, brackets, 《》「」 and other punctuation dropped, spaces
// collapsed), it appears in the entry's normalized text as whole words and
// starts in the entry's head: the text before its first separator (" — ",
// ": ", " (", ", ", " by ", "，", "：", "（", …), which is where a list entry
// puts the thing it presents. What follows the head describes it, and the
// titles found there (the author, the genre, a film it is compared to) are
// not what the entry presents: "Dune (2021) — from Frank Herbert's novel"
// names Dune. Titles shorter than 2 characters never count; a title made only
// of digits ("1917", "300") counts only at the very start, since elsewhere a
// number is more often a year or a count; a title whose occurrence lies
// inside the occurrence of a longer title does not count ("Blade Runner" in
// "Blade Runner 2049").
//
// A candidate's ref names it when the ref is an address (it holds a "/"; at
// least 5 characters) and appears anywhere in the entry's text as a whole
// address. When the entry holds such an address, the entry names that
// candidate if its title is the one in the head, or no title is; this tells
// apart two items with the same title. Any other combination (two titles in
// the head, two addresses, a title and someone else's address) names none.
func Match(reply string, candidates []events.Item) []events.Item {
	entries := Entries(reply)
	if len(entries) == 0 || len(candidates) == 0 {
		return nil
	}
	m := matcher{candidates: candidates, titles: make([]string, len(candidates))}
	for i, c := range candidates {
		m.titles[i] = normalize(c.Title)
	}
	out := make([]events.Item, len(entries))
	named := make(map[string]bool, len(entries))
	for k, e := range entries {
		i, ok := m.named(e.Text)
		if !ok || named[candidates[i].Ref] {
			return nil
		}
		named[candidates[i].Ref] = true
		out[k] = candidates[i]
	}
	return out
}

// matcher holds the candidates and their normalized titles while one reply is matched.
type matcher struct {
	candidates []events.Item
	titles     []string
}

// hit is a candidate an entry's text names: start and end are where its title
// occurs in the normalized text (start -1 when it does not), byRef whether
// its ref appears in the text.
type hit struct {
	i          int
	start, end int
	byRef      bool
}

// named is the one candidate an entry's text names, by the rules of Match.
func (m *matcher) named(text string) (int, bool) {
	norm := normalize(text)
	var hits []hit
	for i, c := range m.candidates {
		h := hit{i: i, start: findTitle(norm, m.titles[i]), byRef: refNamed(text, c.Ref)}
		h.end = h.start + len(m.titles[i])
		if h.start >= 0 || h.byRef {
			hits = append(hits, h)
		}
	}
	headLen := len(normalize(head(text)))
	var inHead, linked []int
	for _, h := range hits {
		if h.byRef {
			linked = append(linked, h.i)
		}
		if h.start < 0 || h.start >= headLen {
			continue
		}
		covered := false // by a longer title: "Blade Runner" in "Blade Runner 2049"
		for _, g := range hits {
			if g.start >= 0 && g.end-g.start > h.end-h.start && g.start <= h.start && h.end <= g.end {
				covered = true
				break
			}
		}
		if !covered {
			inHead = append(inHead, h.i)
		}
	}
	switch {
	case len(linked) == 0 && len(inHead) == 1:
		return inHead[0], true
	case len(linked) == 1 && (len(inHead) == 0 || slices.Contains(inHead, linked[0])):
		return linked[0], true
	}
	return 0, false
}

// findTitle is the byte offset of the first occurrence of the normalized
// title in the normalized text as whole words, or -1. A title of fewer than
// 2 runes is never found; a title of digits only is found only at the start.
func findTitle(norm, title string) int {
	if utf8.RuneCountInString(title) < 2 {
		return -1
	}
	digits := strings.IndexFunc(title, func(r rune) bool { return r != ' ' && !unicode.IsDigit(r) }) < 0
	for from := 0; from <= len(norm)-len(title); {
		k := strings.Index(norm[from:], title)
		if k < 0 {
			return -1
		}
		start, end := from+k, from+k+len(title)
		before, _ := utf8.DecodeLastRuneInString(norm[:start])
		after, _ := utf8.DecodeRuneInString(norm[end:])
		if (start == 0 || !isSpacedWordRune(before)) && (end == len(norm) || !isSpacedWordRune(after)) {
			if digits && start > 0 {
				return -1
			}
			return start
		}
		_, w := utf8.DecodeRuneInString(norm[start:])
		from = start + w
	}
	return -1
}

// headSeparators end the head of an entry: what comes after them describes
// the thing the entry presents.
var headSeparators = []string{
	" — ", " – ", " - ", "—", "–", ": ", " (", ", ", "; ", " | ", " / ", " by ", ". ",
	"：", "（", "(", "，", "；", "。",
}

// head is an entry's text up to its first separator (one at the very start
// does not count).
func head(text string) string {
	end := len(text)
	for _, s := range headSeparators {
		if k := strings.Index(text[min(1, len(text)):], s); k >= 0 && k+1 < end {
			end = k + 1
		}
	}
	return text[:end]
}

// refNamed reports whether ref, when it is an address (holds a "/", at
// least 5 characters), appears in text as a whole address: not continued by
// more path, query or fragment ("/mv/1" is not in "/mv/12" nor in
// "/mv/1?page=2"), and, for a path, preceded by nothing or by just a host
// ("https://example.com/mv/1" holds "/mv/1"; "/x/mv/1" does not).
func refNamed(text, ref string) bool {
	if utf8.RuneCountInString(ref) < 5 || !strings.Contains(ref, "/") {
		return false
	}
	for from := 0; from <= len(text)-len(ref); {
		k := strings.Index(text[from:], ref)
		if k < 0 {
			return false
		}
		start, end := from+k, from+k+len(ref)
		if addressStart(text[:start], ref[0] == '/') && addressEnd(text[end:]) {
			return true
		}
		from = start + 1
	}
	return false
}

// addressStart reports whether an address may start after prefix: at a
// boundary, or, for a path, right after "scheme://host".
func addressStart(prefix string, path bool) bool {
	k := strings.LastIndexFunc(prefix, func(r rune) bool { return !isAddressRune(r) })
	tail := prefix[k+1:]
	if k >= 0 {
		_, w := utf8.DecodeRuneInString(prefix[k:])
		tail = prefix[k+w:]
	}
	if tail == "" {
		return true
	}
	if !path {
		return false
	}
	scheme := strings.Index(tail, "://")
	return scheme >= 0 && !strings.Contains(tail[scheme+3:], "/")
}

// addressEnd reports whether an address may end before rest: rest does not
// continue it (a letter, digit, "/", "-", "_", "%", …), allowing punctuation
// that ends a sentence or a Markdown link.
func addressEnd(rest string) bool {
	r, w := utf8.DecodeRuneInString(rest)
	if rest == "" {
		return true
	}
	if isWordRune(r) && r < utf8.RuneSelf || strings.ContainsRune("/-_%~+=&@", r) {
		return false
	}
	if strings.ContainsRune(".?#:,;!", r) {
		next, _ := utf8.DecodeRuneInString(rest[w:])
		return len(rest) == w || !(isWordRune(next) && next < utf8.RuneSelf || strings.ContainsRune("/-_%~+=&@", next))
	}
	return true
}

// isAddressRune reports whether r may be part of a URL as written in text.
func isAddressRune(r rune) bool {
	return r < utf8.RuneSelf && (isASCIIWord(byte(r)) || strings.ContainsRune("/:.-_%~+=&@?#", r))
}
