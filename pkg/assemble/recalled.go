package assemble

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/recallhq/recall/pkg/when"
)

// Recalled is what the user's whole history holds that the current message
// needs: past turns, summaries and facts found by searching for the message,
// most relevant first, each with its date. It is nil in a context asked for
// without a query.
type Recalled struct {
	// Query is the current message the history was searched for.
	Query string
	// Search says how it was searched: "hybrid" (terms and vectors) or
	// "lexical" (terms only: no embedder, or it failed; see Cuts).
	Search string
	Hits   []RecalledHit
	Cuts   []Cut
	Notes  []RecalledNote
	// During are the times the query names that the search lifted
	// (MessageTimes), in the user's zone.
	During []when.Span
	// dates has the budget follow each turn it considers with what its
	// relative dates meant (ResolveDates).
	dates bool
}

// RecalledNote says why the search ran short of what it was asked, without
// failing the context: {"reason": "embedder", "detail": "timeout"}.
type RecalledNote struct {
	Reason string
	Detail string
}

// RecalledHit is one snippet of the user's past.
type RecalledHit struct {
	// Kind is message, summary or fact.
	Kind      string
	EventID   string
	SessionID string
	// Role is the speaker of a message.
	Role       string
	OccurredAt time.Time
	// Text is the snippet as the prompt shows it: the entry's text as
	// remembered prose (one line, no bracket: writeRemembered), cut to the
	// snippet length at a word boundary where there is one.
	Text      string
	Truncated bool
	Score     float64
	// runes is the length of Text once it is ready.
	runes int
	// ready is set once Text is as the prompt shows it (prepare).
	ready bool
}

