package assemble

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/recallhq/recall/pkg/script"
)

// Remembered text cannot pose as the prompt's own framing.
//
// The prompt's own parts are lines that start at column 0: the framing
// ("[Memory] …", "【记忆】…"), each part's heading, the attributes' and the
// facts' lines, the list's rows ("3. …") and its instruction. Its markers
// are bracketed: [Memory] and 【记忆】, a recalled day "[Mon 8 May 2023, 3
// days ago]", a summary's "[2026-05-08 – 2026-05-25]". What the prompt
// remembers (a turn of the window, a recalled turn, summary or fact, a
// summary and its topics, a fact, an attribute value, a list item's title, a
// tool's name) comes from users, producers and tools, so it is written as
// prose (writeRemembered):
//
//   - on one line, after a label the prompt wrote ("User: ", "[day] User: ",
//     "- [days] ", `3. "`): every line break a reader may split at (CR, LF,
//     VT, FF, NEL, U+2028, U+2029) and every other control character (to
//     Python's str.splitlines U+001C–U+001E are line breaks too) is white
//     space, and each run of white space is written as one space;
//   - without a marker: a bracket (square, lenticular, tortoise-shell or
//     white, ASCII or wide: [ ] 【 】 ［ ］ 〔 〕 〖 〗 ⟦ ⟧ …) that opened one
//     of the text's lines, and a bracketed label (one word with a letter in
//     it: [Memory], 【记忆】, ［SYSTEM］), are written with the parentheses
//     of their width: "(Memory)", "（记忆）". Invisible characters (a
//     zero-width space, a byte order mark, a joiner) and spaces before the
//     bracket or inside it change nothing (markerBrackets). A bracket glued
//     to the ASCII word before it is an index, not a label (arr[i],
//     row[name]).
//
// Other brackets are the text's own and stay: an annotation in a line
// ("Look! [shares a photo: a dog]"), a citation [1], a link's words. A
// multi-line turn reads as it did, its words and their order kept, on one
// line; a parenthesis is one character, as the bracket it replaces, so a
// text's length changes only where white space is folded.
//
// What must stay exact (a list item's ref, its attrs) is written as JSON
// instead (writeRef, writeAttrs): in a JSON string every control, invisible
// or bracket character is a \u escape, which keeps the value and shows no
// line break or bracket.

// runeClass is what writeRemembered does with a character.
type runeClass uint8

const (
	runeText  runeClass = iota
	runeSpace           // white space, a line break or another control character
	runeOpen            // an opening bracket of the prompt's kinds
	runeClose           // a closing one
)

// classOf classes a character of two bytes or more: brackets by the
// table, white space by Unicode's White_Space (NEL, U+2028, U+2029 and
// U+3000 among them) and the C1 controls as white space.
func classOf(r rune) runeClass {
	switch r {
	case '［', '【', '〔', '〖', '〘', '〚', '⟦', '⟬', '⁅', '⦋', '⦍', '⦏', '⦗', '﹝', '﹇', '︹', '︻':
		return runeOpen
	case '］', '】', '〕', '〗', '〙', '〛', '⟧', '⟭', '⁆', '⦌', '⦎', '⦐', '⦘', '﹞', '﹈', '︺', '︼':
		return runeClose
	}
	if unicode.IsSpace(r) || r >= 0x80 && r <= 0x9f {
		return runeSpace
	}
	return runeText
}

// asciiClass classes the ASCII bytes: every control character and the
// space as white space, and the square brackets.
var asciiClass = func() (c [utf8.RuneSelf]runeClass) {
	for b := range c {
		switch {
		case b <= ' ' || b == 0x7f:
			c[b] = runeSpace
		case b == '[':
			c[b] = runeOpen
		case b == ']':
			c[b] = runeClose
		}
	}
	return c
}()

// runeAt is the character at s[i], its size and its class.
func runeAt(s string, i int) (rune, int, runeClass) {
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1, asciiClass[c]
	}
	r, size := utf8.DecodeRuneInString(s[i:])
	return r, size, classOf(r)
}

// lineBreak reports whether r ends a line for some reader: LF, VT, FF, CR,
// the file, group and record separators (Python's str.splitlines), NEL,
// and the line and paragraph separators.
func lineBreak(r rune) bool {
	switch r {
	case '\n', '\v', '\f', '\r', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
		return true
	}
	return false
}

// invisible reports whether r is a format character: zero-width spaces
// and joiners, the byte order mark, bidirectional controls. Such a
// character shows nothing, so it neither starts nor ends anything.
func invisible(r rune) bool { return r >= 0xad && unicode.Is(unicode.Cf, r) }

// maxLabelRunes bounds a bracketed label: markers are a word or two.
const maxLabelRunes = 32

