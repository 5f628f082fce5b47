package assemble

import (
	"bytes"
	"cmp"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	gojson "github.com/goccy/go-json"

	"github.com/recallhq/recall/pkg/record"
)

// ListEntry is one item of the session's current list, with the number it was
// shown under, and its ref, title and attrs exactly as the turn sent them: the
// model quotes the real ref instead of inventing one.
type ListEntry struct {
	N     int
	Ref   string
	Title string
	Attrs json.RawMessage
}

// List is the session's current list: the items of its newest turn that
// presented one.
type List struct {
	EventID    string
	OccurredAt time.Time
	Count      int
	Items      []ListEntry
	Cuts       []Cut
}

// CurrentList builds the list part from the stored list (nil: none).
func CurrentList(l *record.PresentedList) *List {
	if l == nil {
		return nil
	}
	var items []ListEntry
	// Decoded on every context read: go-json does it in a fifth of the time.
	if err := gojson.Unmarshal(l.Items, &items); err != nil {
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

// Budget is the total character budget and how much of it the prompt uses
// (what each part left out is in its own cuts). Every character of the
// prompt counts: the framing, each part's heading, the line breaks and the
// blank lines between parts, so Used is the prompt's length and never more
// than Limit. Limit 0: none.
type Budget struct {
	Limit int
	Used  int
	// Parts is what each part spent of Used.
	Parts PartSpend
}

// PartSpend is the characters each part of the context takes in the prompt,
// its heading, line breaks and the blank line before it included
// (summaries: this session's and the previous ones'), and the framing's.
type PartSpend struct {
	Framing    int
	Attributes int
	List       int
	Window     int
	Recalled   int
	Summaries  int
	Facts      int
}

// total is what the parts spent together.
func (s PartSpend) total() int {
	return s.Framing + s.Attributes + s.List + s.Window + s.Recalled + s.Summaries + s.Facts
}

// ApplyBudget cuts the parts to at most limit characters, in priority order:
// the current list (what "3" refers to), then the recent window (newest
// first), then what the history search recalled for the current message
// (most relevant first), then this session's summary, the previous sessions' summaries
// (newest first), and the interest facts (strongest first). Within a part,
// entries are taken in that order until one does not fit; the rest of the
// part is counted as a "budget" cut, and the next part gets what is left. A
// limit ≤ 0 means no budget.
func ApplyBudget(lang string, p *Parts, limit int) Budget {
	b, _ := applyBudget(text[ResolveLang(lang, *p)], p, limit)
	return b
}

// Assemble applies the budget (ApplyBudget) and renders what is kept (Render),
// rendering each entry once for both.
func Assemble(lang string, p *Parts, limit int) (Budget, string) {
	ph := text[ResolveLang(lang, *p)]
	b, l := applyBudget(ph, p, limit)
	return b, l.write(ph)
}

func applyBudget(ph phrases, p *Parts, limit int) (Budget, lines) {
	if limit <= 0 {
		if r := p.Recalled; r != nil && r.dates {
			// Every hit is shown: each gets its notes now, once.
			for i := range r.Hits {
				r.Hits[i], _ = withDates(r.Hits[i], p.zone())
			}
			r.dates = false
		}
		l := renderLines(ph, *p)
		sp := l.spent(ph)
		return Budget{Used: sp.total(), Parts: sp}, l
	}
	// The recalled lines are rendered as they are fitted, below: each
	// depends on the hit kept before it.
	rest := *p
	rest.Recalled = nil
	l := renderLines(ph, rest)
	// The framing opens any prompt that holds anything.
	f := &fitting{ph: ph, p: p, l: &l, left: limit - runes(ph.framing)}
	f.attributes()
	f.list()
	f.window()
	f.recalled()
	f.summaries()
	f.facts()
	if p.StatementsLast {
		f.statements()
	}
	sp := l.spent(ph)
	return Budget{Limit: limit, Used: sp.total(), Parts: sp}, l
}

// fitting is a budget being spent on the parts, in the order they are
// kept (applyBudget): what is left of it, and the parts and their lines
// cut to what fits.
type fitting struct {
	ph   phrases
	p    *Parts
	l    *lines
	left int
}

// fit counts how many of the entries fit, in order, each sized by size.
func (f *fitting) fit(entries []string, size func(i int, s string) int) int {
	for i, s := range entries {
		n := size(i, s)
		if n > f.left {
			return i
		}
		f.left -= n
	}
	return len(entries)
}

// statements keeps the user's own statements, in their order (those that
// bear on the message first), within their own cap.
func (f *fitting) statements() {
	p, l := f.p, f.l
	a := p.Attributes
	if a == nil {
		return
	}
	capped := f.left
	if p.StatementLimit > 0 {
		f.left = min(f.left, p.StatementLimit)
	}
	keep := f.fit(l.statements, blockSize(f.ph.statements))
	a.Statements, l.statements, a.Cuts = a.Statements[:keep], l.statements[:keep], addCut(a.Cuts, len(a.Statements)-keep)
	if p.StatementLimit > 0 {
		f.left = capped - (min(capped, p.StatementLimit) - f.left)
	}
}

// attributes keeps who the user is and what they asked for first, within its
// own cap: a few short lines that every answer should respect. What they
// asked is kept before what they are; then their statements, unless they
// come last.
func (f *fitting) attributes() {
	p, l, ph := f.p, f.l, f.ph
	a := p.Attributes
	if a == nil {
		return
	}
	capped := f.left
	if p.AttributesLimit > 0 {
		f.left = min(f.left, p.AttributesLimit)
	}
	// The blank line before the attributes, refunded when nothing fits.
	f.left--
	keep := f.fit(l.requests, func(i int, s string) int { return attributeSize(ph, ph.asked, i, s) })
	a.Requests, l.requests, a.Cuts = a.Requests[:keep], l.requests[:keep], addCut(a.Cuts, len(a.Requests)-keep)
	keep = f.fit(l.about, func(i int, s string) int { return attributeSize(ph, ph.about, i, s) })
	a.About, l.about, a.Cuts = a.About[:keep], l.about[:keep], addCut(a.Cuts, len(a.About)-keep)
	if len(l.about)+len(l.requests) == 0 {
		f.left++
	}
	if p.AttributesLimit > 0 {
		f.left = capped - (min(capped, p.AttributesLimit) - f.left)
	}
	if !p.StatementsLast {
		f.statements()
	}
}

// list keeps the session's current list.
func (f *fitting) list() {
	if lst := f.p.List; lst != nil {
		keep := f.fit(f.l.list, blockSize(f.ph.list))
		lst.Items, lst.Cuts, f.l.list = lst.Items[:keep], addCut(lst.Cuts, len(lst.Items)-keep), f.l.list[:keep]
	}
}

// window keeps the window's newest messages (it is oldest first).
func (f *fitting) window() {
	l := f.l
	w := &f.p.Window
	newestFirst := make([]string, len(l.window))
	for i, s := range l.window {
		newestFirst[len(l.window)-1-i] = s
	}
	if cut := len(w.Messages) - f.fit(newestFirst, blockSize(f.ph.window)); cut > 0 {
		for _, m := range w.Messages[:cut] {
			w.Chars -= runes(m.Content)
		}
		w.Messages, w.Cuts, l.window = w.Messages[cut:], addCut(w.Cuts, cut), l.window[cut:]
	}
}

// recalled keeps what the history search found for the current message,
// most relevant first, before the summaries: it is what this message
// needs.
func (f *fitting) recalled() {
	p, l := f.p, f.l
	r := p.Recalled
	if r == nil {
		return
	}
	// What the summaries and facts would take, held back from the
	// recalled part up to its share, so that it cannot starve them.
	held := 0
	if share := p.RecalledShare; share > 0 && share < 1 {
		held = min(l.restSize(f.ph), int(float64(f.left)*(1-share)))
	}
	f.left -= held
	hits, lines := fitRecalled(f.ph, r.Hits, r.dates, &f.left, p.Now, p.zone(), r.Query)
	r.Hits, r.Cuts, l.recalled = hits, addCut(r.Cuts, len(r.Hits)-len(hits)), lines
	r.dates = false // the hits kept hold their notes
	f.left += held
}

// summaries keeps this session's summary, then the earlier sessions'.
func (f *fitting) summaries() {
	l := f.l
	s := &f.p.Summaries
	if s.Current != nil && f.fit([]string{l.current}, func(_ int, c string) int { return runes(c) + 2 }) == 0 {
		s.Current, s.Cuts, l.current = nil, addCut(s.Cuts, 1), ""
	}
	keep := f.fit(l.previous, blockSize(f.ph.earlier))
	s.Previous, s.Cuts, l.previous = s.Previous[:keep], addCut(s.Cuts, len(s.Previous)-keep), l.previous[:keep]
}

// facts keeps the interest facts.
func (f *fitting) facts() {
	l, ph := f.l, f.ph
	fs := &f.p.Facts
	keep := f.fit(l.facts, func(i int, s string) int { return factSize(ph, i, s) })
	if keep == 0 {
		l.facts = nil
	}
	fs.Facts, fs.Cuts, l.facts = fs.Facts[:keep], addCut(fs.Cuts, len(fs.Facts)-keep), l.facts[:keep]
}

// restSize is what the parts after the recalled one (this session's
// summary, the earlier sessions' summaries, the facts) would take whole.
func (l lines) restSize(ph phrases) int {
	n := 0
	if l.current != "" {
		n += runes(l.current) + 2
	}
	earlier := blockSize(ph.earlier)
	for i, s := range l.previous {
		n += earlier(i, s)
	}
	for i, s := range l.facts {
		n += factSize(ph, i, s)
	}
	return n
}

// blockSize is what entry i of a block part (the list, the window, the
// earlier sessions' summaries) costs in the prompt: its line and line
// break, and for the first, the blank line and the part's heading before
// it.
func blockSize(heading string) func(i int, s string) int {
	return func(i int, s string) int {
		if i == 0 {
			return runes(heading) + runes(s) + 3
		}
		return runes(s) + 1
	}
}

// fitRecalled keeps the recalled hits that fit in what is left, in order: a
// hit too long for what is left is passed over and a shorter one after it
// may still fit, so the part fills the budget instead of ending at the first
// long snippet.
//
// The lines are written by conversation: the turns kept of one session and
// day make one group, in event time, under a single date, so a hit reads
// between the turns around it and the date is paid once per group, not per
// line. Groups
// come in the order of their first hit kept, so the most relevant
// conversation still comes first; summaries and facts are a group each.
// The hits are returned most relevant first, as they were given; with
// resolve, each turn considered is followed by what its relative dates meant
// (Recalled.ResolveDates). Each day's age is said in the unit the query
// asks in too (askedUnit), and, when it asks how long passed between two
// things (asksBetween), how far the day is from the first one shown.
func fitRecalled(ph phrases, hits []RecalledHit, resolve bool, left *int, now time.Time, zone *time.Location, query string) ([]RecalledHit, []string) {
	in := askedUnit(query)
	between := asksBetween(query, in)
	// The hits are the part's own: the kept ones move to its front.
	kept := hits[:0]
	// groups[k] is the group of kept[k], numbered in order of appearance;
	// shared holds the groups turns may join (a few dozen, a few hundred at
	// the most: a linear search on the day first costs less than a map).
	groups := make([]int, 0, len(hits))
	type sharedGroup struct {
		key recalledGroup
		n   int
	}
	var shared []sharedGroup
	count := 0
	d := &dates{ph: ph, now: now, zone: zone, in: in, between: between}
	for _, h := range hits {
		if *left <= 0 {
			break
		}
		h.prepare()
		key, joins := recalledGroupOf(h, zone)
		g := -1
		if joins {
			for _, s := range shared {
				if s.key.day == key.day && s.key.session == key.session {
					g = s.n
					break
				}
			}
		}
		// Each line ends with a line break; the first kept opens the part
		// with a blank line and its heading.
		n := recalledLineRunes(ph, d, h, g < 0) + 1
		if len(kept) == 0 {
			n += runes(ph.recalled) + 2
		}
		if n > *left {
			continue
		}
		if resolve {
			// Only a turn that fits is read for its notes, which it must
			// then fit with.
			var added int
			if h, added = withDates(h, zone); n+added > *left {
				continue
			}
			n += added
		}
		*left -= n
		kept = append(kept, h)
		if g < 0 {
			g = count
			count++
			if joins {
				shared = append(shared, sharedGroup{key, g})
			}
		}
		groups = append(groups, g)
	}
	order := make([]int, len(kept))
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if c := cmp.Compare(groups[a], groups[b]); c != 0 {
			return c
		}
		return kept[a].OccurredAt.Compare(kept[b].OccurredAt)
	})
	lines := make([]string, 0, len(kept))
	for k, i := range order {
		lines = append(lines, recalledLine(ph, d, kept[i], k == 0 || groups[order[k-1]] != groups[i]))
	}
	return kept, lines
}

