package assemble

import "strings"

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
	Cuts     []Cut
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
func (p *Profile) Empty() bool { return p == nil || len(p.About)+len(p.Requests) == 0 }

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