// prepare makes h's text remembered prose (writeRemembered) and counts it,
// once: Recall prepares the hits it makes, and a hit made otherwise is
// prepared where it is first measured, before anything (a date's note) is
// written after it.
func (h *RecalledHit) prepare() {
	if h.ready {
		return
	}
	n, change := scanText(h.Text)
	if change {
		h.Text = remembered(h.Text)
		n = utf8.RuneCountInString(h.Text)
	}
	h.runes, h.ready = n, true
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
// beginning, which is what names the turn. Recall takes hits over: the part
// holds its array.
func Recall(query, search string, hits []RecalledHit, w Window, snippetRunes int) *Recalled {
	// A window is usually short enough to look through: a map for a long
	// one only.
	var ids map[string]bool
	if len(w.Messages) > 16 {
		ids = make(map[string]bool, len(w.Messages))
		for _, m := range w.Messages {
			ids[m.EventID] = true
		}
	}
	shown := func(id string) bool {
		if ids != nil {
			return ids[id]
		}
		for i := range w.Messages {
			if w.Messages[i].EventID == id {
				return true
			}
		}
		return false
	}
	r := &Recalled{Query: query, Search: search, Hits: hits[:0]}
	inWindow := 0
	for _, h := range hits {
		if h.Kind == RecalledMessage && shown(h.EventID) {
			inWindow++
			continue
		}
		h.prepare()
		if snippetRunes > 0 && h.runes > snippetRunes {
			h.Text, h.Truncated = cutRunes(h.Text, snippetRunes), true
			h.runes = utf8.RuneCountInString(h.Text)
		}
		r.Hits = append(r.Hits, h)
	}
	if inWindow > 0 {
		r.Cuts = append(r.Cuts, Cut{Reason: "window", Count: int64(inWindow)})
	}
	return r
}

// ResolveDates has each recalled turn that says "yesterday", "last week",
// 上周五 and the like followed by what those meant on the day it was said
// (RelativeNote), counted in its length. The notes are written as the
// budget considers each turn (fitRecalled), so the turns it never reaches
// are not read for them.
func (r *Recalled) ResolveDates() { r.dates = true }

// withDates is h followed by what its relative dates meant, when it is a
// turn that holds any, and the characters that added.
func withDates(h RecalledHit, zone *time.Location) (RecalledHit, int) {
	if h.Kind != RecalledMessage {
		return h, 0
	}
	h.prepare()
	note := when.RelativeNote(h.Text, h.OccurredAt.In(zone))
	if note == "" {
		return h, 0
	}
	added := utf8.RuneCountInString(note)
	h.Text += note
	h.runes += added
	return h, added
}

// cutRunes keeps the first n characters of s, backing off to the last space
// in its final fifth so a word is not cut in half, and marks the cut.
func cutRunes(s string, n int) string { return CutAtWord(s, n) + "…" }

// CutAtWord keeps the first n characters of s (all of it when shorter),
// backing off to the last space in their final fifth so a word is not cut
// in half; it adds no mark.
func CutAtWord(s string, n int) string {
	end := len(s)
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
	return cut
}

// recalledGroup is the conversation a recalled turn belongs to in the
// prompt: its session and day (in the context's zone, as the dates are
// written).
type recalledGroup struct {
	session string
	day     int // year, month and day as yyyymmdd
}

// dayKey is the day of t, in t's location, as yyyymmdd.
func dayKey(t time.Time) int { return dateKey(t.Date()) }

// dateKey is a date as yyyymmdd.
func dateKey(y int, m time.Month, d int) int { return y*10000 + int(m)*100 + d }

// recalledGroupOf returns the group of a hit and whether other hits may
// share it: turns of one session and day do; summaries and facts stand alone.
func recalledGroupOf(h RecalledHit, zone *time.Location) (recalledGroup, bool) {
	if h.Kind != RecalledMessage {
		return recalledGroup{}, false
	}
	return recalledGroup{h.SessionID, dayKey(h.OccurredAt.In(zone))}, true
}

// dates writes the days of recalled lines, each day once, with how long
// before now each was when now is set.
type dates struct {
	ph  phrases
	now time.Time
	// zone is the zone the days are reckoned in (Parts.Zone; nil: UTC).
	zone *time.Location
	// in is the unit the message asks a time in (askedUnit); with
	// between, it asks how long passed between two things (asksBetween),
	// and each day after the first says how far it is from first, the
	// first day written.
	in      int
	between bool
	first   int // civilDay
	// days are the days written so far: a few dozen at most, searched
	// newest first (hits of one conversation come together).
	days []day
	// today is now's civilDay in the zone, once a day is written.
	today    int
	todaySet bool
}

type day struct {
	key  int
	text string
}

func (d *dates) of(t time.Time) string {
	zone := d.zone
	if zone == nil {
		zone = time.UTC
	}
	t = t.In(zone)
	y, m, dd := t.Date()
	k := dateKey(y, m, dd)
	for i := len(d.days) - 1; i >= 0; i-- {
		if d.days[i].key == k {
			return d.days[i].text
		}
	}
	// The day's text is built in one buffer: one allocation a day.
	var buf [128]byte
	b := d.ph.date(buf[:0], t)
	if !d.now.IsZero() {
		// Calendar days between the two days (in the zone, as the dates
		// are written), so a turn of last night is "yesterday" this
		// morning, whatever the length of the days between (23 or 25
		// hours where the clocks change).
		if !d.todaySet {
			d.today, d.todaySet = civilDay(d.now.In(zone).Date()), true
		}
		day := civilDay(y, m, dd)
		if n := d.today - day; n >= 0 {
			b = d.ph.ago(append(b, d.ph.agoSep...), n, d.in)
		}
		if d.between {
			if len(d.days) == 0 {
				d.first = day
			} else if g := d.first - day; g != 0 {
				b = d.ph.gap(append(b, d.ph.gapSep...), g, d.in)
			}
		}
	}
	s := string(b)
	if d.days == nil {
		d.days = make([]day, 0, 16)
	}
	d.days = append(d.days, day{k, s})
	return s
}

// civilDay is the number of days from 1 January 1970 to a date of the
// proleptic Gregorian calendar (negative before it): the difference of two
// is the calendar days between them, with no clock or zone involved.
func civilDay(y int, m time.Month, d int) int {
	// Years from March, so that the leap day ends a year (the days-from-
	// civil algorithm of H. Hinnant's date library).
	if m <= 2 {
		y--
	}
	era := y
	if era < 0 {
		era -= 399
	}
	era /= 400
	yoe := y - era*400
	mp := (int(m) + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// recalledLine is a hit as the prompt shows it: "[Mon 8 May 2023] User: …"
// ("[2023年5月8日 周一] 用户：…") for the first line of its group (see
// fitRecalled), "  Assistant: …" for the next ones. The date is written out
// with its weekday: a snippet says "yesterday" or "last Sunday", and a model
// can only tell which day that was from the day it was said.
func recalledLine(ph phrases, d *dates, h RecalledHit, dated bool) string {
	var b strings.Builder
	b.Grow(len(h.Text) + 48)
	if dated {
		b.WriteByte('[')
		b.WriteString(d.of(h.OccurredAt))
		b.WriteString("] ")
	} else {
		b.WriteString(recalledIndent)
	}
	b.WriteString(recalledLabel(ph, h))
	b.WriteString(ph.colon)
	b.WriteString(h.Text)
	return b.String()
}

// recalledIndent opens a line that continues its group's date.
const recalledIndent = "  "

// recalledLineRunes is the length of recalledLine, without writing it.
func recalledLineRunes(ph phrases, d *dates, h RecalledHit, dated bool) int {
	text := h.runes
	if text == 0 {
		text = utf8.RuneCountInString(h.Text)
	}
	n := utf8.RuneCountInString(recalledLabel(ph, h)) + utf8.RuneCountInString(ph.colon) + text
	if dated {
		return n + utf8.RuneCountInString(d.of(h.OccurredAt)) + 3
	}
	return n + len(recalledIndent)
}

// recalledLabel names what a line holds: its speaker's role, or summary or
// interest.
func recalledLabel(ph phrases, h RecalledHit) string {
	switch h.Kind {
	case RecalledSummary:
		return ph.summaryLabel
	case RecalledFact:
		return ph.factLabel
	}
	if label, ok := ph.roles[h.Role]; ok {
		return label
	}
	return h.Role
}
