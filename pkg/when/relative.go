package when

import (
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/recallhq/recall/pkg/script"
)

// Relative dates: a recalled turn says "yesterday", "last week", "two days
// ago", 上周五 or 去年 of the day it was said, not of the day it is read.
// Its line is dated, but a model reading dozens of them has to work out
// each day from the weekday and the calendar, and gets it wrong; so a
// recalled turn that holds such words is followed by what they meant on
// its day: "… [yesterday: Sun 7 May 2023; last week: the week before
// Mon 8 May 2023]" ("【昨天：2023年5月7日 周日】"). The turn's own words are
// left as they were said.
//
// The expressions are read by hand rather than by regular expressions: a
// context recalls dozens of turns, and regular expressions read a turn
// more than ten times slower than the scanners (BenchmarkRelativeNote;
// docs/benchmarks.md, History).

// maxRelativeNotes bounds the expressions resolved for one turn: a turn
// that holds more is a schedule, and its first ones say when it is.
const maxRelativeNotes = 3

// RelativeNote returns what the relative dates text holds meant on the day
// it was said (in said's location: the context's zone, Parts.Zone, as
// recalled lines are dated), for a recalled line: "
// [yesterday: Sun 7 May 2023]" or " 【昨天：2023年5月7日 周日】", with a
// leading space; "" when it holds none.
func RelativeNote(text string, said time.Time) string {
	if said.IsZero() || text == "" {
		return ""
	}
	day := Midnight(said)
	var notes relativeNotes
	scanEnglish(text, day, &notes)
	if script.HasHan(text) {
		scanChinese(text, day, &notes)
	}
	var b strings.Builder
	if len(notes.en) > 0 {
		b.WriteString(" [")
		b.WriteString(strings.Join(notes.en, "; "))
		b.WriteString("]")
	}
	if len(notes.zh) > 0 {
		b.WriteString(" 【")
		b.WriteString(strings.Join(notes.zh, "；"))
		b.WriteString("】")
	}
	return b.String()
}

// relativeNotes gathers a turn's notes, each expression once, at most
// maxRelativeNotes in all.
type relativeNotes struct {
	en, zh []string
	// times are the times the expressions named, where they are in the
	// text, in the order found, kept only when keepTimes is set
	// (MessageTimes: a recalled turn's note needs none, and dozens of
	// turns are noted a context); at is where the Chinese expression being
	// read begins.
	times     []timed
	keepTimes bool
	at        int
}

// timed is a time a text names, and where it names it: text[from:to].
// A time whose words stay searched has from == to, at their end: the
// current week, month or year and today (askedSpans) say what the turns
// are about as often as when they were ("a great month for the eggs").
type timed struct {
	span     Span
	from, to int
}

func (n *relativeNotes) full() bool { return len(n.en)+len(n.zh) >= maxRelativeNotes }

func (n *relativeNotes) add(list *[]string, phrase, meaning, sep string, span Span, from int) {
	if meaning == "" || n.full() {
		return
	}
	for _, l := range [...][]string{n.en, n.zh} {
		for _, s := range l {
			if len(s) > len(phrase) && strings.EqualFold(s[:len(phrase)], phrase) && strings.HasPrefix(s[len(phrase):], sep) {
				return
			}
		}
	}
	*list = append(*list, phrase+sep+meaning)
	if n.keepTimes && span.To.After(span.From) {
		n.times = append(n.times, timed{span, from, from + len(phrase)})
	}
}

