package habits_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/attribute"
	"github.com/recallhq/recall/pkg/habits"
)

var t0 = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)

func TestLanguage(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"any good fantasy books like the name of the wind?":              "English",
		"Could you recommend a few novels about the history of the sea?": "English",
		"¿Tienes algún libro de García Márquez que no haya leído?":       "Spanish",
		"Ich suche ein gutes Buch über die Geschichte Berlins":           "German",
		"Я хочу прочитать что-нибудь интересное о истории этого города":  "Russian",
		"مرحبا، هل يمكنك أن تنصحني بكتاب جيد عن التاريخ؟":                "Arabic",
		// Cyrillic the library cannot place reliably (Russian? Bulgarian?).
		"Какие книги ты можешь мне посоветовать на выходные?": "",
		"推荐几本科幻小说":                        "Chinese",
		"推荐几本像 The Three-Body Problem 的书": "Chinese",
		"村上春樹の新しい小説はありますか":                "Japanese",
		"요즘 읽을 만한 소설을 추천해 주세요":            "Korean",
		"好": "Chinese",
		// Too short or without letters: nothing to tell.
		"ok":       "",
		"thanks!":  "",
		"12345 !!": "",
		"":         "",
	}
	for text, want := range cases {
		require.Equal(t, want, habits.Language(text), text)
		require.Equal(t, want, habits.Language(text), "the same text, the same answer: %s", text)
	}
}

func TestActiveSpan(t *testing.T) {
	t.Parallel()
	hours := func(counts map[int]int) [24]int {
		var h [24]int
		for k, v := range counts {
			h[k] = v
		}
		return h
	}
	uniform := [24]int{}
	for i := range uniform {
		uniform[i] = 1
	}
	cases := []struct {
		name            string
		byHour          [24]int
		start, span, in int
		ok              bool
		share           float64
		maxHours        int
	}{
		{"evenings", hours(map[int]int{20: 5, 21: 5, 22: 5}), 20, 3, 15, true, 0.8, 8},
		{"an outlier left out", hours(map[int]int{9: 1, 20: 5, 21: 5, 22: 5}), 20, 3, 15, true, 0.8, 8},
		{"past midnight", hours(map[int]int{23: 4, 0: 4, 1: 4}), 23, 3, 12, true, 0.8, 8},
		{"the busier of two spans", hours(map[int]int{8: 3, 20: 4}), 20, 1, 4, true, 0.5, 8},
		{"of equal ones, the earliest", hours(map[int]int{8: 4, 20: 4}), 8, 1, 4, true, 0.5, 8},
		{"all day is no pattern", uniform, 0, 0, 0, false, 0.8, 8},
		{"nothing counted", [24]int{}, 0, 0, 0, false, 0.8, 8},
	}
	for _, tc := range cases {
		start, span, in, ok := habits.ActiveSpan(tc.byHour, tc.share, tc.maxHours)
		require.Equal(t, []any{tc.start, tc.span, tc.in, tc.ok}, []any{start, span, in, ok}, tc.name)
	}
}

func TestMedianAndRounding(t *testing.T) {
	t.Parallel()
	require.Equal(t, 0, habits.Median(nil))
	require.Equal(t, 3, habits.Median([]int{9, 1, 3}))
	require.Equal(t, 3, habits.Median([]int{9, 1, 3, 4}), "the lower middle")
	for n, want := range map[int]int{0: 0, 7: 7, 12: 10, 13: 15, 24: 25, 99: 100, 137: 140, 1234: 1200} {
		require.Equal(t, want, habits.RoundLength(n), n)
	}
}

// msgs are n messages a minute apart ending at the newest, each like m.
func msgs(n int, newest time.Time, m habits.Message) []habits.Message {
	out := make([]habits.Message, n)
	for i := range out {
		out[i] = m
		out[i].EventID = fmt.Sprintf("m%03d", n-i)
		out[i].OccurredAt = newest.Add(-time.Duration(i) * time.Minute)
		if out[i].Chars == 0 {
			out[i].Chars = len([]rune(m.Text))
		}
	}
	return out
}

