// Package assemble turns stored memory into the context a chat backend puts into
// its next prompt: it trims the session window by count, characters and age, and
// renders the parts as a prompt block framed as context and preference, never as a
// source of facts. It is pure logic; the API does the reads.
package assemble

import (
	"time"
	"unicode/utf8"

	"github.com/recallhq/recall/pkg/record"
)

// WindowLimits bound the recent window. Each is overridable per request.
type WindowLimits struct {
	Messages int
	Chars    int
	TTL      time.Duration
}

// DefaultWindow is 10 messages, 4000 characters, 24 hours.
var DefaultWindow = WindowLimits{Messages: 10, Chars: 4000, TTL: 24 * time.Hour}

// Cut says how many entries (messages, facts) were left out of a part and why.
type Cut struct {
	Reason string // "count", "ttl", "chars", "role"; for facts "count", "expired", "decayed"
	Count  int64
}

// Window is the trimmed recent window, oldest first.
type Window struct {
	Messages []record.Message
	Chars    int
	// Truncated is set when the newest message alone was over the character budget
	// and was cut short.
	Truncated bool
	Cuts      []Cut
}

// Counts are a session's totals, so that what the fetched messages leave out is
// accounted for too: the messages older than the fetched ones, and the system turns
// (which the store may already have left out).
type Counts struct {
	Messages int64
	System   int64
}

// TrimWindow builds the window from a session's newest messages (newest first, at
// most lim.Messages of them) and the session's totals. Messages older
// than now−TTL are dropped, system prompts are never replayed into a later prompt,
// and the character budget (in characters, not bytes) keeps the newest messages
// that fit whole; if the newest does not fit alone it is truncated rather than lost.
// The window is contiguous: once a message does not fit, no older one is taken.
// Every message left out is counted under the first reason that applies to it.
func TrimWindow(newestFirst []record.Message, c Counts, lim WindowLimits, now time.Time) Window {
	var w Window
	var ttlCut, countCut, charCut, systemSeen int64
	for _, m := range newestFirst {
		if m.Role == "system" {
			systemSeen++
		}
	}
	unfetched := max(c.Messages-int64(len(newestFirst)), 0)
	unfetchedSystem := min(max(c.System-systemSeen, 0), unfetched)
	countCut = unfetched - unfetchedSystem
	roleCut := unfetchedSystem
	kept := make([]record.Message, 0, len(newestFirst))
	var cutoff time.Time
	if lim.TTL > 0 {
		cutoff = now.Add(-lim.TTL)
	}
	full := false
	for _, m := range newestFirst {
		switch {
		case !cutoff.IsZero() && m.OccurredAt.Before(cutoff):
			ttlCut++
		case m.Role == "system":
			roleCut++
		case lim.Messages > 0 && len(kept) >= lim.Messages:
			countCut++
		case full:
			charCut++
		default:
			n := utf8.RuneCountInString(m.Content)
			if lim.Chars > 0 && w.Chars+n > lim.Chars {
				full = true
				if len(kept) > 0 {
					charCut++
					continue
				}
				m.Content = truncateRunes(m.Content, lim.Chars)
				w.Truncated = true
				n = utf8.RuneCountInString(m.Content)
			}
			w.Chars += n
			kept = append(kept, m)
		}
	}
	w.Cuts = appendCut(w.Cuts, "count", countCut)
	w.Cuts = appendCut(w.Cuts, "ttl", ttlCut)
	w.Cuts = appendCut(w.Cuts, "chars", charCut)
	w.Cuts = appendCut(w.Cuts, "role", roleCut)
	for i, j := 0, len(kept)-1; i < j; i, j = i+1, j-1 {
		kept[i], kept[j] = kept[j], kept[i]
	}
	w.Messages = kept
	return w
}

func appendCut(cuts []Cut, reason string, n int64) []Cut {
	if n <= 0 {
		return cuts
	}
	for i := range cuts {
		if cuts[i].Reason == reason {
			cuts[i].Count += n
			return cuts
		}
	}
	return append(cuts, Cut{Reason: reason, Count: n})
}

// truncateRunes keeps the first n-1 characters and marks the cut with "…".
func truncateRunes(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if !Longer(s, n) {
		return s
	}
	i := 0
	for k := 0; k < n-1; k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i] + "…"
}
