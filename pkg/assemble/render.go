package assemble

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/recallhq/recall/pkg/record"
	"github.com/recallhq/recall/pkg/script"
	"github.com/recallhq/recall/pkg/when"
)

// Languages the prompt block is rendered in.
const (
	LangEN   = "en"
	LangZH   = "zh"
	LangAuto = "auto"
)

// Parts are the assembled pieces of memory that get rendered.
type Parts struct {
	// List is the session's current list (nil when it has none).
	List      *List
	Window    Window
	Facts     Facts
	Summaries Summaries
	// Recalled is what a search of the user's history found for the current
	// message (nil: the context was asked for without one).
	Recalled *Recalled
	// Attributes are who the user is and what they asked for (nil: nothing
	// known).
	Attributes *Attributes
	// AttributesLimit caps the characters the attributes may take of the
	// budget (0: no cap of their own).
	AttributesLimit int
	// StatementLimit caps the characters the user's own statements may
	// take, past the attributes' keys (0: no cap of their own).
	StatementLimit int
	// StatementsLast fits the statements into what the other parts leave,
	// last, rather than right after the attributes' keys: for a message whose
	// answer is in the history ("how many hours did I spend on games?"), not
	// in who the user is. They are still shown where they always are.
	StatementsLast bool
	// Now is the time the context is for (its `at`, or the time it was
	// asked): each recalled day says how long before it that day was
	// ("Fri 5 May 2023, 25 days ago"), so that "how long ago" and "how long
	// between" can be read off the prompt. Zero: dates alone.
	Now time.Time
	// Zone is the time zone the context's days are reckoned in, the
	// user's (their attributes' timezone): the days recalled turns are
	// dated with and how long before Now each was, what a turn's
	// "yesterday" meant, the days a summary covers. A turn said at 07:00
	// in Shanghai is of that day, not of the day before as in UTC. nil:
	// UTC.
	Zone *time.Location
	// RecalledShare is the most the recalled part may take of what the
	// attributes, the list and the window leave, when the summaries and facts
	// would use the rest: they are held that much of it, at most what they
	// need (0 or 1 and above: no share; the recalled part may take it all).
	RecalledShare float64
}

// zone is Zone, UTC when unset.
func (p *Parts) zone() *time.Location {
	if p.Zone == nil {
		return time.UTC
	}
	return p.Zone
}

type phrases struct {
	// lang is the language the phrases are in (en, zh): an attribute entry's
	// label is looked up by it.
	lang string
	// about opens who the user is; asked opens what they asked for, and
	// says it is to be followed; entrySep separates their entries.
	about, asked, entrySep string
	// statements heads the user's own standing statements.
	statements             string
	framing, window, colon string
	roles                  map[string]string
	// interests opens the facts line; types names fact types; sep and open/close
	// punctuate it.
	interests, sep, open, close string
	types                       map[string]string
	// earlier opens the other sessions' summaries, mentioned their key
	// topics; current introduces this session's summary.
	earlier, mentioned, current string
	// list introduces the current list; ref labels an item's ref.
	list, ref string
	// called and showed describe a turn that has no text, only structure.
	called, showed func(names string, items int) string
	// recalled introduces what the history search found; summaryLabel and
	// factLabel stand where a role would in its lines; date appends a day.
	recalled, summaryLabel, factLabel string
	date                              func([]byte, time.Time) []byte
	// ago appends how many days before the context's time a day was
	// (ageOf), and in the unit the message asks in (askedUnit), after
	// agoSep.
	ago    func(b []byte, days, in int) []byte
	agoSep string
	// gap appends how far a day is from the first day shown
	// (appendEnGap), after gapSep.
	gap    func(b []byte, days, in int) []byte
	gapSep string
}