// scanEnglish finds the English relative expressions of text: "yesterday",
// "the day before yesterday", "tomorrow", "the day after tomorrow", "last
// night", "<n> days/weeks/months/years ago", "last/next week/weekend/
// month/year/<weekday>" (not after "the": "the last year of the war"), in
// any case, the words of an expression separated by spaces only. It looks
// at the start of each word for the word an expression turns on
// (yesterday, tomorrow, last, next, ago) and reads the words around that
// one only: a context asks it of dozens of turns, most of which hold none.
func scanEnglish(text string, day time.Time, notes *relativeNotes) {
	add := func(from, to int, meaning string, span Span) {
		notes.add(&notes.en, text[from:to], meaning, ": ", span, from)
	}
	// A word at a time: i is at a word's first byte or between words, and
	// each word is passed over whole once its first byte and its length
	// rule it out.
	for i := 0; i < len(text) && !notes.full(); {
		c := text[i]
		if !script.IsWordByte(c) {
			i++
			continue
		}
		end := script.WordEnd(text, i)
		w := text[i:end]
		switch c | 0x20 {
		case 'y', 't', 'l', 'n', 'a':
		default:
			i = end
			continue
		}
		switch len(w) {
		case 3, 4, 8, 9:
		default:
			i = end
			continue
		}
		switch {
		case strings.EqualFold(w, "yesterday"), strings.EqualFold(w, "tomorrow"):
			days, rel := -1, "before"
			if len(w) == len("tomorrow") {
				days, rel = 1, "after"
			}
			from := i
			if b := wordsBefore(text, i, 3); b.is(text, 2, "the") && b.is(text, 1, "day") && b.is(text, 0, rel) {
				from, days = b.w[2][0], 2*days
			}
			add(from, end, EnDate(day.AddDate(0, 0, days)), daySpan(day, days))
		case strings.EqualFold(w, "last"), strings.EqualFold(w, "next"):
			if b := wordsBefore(text, i, 1); b.is(text, 0, "the") {
				break
			}
			ns, ne, ok := script.WordAfter(text, end)
			if !ok {
				break
			}
			unit := strings.ToLower(text[ns:ne])
			if unit == "night" && strings.EqualFold(w, "last") {
				add(i, ne, EnDate(day.AddDate(0, 0, -1)), daySpan(day, -1))
			} else if m := sideMeaning(langEN, lastOrNext(w), unit, day); m != "" {
				add(i, ne, m, sideSpan(lastOrNext(w), unit, day))
			} else {
				break
			}
			// The unit is read: the next word is the one after it.
			end = ne
		case strings.EqualFold(w, "ago"):
			b := wordsBefore(text, i, 4)
			if b.n < 2 {
				break
			}
			unit := strings.ToLower(b.word(text, 0))
			n, from := 0, 0
			if b.is(text, 3, "a") && b.is(text, 2, "couple") && b.is(text, 1, "of") {
				n, from = 2, b.w[3][0]
			} else if n = enCount(b.word(text, 1)); n > 0 {
				from = b.w[1][0]
			}
			if n > 0 {
				if m := agoMeaning(langEN, n, unit, day); m != "" {
					add(from, end, m, agoSpan(n, unit, day))
				}
			}
		}
		i = end
	}
}

// scanWords calls read with each ASCII word of text that begins with one
// of the bytes of firsts, as text[start:end]; read returns where to go on
// from (end, or the end of what it read), or -1 to stop. The scanners of
// the times a message names (recentSpans, monthSpans, askedSpans) read the
// words around the few a time turns on, and pass over the rest a byte at a
// time; scanEnglish, which reads every recalled turn of a context, keeps
// that loop without the call.
func scanWords(text, firsts string, read func(start, end int) int) {
	prev := byte(' ')
	for i := 0; i < len(text); i++ {
		c := text[i]
		start := !script.IsWordByte(prev)
		prev = c
		if !start || strings.IndexByte(firsts, c) < 0 {
			continue
		}
		next := read(i, script.WordEnd(text, i))
		if next < 0 {
			return
		}
		if next > i+1 {
			i, prev = next-1, 'x'
		}
	}
}

// lastOrNext is -1 for "last", 1 for "next".
func lastOrNext(w string) int {
	if strings.EqualFold(w, "last") {
		return -1
	}
	return 1
}

// before are words before a word, nearest first, each joined to the next
// by spaces only: their [start, end) in w[:n].
type before struct {
	w [4][2]int
	n int
}

// word is the k-th word before, as written.
func (b *before) word(text string, k int) string { return text[b.w[k][0]:b.w[k][1]] }

// is reports whether the k-th word before is want, in any case.
func (b *before) is(text string, k int, want string) bool {
	return k < b.n && strings.EqualFold(b.word(text, k), want)
}

