package assemble

import (
	"strings"
	"time"
)

// Profile is who the user is and what they asked for, as the context states
// it: the current values of their profile's keys (pkg/attribute resolves
// them), each key one entry. It is in every context, whatever the query:
// a standing request ("never suggest peanuts") must reach the prompt
// whether or not the current message shares a word with it.
type Profile struct {
	// About are the keys that say who the user is ("lives in: Berlin").
	About []ProfileEntry
	// Requests are what the user asked the assistant to do ("reply in:
	// English"), to be followed unless the current message says otherwise.
	Requests []ProfileEntry
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

// ProfileEntry is one key's current values.
type ProfileEntry struct {
	Key string
	// Label names the key in each language of the prompt (en, zh); Key
	// stands in where a language has none.
	Label  map[string]string
	Values []string
}

// Empty reports whether the profile has nothing to say.
func (p *Profile) Empty() bool {
	return p == nil || len(p.About)+len(p.Requests)+len(p.Statements) == 0
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

// profileEntryText is an entry's text in the prompt: "label: value, value".
func profileEntryText(ph phrases, e ProfileEntry) string {
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

// profileLines are the entries' texts, about first, then requests.
func profileLines(ph phrases, p *Profile) (about, requests []string) {
	if p == nil {
		return nil, nil
	}
	for _, e := range p.About {
		about = append(about, profileEntryText(ph, e))
	}
	for _, e := range p.Requests {
		requests = append(requests, profileEntryText(ph, e))
	}
	return about, requests
}

// profileLine joins a group's entries under its opening: one line.
func profileLine(ph phrases, open string, entries []string) string {
	if len(entries) == 0 {
		return ""
	}
	return open + strings.Join(entries, ph.entrySep)
}

// profileSize is what entry i of a group costs in the prompt: its text,
// and the group's opening (first) or the separator before it.
func profileSize(ph phrases, open string, i int, s string) int {
	if i == 0 {
		return runes(open) + runes(s) + 1
	}
	return runes(ph.entrySep) + runes(s)
}
