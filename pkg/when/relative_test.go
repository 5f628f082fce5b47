package when

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A recalled turn's relative dates are resolved against the day it was
// said, in the language they were said in; its own words stay as they were.
func TestRelativeNote(t *testing.T) {
	t.Parallel()
	mon := time.Date(2023, 5, 8, 21, 30, 0, 0, time.UTC) // Monday 8 May 2023
	for _, c := range []struct{ text, want string }{
		{"I went to a support group yesterday.", " [yesterday: Sun 7 May 2023]"},
		{"Yesterday was fun, and last night too", " [Yesterday: Sun 7 May 2023; last night: Sun 7 May 2023]"},
		{"the day before yesterday I ran", " [the day before yesterday: Sat 6 May 2023]"},
		{"See you tomorrow!", " [tomorrow: Tue 9 May 2023]"},
		{"We met last week at the fair", " [last week: the week before Mon 8 May 2023]"},
		{"last weekend we camped", " [last weekend: the weekend before Mon 8 May 2023]"},
		{"last Friday I signed up", " [last Friday: Fri 5 May 2023]"},
		{"since last Monday", " [last Monday: Mon 1 May 2023]"},
		{"next Monday works", " [next Monday: Mon 15 May 2023]"},
		{"I moved here 4 years ago", " [4 years ago: around 2019]"},
		{"three days ago, and two weeks ago", " [three days ago: Fri 5 May 2023; two weeks ago: around Mon 24 April 2023]"},
		{"a couple of months ago", " [a couple of months ago: around March 2023]"},
		{"last month I read it; next year I'll go", " [last month: April 2023; next year: 2024]"},
		{"last year", " [last year: 2022]"},
		{"我昨天去了公园", " 【昨天：2023年5月7日 周日】"},
		{"上周五我报了名，去年也去过", " 【上周五：2023年5月5日 周五；去年：2022年】"},
		{"上周我们见过，三天前又见了", " 【上周：2023年5月8日 周一的前一周；三天前：2023年5月5日 周五】"},
		{"下周日见，下个月再说", " 【下周日：2023年5月21日 周日；下个月：2023年6月】"},
		{"大前天和十二天前", " 【大前天：2023年5月5日 周五；十二天前：2023年4月26日 周三】"},
		{"上周一起去的，上周末也去了", " 【上周：2023年5月8日 周一的前一周；上周末：2023年5月8日 周一的前一个周末】"},
		{"上周天气很好", " 【上周：2023年5月8日 周一的前一周】"},
		{"上上周去的，上上个月也去了", ""},
		{"我一个人去的", ""},
		// 三, 两 and 一 begin with the same byte as 上 and 下 in UTF-8: a
		// count of months or weeks before is not "next month".
		{"我两个月前去过，三周前又去了", " 【两个月前：约2023年3月；三周前：2023年4月17日 周一前后】"},
		{"一个月前的事", " 【一个月前：约2023年4月】"},
		{"Last. Week was fine; last-week", ""},
		{"Today I cooked dinner.", ""},
		{"The last year of the war", ""},
		{"in the next week or so; breathe last week", " [last week: the week before Mon 8 May 2023]"},
		{"It is a weekly meeting", ""},
		{"", ""},
	} {
		require.Equal(t, c.want, RelativeNote(c.text, mon), c.text)
	}
	require.Empty(t, RelativeNote("yesterday", time.Time{}), "no day, nothing to resolve against")
	many := RelativeNote("yesterday, tomorrow, last week, last month, last year", mon)
	require.Equal(t, 3, strings.Count(many, ";")+1, "at most three: %s", many)
	require.Equal(t, " [yesterday: Sun 7 May 2023]", RelativeNote("yesterday and yesterday again", mon), "each expression once")
	// 上周五 said on a Sunday is the Friday of the week before (weeks from Monday).
	require.Equal(t, " 【上周五：2023年5月5日 周五】", RelativeNote("上周五", time.Date(2023, 5, 14, 9, 0, 0, 0, time.UTC)))
}