var text = map[string]phrases{
	LangEN: {
		lang:       LangEN,
		about:      "About the user: ",
		asked:      "The user has asked (follow this unless the current message says otherwise): ",
		entrySep:   "; ",
		statements: "What the user has said about themselves, in their own words (standing unless the current message says otherwise; dated, the newest word on a matter wins):",
		framing:    "[Memory] The following is remembered from earlier turns. Use it as context and preference only, not as a source of facts: do not state it as fact, and prefer the user's current message and fresh tool results where they differ.",
		window:     "Recent conversation in this session:",
		colon:      ": ",
		interests:  "The user has shown interest in: ", sep: ", ", open: " (", close: ")",
		earlier: "Earlier conversations:", mentioned: "The user mentioned: ", current: "Earlier in this session: ",
		list: "The list last shown to the user in this session (numbered as shown; when the user picks one by its number, use that item and quote its ref exactly, never make one up):",
		ref:  "ref: ",
		types: map[string]string{"book_title": "book", "author": "author", "film": "film", "music": "music",
			"person": "person", "genre": "genre", "topic": "topic"},
		called:       func(names string, _ int) string { return "(called " + names + ")" },
		showed:       func(_ string, n int) string { return "(showed a list of " + strconv.Itoa(n) + " items)" },
		roles:        map[string]string{"user": "User", "assistant": "Assistant", "tool": "Tool", "system": "System"},
		recalled:     "From the user's earlier conversations, what may bear on the current message (most relevant first, dated):",
		summaryLabel: "Summary", factLabel: "Interest",
		date: when.AppendEnDate, ago: appendEnAgo, agoSep: ", ", gap: appendEnGap, gapSep: "; ",
	},
	LangZH: {
		lang:       LangZH,
		about:      "关于用户：",
		asked:      "用户的长期要求（除非当前消息另有说明，请遵循）：",
		entrySep:   "；",
		statements: "用户自述（用户原话，长期有效，除非当前消息另有说明；带日期，同一件事以最新的说法为准）：",
		framing:    "【记忆】以下内容来自之前的对话，仅作为上下文和偏好参考，不作为事实来源：不要把它当作事实陈述；与用户当前消息或最新工具结果不一致时，以后者为准。",
		window:     "本次会话最近的对话：",
		colon:      "：",
		interests:  "用户曾关注：", sep: "、", open: "（", close: "）",
		earlier: "之前的对话摘要：", mentioned: "用户曾提及：", current: "本次会话较早的内容：",
		list: "本次会话最近展示给用户的列表（编号与展示时一致；用户按编号选择时，使用对应条目并原样引用其 ref，不要编造）：",
		ref:  "ref: ",
		types: map[string]string{"book_title": "书", "author": "作者", "film": "电影", "music": "音乐",
			"person": "人物", "genre": "类型", "topic": "话题"},
		called:       func(names string, _ int) string { return "（调用了 " + names + "）" },
		showed:       func(_ string, n int) string { return "（展示了 " + strconv.Itoa(n) + " 个条目的列表）" },
		roles:        map[string]string{"user": "用户", "assistant": "助手", "tool": "工具", "system": "系统"},
		recalled:     "用户以往对话中可能与当前消息相关的内容（按相关度排序，附日期）：",
		summaryLabel: "摘要", factLabel: "兴趣",
		date: when.AppendZhDate, ago: appendZhAgo, agoSep: "，", gap: appendZhGap, gapSep: "；",
	},
}

// asksBetween reports whether a message that asks a count of days, weeks
// or months (in: askedUnit) asks how long passed between two things: it
// says between, before, after, since, passed, until, take or took, or
// 之间, 相隔, 隔了, 之前, 之后, 以前, 以后, 过了, and not "ago" (天前, 周前…),
// which asks how long before now one thing was.
func asksBetween(message string, in int) bool {
	if in == 0 {
		return false
	}
	relation := false
	for i := 0; i < len(message); i++ {
		if i > 0 && script.IsWordByte(message[i-1]) || !script.IsWordByte(message[i]) {
			continue
		}
		switch strings.ToLower(message[i:script.WordEnd(message, i)]) {
		case "ago":
			return false
		case "between", "before", "after", "since", "passed", "until", "take", "took":
			relation = true
		}
	}
	for _, s := range [...]string{"天前", "周前", "星期前", "月前", "年前"} {
		if strings.Contains(message, s) {
			return false
		}
	}
	for _, s := range [...]string{"之间", "相隔", "隔了", "之前", "之后", "以前", "以后", "过了"} {
		if strings.Contains(message, s) {
			return true
		}
	}
	return relation
}

