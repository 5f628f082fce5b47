package assemble

import (
	"strings"
	"time"
	"unicode/utf8"
)

// Recalled is what the user's whole history holds that the current message
// needs: past turns, summaries and facts found by searching for the message,
// most relevant first, each with its date. It is nil in a context asked for
// without a query.
type Recalled struct {
	// Query is the current message the history was searched for.
	Query string `json:"query"`
	// Search says how it was searched: "hybrid" (terms and vectors) or
	// "lexical" (terms only: no embedder, or it failed; see Cuts).
	Search string         `json:"search"`
	Hits   []RecalledHit  `json:"hits"`
	Cuts   []Cut          `json:"cuts,omitempty"`
	Notes  []RecalledNote `json:"notes,omitempty"`
}

// RecalledNote says why the search ran short of what it was asked, without
// failing the context: {"reason": "embedder", "detail": "timeout"}.
type RecalledNote struct {
	Reason string `json:"reason"`
	Detail string `json:"detail,omitempty"`
}

// RecalledHit is one snippet of the user's past.
type RecalledHit struct {
	// Kind is message, summary or fact.
	Kind      string `json:"kind"`
	EventID   string `json:"event_id,omitempty"`
	SessionID string `json:"session_id,omitempty"`
	// Role is the speaker of a message.
	Role       string    `json:"role,omitempty"`
	OccurredAt time.Time `json:"occurred_at"`
	// Text is the snippet as the prompt shows it: the entry's text, cut to
	// the snippet length at a word boundary where there is one.
	Text      string  `json:"text"`
	Truncated bool    `json:"truncated,omitempty"`
	Score     float64 `json:"score"`
}

// Kinds of recalled hits.
const (
	RecalledMessage = "message"
	RecalledSummary = "summary"
	RecalledFact    = "fact"
)

// Recall builds the recalled part from search hits (most relevant first):
// hits the window already shows are left out (a "window" cut), and each
// snippet is cut to snippetRunes characters (0: whole) so that one long turn
// cannot take the budget of many short ones. A snippet always keeps its
// beginning, which is what names the turn.
func Recall(query, search string, hits []RecalledHit, w Window, snippetRunes int) *Recalled {
	shown := make(map[string]bool, len(w.Messages))
	for _, m := range w.Messages {
		shown[m.EventID] = true
	}
	r := &Recalled{Query: query, Search: search, Hits: make([]RecalledHit, 0, len(hits))}
	inWindow := 0
	for _, h := range hits {
		if h.Kind == RecalledMessage && shown[h.EventID] {
			inWindow++
			continue
		}
		h.Text = collapsed(h.Text)
		if snippetRunes > 0 && utf8.RuneCountInString(h.Text) > snippetRunes {
			h.Text, h.Truncated = cutRunes(h.Text, snippetRunes), true
		}
		r.Hits = append(r.Hits, h)
	}
	if inWindow > 0 {
		r.Cuts = append(r.Cuts, Cut{Reason: "window", Count: int64(inWindow)})
	}
	return r
}

// cutRunes keeps the first n characters of s, backing off to the last space
// in its final fifth so a word is not cut in half, and marks the cut.
func cutRunes(s string, n int) string {
	end := 0
	for i := range s {
		if n == 0 {
			end = i
			break
		}
		n--
	}
	cut := s[:end]
	if i := strings.LastIndexByte(cut, ' '); i > len(cut)*4/5 {
		cut = cut[:i]
	}
	return cut + "…"
}

// recalledLine is a hit as the prompt shows it: "[Mon 8 May 2023] User: …"
// ("[2023年5月8日 周一] 用户：…"). The date is written out with its weekday:
// a snippet says "yesterday" or "last Sunday", and a model can only tell
// which day that was from the day it was said.
//
// A turn of the same session and day as the line before it (a neighbour of
// a hit, the hit after its neighbour) continues that line's date instead of
// repeating it: "  Assistant: …".
func recalledLine(ph phrases, h RecalledHit, prev *RecalledHit) string {
	var b strings.Builder
	day := ph.date(h.OccurredAt.UTC())
	if prev != nil && prev.Kind == RecalledMessage && h.Kind == RecalledMessage && prev.SessionID == h.SessionID &&
		ph.date(prev.OccurredAt.UTC()) == day {
		b.WriteString("  ")
	} else {
		b.WriteByte('[')
		b.WriteString(day)
		b.WriteString("] ")
	}
	switch h.Kind {
	case RecalledSummary:
		b.WriteString(ph.summaryLabel)
	case RecalledFact:
		b.WriteString(ph.factLabel)
	default:
		label, ok := ph.roles[h.Role]
		if !ok {
			label = h.Role
		}
		b.WriteString(label)
	}
	b.WriteString(ph.colon)
	b.WriteString(h.Text)
	return b.String()
}