func addCut(cuts []Cut, n int) []Cut {
	if n <= 0 {
		return cuts
	}
	return append(cuts, Cut{Reason: "budget", Count: int64(n)})
}

// spent is the characters the lines take in the prompt, part by part.
func (l lines) spent(ph phrases) PartSpend {
	sum := func(group []string) int {
		n := 0
		for _, s := range group {
			n += runes(s)
		}
		return n
	}
	block := func(heading string, group []string) int {
		if len(group) == 0 {
			return 0
		}
		return runes(heading) + 2 + sum(group) + len(group)
	}
	sp := PartSpend{List: block(ph.list, l.list), Window: block(ph.window, l.window), Recalled: block(ph.recalled, l.recalled),
		Summaries: block(ph.earlier, l.previous)}
	if l.current != "" {
		sp.Summaries += runes(l.current) + 2
	}
	for i, s := range l.requests {
		sp.Attributes += attributeSize(ph, ph.asked, i, s)
	}
	for i, s := range l.about {
		sp.Attributes += attributeSize(ph, ph.about, i, s)
	}
	if sp.Attributes > 0 {
		sp.Attributes++
	}
	sp.Attributes += block(ph.statements, l.statements)
	for i, s := range l.facts {
		sp.Facts += factSize(ph, i, s)
	}
	if sp.total() > 0 {
		// The framing's line; the prompt's last line break is trimmed,
		// which the framing's own break pays for.
		sp.Framing = runes(ph.framing)
	}
	return sp
}

