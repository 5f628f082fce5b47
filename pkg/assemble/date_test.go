package assemble

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/when"
)

// A recalled day says how long before the context's time it was: in days
// up to two months, then months, then years; calendar days, so last
// night is yesterday in the morning.
func TestAges(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		days   int
		en, zh string
	}{
		{0, "today", "今天"}, {1, "yesterday", "昨天"}, {2, "2 days ago", "2天前"}, {28, "28 days ago", "28天前"},
		{59, "59 days ago", "59天前"}, {60, "2 months ago", "2个月前"}, {45 + 30, "2 months ago", "2个月前"},
		{121, "4 months ago", "4个月前"}, {364, "12 months ago", "12个月前"}, {729, "24 months ago", "24个月前"},
		{730, "2 years ago", "2年前"}, {365*3 + 200, "3 years ago", "3年前"},
	} {
		require.Equal(t, c.en, enAgo(c.days, 0), c.days)
		require.Equal(t, c.zh, zhAgo(c.days, 0), c.days)
	}
	now := time.Date(2023, 5, 9, 8, 0, 0, 0, time.UTC)
	d := &dates{ph: text[LangEN], now: now}
	require.Equal(t, "Mon 8 May 2023, yesterday", d.of(time.Date(2023, 5, 8, 23, 30, 0, 0, time.UTC)))
	require.Equal(t, "Tue 9 May 2023, today", d.of(time.Date(2023, 5, 9, 1, 0, 0, 0, time.UTC)))
	require.Equal(t, "Sat 15 April 2023, 24 days ago", d.of(time.Date(2023, 4, 15, 12, 0, 0, 0, time.UTC)))
	zh := &dates{ph: text[LangZH], now: now}
	require.Equal(t, "2023年4月15日 周六，24天前", zh.of(time.Date(2023, 4, 15, 12, 0, 0, 0, time.UTC)))
	require.Equal(t, "Sat 15 April 2023", (&dates{ph: text[LangEN]}).of(time.Date(2023, 4, 15, 12, 0, 0, 0, time.UTC)), "no time: the date alone")
}

// A message that asks how many days, weeks or months has each recalled
// day's age said in that unit too; one that asks how long passed between
// two things has each day after the first say how far it is from it.
func TestAgesInTheUnitAsked(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		days, in int
		en, zh   string
	}{
		{30, ageWeeks, "30 days (4 weeks) ago", "30天（约4周）前"},
		{13, ageWeeks, "13 days (2 weeks) ago", "13天（约2周）前"},
		{8, ageWeeks, "8 days (1 week) ago", "8天（约1周）前"},
		{6, ageWeeks, "6 days ago", "6天前"},
		{1, ageWeeks, "yesterday", "昨天"},
		{90, ageWeeks, "3 months (13 weeks) ago", "3个月（约13周）前"},
		{45, ageMonths, "45 days (1 month) ago", "45天（约1个月）前"},
		{20, ageMonths, "20 days ago", "20天前"},
		{90, ageMonths, "3 months ago", "3个月前"},
		{89, ageDays, "3 months (89 days) ago", "3个月（89天）前"},
		{40, ageDays, "40 days ago", "40天前"},
	} {
		require.Equal(t, c.en, enAgo(c.days, c.in), c)
		require.Equal(t, c.zh, zhAgo(c.days, c.in), c)
	}
	for _, c := range []struct {
		message string
		in      int
		between bool
	}{
		{"How many weeks ago did I attend the workshop?", ageWeeks, false},
		{"How many days passed between the day I fixed my bike and the day I sold it?", ageDays, true},
		{"How many days before the meeting did I attend the workshop?", ageDays, true},
		{"How many days did it take for my case to arrive after I bought it?", ageDays, true},
		{"How many months ago did I start?", ageMonths, false},
		{"How many days did I spend on camping trips this year?", ageDays, false},
		{"What did I do two weeks ago? It was a few days before the party.", 0, false},
		{"What was the airline I flew with on Valentine's day?", 0, false},
		{"How many times did I bake in the past two weeks?", 0, false},
		{"Which came first, the trip or the concert?", 0, false},
		{"我几周前去的那家店叫什么？", ageWeeks, false},
		{"从买礼物到生日会之间隔了几天？", ageDays, true},
		{"几个月前我们聊过什么", ageMonths, false},
		{"三周前我们聊的那本书", 0, false},
		{"Any daydreams?", 0, false},
	} {
		in := askedUnit(c.message)
		require.Equal(t, c.in, in, c.message)
		require.Equal(t, c.between, asksBetween(c.message, in), c.message)
	}
	now := time.Date(2023, 4, 15, 9, 0, 0, 0, time.UTC)
	d := &dates{ph: text[LangEN], now: now, in: ageDays, between: true}
	require.Equal(t, "Sun 19 March 2023, 27 days ago", d.of(time.Date(2023, 3, 19, 16, 29, 0, 0, time.UTC)))
	require.Equal(t, "Wed 15 March 2023, 31 days ago; 4 days before the first date above", d.of(time.Date(2023, 3, 15, 11, 17, 0, 0, time.UTC)))
	require.Equal(t, "Sun 19 March 2023, 27 days ago", d.of(time.Date(2023, 3, 19, 8, 0, 0, 0, time.UTC)), "the first day says no gap")
	require.Equal(t, "Sat 1 April 2023, 14 days ago; 13 days after the first date above", d.of(time.Date(2023, 4, 1, 8, 0, 0, 0, time.UTC)))
	zh := &dates{ph: text[LangZH], now: now, in: ageWeeks, between: true}
	zh.of(time.Date(2023, 3, 19, 16, 29, 0, 0, time.UTC))
	require.Equal(t, "2023年3月1日 周三，45天（约6周）前；比上面第一个日期早18天（约3周）", zh.of(time.Date(2023, 3, 1, 11, 17, 0, 0, time.UTC)))
}