func tally(cfg habits.Config, zone *time.Location, ms ...[]habits.Message) habits.Habits {
	t := habits.NewTally(cfg, zone)
	for _, part := range ms {
		for _, m := range part {
			t.Add(m)
		}
	}
	return t.Habits()
}

func TestTally(t *testing.T) {
	t.Parallel()
	shanghai, err := time.LoadLocation("Asia/Shanghai")
	require.NoError(t, err)
	en := "Could you recommend a few novels about the history of the sea?"
	zh := "推荐几本科幻小说"
	// 12:30 UTC is 20:30 in Shanghai.
	evening := t0.Add(12*time.Hour + 30*time.Minute)
	var day []habits.Message
	for d := range 12 {
		at := evening.AddDate(0, 0, -d)
		text := en
		if d%3 == 0 {
			text = zh
		}
		day = append(day, habits.Message{EventID: fmt.Sprintf("m%02d", 12-d), OccurredAt: at, Text: text, Chars: len([]rune(text)), SiteID: "shop", AgentID: "librarian"})
	}
	h := tally(habits.Config{}, shanghai, day)
	require.True(t, h.Enough)
	require.Equal(t, 12, h.Messages)
	require.Equal(t, "m12", h.Newest.EventID)
	require.Equal(t, habits.Item{Value: "20:00–21:00 (Asia/Shanghai)", Share: 1}, h.ActiveHours)
	require.Equal(t, habits.Item{Value: "English", Share: 0.67}, h.Languages[0])
	require.Equal(t, habits.Item{Value: "Chinese", Share: 0.33}, h.Languages[1])
	require.Equal(t, []habits.Item{{Value: "shop/librarian", Share: 1}}, h.Channels)
	require.Equal(t, "medium (median 60 characters)", h.Length.Value, "median of 8 English (62) and 4 Chinese (8)")

	utc := tally(habits.Config{}, nil, day)
	require.Equal(t, "12:00–13:00 (UTC)", utc.ActiveHours.Value)

	// Too few messages: nothing.
	few := tally(habits.Config{}, nil, day[:9])
	require.False(t, few.Enough)
	require.Empty(t, few.ActiveHours.Value)

	// The window counts back from the newest message: a month-old burst
	// is out of a 7-day window, and MaxMessages bounds what is read.
	old := msgs(20, evening.AddDate(0, 0, -30), habits.Message{Text: "ok"})
	h = tally(habits.Config{Window: 7 * 24 * time.Hour}, nil, day, old)
	require.Equal(t, 8, h.Messages, "the newest and the 7 days before it")
	h = tally(habits.Config{MaxMessages: 10}, nil, day, old)
	require.Equal(t, 10, h.Messages)

	// Short messages in the default site and agent: no channel.
	short := tally(habits.Config{}, nil, msgs(11, evening, habits.Message{Text: "ok thanks"}))
	require.Equal(t, "short (median 9 characters)", short.Length.Value)
	require.Equal(t, 1.0, short.Length.Share)
	require.Empty(t, short.Channels)
	require.Empty(t, short.Languages, "no message long enough to tell")
	require.False(t, short.LanguagesKnown)
	require.True(t, h.LanguagesKnown)

	long := tally(habits.Config{}, nil, msgs(11, evening, habits.Message{Text: strings.Repeat("word ", 100)}))
	require.Equal(t, "long (median 500 characters)", long.Length.Value)

	// Languages are told from the newest messages only.
	h = tally(habits.Config{LanguageMessages: 4}, nil, msgs(8, evening, habits.Message{Text: zh}), msgs(20, evening.Add(-time.Hour), habits.Message{Text: en}))
	require.Equal(t, []habits.Item{{Value: "Chinese", Share: 1}}, h.Languages)

	// A language needs its share and a few messages.
	mixed := append(msgs(10, evening, habits.Message{Text: en}), msgs(2, evening.Add(-time.Hour), habits.Message{Text: zh})...)
	h = tally(habits.Config{}, nil, mixed)
	require.Equal(t, []habits.Item{{Value: "English", Share: 0.83}}, h.Languages, "two Chinese messages are too few")
}