// enAgo and zhAgo say how long ago a day was, in days up to two months
// (what "how many days ago" and "how many weeks between" are counted in),
// then in months, then in years: "today", "yesterday", "25 days ago",
// "4 months ago", "2 years ago" (今天, 昨天, 25天前, 4个月前, 2年前). A
// message that asks how many days, weeks or months (in: ageDays,
// ageWeeks, ageMonths; askedUnit) has the age said in that unit too,
// rounded: "3 months (89 days) ago", "30 days (4 weeks) ago", "45 days (1
// month) ago" (30天（约4周）前): the count it asks for is read off the line,
// not worked out for each of a dozen.
func enAgo(days, in int) string { return string(appendEnAgo(nil, days, in)) }

func zhAgo(days, in int) string { return string(appendZhAgo(nil, days, in)) }

// appendEnAgo and appendZhAgo append enAgo's and zhAgo's text to b: a
// context dates dozens of days, and each string built on the way was an
// allocation.
func appendEnAgo(b []byte, days, in int) []byte {
	switch days {
	case 0:
		return append(b, "today"...)
	case 1:
		return append(b, "yesterday"...)
	}
	return append(appendEnLength(b, days, in), " ago"...)
}

func appendZhAgo(b []byte, days, in int) []byte {
	switch days {
	case 0:
		return append(b, "今天"...)
	case 1:
		return append(b, "昨天"...)
	}
	return append(appendZhLength(b, days, in), "前"...)
}

// appendEnLength and appendZhLength append a length of days (at least
// one) in the unit ageOf says it in, and in the unit in as well (ageIn):
// "25 days", "4 months (121 days)", "30 days (4 weeks)" (25天, 4个月（121天）,
// 30天（约4周）).
func appendEnLength(b []byte, days, in int) []byte {
	n, unit := ageOf(days)
	switch unit {
	case ageToday, ageYesterday:
		b = append(b, "1 day"...)
	case ageDays:
		b = append(strconv.AppendInt(b, int64(n), 10), " days"...)
	case ageMonths:
		b = append(strconv.AppendInt(b, int64(n), 10), " months"...)
	default:
		b = append(strconv.AppendInt(b, int64(n), 10), " years"...)
	}
	if k, also := ageIn(days, unit, in); k > 0 {
		b = append(strconv.AppendInt(append(b, " ("...), int64(k), 10), ' ')
		b = append(b, also...)
		if k > 1 {
			b = append(b, 's')
		}
		b = append(b, ')')
	}
	return b
}

func appendZhLength(b []byte, days, in int) []byte {
	n, unit := ageOf(days)
	switch unit {
	case ageToday, ageYesterday:
		b = append(b, "1天"...)
	case ageDays:
		b = append(strconv.AppendInt(b, int64(n), 10), "天"...)
	case ageMonths:
		b = append(strconv.AppendInt(b, int64(n), 10), "个月"...)
	default:
		b = append(strconv.AppendInt(b, int64(n), 10), "年"...)
	}
	if k, also := ageIn(days, unit, in); k > 0 {
		switch also {
		case "day":
			b = append(append(strconv.AppendInt(append(b, "（"...), int64(k), 10), "天"...), "）"...)
		case "week":
			b = append(append(strconv.AppendInt(append(b, "（约"...), int64(k), 10), "周"...), "）"...)
		default:
			b = append(append(strconv.AppendInt(append(b, "（约"...), int64(k), 10), "个月"...), "）"...)
		}
	}
	return b
}

// appendEnGap and appendZhGap append how far a day is from the first day a
// recalled part shows (days > 0: before it), for a message that asks how
// long passed between two things (asksBetween): "4 days before the first
// date above" (比上面第一个日期早4天).
func appendEnGap(b []byte, days, in int) []byte {
	rel := " before the first date above"
	if days < 0 {
		days, rel = -days, " after the first date above"
	}
	return append(appendEnLength(b, days, in), rel...)
}