// wordsBefore reads up to n (at most 4) words before the word that starts
// at i.
func wordsBefore(text string, i, n int) before {
	var b before
	for b.n < min(n, len(b.w)) {
		j := i
		for j > 0 && text[j-1] == ' ' {
			j--
		}
		if j == i || j == 0 || !script.IsWordByte(text[j-1]) {
			break
		}
		k := j
		for k > 0 && script.IsWordByte(text[k-1]) {
			k--
		}
		b.w[b.n] = [2]int{k, j}
		b.n++
		i = k
	}
	return b
}

// enCounts are the number words a count may be: their value is their
// index (a and an are one).
var enCounts = [...]string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"}

// enCount reads an English count: up to three digits, a, an, or a number
// word up to twelve (0 when it is none).
func enCount(w string) int {
	if n, ok := smallNumber(w); ok {
		return n
	}
	if strings.EqualFold(w, "a") || strings.EqualFold(w, "an") {
		return 1
	}
	for n, c := range enCounts {
		if n > 0 && strings.EqualFold(w, c) {
			return n
		}
	}
	return 0
}

// smallNumber reads up to three ASCII digits (strconv.Atoi's error for
// every other word would cost an allocation each).
func smallNumber(w string) (int, bool) {
	if w == "" || len(w) > 3 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(w); i++ {
		if w[i] < '0' || w[i] > '9' {
			return 0, false
		}
		n = 10*n + int(w[i]-'0')
	}
	return n, true
}

// zhNear are the Chinese words for days near the day said, longest first
// where one begins another.
var zhNear = []struct {
	word string
	days int
}{{"大前天", -3}, {"前天", -2}, {"昨天", -1}, {"昨晚", -1}, {"昨日", -1}, {"明天", 1}, {"后天", 2}}

// zhYears are the Chinese words for years near the day said.
var zhYears = []struct {
	word  string
	years int
}{{"去年", -1}, {"前年", -2}, {"明年", 1}}

// zhUnits are the units of "<n><unit>前" (三天前, 两个月前).
var zhUnits = []struct{ word, unit string }{{"天", "day"}, {"周", "week"}, {"个星期", "week"}, {"个月", "month"}, {"年", "year"}}

// scanChinese finds the Chinese relative expressions of text: 昨天, 前天,
// 明天 and the like, 去年, 前年, 明年, 上个月, 下月, 上周, 下个星期, 上周五,
// 上周末, and "<n>天/周/个月/年前".
func scanChinese(text string, day time.Time, notes *relativeNotes) {
	add := func(phrase, meaning string, span Span) { notes.add(&notes.zh, phrase, meaning, "：", span, notes.at) }
	for i := 0; i < len(text) && !notes.full(); {
		rest := text[i:]
		notes.at = i
		n := zhExpression(rest, day, add)
		if n == 0 {
			_, n = utf8.DecodeRuneInString(rest)
		}
		i += n
	}
}

// zhExpression reads the expression rest begins with, if any, hands it to
// add with its meaning and returns its length in bytes (0: none).
func zhExpression(rest string, day time.Time, add func(phrase, meaning string, span Span)) int {
	switch r, _ := utf8.DecodeRuneInString(rest); r {
	case '大', '前', '昨', '明', '后', '去', '上', '下', '一', '二', '两', '三', '四', '五', '六', '七', '八', '九', '十',
		'0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
	default:
		return 0
	}
	for _, e := range zhNear {
		if strings.HasPrefix(rest, e.word) {
			add(e.word, ZhDate(day.AddDate(0, 0, e.days)), daySpan(day, e.days))
			return len(e.word)
		}
	}
	for _, e := range zhYears {
		if strings.HasPrefix(rest, e.word) {
			add(e.word, strconv.Itoa(day.Year()+e.years)+"年", sideSpan(e.years, "year", day))
			return len(e.word)
		}
	}
	if strings.HasPrefix(rest, "上") || strings.HasPrefix(rest, "下") {
		if n := zhSide(rest, day, add); n > 0 {
			return n
		}
	}
	if n, size := zhCountAt(rest); n > 0 {
		for _, u := range zhUnits {
			if tail := rest[size:]; strings.HasPrefix(tail, u.word) && strings.HasPrefix(tail[len(u.word):], "前") {
				end := size + len(u.word) + len("前")
				add(rest[:end], agoMeaning(langZH, n, u.unit, day), agoSpan(n, u.unit, day))
				return end
			}
		}
		return size
	}
	return 0
}

