package when

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/recallhq/recall/pkg/script"
)

// This file reads the times a message asks about that are not relative
// expressions a recalled turn is noted for (RelativeNote): the stretch of
// the current week, month or year so far, today, the latest weekend, a
// rough "a few days ago", "the week before last", and a calendar date
// ("on May 23, 2023"). MessageTimes reads them with the others.

// askedSpans reads, in an English message:
//   - "this week", "this month", "this year" (also "earlier this month",
//     "so far this year"): from the start of the calendar unit to the end
//     of day; "this morning", "this afternoon", "this evening" and "today"
//     (not "before today", "until today", "as of today"): day;
//   - "this past weekend", "over the weekend": the latest weekend begun by
//     day; "this past week", "this past month", "this past year": that
//     long up to the end of day;
//   - "a few days ago", "a few weeks ago", "a few months ago": from five
//     units before day to two;
//   - "the week before last" (weekend, month, year);
//   - a date after "on": "on May 23, 2023", "on 1 February, 2023", "on the
//     3rd of June", "on March 15th": that day, the latest such by day
//     unless a year follows. A date not after "on" is a name ("the March
//     15th issue");
//   - a year after "in", "during" or "throughout": "in 2023";
//   - and no time for one counted from a date ("two weeks before August
//     11, 2023", "last weekend before April 10": anchored), whose words
//     the other readings then leave alone.
//
// "this weekend" and a bare weekday ("on Saturday") are not read: a
// message says them as often of what lies ahead. The words of the current
// week, month or year and of today stay searched (timed).
func askedSpans(text string, day time.Time) []timed {
	var spans []timed
	scanWords(text, "tToOaAiIdDbB", func(i, end int) int {
		if len(spans) >= maxRelativeNotes {
			return -1
		}
		w := text[i:end]
		var (
			read timed
			ok   bool
		)
		switch {
		case strings.EqualFold(w, "this"):
			read, ok = thisSpan(text, i, end, day)
		case strings.EqualFold(w, "today"):
			b := wordsBefore(text, i, 2)
			if b.n > 0 && untilToday[strings.ToLower(b.word(text, 0))] || b.is(text, 1, "as") && b.is(text, 0, "of") {
				return end
			}
			read, ok = timed{daySpan(day, 0), end, end}, true
		case strings.EqualFold(w, "over"):
			// "over the weekend"
			if ts, te, ok2 := script.WordAfter(text, end); ok2 && strings.EqualFold(text[ts:te], "the") {
				if us, ue, ok3 := script.WordAfter(text, te); ok3 && strings.EqualFold(text[us:ue], "weekend") {
					read, ok = timed{latestWeekend(day), i, ue}, true
				}
			}
		case strings.EqualFold(w, "a"):
			read, ok = fewAgo(text, i, end, day)
		case strings.EqualFold(w, "the"):
			read, ok = beforeLast(text, i, end, day)
		case strings.EqualFold(w, "on"):
			read, ok = dateOn(text, end, day)
		case strings.EqualFold(w, "before"), strings.EqualFold(w, "after"):
			// "two weeks before August 11, 2023" is not "two weeks ago":
			// the words are kept from the other readings (MessageTimes),
			// and searched. Lifting the time they count from the date
			// found no more on LoCoMo (docs/benchmarks.md, History).
			read, ok = anchored(text, i, end, day)
		case strings.EqualFold(w, "in"), strings.EqualFold(w, "during"), strings.EqualFold(w, "throughout"):
			// "in 2023": the year.
			if ys, ye, ok2 := script.WordAfter(text, end); ok2 {
				if y, ok3 := smallYear(text[ys:ye]); ok3 && !(ye < len(text) && text[ye] == '-') {
					from := time.Date(y, time.January, 1, 0, 0, 0, 0, day.Location())
					read, ok = timed{Span{From: from, To: from.AddDate(1, 0, 0)}, ys, ye}, true
				}
			}
		}
		if !ok {
			return end
		}
		spans = append(spans, read)
		return max(read.to, end)
	})
	return spans
}

// untilToday are the words after which "today" ends a stretch rather than
// naming the day: "before today", "until today", "up to today".
var untilToday = map[string]bool{"before": true, "until": true, "till": true, "to": true, "since": true, "by": true}