func appendZhGap(b []byte, days, in int) []byte {
	rel := "比上面第一个日期早"
	if days < 0 {
		days, rel = -days, "比上面第一个日期晚"
	}
	return appendZhLength(append(b, rel...), days, in)
}

// ageIn is an age of days, said in unit (ageOf), in the unit a message
// asks in as well: days once ageOf says months or years, whole weeks
// (rounded) from a week on, whole months from four weeks until ageOf says
// months itself; 0 when there is nothing to add.
func ageIn(days, unit, in int) (int, string) {
	switch {
	case in == ageDays && unit > ageDays:
		return days, "day"
	case in == ageWeeks && days >= 7:
		return int(float64(days)/7 + 0.5), "week"
	case in == ageMonths && unit == ageDays && days >= 28:
		return int(float64(days)/30.44 + 0.5), "month"
	}
	return 0, ""
}

// askedUnit is the unit a message asks a count of time in: ageDays for
// "how many days…" (几天, 多少天), ageWeeks for "how many weeks…" (几周,
// 几个星期), ageMonths for "how many months…" (几个月, 多少个月), the first
// one asked; 0 otherwise ("Valentine's day", "in the past two weeks" ask
// for none).
func askedUnit(message string) int {
	for i := 0; i+3 <= len(message); i++ {
		if message[i]|0x20 != 'h' || i > 0 && script.IsWordByte(message[i-1]) || !strings.EqualFold(message[i:script.WordEnd(message, i)], "how") {
			continue
		}
		ms, me, ok := script.WordAfter(message, i+3)
		if !ok || !strings.EqualFold(message[ms:me], "many") {
			continue
		}
		us, ue, ok := script.WordAfter(message, me)
		if !ok {
			continue
		}
		switch strings.ToLower(message[us:ue]) {
		case "days":
			return ageDays
		case "weeks":
			return ageWeeks
		case "months":
			return ageMonths
		}
	}
	if !script.HasHan(message) {
		return 0
	}
	first, unit := -1, 0
	for _, c := range [...]struct {
		word string
		unit int
	}{{"几天", ageDays}, {"多少天", ageDays}, {"几周", ageWeeks}, {"多少周", ageWeeks}, {"几个星期", ageWeeks},
		{"多少个星期", ageWeeks}, {"几个月", ageMonths}, {"多少个月", ageMonths}} {
		if k := strings.Index(message, c.word); k >= 0 && (first < 0 || k < first) {
			first, unit = k, c.unit
		}
	}
	return unit
}

// The units an age is said in.
const (
	ageToday = iota
	ageYesterday
	ageDays
	ageMonths
	ageYears
	// ageWeeks is a unit a message may ask in (askedUnit), never ageOf's.
	ageWeeks
)

// ageOf is an age of days days in the unit it is said in: days below 60,
// whole months (of 30.44 days, rounded) below two years, whole years after.
func ageOf(days int) (int, int) {
	switch {
	case days <= 0:
		return 0, ageToday
	case days == 1:
		return 1, ageYesterday
	case days < 60:
		return days, ageDays
	case days < 730:
		return int(float64(days)/30.44 + 0.5), ageMonths
	default:
		return days / 365, ageYears
	}
}

// ResolveLang maps a requested language to en or zh. "auto" (or empty) picks zh
// when most letters in the window are Han characters.
func ResolveLang(lang string, p Parts) string {
	switch lang {
	case LangEN, LangZH:
		return lang
	}
	var han, other int
	for _, m := range p.Window.Messages {
		h, o := script.Count(m.Content)
		han, other = han+h, other+o
	}
	for _, f := range p.Facts.Facts {
		h, o := script.Count(f.Display)
		han, other = han+h, other+o
	}
	if p.Attributes != nil {
		for _, group := range [...][]AttributeEntry{p.Attributes.About, p.Attributes.Requests} {
			for _, e := range group {
				for _, v := range e.Values {
					h, o := script.Count(v)
					han, other = han+h, other+o
				}
			}
		}
		for _, st := range p.Attributes.Statements {
			h, o := script.Count(st.Text)
			han, other = han+h, other+o
		}
	}
	for _, s := range p.Summaries.Previous {
		h, o := script.Count(s.Summary)
		han, other = han+h, other+o
	}
	if c := p.Summaries.Current; c != nil {
		h, o := script.Count(c.Summary)
		han, other = han+h, other+o
	}
	if r := p.Recalled; r != nil {
		for _, hit := range r.Hits {
			h, o := script.Count(hit.Text)
			han, other = han+h, other+o
		}
	}
	// A Han character carries about as much as a short word; weigh accordingly.
	if han*3 > other {
		return LangZH
	}
	return LangEN
}