// zhSide reads 上/下 followed by a month (上个月, 下月) or a week (上周,
// 下个星期, 上礼拜), the week's day (上周五) or its weekend (上周末).
func zhSide(rest string, day time.Time, add func(phrase, meaning string, span Span)) int {
	if strings.HasPrefix(rest, "上上") || strings.HasPrefix(rest, "下下") {
		// 上上周, 上上个月: the one before last is not the last one; a
		// message's is read by zhAskedSpans, a turn's is not noted.
		if n := zhSide(rest[len("上"):], day, func(string, string, Span) {}); n > 0 {
			return len("上") + n
		}
		return 0
	}
	dir := 1
	if strings.HasPrefix(rest, "上") {
		dir = -1
	}
	at := len("上")
	if strings.HasPrefix(rest[at:], "个") {
		at += len("个")
	}
	if strings.HasPrefix(rest[at:], "月") {
		at += len("月")
		add(rest[:at], sideMeaning(langZH, dir, "month", day), sideSpan(dir, "month", day))
		return at
	}
	week := false
	for _, w := range [...]string{"周", "星期", "礼拜"} {
		if strings.HasPrefix(rest[at:], w) {
			at += len(w)
			week = true
			break
		}
	}
	if !week {
		return 0
	}
	r, size := utf8.DecodeRuneInString(rest[at:])
	if r == '末' {
		at += size
		add(rest[:at], sideMeaning(langZH, dir, "weekend", day), sideSpan(dir, "weekend", day))
		return at
	}
	if wd, ok := zhWeekdayOf[r]; ok && !zhOneWord(rest[at:]) {
		at += size
		// 上周五 is the Friday of the week before day's (weeks from Monday).
		monday := day.AddDate(0, 0, -((int(day.Weekday())+6)%7)+7*dir)
		d := monday.AddDate(0, 0, (int(wd)+6)%7)
		add(rest[:at], ZhDate(d), Span{From: d, To: d.AddDate(0, 0, 1)})
		return at
	}
	add(rest[:at], sideMeaning(langZH, dir, "week", day), sideSpan(dir, "week", day))
	return at
}

var zhWeekdayOf = map[rune]time.Weekday{'日': time.Sunday, '一': time.Monday, '二': time.Tuesday,
	'三': time.Wednesday, '四': time.Thursday, '五': time.Friday, '六': time.Saturday}

// zhOneWord reports whether rest begins with a common word of 一 (一起,
// 一下, 一直…): 上周一起去的 is "went together last week", not "last Monday".
func zhOneWord(rest string) bool {
	for _, w := range [...]string{"一起", "一下", "一样", "一直", "一共", "一些", "一点", "一次", "一个", "一定", "一边", "一般"} {
		if strings.HasPrefix(rest, w) {
			return true
		}
	}
	return false
}

var zhDigits = map[rune]int{'一': 1, '二': 2, '两': 2, '三': 3, '四': 4, '五': 5, '六': 6, '七': 7, '八': 8, '九': 9}

// zhCountAt reads the count rest begins with: ASCII digits (up to three)
// or Chinese numerals up to 99 (十, 十二, 二十, 两); it returns the count and
// its length in bytes (0, 0 when there is none).
func zhCountAt(rest string) (int, int) {
	size := 0
	for size < len(rest) && size < 3 && rest[size] >= '0' && rest[size] <= '9' {
		size++
	}
	if size > 0 {
		n, _ := smallNumber(rest[:size])
		return n, size
	}
	var rs []rune
	for _, r := range rest {
		if _, ok := zhDigits[r]; !ok && r != '十' || len(rs) == 3 {
			break
		}
		rs = append(rs, r)
		size += utf8.RuneLen(r)
	}
	n := 0
	switch {
	case len(rs) == 1 && rs[0] == '十':
		n = 10
	case len(rs) == 1:
		n = zhDigits[rs[0]]
	case len(rs) == 2 && rs[0] == '十':
		n = 10 + zhDigits[rs[1]]
	case len(rs) == 2 && rs[1] == '十':
		n = zhDigits[rs[0]] * 10
	case len(rs) == 3 && rs[1] == '十':
		n = zhDigits[rs[0]]*10 + zhDigits[rs[2]]
	}
	if n == 0 {
		return 0, 0
	}
	return n, size
}