// thisSpan reads what follows "this" (text[i:end]): see askedSpans.
func thisSpan(text string, i, end int, day time.Time) (timed, bool) {
	ws, we, ok := script.WordAfter(text, end)
	if !ok {
		return timed{}, false
	}
	unit := strings.ToLower(text[ws:we])
	switch unit {
	case "week", "month", "year":
		return timed{soFar(unit, day), we, we}, true
	case "morning", "afternoon", "evening":
		return timed{daySpan(day, 0), we, we}, true
	case "past":
		us, ue, ok := script.WordAfter(text, we)
		if !ok {
			return timed{}, false
		}
		var from time.Time
		switch strings.ToLower(text[us:ue]) {
		case "weekend":
			return timed{latestWeekend(day), i, ue}, true
		case "week":
			from = day.AddDate(0, 0, -7)
		case "month":
			from = day.AddDate(0, -1, 0)
		case "year":
			from = day.AddDate(-1, 0, 0)
		default:
			return timed{}, false
		}
		return timed{Span{From: from, To: day.AddDate(0, 0, 1)}, i, ue}, true
	}
	return timed{}, false
}

// latestWeekend is the latest weekend begun by day: the one day is in, on
// a Saturday or a Sunday; the one before otherwise.
func latestWeekend(day time.Time) Span {
	back := (int(day.Weekday()) - int(time.Saturday) + 7) % 7
	from := day.AddDate(0, 0, -back)
	return Span{From: from, To: from.AddDate(0, 0, 2)}
}

// fewAgo reads "a few days/weeks/months ago" from its "a" (text[i:end]):
// from five units before day to two, its end included.
func fewAgo(text string, i, end int, day time.Time) (timed, bool) {
	fs, fe, ok := script.WordAfter(text, end)
	if !ok || !strings.EqualFold(text[fs:fe], "few") {
		return timed{}, false
	}
	us, ue, ok := script.WordAfter(text, fe)
	if !ok {
		return timed{}, false
	}
	as, ae, ok := script.WordAfter(text, ue)
	if !ok || !strings.EqualFold(text[as:ae], "ago") {
		return timed{}, false
	}
	back := func(n int) time.Time {
		switch strings.ToLower(text[us:ue]) {
		case "days":
			return day.AddDate(0, 0, -n)
		case "weeks":
			return day.AddDate(0, 0, -7*n)
		case "months":
			return day.AddDate(0, -n, 0)
		}
		return time.Time{}
	}
	from := back(5)
	if from.IsZero() {
		return timed{}, false
	}
	return timed{Span{From: from, To: back(2).AddDate(0, 0, 1)}, i, ae}, true
}

// beforeLast reads "the week/weekend/month/year before last" from its
// "the" (text[i:end]).
func beforeLast(text string, i, end int, day time.Time) (timed, bool) {
	us, ue, ok := script.WordAfter(text, end)
	if !ok {
		return timed{}, false
	}
	unit := strings.ToLower(text[us:ue])
	switch unit {
	case "week", "weekend", "month", "year":
	default:
		return timed{}, false
	}
	bs, be, ok := script.WordAfter(text, ue)
	if !ok || !strings.EqualFold(text[bs:be], "before") {
		return timed{}, false
	}
	ls, le, ok := script.WordAfter(text, be)
	if !ok || !strings.EqualFold(text[ls:le], "last") {
		return timed{}, false
	}
	if ns, ne, ok := script.WordAfter(text, le); ok && strings.EqualFold(text[ns:ne], unit) {
		le = ne // "the week before last week"
	}
	return timed{sideSpan(-2, unit, day), i, le}, true
}

// anchored reads a time counted from a date rather than from the message's
// day, from its "before" or "after" (text[i:end]): "the week before August
// 3, 2023", "two weeks before August 11, 2023", "the Sunday before October
// 25, 2022", "last weekend before April 10, 2023", "three days after the
// 3rd of June". It returns where its words are, from the time's first
// word to the end of the date, with the zero span; none for a date alone
// after "before" or "after".
func anchored(text string, i, end int, day time.Time) (timed, bool) {
	at, ok := dateOn(text, end, day)
	if !ok {
		return timed{}, false
	}
	b := wordsBefore(text, i, 4)
	if b.n < 2 {
		return timed{}, false
	}
	unit := strings.ToLower(b.word(text, 0))
	if b.is(text, 1, "the") || b.is(text, 1, "last") || b.is(text, 1, "next") {
		if _, weekday := enWeekdays[unit]; weekday || unit == "day" || unit == "week" || unit == "weekend" {
			return timed{Span{}, b.w[1][0], at.to}, true
		}
		return timed{}, false
	}
	// "two weeks before", "a couple of days after"
	first := b.w[1][0]
	if b.is(text, 3, "a") && b.is(text, 2, "couple") && b.is(text, 1, "of") {
		first = b.w[3][0]
	} else if enCount(b.word(text, 1)) == 0 {
		return timed{}, false
	}
	switch strings.TrimSuffix(unit, "s") {
	case "day", "week", "month", "year":
		return timed{Span{}, first, at.to}, true
	}
	return timed{}, false
}