func TestConfigCheck(t *testing.T) {
	t.Parallel()
	require.NoError(t, habits.Config{}.WithDefaults().Check())
	for name, mod := range map[string]func(*habits.Config){
		"HABITS_MIN_MESSAGES":      func(c *habits.Config) { c.MinMessages = -1 },
		"HABITS_MAX_MESSAGES":      func(c *habits.Config) { c.MaxMessages = 5 },
		"HABITS_WINDOW":            func(c *habits.Config) { c.Window = -time.Hour },
		"HABITS_ACTIVE_SHARE":      func(c *habits.Config) { c.ActiveShare = 1.5 },
		"HABITS_ACTIVE_MAX_HOURS":  func(c *habits.Config) { c.ActiveMaxHours = 25 },
		"HABITS_ITEM_SHARE":        func(c *habits.Config) { c.ItemShare = -0.1 },
		"HABITS_ITEM_MIN_MESSAGES": func(c *habits.Config) { c.ItemMinMessages = -2 },
		"HABITS_LANGUAGE_MESSAGES": func(c *habits.Config) { c.LanguageMessages = -1 },
		"HABITS_LONG_CHARS":        func(c *habits.Config) { c.LongChars = 10 },
	} {
		c := habits.Config{}.WithDefaults()
		mod(&c)
		require.ErrorContains(t, c.Check(), name)
	}
}

func derived(key, value, id string, at time.Time) attribute.Assertion {
	return attribute.Assertion{Key: key, Value: value, Op: attribute.Put, Source: attribute.Derived, EventID: id, At: at, Confidence: 1}
}

func ops(as []attribute.Assertion) []string {
	var out []string
	for _, a := range as {
		out = append(out, a.Op+" "+a.Key+"="+a.Value+" @"+a.EventID)
	}
	return out
}

