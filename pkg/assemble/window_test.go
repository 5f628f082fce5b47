package assemble_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/assemble"
	"github.com/recallhq/recall/pkg/record"
)

var now = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// msg is a stored message with the given id, role, content and age.
func msg(id, role, content string, age time.Duration) record.Message {
	return record.Message{EventID: id, SessionID: "s1", UserID: "u1", Role: role, Content: content, OccurredAt: now.Add(-age)}
}

// newestFirst is n user messages "m<n>".."m1", one minute apart, as the store
// returns them: m<n> is the newest.
func newestFirst(n int) []record.Message {
	out := make([]record.Message, n)
	for i := range out {
		k := n - i
		out[i] = msg(fmt.Sprintf("m%d", k), "user", fmt.Sprintf("c%d", k), time.Duration(i)*time.Minute)
	}
	return out
}

func ids(msgs []record.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.EventID
	}
	return out
}

func TestTrimWindow(t *testing.T) {
	t.Parallel()
	day := 24 * time.Hour
	cases := []struct {
		name      string
		in        []record.Message // newest first
		total     int64
		system    int64 // system turns in the session, fetched or not
		lim       assemble.WindowLimits
		ids       []string // oldest first
		contents  []string // nil: not checked
		chars     int
		truncated bool
		cuts      []assemble.Cut
	}{
		{
			name: "empty session",
			lim:  assemble.DefaultWindow,
			ids:  []string{},
		},
		{
			name:  "everything fits, output oldest first",
			in:    newestFirst(3),
			total: 3,
			lim:   assemble.DefaultWindow,
			ids:   []string{"m1", "m2", "m3"},
			chars: 6,
		},
		{
			name:  "older messages beyond the fetched ones are a count cut",
			in:    newestFirst(10),
			total: 25,
			lim:   assemble.DefaultWindow,
			ids:   []string{"m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8", "m9", "m10"},
			chars: 2*9 + 3,
			cuts:  []assemble.Cut{{Reason: "count", Count: 15}},
		},
		{
			name:  "more given than the count limit keeps the newest",
			in:    newestFirst(12),
			total: 20,
			lim:   assemble.WindowLimits{Messages: 3, Chars: 4000, TTL: day},
			ids:   []string{"m10", "m11", "m12"},
			chars: 9,
			cuts:  []assemble.Cut{{Reason: "count", Count: 8 + 9}},
		},
		{
			name: "message exactly at the TTL boundary is kept, one nanosecond older is cut",
			in: []record.Message{
				msg("new", "user", "a", 0),
				msg("edge", "user", "b", day),
				msg("old", "user", "c", day+time.Nanosecond),
				msg("older", "user", "d", 2*day),
			},
			total: 4,
			lim:   assemble.DefaultWindow,
			ids:   []string{"edge", "new"},
			chars: 2,
			cuts:  []assemble.Cut{{Reason: "ttl", Count: 2}},
		},
		{
			name:  "zero TTL disables the age cut",
			in:    []record.Message{msg("new", "user", "a", 0), msg("ancient", "user", "b", 400*day)},
			total: 2,
			lim:   assemble.WindowLimits{Messages: 10, Chars: 4000},
			ids:   []string{"ancient", "new"},
			chars: 2,
		},
		{
			name: "char budget counts runes, not bytes",
			in: []record.Message{
				msg("m3", "assistant", "再见", 0),       // 2 runes, 6 bytes
				msg("m2", "user", "世界和", time.Minute), // 3 runes, 9 bytes
				msg("m1", "user", "你好", 2*time.Minute),
			},
			total: 3,
			lim:   assemble.WindowLimits{Messages: 10, Chars: 5, TTL: day},
			ids:   []string{"m2", "m3"},
			chars: 5,
			cuts:  []assemble.Cut{{Reason: "chars", Count: 1}},
		},
		{
			name: "char budget keeps the newest messages that fit whole",
			in: []record.Message{
				msg("m3", "user", "aaaa", 0),
				msg("m2", "user", "bbbb", time.Minute),
				msg("m1", "user", "c", 2*time.Minute),
			},
			total: 3,
			lim:   assemble.WindowLimits{Messages: 10, Chars: 6, TTL: day},
			ids:   []string{"m3"},
			chars: 4,
			cuts:  []assemble.Cut{{Reason: "chars", Count: 2}},
		},
		{
			name: "newest message alone over budget is truncated with an ellipsis",
			in: []record.Message{
				msg("m2", "assistant", "一二三四五六七八九十", 0),
				msg("m1", "user", "hi", time.Minute),
			},
			total:     2,
			lim:       assemble.WindowLimits{Messages: 10, Chars: 4, TTL: day},
			ids:       []string{"m2"},
			contents:  []string{"一二三…"},
			chars:     4,
			truncated: true,
			cuts:      []assemble.Cut{{Reason: "chars", Count: 1}},
		},
		{
			name: "system messages are never replayed",
			in: []record.Message{
				msg("m3", "user", "q", 0),
				msg("m2", "system", "you are a librarian", time.Minute),
				msg("m1", "assistant", "a", 2*time.Minute),
			},
			total: 3,
			lim:   assemble.DefaultWindow,
			ids:   []string{"m1", "m3"},
			chars: 2,
			cuts:  []assemble.Cut{{Reason: "role", Count: 1}},
		},
		{
			name:   "system turns the store left out are a role cut, not a count cut",
			in:     newestFirst(3),
			total:  8,
			system: 2,
			lim:    assemble.DefaultWindow,
			ids:    []string{"m1", "m2", "m3"},
			chars:  6,
			cuts:   []assemble.Cut{{Reason: "count", Count: 3}, {Reason: "role", Count: 2}},
		},
		{
			name: "every reason at once",
			in: []record.Message{
				msg("m6", "system", "sys", 0),
				msg("m5", "user", "12345", time.Hour),
				msg("m4", "user", "123456", 2*time.Hour),
				msg("m3", "user", "1", 3*time.Hour),
				msg("m2", "user", "old", 25*time.Hour),
			},
			total: 9,
			lim:   assemble.WindowLimits{Messages: 5, Chars: 10, TTL: day},
			ids:   []string{"m5"},
			chars: 5,
			cuts: []assemble.Cut{
				{Reason: "count", Count: 4},
				{Reason: "ttl", Count: 1}, // past the TTL, whatever else is true of it
				{Reason: "chars", Count: 2},
				{Reason: "role", Count: 1},
			},
		},
		{
			name: "ttl and role together",
			in: []record.Message{
				msg("m4", "user", "now", 0),
				msg("m3", "system", "sys", time.Hour),
				msg("m2", "user", "stale", 30*time.Hour),
				msg("m1", "system", "stale sys", 31*time.Hour),
			},
			total: 4,
			lim:   assemble.DefaultWindow,
			ids:   []string{"m4"},
			chars: 3,
			cuts:  []assemble.Cut{{Reason: "ttl", Count: 2}, {Reason: "role", Count: 1}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in := append([]record.Message(nil), tc.in...)
			w := assemble.TrimWindow(in, assemble.Counts{Messages: tc.total, System: tc.system}, tc.lim, now)
			require.Equal(t, tc.ids, ids(w.Messages))
			if tc.contents != nil {
				got := make([]string, len(w.Messages))
				for i, m := range w.Messages {
					got[i] = m.Content
				}
				require.Equal(t, tc.contents, got)
			}
			require.Equal(t, tc.chars, w.Chars)
			require.Equal(t, tc.truncated, w.Truncated)
			require.Equal(t, tc.cuts, w.Cuts)
			// Every message is either in the window or counted in exactly one cut.
			n := int64(len(w.Messages))
			for _, c := range w.Cuts {
				n += c.Count
			}
			require.Equal(t, max(tc.total, int64(len(tc.in))), n, "kept + cut must account for every message")
			// The caller's slice is not modified (truncation works on a copy).
			require.Equal(t, tc.in, in)
		})
	}
}

func TestTrimWindowDefaultLimits(t *testing.T) {
	t.Parallel()
	require.Equal(t, assemble.WindowLimits{Messages: 10, Chars: 4000, TTL: 24 * time.Hour}, assemble.DefaultWindow)

	// 10 messages of 500 characters: the 4000-character budget keeps the newest 8.
	in := make([]record.Message, 10)
	for i := range in {
		in[i] = msg(fmt.Sprintf("m%02d", 10-i), "user", strings.Repeat("字", 500), time.Duration(i)*time.Minute)
	}
	w := assemble.TrimWindow(in, assemble.Counts{Messages: 10}, assemble.DefaultWindow, now)
	require.Len(t, w.Messages, 8)
	require.Equal(t, "m03", w.Messages[0].EventID)
	require.Equal(t, "m10", w.Messages[7].EventID)
	require.Equal(t, 4000, w.Chars)
	require.False(t, w.Truncated)
	require.Equal(t, []assemble.Cut{{Reason: "chars", Count: 2}}, w.Cuts)
}