// Render writes the prompt block. An empty memory renders as an empty string, so
// a backend can append it unconditionally.
func Render(lang string, p Parts) string {
	ph := text[ResolveLang(lang, p)]
	return renderLines(ph, p).write(ph)
}

// lines are the parts' entries as the prompt shows them, one string each, in
// the parts' order: computed once, both to spend the budget and to write the
// prompt.
type lines struct {
	// about and requests are the attributes' entries, without their line's
	// opening or separators.
	about, requests []string
	// statements are the user's own statements, a line each.
	statements []string
	// facts are the facts' texts, without the line's opening or separators.
	facts    []string
	previous []string
	current  string
	recalled []string
	window   []string
	list     []string
}

func renderLines(ph phrases, p Parts) lines {
	var l lines
	var b strings.Builder
	line := func(write func()) string {
		b.Reset()
		write()
		return strings.TrimSuffix(b.String(), "\n")
	}
	l.about, l.requests = attributeLines(ph, p.Attributes)
	if p.Attributes != nil {
		l.statements = make([]string, len(p.Attributes.Statements))
		for i, st := range p.Attributes.Statements {
			l.statements[i] = statementLine(st, p.zone())
		}
	}
	l.facts = make([]string, len(p.Facts.Facts))
	for i, f := range p.Facts.Facts {
		l.facts[i] = line(func() { writeFact(&b, ph, f) })
	}
	l.previous = make([]string, len(p.Summaries.Previous))
	for i, s := range p.Summaries.Previous {
		l.previous[i] = line(func() { writeSummary(&b, ph, s, p.zone()) })
	}
	if c := p.Summaries.Current; c != nil {
		l.current = currentLine(ph, *c)
	}
	if p.Recalled != nil {
		unlimited := math.MaxInt
		_, l.recalled = fitRecalled(ph, p.Recalled.Hits, p.Recalled.dates, &unlimited, p.Now, p.zone(), p.Recalled.Query)
	}
	l.window = make([]string, len(p.Window.Messages))
	for i, m := range p.Window.Messages {
		l.window[i] = line(func() { writeMessage(&b, ph, m) })
	}
	if p.List != nil {
		l.list = make([]string, len(p.List.Items))
		for i, e := range p.List.Items {
			l.list[i] = listLine(ph, e)
		}
	}
	return l
}

// write joins the lines into the prompt block: framing, who the user is and
// what they asked for, facts, earlier sessions, this session's summary,
// what the history search recalled, the window, and the list last.
func (l lines) write(ph phrases) string {
	if len(l.window) == 0 && len(l.facts) == 0 && len(l.previous) == 0 && l.current == "" && len(l.list) == 0 && len(l.recalled) == 0 &&
		len(l.about) == 0 && len(l.requests) == 0 && len(l.statements) == 0 {
		return ""
	}
	size := len(ph.framing) + len(ph.interests) + len(ph.earlier) + len(ph.recalled) + len(ph.window) + len(ph.list) + len(ph.about) + len(ph.asked) +
		len(ph.statements) + 16
	for _, group := range [...][]string{l.about, l.requests, l.statements, l.facts, l.previous, l.recalled, l.window, l.list} {
		for _, s := range group {
			size += len(s) + len(ph.sep)
		}
	}
	var b strings.Builder
	b.Grow(size + len(l.current))
	b.WriteString(ph.framing)
	b.WriteString("\n")
	if len(l.about)+len(l.requests) > 0 {
		b.WriteString("\n")
		for _, line := range [...]string{attributeLine(ph, ph.about, l.about), attributeLine(ph, ph.asked, l.requests)} {
			if line != "" {
				b.WriteString(line)
				b.WriteString("\n")
			}
		}
	}
	if len(l.statements) > 0 {
		b.WriteString("\n")
		b.WriteString(ph.statements)
		b.WriteByte('\n')
		for _, st := range l.statements {
			b.WriteString(st)
			b.WriteByte('\n')
		}
	}
	if len(l.facts) > 0 {
		b.WriteString("\n")
		b.WriteString(ph.interests)
		for i, f := range l.facts {
			if i > 0 {
				b.WriteString(ph.sep)
			}
			b.WriteString(f)
		}
		b.WriteString("\n")
	}
	block := func(heading string, entries []string) {
		if len(entries) == 0 {
			return
		}
		b.WriteString("\n")
		b.WriteString(heading)
		b.WriteByte('\n')
		for _, e := range entries {
			b.WriteString(e)
			b.WriteByte('\n')
		}
	}
	block(ph.earlier, l.previous)
	if l.current != "" {
		b.WriteString("\n")
		b.WriteString(l.current)
		b.WriteByte('\n')
	}
	block(ph.recalled, l.recalled)
	block(ph.window, l.window)
	// The list comes last, nearest to the user's next message ("3").
	block(ph.list, l.list)
	return strings.TrimRight(b.String(), "\n")
}

