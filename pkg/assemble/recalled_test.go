package assemble_test

import (
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/assemble"
	"github.com/recallhq/recall/pkg/record"
)

// What the history search recalled is spent after the list and the window
// and before the summaries and facts, most relevant first, dated, and never
// repeats a message the window shows.
func TestRecalledBudgetAndRendering(t *testing.T) {
	t.Parallel()
	at := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)
	w := assemble.Window{Messages: []record.Message{{EventID: "w1", Role: "user", Content: "what did I say about the lake?", OccurredAt: at.AddDate(0, 1, 0)}}}
	hits := []assemble.RecalledHit{
		{Kind: assemble.RecalledMessage, EventID: "w1", Role: "user", Text: "what did I say about the lake?", OccurredAt: at},
		{Kind: assemble.RecalledMessage, EventID: "e1", Role: "user", Text: "We camped   by the lake\nlast weekend, it was lovely and very quiet there", OccurredAt: at, Score: 0.9},
		{Kind: assemble.RecalledSummary, SessionID: "s1", Text: "Talked about camping trips.", OccurredAt: at.AddDate(0, 0, 1), Score: 0.5},
		{Kind: assemble.RecalledFact, Text: "camping", OccurredAt: at.AddDate(0, 0, 2), Score: 0.1},
	}
	hits2 := slices.Clone(hits) // Recall takes its hits over
	r := assemble.Recall("the lake", "lexical", hits, w, 30)
	require.Equal(t, []assemble.Cut{{Reason: "window", Count: 1}}, r.Cuts)
	require.Len(t, r.Hits, 3)
	require.Equal(t, "We camped by the lake last…", r.Hits[0].Text)
	require.True(t, r.Hits[0].Truncated)

	p := assemble.Parts{Window: w, Recalled: r,
		Facts: assemble.Facts{Facts: []assemble.WeightedFact{{Type: "topic", Display: "hiking", Weight: 1}}}}
	out := assemble.Render(assemble.LangEN, p)
	require.Contains(t, out, "what may bear on the current message")
	require.Contains(t, out, "[Mon 8 May 2023] User: We camped by the lake last…\n[Tue 9 May 2023] Summary: Talked about camping trips.\n[Wed 10 May 2023] Interest: camping")
	require.Less(t, strings.Index(out, "[Mon 8 May 2023] User: We camped"), strings.Index(out, "Recent conversation in this session:"))

	// A budget that holds the window and one recalled line: the rest of the
	// recalled part is a budget cut, and the facts after it get nothing.
	one := p
	one.Facts = assemble.Facts{}
	one.Recalled = assemble.Recall("the lake", "lexical", slices.Clone(hits2[:2]), w, 30)
	budget := utf8.RuneCountInString(assemble.Render(assemble.LangEN, one))
	p2 := p
	p2.Recalled = assemble.Recall("the lake", "lexical", hits2, w, 30)
	b, out := assemble.Assemble(assemble.LangEN, &p2, budget)
	require.Equal(t, budget, b.Used)
	require.Equal(t, budget, utf8.RuneCountInString(out), "every character counts")
	require.Len(t, p2.Recalled.Hits, 1)
	require.Equal(t, []assemble.Cut{{Reason: "window", Count: 1}, {Reason: "budget", Count: 2}}, p2.Recalled.Cuts)
	require.Empty(t, p2.Facts.Facts)
	require.NotContains(t, out, "Summary: Talked")
}

// In Chinese the date is written the Chinese way, with its weekday.
func TestRecalledDateInChinese(t *testing.T) {
	t.Parallel()
	at := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)
	r := assemble.Recall("三体", "lexical", []assemble.RecalledHit{{Kind: assemble.RecalledMessage, EventID: "e", Role: "user", Text: "我在读三体", OccurredAt: at}}, assemble.Window{}, 0)
	require.Contains(t, assemble.Render(assemble.LangZH, assemble.Parts{Recalled: r}), "[2023年5月8日 周一] 用户：我在读三体")
}

