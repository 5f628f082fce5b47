package listsel

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Entry is one entry of the numbered list a reply presents: its number and its
// text without the number and markup ("**Dune** (2021) — …" gives
// "Dune (2021) — …").
type Entry struct {
	N    int
	Text string
}

// Entries is the numbered list an assistant reply presents, or nil when it
// presents none.
//
// An entry is a line that starts with a number and a delimiter: "1. X",
// "1) X", "1、X", "1．X", "(1) X", "**1.** X", "- 1. X", "### 1. X", or a
// Chinese ordinal, "第一，X", "一、X", "（一）X". After "." or ")" comes a
// space or a non-ASCII character, so "1.5 hours" and "3.14" are not entries.
// Numbering starts at 1 and goes up by one; a line numbered 1 starts a new
// list, and the reply's last list is the one presented ("1." on every line,
// which Markdown renders as 1, 2, 3, is no list). A number that breaks
// the sequence (1, 2, 4) spoils the list it is in: the reply then presents no
// list rather than a list whose positions may be off. Lines indented deeper
// than the list (a nested list), unnumbered lines between entries and lines
// inside fenced code blocks are passed over.
//
// A single line may also hold a whole list, "1) A; 2) B; 3) C" or "1. A 2. B
// 3. C": at least two markers numbered 1, 2, … in order with the same
// delimiter, each at the start of the line or after a space or a separator,
// and no other marker on the line. Years ("in 2021."), decimals ("8.5") and
// counts ("top 10 films") are not markers.
func Entries(reply string) []Entry {
	var l lister
	fenced := false
	for _, line := range strings.Split(reply, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		indent := indentOf(line)
		if inl := inlineEntries(trimmed); inl != nil {
			for _, e := range inl {
				l.add(e, indent)
			}
			continue
		}
		if n, text, ok := lineMarker(trimmed); ok {
			if text = clean(text); text != "" {
				l.add(Entry{N: n, Text: text}, indent)
			}
		}
	}
	if l.broken || l.ones || len(l.cur) == 0 {
		return nil
	}
	return l.cur
}

// lister assembles numbered lines into lists, keeping the current (last) one.
type lister struct {
	cur    []Entry
	indent int  // indentation of the current list's first entry
	broken bool // the current list's numbering went wrong
	// ones is set while the current list is a lone "1." that came right after
	// another lone "1.": Markdown renders "1. A", "1. B", "1. C" as 1, 2, 3,
	// so the positions the user sees are not the numbers written.
	ones bool
}

// add takes the next numbered line.
func (l *lister) add(e Entry, indent int) {
	switch {
	case len(l.cur) > 0 && indent >= l.indent+2:
		// A nested list under an entry: not the list presented.
	case e.N == 1:
		l.ones = len(l.cur) == 1 && !l.broken && (l.ones || l.cur[0].N == 1)
		l.cur, l.indent, l.broken = []Entry{e}, indent, false
	case !l.broken && len(l.cur) > 0 && e.N == len(l.cur)+1:
		l.cur, l.ones = append(l.cur, e), false
	default:
		l.broken = true
	}
}

// indentOf is the width of a line's leading white space, a tab counting four.
func indentOf(line string) int {
	n := 0
	for _, r := range line {
		switch r {
		case ' ':
			n++
		case '\t':
			n += 4
		case '\u3000':
			n += 2
		default:
			return n
		}
	}
	return n
}

// lineMarker reads the number at the start of a (trimmed) line and returns the
// rest of the line, before clean.
func lineMarker(s string) (int, string, bool) {
	s = stripLead(s)
	bold := false
	if strings.HasPrefix(s, "**") || strings.HasPrefix(s, "__") {
		s, bold = s[2:], true
	}
	n, rest, ok := numberMarker(s)
	if !ok {
		n, rest, ok = zhMarker(s)
	}
	if !ok {
		return 0, "", false
	}
	if bold && (strings.HasPrefix(rest, "**") || strings.HasPrefix(rest, "__")) {
		rest = rest[2:]
	}
	return n, rest, true
}

// stripLead removes what may precede a list number on a line: a Markdown
// heading ("### "), a bullet ("- ", "* ", "• ") and a block quote ("> ").
func stripLead(s string) string {
	s = strings.TrimLeft(s, "> ")
	if h := strings.TrimLeft(s, "#"); len(h) < len(s) && len(s)-len(h) <= 6 && strings.HasPrefix(h, " ") {
		s = strings.TrimLeft(h, " ")
	}
	for _, b := range []string{"- ", "* ", "+ ", "• ", "· "} {
		if strings.HasPrefix(s, b) {
			return strings.TrimLeft(s[len(b):], " ")
		}
	}
	return s
}

// numberMarker reads "1.", "1)", "1、", "1．", "1）", "(1)" or "（1）" (the
// digits ASCII or full-width, at most three) at the start of s.
func numberMarker(s string) (int, string, bool) {
	paren := false
	if r, size := utf8.DecodeRuneInString(s); halfWidth(r) == '(' {
		s, paren = s[size:], true
	}
	n, count, size := leadingDigits(s)
	if count == 0 || count > 3 || n == 0 {
		return 0, "", false
	}
	s = s[size:]
	d, dsize := utf8.DecodeRuneInString(s)
	d = halfWidth(d)
	switch {
	case paren && d == ')':
	case !paren && (d == '.' || d == ')' || d == '、'):
	default:
		return 0, "", false
	}
	rest := s[dsize:]
	if !markerFollows(rest, s[:dsize]) {
		return 0, "", false
	}
	return n, rest, true
}