// agoMeaning is what "n units ago" said on day meant: a day, the week
// around a day, a month or a year, "around" where the count is rough.
func agoMeaning(lang string, n int, unit string, day time.Time) string {
	switch strings.TrimSuffix(unit, "s") {
	case "day":
		return langDate(lang, day.AddDate(0, 0, -n))
	case "week":
		d := langDate(lang, day.AddDate(0, 0, -7*n))
		if lang == langZH {
			return d + "前后"
		}
		return "around " + d
	case "month":
		if lang == langZH {
			return "约" + zhMonth(day.AddDate(0, -n, 0))
		}
		return "around " + enMonth(day.AddDate(0, -n, 0))
	case "year":
		if lang == langZH {
			return "约" + strconv.Itoa(day.Year()-n) + "年"
		}
		return "around " + strconv.Itoa(day.Year()-n)
	}
	return ""
}

var enWeekdays = map[string]time.Weekday{"sunday": time.Sunday, "monday": time.Monday, "tuesday": time.Tuesday,
	"wednesday": time.Wednesday, "thursday": time.Thursday, "friday": time.Friday, "saturday": time.Saturday}

// sideMeaning is what "last" (dir -1) or "next" (1) week, weekend, month,
// year or weekday said on day meant ("" for another word).
func sideMeaning(lang string, dir int, unit string, day time.Time) string {
	switch unit {
	case "week", "weekend":
		d := langDate(lang, day)
		if lang == langZH {
			side := "的后一"
			if dir < 0 {
				side = "的前一"
			}
			if unit == "weekend" {
				return d + side + "个周末"
			}
			return d + side + "周"
		}
		rel := "before"
		if dir > 0 {
			rel = "after"
		}
		return "the " + unit + " " + rel + " " + d
	case "month":
		first := day.AddDate(0, 0, 1-day.Day())
		if lang == langZH {
			return zhMonth(first.AddDate(0, dir, 0))
		}
		return enMonth(first.AddDate(0, dir, 0))
	case "year":
		return strconv.Itoa(day.Year() + dir)
	}
	wd, ok := enWeekdays[unit]
	if !ok {
		return ""
	}
	// The nearest such weekday before day ("last Friday") or after it
	// ("next Friday").
	step := (int(day.Weekday()) - int(wd) + 7) % 7
	if dir > 0 {
		step = (int(wd) - int(day.Weekday()) + 7) % 7
	}
	if step == 0 {
		step = 7
	}
	return EnDate(day.AddDate(0, 0, dir*step))
}

func langDate(lang string, t time.Time) string {
	if lang == langZH {
		return ZhDate(t)
	}
	return EnDate(t)
}

func enMonth(t time.Time) string { return t.Month().String() + " " + strconv.Itoa(t.Year()) }

func zhMonth(t time.Time) string {
	return strconv.Itoa(t.Year()) + "年" + strconv.Itoa(int(t.Month())) + "月"
}

// A Span is the time a relative expression names, [From, To): a day, a
// week, a weekend, a month or a year, or, for a rough count ("four weeks
// ago", 两个月前), the stretch around the day it counts back to.
type Span struct{ From, To time.Time }

func (s Span) equal(o Span) bool { return s.From.Equal(o.From) && s.To.Equal(o.To) }

// Contains reports whether t falls in the span.
func (s Span) Contains(t time.Time) bool { return !t.Before(s.From) && t.Before(s.To) }