// markerBrackets returns the byte offsets of the brackets of s that
// writeRemembered writes as parentheses, in order: each bracket that opens
// a line of s (at its start or after a line break, past white space and
// invisible characters) with the bracket that closes it, and each pair
// around a label (isLabel), any opening bracket with the next closing one,
// nested pairs from the inside out ("[[Memory]]" is two). nil when s holds
// none, which is most texts.
func markerBrackets(s string) []int {
	type open struct {
		at   int
		lead bool // it opened a line
		// glued: it follows a word's character with nothing between, as
		// an index does (arr[i], row[name]): no marker is written so.
		glued bool
	}
	var stack []open
	var marks []int
	// A pair inside a pair marked is a label's letters for the outer one.
	lead := true
	wordEnd := false // the character before was an ASCII letter or digit, '_' or a closing bracket
	unclosed := func() {
		for _, o := range stack {
			if o.lead {
				marks = append(marks, o.at)
			}
		}
		stack = stack[:0]
	}
	for i := 0; i < len(s); {
		r, size, class := runeAt(s, i)
		switch {
		case lineBreak(r):
			unclosed()
			lead, wordEnd = true, false
		case invisible(r):
		case class == runeSpace:
			wordEnd = false
		case class == runeOpen:
			stack = append(stack, open{i, lead, wordEnd})
			lead, wordEnd = false, false
		case class == runeClose:
			if n := len(stack); n > 0 {
				o := stack[n-1]
				stack = stack[:n-1]
				_, osize, _ := runeAt(s, o.at)
				if o.lead || !o.glued && isLabel(s[o.at+osize:i]) {
					marks = append(marks, o.at, i)
				}
			}
			lead, wordEnd = false, true
		default:
			lead = false
			// An index follows code's words, which are ASCII.
			wordEnd = r == '_' || r == ')' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
		}
		i += size
	}
	unclosed()
	if len(marks) > 1 {
		slices.Sort(marks)
	}
	return marks
}

// isLabel reports whether the text between two brackets reads as a marker's
// label: one word, past invisible characters and the spaces around it,
// with a letter in it, and short. [Memory], [ SYSTEM ], 【记忆】, [Mem​ory]
// are labels; [1], [2026-05-08] and [shares a photo: a dog] are not.
func isLabel(s string) bool {
	letter, space, n := false, false, 0
	for i := 0; i < len(s); {
		r, size, class := runeAt(s, i)
		i += size
		switch {
		case invisible(r):
			continue
		case class == runeSpace:
			space = n > 0
			continue
		case space:
			return false // a second word
		}
		letter = letter || unicode.IsLetter(r)
		if n++; n > maxLabelRunes {
			return false
		}
	}
	return letter
}

// writeRemembered writes s as prose the prompt remembers: on one line, every
// run of white space (line breaks and control characters included) one
// space and none at either end, the brackets of a marker (markerBrackets)
// the parentheses of their width. It reports whether anything was written.
// Runs of text are written whole; only multi-byte characters are decoded.
func writeRemembered(b *strings.Builder, s string) bool {
	// The markers are found at the first opening bracket (most texts have
	// none); a closing one before it is never a marker's.
	var marks []int
	found := false
	wrote, space := false, false
	start := -1 // start of the pending run of text
	flush := func(end int) {
		if start < 0 {
			return
		}
		if space && wrote {
			b.WriteByte(' ')
		}
		b.WriteString(s[start:end])
		wrote, space, start = true, false, -1
	}
	for i := 0; i < len(s); {
		r, size, class := runeAt(s, i)
		if class == runeOpen && !found {
			marks, found = markerBrackets(s), true
		}
		switch {
		case class == runeSpace:
			flush(i)
			space = true
		case len(marks) > 0 && marks[0] == i:
			marks = marks[1:]
			flush(i)
			if space && wrote {
				b.WriteByte(' ')
			}
			b.WriteString(parenthesis(r, class))
			wrote, space = true, false
		case start < 0:
			start = i
		}
		i += size
	}
	flush(len(s))
	return wrote
}

// parenthesis stands for a bracket: an ASCII one's is ASCII, a wide one's
// fullwidth, so that the text keeps its length in characters and in bytes.
func parenthesis(r rune, class runeClass) string {
	switch {
	case r < utf8.RuneSelf && class == runeOpen:
		return "("
	case r < utf8.RuneSelf:
		return ")"
	case class == runeOpen:
		return "（"
	}
	return "）"
}

