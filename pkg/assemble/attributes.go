package assemble

import (
	"strings"
	"time"
)

// Attributes are who the user is and what they asked for, as the context
// states them: the current values of their attributes' keys (pkg/attribute
// resolves them), each key one entry. They are in every context, whatever
// the query: a standing request ("never suggest peanuts") must reach the
// prompt whether or not the current message shares a word with it.
type Attributes struct {
	// About are the keys that say who the user is ("lives in: Berlin").
	About []AttributeEntry
	// Requests are what the user asked the assistant to do ("reply in:
	// English"), to be followed unless the current message says otherwise.
	Requests []AttributeEntry
	// Statements are the user's own standing statements chosen for this
	// message (the ones that bear on it first, then the strongest), each
	// shown in their words with its date.
	Statements []Statement
	Cuts       []Cut
}

// Statement is a self-statement of the user's as the context shows it.
type Statement struct {
	Text string
	At   time.Time
	// SessionID is the session it was said in, EventID the turn.
	SessionID string
	EventID   string
	// Matched reports that it was chosen for bearing on the current
	// message, not only for its strength.
	Matched bool
}

// AttributeEntry is one key's current values.
type AttributeEntry struct {
	Key string
	// Label names the key in each language of the prompt (en, zh); Key
	// stands in where a language has none.
	Label  map[string]string
	Values []string
}

// Empty reports whether the attributes have nothing to say.
func (a *Attributes) Empty() bool {
	return a == nil || len(a.About)+len(a.Requests)+len(a.Statements) == 0
}

// statementLine is a statement as the prompt shows it: "- [2024-05-01] I
// avoid …", on one line.
func statementLine(st Statement, zone *time.Location) string {
	var b strings.Builder
	b.WriteString("- ")
	if !st.At.IsZero() {
		b.WriteString("[")
		b.WriteString(st.At.In(zone).Format(time.DateOnly))
		b.WriteString("] ")
	}
	writeRemembered(&b, st.Text)
	return b.String()
}

// attributeEntryText is an entry's text in the prompt: "label: value, value".
func attributeEntryText(ph phrases, e AttributeEntry) string {
	label := e.Label[ph.lang]
	if label == "" {
		label = e.Label[LangEN]
	}
	if label == "" {
		label = e.Key
	}
	var b strings.Builder
	b.WriteString(label)
	b.WriteString(ph.colon)
	for i, v := range e.Values {
		if i > 0 {
			b.WriteString(ph.sep)
		}
		writeRemembered(&b, v)
	}
	return b.String()
}

// attributeLines are the entries' texts, about first, then requests.
func attributeLines(ph phrases, a *Attributes) (about, requests []string) {
	if a == nil {
		return nil, nil
	}
	for _, e := range a.About {
		about = append(about, attributeEntryText(ph, e))
	}
	for _, e := range a.Requests {
		requests = append(requests, attributeEntryText(ph, e))
	}
	return about, requests
}

// attributeLine joins a group's entries under its opening: one line.
func attributeLine(ph phrases, open string, entries []string) string {
	if len(entries) == 0 {
		return ""
	}
	return open + strings.Join(entries, ph.entrySep)
}

// attributeSize is what entry i of a group costs in the prompt: its text,
// and the group's opening (first) or the separator before it.
func attributeSize(ph phrases, open string, i int, s string) int {
	if i == 0 {
		return runes(open) + runes(s) + 1
	}
	return runes(ph.entrySep) + runes(s)
}