// What resolving a recalled turn's relative dates costs: a turn without
// their words is passed over; one with them is read word by word.
func BenchmarkRelativeNote(b *testing.B) {
	at := time.Date(2023, 5, 8, 9, 0, 0, 0, time.UTC)
	for _, c := range []struct{ name, text string }{
		{"none", "I'm looking for some recommendations on new games to play. I've been playing a lot of action-adventure games, and it took me 30 hours to finish one. Do you have any suggestions for similar games that I might enjoy?"},
		{"last", "I'm looking for some recommendations on new games to play. I've been playing The Last of Us Part II, which I completed on hard difficulty last week. Do you have any suggestions for similar games that I might enjoy?"},
		{"zh", "我最近在找一些新游戏玩。我一直在玩很多动作冒险游戏，我在困难难度下完成了它，花了三十个小时。上周我又开始玩了，你有什么类似的游戏推荐吗？"},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				RelativeNote(c.text, at)
			}
		})
	}
}

// The times a message names are read at the context's time, in its zone:
// a day, a week, a weekend, a month, a year, a rough count with the days
// around it, or the stretch up to now a question asks about; nothing for
// what lies ahead, nor for "the last time".
func TestMessageSpans(t *testing.T) {
	t.Parallel()
	now := time.Date(2023, 5, 5, 16, 42, 0, 0, time.UTC) // a Friday
	day := func(m time.Month, d int) time.Time { return time.Date(2023, m, d, 0, 0, 0, 0, time.UTC) }
	span := func(from, to time.Time) []Span { return []Span{{From: from, To: to}} }
	for _, c := range []struct {
		message string
		want    []Span
	}{
		{"What did I do last Saturday?", span(day(4, 29), day(4, 30))},
		{"what did we talk about yesterday", span(day(5, 4), day(5, 5))},
		{"How many days ago did I mention it?", nil},
		{"What gardening-related activity did I do two weeks ago?", span(day(4, 18), day(4, 25))},
		{"The milestone I mentioned 4 weeks ago", span(day(4, 4), day(4, 11))},
		{"a month ago", span(day(3, 21), day(4, 21))},
		{"What certification did I complete last month?", span(day(4, 1), day(5, 1))},
		{"Where did I go last weekend?", span(day(4, 29), day(5, 1))},
		{"anything from last week?", span(day(4, 24), day(5, 1))},
		{"last year", span(day(1, 1).AddDate(-1, 0, 0), day(1, 1))},
		{"How many dinner parties have I attended in the past month?", span(day(4, 5), day(5, 6))},
		{"during the last two months", span(day(3, 5), day(5, 6))},
		{"in the past few weeks", span(day(4, 14), day(5, 6))},
		{"over the past couple of days", span(day(5, 3), day(5, 6))},
		{"in the last 3 months", span(day(2, 5), day(5, 6))},
		{"上周五我去了哪里？", span(day(4, 28), day(4, 29))},
		{"三天前说的那本书", span(day(5, 2), day(5, 3))},
		{"上个月买的鞋", span(day(4, 1), day(5, 1))},
		{"How many doctor's appointments did I go to in March?", span(day(3, 1), day(4, 1))},
		{"the museums I visited in the month of February", span(day(2, 1), day(3, 1))},
		{"What did I do in May?", span(day(5, 1), day(6, 1))},
		{"What did I do in June?", span(day(6, 1).AddDate(-1, 0, 0), day(7, 1).AddDate(-1, 0, 0))},
		{"during February 2021", span(day(2, 1).AddDate(-2, 0, 0), day(3, 1).AddDate(-2, 0, 0))},
		{"rides from July to October", span(day(7, 1).AddDate(-1, 0, 0), day(11, 1).AddDate(-1, 0, 0))},
		{"the novels I finished in January and March", []Span{{day(1, 1), day(2, 1)}, {day(3, 1), day(4, 1)}}},
		{"我三月份去了哪里", span(day(3, 1), day(4, 1))},
		{"2022年12月买的", span(day(12, 1).AddDate(-1, 0, 0), day(1, 1))},
		{"the March 15th issue", nil},
		{"What did I read on March 15th?", span(day(3, 15), day(3, 16))},
		{"3月15日那天", span(day(3, 15), day(3, 16))},
		{"3月15日的那期杂志", nil},
		{"What did Gina find on 1 February, 2023?", span(day(2, 1), day(2, 2))},
		{"Who did Maria have dinner with on May 3, 2023?", span(day(5, 3), day(5, 4))},
		{"What did I do on May 23?", span(day(5, 23).AddDate(-1, 0, 0), day(5, 24).AddDate(-1, 0, 0))},
		{"What did I do on the 3rd of June?", span(day(6, 3).AddDate(-1, 0, 0), day(6, 4).AddDate(-1, 0, 0))},
		{"on February 30", nil},
		{"我2023年3月15日做了什么？", span(day(3, 15), day(3, 16))},
		{"我5月20号去了哪里", span(day(5, 20).AddDate(-1, 0, 0), day(5, 21).AddDate(-1, 0, 0))},
		{"What did I buy this past weekend?", span(day(4, 29), day(5, 1))},
		{"What did I do over the weekend?", span(day(4, 29), day(5, 1))},
		{"What did I cook a few days ago?", span(day(4, 30), day(5, 4))},
		{"a few weeks ago", span(day(3, 31), day(4, 22))},
		{"What did I do the week before last?", span(day(4, 17), day(4, 24))},
		{"the weekend before last", span(day(4, 22), day(4, 24))},
		{"What did I do earlier this week?", span(day(5, 1), day(5, 6))},
		{"How much have I made from selling eggs this month?", span(day(5, 1), day(5, 6))},
		{"How many days did I spend camping this year?", span(day(1, 1), day(5, 6))},
		{"What did I eat this morning?", span(day(5, 5), day(5, 6))},
		{"What did I eat today?", span(day(5, 5), day(5, 6))},
		{"this past week", span(day(4, 28), day(5, 6))},
		{"The airlines I flew with before today", nil},
		{"What should I do this weekend?", nil},
		{"What did I do on Saturday?", nil},
		{"What did Maria do last weekend before April 10, 2023?", nil},
		{"What did John do the week before August 3, 2022 with his kids?", nil},
		{"the puppy she got two weeks before August 11, 2022, and last week", span(day(4, 24), day(5, 1))},
		{"shown on the big screen on the Sunday before October 25, 2022", nil},
		{"three days after the 3rd of March", nil},
		{"What did I do before April 10, 2023?", nil},
		{"How many times has Melanie gone to the beach in 2023?", span(day(1, 1), day(1, 1).AddDate(1, 0, 0))},
		{"during 2021", span(day(1, 1).AddDate(-2, 0, 0), day(1, 1).AddDate(-1, 0, 0))},
		{"the budget in 2023-24", nil},
		{"我上上周做了什么？", span(day(4, 17), day(4, 24))},
		{"我这周做了什么", span(day(5, 1), day(5, 6))},
		{"这周末去哪", nil},
		{"到今天为止我读了几本书", nil},
		{"今天早上吃了什么", span(day(5, 5), day(5, 6))},
		{"我前几天买的书", span(day(4, 30), day(5, 4))},
		{"May I ask what I said before March?", nil},
		{"What are my plans for next week?", nil},
		{"When was the last time I went swimming?", nil},
		{"the last month of the war", nil},
		{"in past years", nil},
		{"", nil},
	} {
		require.Equal(t, c.want, MessageSpans(c.message, now), c.message)
	}
	require.Nil(t, MessageSpans("yesterday", time.Time{}), "no time, no span")
	_, untimed := MessageTimes("What did I buy in March and last Saturday?", now)
	require.Equal(t, "What did I buy in       and              ?", untimed, "the times' words blanked out")
	spans, untimed := MessageTimes("How much have I made from selling eggs this month, and on May 1st?", now)
	require.Len(t, spans, 2)
	require.Equal(t, "How much have I made from selling eggs this month, and on "+strings.Repeat(" ", len("May 1st"))+"?", untimed,
		"the current month's words stay searched (a great month for the eggs), a date's do not")
	spans, untimed = MessageTimes("What did Maria do last weekend before April 10, 2023?", now)
	require.Nil(t, spans, "counted from a date, not from now")
	require.Equal(t, "What did Maria do last weekend before April 10, 2023?", untimed)
	// The day is the zone's: at 07:00 on Saturday in Shanghai, yesterday
	// is Friday there, which began on Thursday at 16:00 UTC.
	shanghai := time.FixedZone("UTC+8", 8*3600)
	got := MessageSpans("what did I do yesterday?", time.Date(2023, 5, 5, 23, 0, 0, 0, time.UTC).In(shanghai))
	require.Len(t, got, 1)
	require.True(t, got[0].From.Equal(time.Date(2023, 5, 4, 16, 0, 0, 0, time.UTC)), got[0].From)
	require.True(t, got[0].Contains(time.Date(2023, 5, 5, 15, 59, 0, 0, time.UTC)))
	require.False(t, got[0].Contains(time.Date(2023, 5, 5, 16, 0, 0, 0, time.UTC)))
}