// MessageTimes returns the times a message's relative expressions name
// that have begun by now, read on now's day in now's location: "what did
// I do last Saturday?", "the milestone I mentioned four weeks ago", 上个月,
// 三天前. The expressions are those RelativeNote reads, at most
// maxRelativeNotes of them, and the stretches up to now a question asks
// about ("in the past two weeks", "during the last month", "the past few
// days": recentSpans), the months it names ("in March", "during
// February 2023", "from July to October", 三月份: monthSpans), and the
// current week, month or year so far, today, the latest weekend, "a few
// days ago", "the week before last" and a date ("on May 23, 2023",
// 5月23日: askedSpans, zhAskedSpans); what lies ahead ("next week") is
// left out, as
// nothing said about it has happened yet. spans is nil when there is
// none; untimed is the message with those expressions blanked out, for a
// search by its other words ("Saturday" said of other days is not what
// "last Saturday" asks for), or the message itself when there is none.
func MessageTimes(text string, now time.Time) (spans []Span, untimed string) {
	if now.IsZero() || text == "" {
		return nil, text
	}
	day := Midnight(now)
	notes := relativeNotes{keepTimes: true}
	scanEnglish(text, day, &notes)
	if script.HasHan(text) {
		scanChinese(text, day, &notes)
	}
	var blank []byte
	times := append(notes.times, recentSpans(text, day)...)
	times = append(times, monthSpans(text, day)...)
	times = append(times, askedSpans(text, day)...)
	if script.HasHan(text) {
		times = append(times, zhAskedSpans(text, day)...)
	}
	for k, t := range times {
		// The zero span keeps its words from the other readings and
		// stays searched (askedSpans: "two weeks before August 11").
		if t.span.To.IsZero() || !t.span.From.Before(now) || within(t, times[:k]) || within(t, times[k+1:]) {
			continue
		}
		if !slices.ContainsFunc(spans, t.span.equal) { // "this past week" is "the past week" too
			spans = append(spans, t.span)
		}
		if blank == nil {
			blank = []byte(text)
		}
		for i := t.from; i < t.to; i++ {
			blank[i] = ' '
		}
	}
	if blank == nil {
		return nil, text
	}
	return spans, string(blank)
}

// within reports whether t's words lie inside a longer time's of others:
// "last weekend" in "last weekend before April 10, 2023" is counted from
// that day, not from the message's.
func within(t timed, others []timed) bool {
	for _, o := range others {
		if o.from <= t.from && t.to <= o.to && o.to-o.from > t.to-t.from {
			return true
		}
	}
	return false
}

// MessageSpans is MessageTimes' spans.
func MessageSpans(text string, now time.Time) []Span {
	spans, _ := MessageTimes(text, now)
	return spans
}

// daySpan is the day days away from day.
func daySpan(day time.Time, days int) Span {
	d := day.AddDate(0, 0, days)
	return Span{From: d, To: d.AddDate(0, 0, 1)}
}

// agoSpan is what "n units ago" said on day names: the day n days before
// it; the week around the day n weeks before (three days either side);
// the month around the day n months before (half a month either side);
// the year n years before. A count of weeks or months is rough: "four
// weeks ago" is as often 26 days as 30.
func agoSpan(n int, unit string, day time.Time) Span {
	switch strings.TrimSuffix(unit, "s") {
	case "day":
		return daySpan(day, -n)
	case "week":
		d := day.AddDate(0, 0, -7*n)
		return Span{From: d.AddDate(0, 0, -3), To: d.AddDate(0, 0, 4)}
	case "month":
		d := day.AddDate(0, -n, 0)
		return Span{From: d.AddDate(0, 0, -15), To: d.AddDate(0, 0, 16)}
	case "year":
		return sideSpan(-n, "year", day)
	}
	return Span{}
}

// sideSpan is what "last" (dir -1) or "next" (1) week, weekend, month,
// year or weekday said on day names (dir -2 for a month or a year: the one
// before last): the calendar week (from Monday) before or after day's, the
// weekend before or after it, the calendar month or year, the nearest such
// weekday before or after day. The zero Span for another word.
func sideSpan(dir int, unit string, day time.Time) Span {
	monday := day.AddDate(0, 0, -((int(day.Weekday()) + 6) % 7))
	switch unit {
	case "week":
		from := monday.AddDate(0, 0, 7*dir)
		return Span{From: from, To: from.AddDate(0, 0, 7)}
	case "weekend":
		from := monday.AddDate(0, 0, 7*dir+5)
		return Span{From: from, To: from.AddDate(0, 0, 2)}
	case "month":
		first := day.AddDate(0, 0, 1-day.Day()).AddDate(0, dir, 0)
		return Span{From: first, To: first.AddDate(0, 1, 0)}
	case "year":
		first := time.Date(day.Year()+dir, time.January, 1, 0, 0, 0, 0, day.Location())
		return Span{From: first, To: first.AddDate(1, 0, 0)}
	}
	wd, ok := enWeekdays[unit]
	if !ok {
		return Span{}
	}
	step := (int(day.Weekday()) - int(wd) + 7) % 7
	if dir > 0 {
		step = (int(wd) - int(day.Weekday()) + 7) % 7
	}
	if step == 0 {
		step = 7
	}
	return daySpan(day, dir*step)
}