// markerFollows reports whether the text after a list delimiter can start an
// entry. After an ASCII "." or ")" a space, a non-ASCII character or Markdown
// must follow, so that "3.14", "1.5x" and "e.g." are not read as numbers; after
// any delimiter, a digit never follows ("1、2" and "1．5" are not entries).
func markerFollows(rest, delim string) bool {
	r, _ := utf8.DecodeRuneInString(rest)
	if rest == "" || unicode.IsDigit(halfWidth(r)) {
		return false
	}
	if delim != "." && delim != ")" {
		return true
	}
	return unicode.IsSpace(r) || r >= utf8.RuneSelf || strings.ContainsRune("*_[\"'`", r)
}

// zhMarker reads a Chinese ordinal marker: "第一，" / "第一、" / "第一：",
// "一、" or "（一）", with Chinese numerals.
func zhMarker(s string) (int, string, bool) {
	rs := []rune(s)
	i, paren, ordinal := 0, false, false
	if len(rs) > 0 && halfWidth(rs[0]) == '(' {
		i, paren = 1, true
	} else if len(rs) > 0 && rs[0] == '第' {
		i, ordinal = 1, true
	}
	n, size, notPos := zhNumber(rs[i:])
	if size == 0 || notPos {
		return 0, "", false
	}
	i += size
	if i >= len(rs) {
		return 0, "", false
	}
	d := halfWidth(rs[i])
	switch {
	case paren && d == ')':
	case ordinal && (d == ',' || d == '、' || d == ':'):
	case !paren && !ordinal && d == '、':
	default:
		return 0, "", false
	}
	rest := string(rs[i+1:])
	if !markerFollows(rest, "、") {
		return 0, "", false
	}
	return n, rest, true
}

// inlineEntries splits a line that holds a whole numbered list ("1) A; 2) B;
// 3) C", "1. A 2. B 3. C"), or returns nil.
func inlineEntries(line string) []Entry {
	var marks []inlineMark
	prev := rune(-1) // rune before i; -1 at the start
	for i := 0; i < len(line); {
		if prev == -1 || unicode.IsSpace(prev) || strings.ContainsRune(";；,，:：。", prev) {
			if m, ok := readInlineMark(line, i); ok {
				marks = append(marks, m)
				prev, _ = utf8.DecodeLastRuneInString(line[:m.end])
				i = m.end
				continue
			}
		}
		r, w := utf8.DecodeRuneInString(line[i:])
		prev, i = r, i+w
	}
	if len(marks) < 2 || marks[0].n != 1 {
		return nil
	}
	for k, m := range marks {
		if m.n != k+1 || m.delim != marks[0].delim {
			return nil
		}
	}
	out := make([]Entry, 0, len(marks))
	for k, m := range marks {
		end := len(line)
		if k+1 < len(marks) {
			end = marks[k+1].start
		}
		text := trimJoiners(clean(line[m.end:end]))
		if text == "" {
			return nil
		}
		out = append(out, Entry{N: m.n, Text: text})
	}
	return out
}

// inlineMark is a list marker found inside a line.
type inlineMark struct {
	n          int
	delim      string // ".", ")", "、" or "()"
	start, end int    // byte offsets of the marker in the line
}

// readInlineMark reads a list marker at byte offset i of line: a number up to
// 99 followed by ")", ".", "、" or "）", or a number in parentheses.
func readInlineMark(line string, i int) (inlineMark, bool) {
	s := line[i:]
	paren := false
	if r, size := utf8.DecodeRuneInString(s); halfWidth(r) == '(' {
		paren, s = true, s[size:]
	}
	n, count, size := leadingDigits(s)
	if count == 0 || n == 0 || n > 99 {
		return inlineMark{}, false
	}
	d, dsize := utf8.DecodeRuneInString(s[size:])
	d = halfWidth(d)
	delim := string(d)
	switch {
	case paren && d == ')':
		delim = "()"
	case !paren && (d == ')' || d == '.' || d == '、'):
	default:
		return inlineMark{}, false
	}
	rest := s[size+dsize:]
	if !markerFollows(rest, string(d)) {
		return inlineMark{}, false
	}
	return inlineMark{n: n, delim: delim, start: i, end: len(line) - len(rest)}, true
}

// trimJoiners removes what joins the entries of a list written on one line:
// separators and a closing "and"/"or" ("1) A, 2) B and 3) C").
func trimJoiners(s string) string {
	for {
		t := strings.TrimRight(s, " ;；,，。.、")
		for _, j := range []string{" and", " or", "和", "或", "以及", "还有"} {
			t = strings.TrimSuffix(t, j)
		}
		t = strings.TrimSpace(t)
		if t == s {
			return s
		}
		s = t
	}
}

// clean removes Markdown from an entry's text: emphasis and code marks, and
// links, which become their text followed by the address in parentheses so
// that Match can still find a URL. A "*" between two letters or digits stays
// ("M*A*S*H"). White space is collapsed.
func clean(s string) string {
	s = strings.NewReplacer("**", "", "__", "", "`", "", "![", "[").Replace(s)
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '*' && !(i > 0 && i+1 < len(s) && isASCIIWord(s[i-1]) && isASCIIWord(s[i+1])) {
			continue
		}
		if c == '[' {
			if close := strings.IndexByte(s[i:], ']'); close > 0 && strings.HasPrefix(s[i+close:], "](") {
				if end := strings.IndexByte(s[i+close:], ')'); end > 0 {
					b.WriteString(s[i+1 : i+close])
					b.WriteString(" (")
					b.WriteString(s[i+close+2 : i+close+end])
					b.WriteString(")")
					i += close + end
					continue
				}
			}
		}
		b.WriteByte(c)
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// isASCIIWord reports whether c is an ASCII letter or digit.
func isASCIIWord(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