// The recalled turns of one session and day are written together, in the
// order they were said, under one date; groups come in the order of their
// best hit, and summaries and facts stand alone. The date paid once per
// group is what the budget counts.
func TestRecalledGroupsByConversation(t *testing.T) {
	t.Parallel()
	at := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)
	msg := func(id, session, role, text string, d time.Duration) assemble.RecalledHit {
		return assemble.RecalledHit{Kind: assemble.RecalledMessage, EventID: id, SessionID: session, Role: role, Text: text, OccurredAt: at.Add(d)}
	}
	hits := []assemble.RecalledHit{
		msg("b", "s1", "assistant", "By the lake.", time.Minute),
		msg("x", "s2", "user", "Lake again, another day.", 48*time.Hour),
		{Kind: assemble.RecalledSummary, SessionID: "s1", Text: "Camping plans.", OccurredAt: at},
		msg("a", "s1", "user", "Where should we camp?", 0),
		msg("c", "s1", "user", "Next day, same session.", 24*time.Hour),
	}
	want := "[Mon 8 May 2023] User: Where should we camp?\n  Assistant: By the lake.\n" +
		"[Wed 10 May 2023] User: Lake again, another day.\n" +
		"[Mon 8 May 2023] Summary: Camping plans.\n" +
		"[Tue 9 May 2023] User: Next day, same session."
	p := assemble.Parts{Recalled: assemble.Recall("camp", "lexical", hits, assemble.Window{}, 0)}
	require.Contains(t, assemble.Render(assemble.LangEN, p), want)
	require.Equal(t, []string{"b", "x", "", "a", "c"}, recalledIDs(p.Recalled.Hits), "the hits stay most relevant first")

	// A budget of exactly those lines keeps them all; one character less
	// drops the last hit that no longer fits (the group's date included).
	size := utf8.RuneCountInString(assemble.Render(assemble.LangEN, p))
	for _, budget := range []int{size, size - 1} {
		p := assemble.Parts{Recalled: assemble.Recall("camp", "lexical", slices.Clone(hits), assemble.Window{}, 0)}
		b, out := assemble.Assemble(assemble.LangEN, &p, budget)
		require.Equal(t, utf8.RuneCountInString(out), b.Used)
		if budget == size {
			require.Equal(t, size, b.Used)
			require.Contains(t, out, want)
			continue
		}
		require.Equal(t, []string{"b", "x", "", "a"}, recalledIDs(p.Recalled.Hits))
		require.LessOrEqual(t, b.Used, budget)
		require.NotContains(t, out, "Next day")
	}
}

func recalledIDs(hits []assemble.RecalledHit) []string {
	var ids []string
	for _, h := range hits {
		ids = append(ids, h.EventID)
	}
	return ids
}

// A turn of the same session and day as the line before it continues that
// line's date instead of repeating it.
func TestRecalledLinesShareTheirDay(t *testing.T) {
	t.Parallel()
	at := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)
	hits := []assemble.RecalledHit{
		{Kind: assemble.RecalledMessage, EventID: "a", SessionID: "s1", Role: "user", Text: "Where should we camp?", OccurredAt: at},
		{Kind: assemble.RecalledMessage, EventID: "b", SessionID: "s1", Role: "assistant", Text: "By the lake.", OccurredAt: at.Add(time.Minute)},
		{Kind: assemble.RecalledMessage, EventID: "c", SessionID: "s2", Role: "user", Text: "Another session.", OccurredAt: at.Add(2 * time.Minute)},
	}
	out := assemble.Render(assemble.LangEN, assemble.Parts{Recalled: assemble.Recall("camp", "lexical", hits, assemble.Window{}, 0)})
	require.Contains(t, out, "[Mon 8 May 2023] User: Where should we camp?\n  Assistant: By the lake.\n[Mon 8 May 2023] User: Another session.")
}

// The days of a context are the user's: in their zone (Parts.Zone) a turn
// said at 07:30 in Shanghai is of that day, its "yesterday" the day
// before, and its age counted in that zone's days; in UTC the same turn
// is of the day before. Turns of one session a few hours apart are one
// day's conversation in one zone and two in the other.
func TestRecalledDaysInTheUsersZone(t *testing.T) {
	t.Parallel()
	shanghai := time.FixedZone("UTC+8", 8*3600)
	said := time.Date(2023, 5, 7, 23, 30, 0, 0, time.UTC) // Mon 8 May 07:30 in Shanghai
	now := time.Date(2023, 5, 9, 2, 0, 0, 0, time.UTC)    // Tue 9 May 10:00 in Shanghai
	parts := func(zone *time.Location) assemble.Parts {
		r := assemble.Recall("support group", "lexical", []assemble.RecalledHit{
			{Kind: assemble.RecalledMessage, EventID: "a", SessionID: "s", Role: "user", Text: "I went to the support group yesterday.", OccurredAt: said},
			{Kind: assemble.RecalledMessage, EventID: "b", SessionID: "s", Role: "assistant", Text: "How was the group?", OccurredAt: said.Add(time.Hour)},
		}, assemble.Window{}, 0)
		r.ResolveDates()
		return assemble.Parts{Recalled: r, Now: now, Zone: zone, Summaries: assemble.Summaries{Previous: []assemble.SessionSummary{
			{SessionID: "s", Summary: "The support group.", CoversFrom: said, CoversTo: said.Add(time.Hour)}}}}
	}
	in := parts(shanghai)
	_, out := assemble.Assemble(assemble.LangEN, &in, 0)
	require.Contains(t, out, "[Mon 8 May 2023, yesterday] User: I went to the support group yesterday. [yesterday: Sun 7 May 2023]\n  Assistant: How was the group?")
	require.Contains(t, out, "[2023-05-08] The support group.")

	utc := parts(nil)
	_, out = assemble.Assemble(assemble.LangEN, &utc, 0)
	require.Contains(t, out, "[Sun 7 May 2023, 2 days ago] User: I went to the support group yesterday. [yesterday: Sat 6 May 2023]\n[Mon 8 May 2023, yesterday] Assistant: How was the group?")
	require.Contains(t, out, "[2023-05-07 – 2023-05-08] The support group.")
}