// recentSpans reads the stretches up to day a message asks about: "(the)
// past <unit>", "the last <unit>", "(the) past/last <n> <units>", with n a
// count as enCount reads it, "few" (three) or "couple of" (two), and units
// days, weeks, months or years; each from n units before day to the end
// of day. "the last month of the war" is not one. "last month" without
// "the" is the calendar month before (sideSpan), and is left to
// scanEnglish.
func recentSpans(text string, day time.Time) []timed {
	var spans []timed
	scanWords(text, "pPlL", func(i, end int) int {
		if len(spans) >= maxRelativeNotes {
			return -1
		}
		w := text[i:end]
		past := strings.EqualFold(w, "past")
		if !past && !strings.EqualFold(w, "last") {
			return end
		}
		if b := wordsBefore(text, i, 1); !past && !b.is(text, 0, "the") {
			return end
		}
		n, at := 1, end
		ws, we, ok := script.WordAfter(text, at)
		if !ok {
			return end
		}
		switch word := text[ws:we]; {
		case strings.EqualFold(word, "few"):
			n = 3
			ws, we, ok = script.WordAfter(text, we)
		case strings.EqualFold(word, "couple"):
			if os, oe, ok2 := script.WordAfter(text, we); ok2 && strings.EqualFold(text[os:oe], "of") {
				n = 2
				ws, we, ok = script.WordAfter(text, oe)
			}
		default:
			if k := enCount(word); k > 1 {
				n = k
				ws, we, ok = script.WordAfter(text, we)
			}
		}
		if !ok {
			return end
		}
		unit := strings.ToLower(text[ws:we])
		if os, oe, ok := script.WordAfter(text, we); ok && !past && strings.EqualFold(text[os:oe], "of") {
			return end // "the last month of the war"
		}
		plural := strings.HasSuffix(unit, "s")
		if n > 1 != plural {
			return end
		}
		var from time.Time
		switch strings.TrimSuffix(unit, "s") {
		case "day":
			from = day.AddDate(0, 0, -n)
		case "week":
			from = day.AddDate(0, 0, -7*n)
		case "month":
			from = day.AddDate(0, -n, 0)
		case "year":
			from = day.AddDate(-n, 0, 0)
		default:
			return end
		}
		spans = append(spans, timed{Span{From: from, To: day.AddDate(0, 0, 1)}, i, we})
		return we
	})
	return spans
}

// enMonths are the months' English names, January first.
var enMonths = [...]string{"January", "February", "March", "April", "May", "June", "July", "August",
	"September", "October", "November", "December"}

// monthOf reads a capitalized English month name ("March"; 0 for another
// word).
func monthOf(w string) time.Month {
	for i, m := range enMonths {
		if w == m {
			return time.Month(i + 1)
		}
	}
	return 0
}

// monthBefore are the words after which a month's name is the time a
// message asks about: "in March", "during February", "the month of June",
// "early May". A name after another word is a name ("the March 15th
// issue", "May I ask").
var monthBefore = map[string]bool{"in": true, "during": true, "of": true, "early": true, "late": true,
	"mid": true, "throughout": true, "from": true, "between": true}