// civilDay counts calendar days: between two dates it gives what rounding
// the hours between their midnights to days gives, in a zone whose clocks
// change, across leap years and centuries, before 1970 too.
func TestCivilDay(t *testing.T) {
	t.Parallel()
	require.Equal(t, 0, civilDay(1970, time.January, 1))
	require.Equal(t, -1, civilDay(1969, time.December, 31))
	require.Equal(t, 11016, civilDay(2000, time.February, 29))
	require.Equal(t, 19485, civilDay(2023, time.May, 8))
	ny, err := time.LoadLocation("America/New_York")
	require.NoError(t, err)
	for _, zone := range []*time.Location{time.UTC, ny} {
		base := time.Date(1899, time.December, 25, 0, 0, 0, 0, zone)
		now := time.Date(2024, time.March, 11, 8, 0, 0, 0, zone)
		for d := 0; d < 46000; d += 7 {
			day := base.AddDate(0, 0, d)
			want := int(math.Round(when.Midnight(now).Sub(when.Midnight(day)).Hours() / 24))
			require.Equal(t, want, civilDay(now.Date())-civilDay(day.Date()), "%s in %s", day.Format(time.DateOnly), zone)
		}
	}
}

// The notes are counted in a recalled hit's length, so the budget holds
// them: the rendered prompt never exceeds it.
func TestResolveDatesWithinBudget(t *testing.T) {
	t.Parallel()
	at := time.Date(2023, 5, 8, 9, 0, 0, 0, time.UTC)
	var hits []RecalledHit
	for i := range 40 {
		hits = append(hits, RecalledHit{Kind: RecalledMessage, EventID: "e" + string(rune('A'+i)), SessionID: "s", Role: "user",
			OccurredAt: at.AddDate(0, 0, -i), Text: "I went hiking yesterday and last week, again two days ago."})
	}
	hits = append(hits, RecalledHit{Kind: RecalledSummary, SessionID: "s", OccurredAt: at, Text: "went hiking yesterday"})
	fresh := func() *Recalled {
		r := Recall("hiking", "lexical", slices.Clone(hits), Window{}, 0)
		r.ResolveDates()
		return r
	}
	for _, budget := range []int{600, 1500, 3000, 0} {
		r := fresh()
		p := Parts{Recalled: r}
		b := ApplyBudget(LangEN, &p, budget)
		prompt := Render(LangEN, p)
		require.Equal(t, utf8.RuneCountInString(prompt), b.Used, "every character counted")
		if budget > 0 {
			require.LessOrEqual(t, b.Used, budget)
		}
		require.Contains(t, prompt, "hiking yesterday and last week, again two days ago. [yesterday: Sun 7 May 2023; last week: the week before Mon 8 May 2023; two days ago: Sat 6 May 2023]")
		require.Equal(t, utf8.RuneCountInString(r.Hits[0].Text), r.Hits[0].runes)
		require.NotContains(t, prompt, "went hiking yesterday [", "a summary keeps its own dates")
	}
	// Without a budget the prompt holds every turn, each with its notes.
	r := fresh()
	require.Equal(t, 40, strings.Count(Render(LangEN, Parts{Recalled: r}), "[yesterday: "))
}