// dateOn reads the calendar date after "on" (which ends at end): "May 23,
// 2023", "May 23rd", "1 February, 2023", "the 3rd of June": that day, in
// day's location; without a year the latest such day by day.
func dateOn(text string, end int, day time.Time) (timed, bool) {
	ws, we, ok := script.WordAfter(text, end)
	if !ok {
		return timed{}, false
	}
	from := ws
	if strings.EqualFold(text[ws:we], "the") {
		if ws, we, ok = script.WordAfter(text, we); !ok {
			return timed{}, false
		}
	}
	var (
		m time.Month
		d int
	)
	if m = monthOf(text[ws:we]); m != 0 {
		// "May 23"
		ds, de, ok := script.WordAfter(text, we)
		if !ok {
			return timed{}, false
		}
		if d, ok = ordinalDay(text[ds:de]); !ok {
			return timed{}, false
		}
		we = de
	} else {
		// "23 May", "the 23rd of May"
		if d, ok = ordinalDay(text[ws:we]); !ok {
			return timed{}, false
		}
		ms, me, ok := script.WordAfter(text, we)
		if ok && strings.EqualFold(text[ms:me], "of") {
			ms, me, ok = script.WordAfter(text, me)
		}
		if !ok {
			return timed{}, false
		}
		if m = monthOf(text[ms:me]); m == 0 {
			return timed{}, false
		}
		we = me
	}
	year, named := day.Year(), false
	at := we
	if at < len(text) && text[at] == ',' {
		at++
	}
	if ys, ye, ok := script.WordAfter(text, at); ok {
		if y, ok := smallYear(text[ys:ye]); ok {
			year, we, named = y, ye, true
		}
	}
	sp, ok := calendarDay(year, named, m, d, day)
	return timed{sp, from, we}, ok
}

// calendarDay is the day d of month m: of year when named, otherwise the
// latest such day by day; ok is false for a day the month lacks
// ("February 30").
func calendarDay(year int, named bool, m time.Month, d int, day time.Time) (Span, bool) {
	date := time.Date(year, m, d, 0, 0, 0, 0, day.Location())
	if !named && date.After(day) {
		date = time.Date(year-1, m, d, 0, 0, 0, 0, day.Location())
	}
	if date.Day() != d {
		return Span{}, false
	}
	return Span{From: date, To: date.AddDate(0, 0, 1)}, true
}

// soFar is the calendar week, month or year day is in, up to its end.
func soFar(unit string, day time.Time) Span {
	return Span{From: sideSpan(0, unit, day).From, To: day.AddDate(0, 0, 1)}
}

// ordinalDay reads a day of the month: 1 to 31, with or without its
// ordinal ending ("23", "23rd", "1st").
func ordinalDay(w string) (int, bool) {
	digits := len(w)
	for _, s := range [...]string{"st", "nd", "rd", "th"} {
		if len(w) > len(s) && strings.EqualFold(w[len(w)-len(s):], s) {
			digits = len(w) - len(s)
			break
		}
	}
	if digits > 2 {
		return 0, false
	}
	n, ok := smallNumber(w[:digits])
	return n, ok && n >= 1 && n <= 31
}

// smallYear reads a year of four ASCII digits from 1000 on.
func smallYear(w string) (int, bool) {
	n := 0
	for i := 0; i < len(w); i++ {
		if w[i] < '0' || w[i] > '9' {
			return 0, false
		}
		n = 10*n + int(w[i]-'0')
	}
	return n, len(w) == 4 && n >= 1000
}