// monthSpans reads the months a message asks about, each the latest that
// began by day unless a year follows ("in March", "during February 2023",
// "the month of June"; 三月, 3月份, 2023年3月): the whole month; "from
// July to October", "between March and May" one span over them; "in
// January and March" two. A month named with its day ("on March 15th",
// 3月15日) is left to what the text says of it, as are "before March" and
// "since June".
func monthSpans(text string, day time.Time) []timed {
	var spans []timed
	scanWords(text, "JFMASOND", func(i, end int) int {
		if len(spans) >= maxRelativeNotes {
			return -1
		}
		m := monthOf(text[i:end])
		if m == 0 {
			return end
		}
		b := wordsBefore(text, i, 2)
		if b.n == 0 || !monthBefore[strings.ToLower(b.word(text, 0))] {
			return end
		}
		if _, ok := ordinalDay(b.word(text, min(1, b.n-1))); ok && b.n > 1 && b.is(text, 0, "of") {
			return end // "the 3rd of June" is a day (askedSpans)
		}
		first, ok := monthAt(text, end, m, day)
		if !ok {
			return end
		}
		read := timed{first.span, i, first.end}
		var also []timed
		// "from July to October", "between March and May", "January and
		// March".
		if ls, le, ok := script.WordAfter(text, first.end); ok {
			link := strings.ToLower(text[ls:le])
			if ms, me, ok := script.WordAfter(text, le); ok {
				if m2 := monthOf(text[ms:me]); m2 != 0 {
					second, ok := monthAt(text, me, m2, day)
					switch {
					case !ok:
					case link == "to" || link == "through" || link == "until" || link == "and" && strings.EqualFold(b.word(text, 0), "between"):
						if second.span.From.After(read.span.From) {
							read.span.To, read.to = second.span.To, second.end
						}
					case link == "and" || link == "or":
						also = append(also, timed{second.span, ms, second.end})
					}
				}
			}
		}
		spans = append(append(spans, read), also...)
		return read.to
	})
	if script.HasHan(text) {
		spans = append(spans, zhMonthSpans(text, day)...)
	}
	return spans
}

// monthRead is a month a message names, and where its words end.
type monthRead struct {
	span Span
	end  int
}

// monthAt reads what follows the name of month m, which ends at end: a
// year ("March 2023", "March, 2023": that month), a day ("March 15th": not
// a month, ok false), or neither (the latest m that began by day).
func monthAt(text string, end int, m time.Month, day time.Time) (monthRead, bool) {
	at := end
	if at < len(text) && text[at] == ',' {
		at++
	}
	year := day.Year()
	if m > day.Month() {
		year--
	}
	if ws, we, ok := script.WordAfter(text, at); ok {
		w := text[ws:we]
		if n, err := strconv.Atoi(strings.TrimRight(w, "stndrh")); err == nil && len(w) <= 4 {
			if n >= 1000 {
				year, end = n, we
			} else if n >= 1 && n <= 31 {
				return monthRead{}, false
			}
		}
	}
	from := time.Date(year, m, 1, 0, 0, 0, 0, day.Location())
	return monthRead{Span{From: from, To: from.AddDate(0, 1, 0)}, end}, true
}

// zhMonthSpans reads the months a Chinese message names: 三月, 3月份, 十二月,
// 2023年3月; not 三个月 (a length), 3月15日 or 3月15号 (a day), 正月.
func zhMonthSpans(text string, day time.Time) []timed {
	var spans []timed
	for i := 0; i < len(text) && len(spans) < maxRelativeNotes; {
		rest := text[i:]
		n, size := zhCountAt(rest)
		if n == 0 {
			_, size = utf8.DecodeRuneInString(rest)
			i += size
			continue
		}
		tail := rest[size:]
		if n > 12 || !strings.HasPrefix(tail, "月") {
			i += size
			continue
		}
		end := size + len("月")
		after := tail[len("月"):]
		if k, ks := zhCountAt(after); k > 0 && (strings.HasPrefix(after[ks:], "日") || strings.HasPrefix(after[ks:], "号")) {
			i += end // a day
			continue
		}
		if strings.HasPrefix(after, "份") {
			end += len("份")
		}
		from, at := i, i
		year := day.Year()
		if time.Month(n) > day.Month() {
			year--
		}
		// 2023年3月: the year before it.
		if j := strings.LastIndex(text[:i], "年"); j >= 4 && j+len("年") == i {
			if y, err := strconv.Atoi(text[j-4 : j]); err == nil {
				year, from = y, j-4
			}
		}
		start := time.Date(year, time.Month(n), 1, 0, 0, 0, 0, day.Location())
		spans = append(spans, timed{Span{From: start, To: start.AddDate(0, 1, 0)}, from, at + end})
		i += end
	}
	return spans
}
