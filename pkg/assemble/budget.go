package assemble

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/recallhq/recall/pkg/store"
)

// ListEntry is one item of the session's current list, with the number it was
// shown under, and its ref, title and attrs exactly as the turn sent them: the
// model quotes the real ref instead of inventing one.
type ListEntry struct {
	N     int             `json:"n"`
	Ref   string          `json:"ref"`
	Title string          `json:"title,omitempty"`
	Attrs json.RawMessage `json:"attrs,omitempty"`
}

// List is the session's current list: the items of its newest turn that
// presented one.
type List struct {
	EventID    string      `json:"event_id"`
	OccurredAt time.Time   `json:"occurred_at"`
	Count      int         `json:"count"`
	Items      []ListEntry `json:"items"`
	Cuts       []Cut       `json:"cuts,omitempty"`
}

// CurrentList builds the list part from the stored list (nil: none).
func CurrentList(l *store.PresentedList) *List {
	if l == nil {
		return nil
	}
	var items []ListEntry
	if err := json.Unmarshal(l.Items, &items); err != nil {
		// Items were validated as an array of objects before they were stored.
		items = nil
	}
	for i := range items {
		items[i].N = i + 1
	}
	if items == nil {
		items = []ListEntry{}
	}
	return &List{EventID: l.EventID, OccurredAt: l.OccurredAt, Count: len(items), Items: items}
}

// Budget is the total character budget and how much of it the parts use
// (what each part left out is in its own cuts). Characters are counted as
// rendered in the prompt, framing and headings not included. Limit 0: none.
type Budget struct {
	Limit int `json:"limit"`
	Used  int `json:"used"`
}

// ApplyBudget cuts the parts to at most limit characters, in priority order:
// the current list (what "3" refers to), then the recent window (newest
// first), then this session's summary, the previous sessions' summaries
// (newest first), and the interest facts (strongest first). Within a part,
// entries are taken in that order until one does not fit; the rest of the
// part is counted as a "budget" cut, and the next part gets what is left. A
// limit ≤ 0 means no budget.
func ApplyBudget(lang string, p *Parts, limit int) Budget {
	ph := text[ResolveLang(lang, *p)]
	if limit <= 0 {
		return Budget{Used: used(ph, *p)}
	}
	left := limit
	// fit counts how many of n entries fit, in order, sizing each with size.
	fit := func(n int, size func(i int) int) int {
		for i := range n {
			s := size(i)
			if s > left {
				return i
			}
			left -= s
		}
		return n
	}
	if l := p.List; l != nil {
		keep := fit(len(l.Items), func(i int) int { return runes(listLine(ph, l.Items[i])) })
		l.Items, l.Cuts = l.Items[:keep], addCut(l.Cuts, len(l.Items)-keep)
	}
	// The window is oldest first; its newest messages are kept.
	w := &p.Window
	keep := fit(len(w.Messages), func(i int) int { return runes(messageLine(ph, w.Messages[len(w.Messages)-1-i])) })
	if cut := len(w.Messages) - keep; cut > 0 {
		for _, m := range w.Messages[:cut] {
			w.Chars -= runes(m.Content)
		}
		w.Messages, w.Cuts = w.Messages[cut:], addCut(w.Cuts, cut)
	}
	s := &p.Summaries
	if s.Current != nil && fit(1, func(int) int { return runes(currentLine(ph, *s.Current)) }) == 0 {
		s.Current, s.Cuts = nil, addCut(s.Cuts, 1)
	}
	keep = fit(len(s.Previous), func(i int) int { return runes(summaryLine(ph, s.Previous[i])) })
	s.Previous, s.Cuts = s.Previous[:keep], addCut(s.Cuts, len(s.Previous)-keep)
	f := &p.Facts
	keep = fit(len(f.Facts), func(i int) int { return factSize(ph, f.Facts[i], i) })
	f.Facts, f.Cuts = f.Facts[:keep], addCut(f.Cuts, len(f.Facts)-keep)
	return Budget{Limit: limit, Used: limit - left}
}

func addCut(cuts []Cut, n int) []Cut {
	if n <= 0 {
		return cuts
	}
	return append(cuts, Cut{Reason: "budget", Count: int64(n)})
}

// used is the characters the parts take in the prompt.
func used(ph phrases, p Parts) int {
	n := 0
	if p.List != nil {
		for _, e := range p.List.Items {
			n += runes(listLine(ph, e))
		}
	}
	for _, m := range p.Window.Messages {
		n += runes(messageLine(ph, m))
	}
	if c := p.Summaries.Current; c != nil {
		n += runes(currentLine(ph, *c))
	}
	for _, s := range p.Summaries.Previous {
		n += runes(summaryLine(ph, s))
	}
	for i, f := range p.Facts.Facts {
		n += factSize(ph, f, i)
	}
	return n
}

func runes(s string) int { return utf8.RuneCountInString(s) }

func collapsed(s string) string {
	var b strings.Builder
	writeCollapsed(&b, s)
	return b.String()
}

// listLine is an item as the prompt shows it: "3. Title — ref: /mv/823D {attrs}".
func listLine(ph phrases, e ListEntry) string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(e.N))
	b.WriteString(". ")
	if writeCollapsed(&b, e.Title) {
		b.WriteString(" — ")
	}
	b.WriteString(ph.ref)
	b.WriteString(e.Ref)
	if a := compactJSON(e.Attrs); a != "" && a != "{}" && a != "null" {
		b.WriteByte(' ')
		b.WriteString(a)
	}
	return b.String()
}

func compactJSON(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

func messageLine(ph phrases, m store.Message) string {
	var b strings.Builder
	writeMessage(&b, ph, m)
	return strings.TrimSuffix(b.String(), "\n")
}

func summaryLine(ph phrases, s SessionSummary) string {
	var b strings.Builder
	writeSummary(&b, ph, s)
	return strings.TrimSuffix(b.String(), "\n")
}

func currentLine(ph phrases, s SessionSummary) string { return ph.current + collapsed(s.Summary) }

// factSize is the characters the i-th fact adds to the facts line (the line's
// opening for the first, a separator for the others).
func factSize(ph phrases, f WeightedFact, i int) int {
	var b strings.Builder
	if i == 0 {
		b.WriteString(ph.interests)
	} else {
		b.WriteString(ph.sep)
	}
	writeFact(&b, ph, f)
	return runes(b.String())
}