func TestChanges(t *testing.T) {
	t.Parallel()
	s := attribute.Default()
	newest := habits.Message{EventID: "m9", OccurredAt: t0}
	h := habits.Habits{Enough: true, Messages: 20, Newest: newest, LanguagesKnown: true,
		ActiveHours: habits.Item{Value: "20:00–23:00 (UTC)", Share: 0.9},
		Length:      habits.Item{Value: "short (median 25 characters)", Share: 0.8},
		Languages:   []habits.Item{{Value: "English", Share: 0.7}, {Value: "Chinese", Share: 0.3}},
	}
	utc := habits.Zone{Location: time.UTC}
	first := habits.Changes(s, nil, h, utc)
	require.Equal(t, []string{
		"put active_hours=20:00–23:00 (UTC) @derived:active_hours:m9",
		"put message_length=short (median 25 characters) @derived:message_length:m9",
		"put languages=English @derived:languages:m9",
		"put languages=Chinese @derived:languages:m9",
	}, ops(first))
	for _, a := range first {
		require.Equal(t, attribute.Derived, a.Source)
		require.Equal(t, t0, a.At, "the newest message's time")
	}
	require.Equal(t, "english", first[2].Item)
	require.Equal(t, 0.9, first[0].Confidence)

	// The same habits again: nothing.
	require.Empty(t, habits.Changes(s, first, h, utc))

	// Later: one value changed, a language no longer used.
	later := h
	later.Newest = habits.Message{EventID: "m20", OccurredAt: t0.Add(time.Hour)}
	later.Length = habits.Item{Value: "medium (median 90 characters)", Share: 0.6}
	later.Languages = later.Languages[:1]
	require.Equal(t, []string{
		"put message_length=medium (median 90 characters) @derived:message_length:m20",
		"remove languages=Chinese @derived:languages:m20",
	}, ops(habits.Changes(s, first, later, utc)))

	// No message whose language could be told: the languages stay.
	unknown := later
	unknown.Languages, unknown.LanguagesKnown = nil, false
	require.Equal(t, []string{"put message_length=medium (median 90 characters) @derived:message_length:m20"},
		ops(habits.Changes(s, first, unknown, utc)))

	// No pattern any more: the derived active hours are taken back.
	spread := h
	spread.ActiveHours = habits.Item{}
	require.Equal(t, []string{"remove active_hours= @derived:active_hours:m9"}, ops(habits.Changes(s, first, spread, utc)))

	// Too few messages: what was derived stays.
	require.Empty(t, habits.Changes(s, first, habits.Habits{Messages: 3, Newest: newest}, utc))

	// A language the user stated is theirs; deriving it adds nothing to
	// what is current, and it is not derived again once it was.
	stated := attribute.Assertion{Key: "languages", Value: "English", Op: attribute.Put, Source: attribute.Stated, EventID: "t1", At: t0.Add(-time.Hour), Confidence: 0.9}
	require.NoError(t, attribute.Normalize(s, &stated))
	withStated := append([]attribute.Assertion{stated}, first...)
	require.Empty(t, habits.Changes(s, withStated, h, utc))
	cur := attribute.Resolve(s, withStated).Current
	for _, v := range cur {
		if v.Item == "english" {
			require.Equal(t, attribute.Stated, v.Source, "the statement stays current")
		}
	}

	// A new time zone re-derives the active hours without a new message:
	// its event follows the zone's assertion.
	shanghai, err := time.LoadLocation("Asia/Shanghai")
	require.NoError(t, err)
	z := habits.Zone{Location: shanghai, EventID: "edit-1", At: t0.Add(2 * time.Hour)}
	zoned := h
	zoned.ActiveHours = habits.Item{Value: "04:00–07:00 (Asia/Shanghai)", Share: 0.9}
	ch := habits.Changes(s, first, zoned, z)
	require.Equal(t, []string{"put active_hours=04:00–07:00 (Asia/Shanghai) @derived:active_hours:m9:edit-1"}, ops(ch))
	require.Equal(t, z.At, ch[0].At)
	cur = attribute.Resolve(s, append(first, ch...)).Current
	var active []string
	for _, v := range cur {
		if v.Key == "active_hours" {
			active = append(active, v.Value)
		}
	}
	require.Equal(t, []string{"04:00–07:00 (Asia/Shanghai)"}, active)

	// A tenant whose schema lacks a key gets none of it.
	custom := &attribute.Schema{Keys: []attribute.Key{{Name: "languages", Kind: attribute.Set, Group: attribute.About, Label: map[string]string{"en": "speaks"}}}}
	require.Equal(t, []string{"put languages=English @derived:languages:m9", "put languages=Chinese @derived:languages:m9"},
		ops(habits.Changes(custom, nil, h, utc)))
}

func TestUserZone(t *testing.T) {
	t.Parallel()
	s := attribute.Default()
	z := habits.UserZone(s, nil)
	require.Equal(t, time.UTC, z.Location)
	require.Empty(t, z.EventID)
	set := attribute.Assertion{Key: "timezone", Value: "Asia/Shanghai", Op: attribute.Put, Source: attribute.Explicit, EventID: "e1", At: t0, Confidence: 1}
	z = habits.UserZone(s, []attribute.Assertion{set})
	require.Equal(t, "Asia/Shanghai", z.Location.String())
	require.Equal(t, "e1", z.EventID)
	cleared := attribute.Assertion{Key: "timezone", Op: attribute.Remove, Source: attribute.Explicit, EventID: "e2", At: t0.Add(time.Hour), Confidence: 1}
	z = habits.UserZone(s, []attribute.Assertion{set, cleared})
	require.Equal(t, time.UTC, z.Location, "cleared: UTC again")
	require.Equal(t, "e2", z.EventID, "the clearing is the newest word on it")
}
