package assemble_test

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/textcheck"
	"github.com/recallhq/recall/pkg/assemble"
	"github.com/recallhq/recall/pkg/record"
	"github.com/recallhq/recall/pkg/when"
)

// FuzzCut: a past turn cut to a snippet of n characters (Recall) and the
// newest message cut to a window of n characters (TrimWindow) are valid text
// within n (a snippet's mark of the cut, "…", is one more), what its
// relative dates meant follows it as valid text, the times it names as a
// message are spans before it and leave valid text, and the prompt
// rendered from them within a budget of n spends at most n.
func FuzzCut(f *testing.F) {
	sizes := []uint16{0, 1, 2, 7, 40, 300}
	for i, s := range textcheck.Seeds(f) {
		f.Add(s, sizes[i%len(sizes)])
	}
	// The times a message may ask about, each scanner's (MessageTimes).
	f.Add("What did I do on the 3rd of June, 2023, this past weekend, a few days ago, the week before last, last weekend before April 10, 2023 and in 2022? 上上周，5月20日，今天早上", uint16(40))
	c := textcheck.New(f)
	at := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, text string, n uint16) {
		t.Parallel()
		if !textcheck.Acceptable(text) {
			return
		}
		limit := int(n)
		hits := []assemble.RecalledHit{{Kind: assemble.RecalledMessage, EventID: "e1", SessionID: "s1", Role: "user", Text: text, OccurredAt: at}}
		r := assemble.Recall(text, "lexical", hits, assemble.Window{}, limit)
		require.Len(t, r.Hits, 1)
		snippet := textcheck.InputBound(text)
		if limit > 0 {
			snippet = textcheck.Bound{Runes: limit + 1}
		}
		c.Check(t, textcheck.Text, text, r.Hits[0].Text, snippet)
		// What its relative dates meant follows the snippet, valid text,
		// and counted in the budget below like the rest.
		note := when.RelativeNote(r.Hits[0].Text, at)
		require.True(t, note == "" || strings.HasPrefix(note, " [") || strings.HasPrefix(note, " 【"), "note %q", note)
		require.True(t, utf8.ValidString(note), "note %q", note)
		r.ResolveDates()
		// The times the text names as a message: spans that began before
		// the message, and the text with their words blanked out, as long
		// as it and valid.
		spans, untimed := when.MessageTimes(text, at)
		for _, sp := range spans {
			require.True(t, sp.From.Before(sp.To) && sp.From.Before(at), "span %v", sp)
		}
		require.Len(t, untimed, len(text))
		require.True(t, utf8.ValidString(untimed), "untimed %q", untimed)

		w := assemble.TrimWindow([]record.Message{{EventID: "e2", SessionID: "s1", Role: "user", Content: text, OccurredAt: at}},
			assemble.Counts{Messages: 1}, assemble.WindowLimits{Messages: 10, Chars: limit}, at)
		window := textcheck.InputBound(text)
		if limit > 0 {
			window = textcheck.Bound{Runes: limit}
		}
		for _, m := range w.Messages {
			c.Check(t, textcheck.Text, text, m.Content, window)
		}

		// Read 40 days on, its day is dated with its age, in the unit the
		// text asks in when it asks how many.
		b, prompt := assemble.Assemble("", &assemble.Parts{Window: w, Recalled: r, Now: at.AddDate(0, 0, 40)}, limit)
		require.Equal(t, utf8.RuneCountInString(prompt), b.Used, "every character of the prompt is counted; made from %s", textcheck.Quote(text))
		if limit > 0 {
			require.LessOrEqual(t, b.Used, limit, "made from %s", textcheck.Quote(text))
		}
		c.Check(t, textcheck.Text, text, prompt, textcheck.Bound{})
		if len(r.Hits) > 0 {
			require.True(t, strings.HasSuffix(r.Hits[0].Text, note), "a turn kept is followed by its note %q", note)
		}
	})
}