// zhAsked are the Chinese words for the stretches askedSpans reads in
// English, longest first where one begins another: unit "day" is day,
// "week", "month" and "year" the calendar unit so far, "few" 前几天, and
// "week-2", "month-2" the week or month before last.
var zhAsked = []struct{ word, unit string }{
	{"今天早上", "day"}, {"今天上午", "day"}, {"今天下午", "day"}, {"今天", "day"}, {"今早", "day"}, {"今日", "day"},
	{"这一周", "week"}, {"这周", "week"}, {"本周", "week"}, {"这个星期", "week"}, {"这星期", "week"}, {"这个礼拜", "week"}, {"这礼拜", "week"},
	{"这个月", "month"}, {"本月", "month"}, {"今年", "year"}, {"前几天", "few"},
	{"上上周", "week-2"}, {"上上个星期", "week-2"}, {"上上个礼拜", "week-2"}, {"上上个月", "month-2"},
}

// zhAskedSpans reads the Chinese counterparts of askedSpans: 今天, 今早,
// 这周, 本周, 这个月, 今年 (not after 到, 至, 截至 or 直到, and not 这周末,
// said as often of what lies ahead), 前几天, 上上周, 上上个月, and a date,
// 5月23日, 5月23号, 2023年5月23日 (not before 的: "3月15日的那期" names an
// issue), the latest such by day unless a year is given.
func zhAskedSpans(text string, day time.Time) []timed {
	var spans []timed
	for i := 0; i < len(text) && len(spans) < maxRelativeNotes; {
		read, n := zhAskedAt(text, i, day)
		if n == 0 {
			_, n = utf8.DecodeRuneInString(text[i:])
		} else if !read.span.To.IsZero() {
			spans = append(spans, read)
		}
		i += n
	}
	return spans
}

// zhAskedAt reads what zhAskedSpans reads at text[i:]: the time (the zero
// span when there is none to read) and how many bytes to pass over (0:
// nothing here).
func zhAskedAt(text string, i int, day time.Time) (timed, int) {
	rest := text[i:]
	for _, a := range zhAsked {
		if !strings.HasPrefix(rest, a.word) {
			continue
		}
		n := len(a.word)
		if a.unit == "week" && strings.HasPrefix(rest[n:], "末") || zhUntil(text[:i]) {
			return timed{}, n
		}
		var sp Span
		switch a.unit {
		case "day":
			// Words that stay searched (timed).
			return timed{daySpan(day, 0), i + n, i + n}, n
		case "week", "month", "year":
			return timed{soFar(a.unit, day), i + n, i + n}, n
		case "few":
			sp = Span{From: day.AddDate(0, 0, -5), To: day.AddDate(0, 0, -1)}
		case "week-2":
			sp = sideSpan(-2, "week", day)
		case "month-2":
			sp = sideSpan(-2, "month", day)
		}
		return timed{sp, i, i + n}, n
	}
	// A date: [2023年]5月23日.
	m, ms := zhCountAt(rest)
	if m < 1 || m > 12 || !strings.HasPrefix(rest[ms:], "月") {
		return timed{}, 0
	}
	after := rest[ms+len("月"):]
	d, ds := zhCountAt(after)
	if d < 1 || d > 31 {
		return timed{}, 0
	}
	tail := after[ds:]
	var mark string
	switch {
	case strings.HasPrefix(tail, "日"):
		mark = "日"
	case strings.HasPrefix(tail, "号"):
		mark = "号"
	default:
		return timed{}, 0
	}
	n := ms + len("月") + ds + len(mark)
	if strings.HasPrefix(tail[len(mark):], "的") {
		return timed{}, n
	}
	from, year, named := i, day.Year(), false
	if j := strings.LastIndex(text[:i], "年"); j >= 4 && j+len("年") == i {
		if y, ok := smallYear(text[j-4 : j]); ok {
			year, from, named = y, j-4, true
		}
	}
	sp, ok := calendarDay(year, named, time.Month(m), d, day)
	if !ok {
		return timed{}, n
	}
	return timed{sp, from, i + n}, n
}

// zhUntil reports whether the text before a Chinese time ends a stretch at
// it: 到今天, 截至今天, 直到今天, 至今日.
func zhUntil(before string) bool {
	for _, w := range [...]string{"截至", "直到", "到", "至"} {
		if strings.HasSuffix(before, w) {
			return true
		}
	}
	return false
}