// writeFact writes a fact's name and, when its type has a word in ph.types,
// its kind: a name whose sort the extractor could not tell (type name, see
// extract.KindName) is written alone rather than with a guessed kind.
func writeFact(b *strings.Builder, ph phrases, f WeightedFact) {
	writeRemembered(b, f.Display)
	if label, ok := ph.types[f.Type]; ok {
		b.WriteString(ph.open + label + ph.close)
	}
}

func writeSummary(b *strings.Builder, ph phrases, s SessionSummary, zone *time.Location) {
	b.WriteString("- ")
	if r := dateRange(s.CoversFrom, s.CoversTo, zone); r != "" {
		b.WriteString("[")
		b.WriteString(r)
		b.WriteString("] ")
	}
	writeRemembered(b, s.Summary)
	if len(s.KeyTopics) > 0 {
		b.WriteString(" ")
		b.WriteString(ph.mentioned)
		for i, t := range s.KeyTopics {
			if i > 0 {
				b.WriteString(ph.sep)
			}
			writeRemembered(b, t)
		}
	}
	b.WriteByte('\n')
}

// dateRange writes the days (in zone, Parts.Zone) a summary covers:
// "2026-05-08 – 2026-05-25", one date when they are the same day, nothing
// when the range is unknown.
func dateRange(from, to time.Time, zone *time.Location) string {
	if from.IsZero() || to.IsZero() {
		return ""
	}
	f, t := from.In(zone).Format(time.DateOnly), to.In(zone).Format(time.DateOnly)
	if f == t {
		return f
	}
	return f + " – " + t
}

func writeMessage(b *strings.Builder, ph phrases, m record.Message) {
	label, ok := ph.roles[m.Role]
	if !ok {
		label = m.Role
	}
	b.WriteString(label)
	b.WriteString(ph.colon)
	// One line per message keeps the block's structure unambiguous
	// (writeRemembered).
	if !writeRemembered(b, m.Content) {
		b.WriteString(describeStructure(ph, m))
	}
	b.WriteByte('\n')
}

// describeStructure stands in for the text of a turn that only called tools or
// showed a list, so the line is not blank. The list itself is given to the model in
// structured form, never re-typed here.
func describeStructure(ph phrases, m record.Message) string {
	var parts []string
	var calls []struct {
		Name string
	}
	if json.Unmarshal(m.ToolCalls, &calls) == nil && len(calls) > 0 {
		names := make([]string, len(calls))
		for i, c := range calls {
			// A tool's name is the producer's: prose, as a turn's text is.
			names[i] = remembered(c.Name)
		}
		parts = append(parts, ph.called(strings.Join(names, ", "), 0))
	}
	var items []json.RawMessage
	if json.Unmarshal(m.Items, &items) == nil && len(items) > 0 {
		parts = append(parts, ph.showed("", len(items)))
	}
	return strings.Join(parts, " ")
}