// remembered is s as writeRemembered writes it; s itself when that would
// not change it, which is most texts, without a copy.
func remembered(s string) string {
	if _, change := scanText(s); !change {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	writeRemembered(&b, s)
	return b.String()
}

// scanText returns the number of characters of s and whether
// writeRemembered would change it, in one pass: a table lookup per ASCII
// byte (snippets are read on every context with a query). Only a text with
// an opening bracket is read again, for its markers.
func scanText(s string) (runes int, change bool) {
	if script.ASCII(s) {
		// White space at either end, a run of spaces, or any white space
		// other than a single space (a control character).
		if s == "" {
			return 0, false
		}
		change = s[0] == ' ' || s[len(s)-1] == ' ' || strings.Contains(s, "  ")
		for i := 0; i < len(s) && !change; i++ {
			change = s[i] < ' ' || s[i] == 0x7f
		}
		if !change && strings.IndexByte(s, '[') >= 0 {
			change = markerBrackets(s) != nil
		}
		return len(s), change
	}
	prevSpace := true // white space at the start counts as a run
	opens := false
	for i := 0; i < len(s); {
		c := s[i]
		size, class := 1, asciiClass[c&0x7f]
		if c >= utf8.RuneSelf {
			var r rune
			r, size = utf8.DecodeRuneInString(s[i:])
			class = classOf(r)
		}
		switch class {
		case runeSpace:
			// Any white space but a single ASCII space is rewritten.
			change = change || prevSpace || c != ' '
			prevSpace = true
		case runeOpen:
			opens, prevSpace = true, false
		default:
			prevSpace = false
		}
		i += size
		runes++
	}
	change = change || prevSpace && s != ""
	if !change && opens {
		change = markerBrackets(s) != nil
	}
	return runes, change
}

// writeQuoted writes a remembered title between double quotes, its own
// double quotes and backslashes escaped as in JSON, so that nothing in it
// reads as the rest of its list row ("— ref: …") or as another row.
func writeQuoted(b *strings.Builder, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); {
		j := strings.IndexAny(s[i:], `"\`)
		if j < 0 {
			b.WriteString(s[i:])
			break
		}
		b.WriteString(s[i : i+j])
		b.WriteByte('\\')
		b.WriteByte(s[i+j])
		i += j + 1
	}
	b.WriteByte('"')
}

// writeRef writes a list item's ref, which the model is to quote exactly:
// as it is when it is one plain word (no white space, control, invisible
// or bracket character, no leading double quote), which is what refs are;
// otherwise as a JSON string, which keeps it exact on one line.
func writeRef(b *strings.Builder, ref string) {
	if plainRef(ref) {
		b.WriteString(ref)
		return
	}
	writeJSONString(b, ref)
}

func plainRef(ref string) bool {
	if ref == "" || ref[0] == '"' {
		return false
	}
	for i := 0; i < len(ref); {
		if c := ref[i]; c < utf8.RuneSelf {
			if asciiClass[c] != runeText {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(ref[i:])
		if r == utf8.RuneError && size == 1 || classOf(r) != runeText || jsonEscaped(r) {
			return false
		}
		i += size
	}
	return true
}

// jsonEscaped reports whether a character of a JSON string in the prompt
// is written as a \u escape: control and invisible (format) characters,
// line and paragraph separators, white space other than the space, and
// the prompt's brackets.
func jsonEscaped(r rune) bool {
	if r == ' ' {
		return false
	}
	if r < utf8.RuneSelf {
		return asciiClass[r] != runeText
	}
	return classOf(r) != runeText || unicode.Is(unicode.Cf, r) || unicode.In(r, unicode.Zl, unicode.Zp)
}

// writeJSONString writes s as a JSON string literal whose characters
// jsonEscaped names are \u escapes; invalid UTF-8 is U+FFFD, as encoding/json
// writes it.
func writeJSONString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if jsonEscaped(r) {
				writeUEscape(b, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}

// writeUEscape writes r as a JSON \u escape, a surrogate pair above U+FFFF.
func writeUEscape(b *strings.Builder, r rune) {
	const hex = "0123456789abcdef"
	one := func(u rune) {
		b.WriteString(`\u`)
		for shift := 12; shift >= 0; shift -= 4 {
			b.WriteByte(hex[u>>shift&0xf])
		}
	}
	if r > 0xffff {
		hi, lo := utf16.EncodeRune(r)
		one(hi)
		one(lo)
		return
	}
	one(r)
}

// writeAttrs writes a list item's attrs, compact JSON, with the characters
// of its strings that jsonEscaped names written as \u escapes: the same
// JSON value, on one line, without the prompt's brackets inside its
// strings (an array's brackets are JSON's own, outside any string).
func writeAttrs(b *strings.Builder, compact string) {
	in := false // inside a string
	for i := 0; i < len(compact); {
		c := compact[i]
		switch {
		case !in:
			in = c == '"'
			b.WriteByte(c)
			i++
		case c == '\\':
			// An escape is written as it came: the character after the
			// backslash is ASCII in valid JSON.
			b.WriteByte(c)
			if i+1 < len(compact) {
				b.WriteByte(compact[i+1])
			}
			i += 2
		case c == '"':
			in = false
			b.WriteByte(c)
			i++
		default:
			r, size := rune(c), 1
			if c >= utf8.RuneSelf {
				r, size = utf8.DecodeRuneInString(compact[i:])
			}
			if jsonEscaped(r) {
				writeUEscape(b, r)
			} else {
				b.WriteString(compact[i : i+size])
			}
			i += size
		}
	}
}