func runes(s string) int { return utf8.RuneCountInString(s) }

// Longer reports whether s has more than n characters, reading no more of it
// than it takes to tell: a hit's text runs to 65,536 bytes, and a context
// asks this of every hit and neighbour it recalls.
func Longer(s string, n int) bool {
	if len(s) <= n { // a character is one byte or more
		return false
	}
	if n < 0 {
		return true
	}
	for range s {
		if n == 0 {
			return true
		}
		n--
	}
	return false
}

// listLine is an item as the prompt shows it: `3. "Title" — ref: /mv/823D
// {attrs}`. The title is remembered prose between quotes, so that neither a
// line break nor "3. …" nor "— ref: …" in it reads as a row or a ref of the
// list; the ref and the attrs are exact (writeRef, writeAttrs).
func listLine(ph phrases, e ListEntry) string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(e.N))
	b.WriteString(". ")
	if title := remembered(e.Title); title != "" {
		writeQuoted(&b, title)
		b.WriteString(" — ")
	}
	b.WriteString(ph.ref)
	writeRef(&b, e.Ref)
	if a := compactJSON(e.Attrs); a != "" && a != "{}" && a != "null" {
		b.WriteByte(' ')
		writeAttrs(&b, a)
	}
	return b.String()
}

// compactJSON is raw without its insignificant white space; raw as a JSON
// string when it is not JSON (items are validated before they are stored),
// so that what is written is JSON either way.
func compactJSON(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		var s strings.Builder
		writeJSONString(&s, string(raw))
		return s.String()
	}
	return b.String()
}

func currentLine(ph phrases, s SessionSummary) string { return ph.current + remembered(s.Summary) }

// factSize is the characters the i-th fact (its text s) adds to the facts line:
// the line's opening for the first, a separator for the others.
func factSize(ph phrases, i int, s string) int {
	if i == 0 {
		// The blank line before, the opening, and the line break after.
		return runes(ph.interests) + runes(s) + 2
	}
	return runes(ph.sep) + runes(s)
}
