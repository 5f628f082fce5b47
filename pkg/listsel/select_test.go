package listsel_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/listsel"
)

// A short message that picks one entry of the list just shown is read as that
// entry, in English and Chinese, with digits, number words and ordinals.
func TestSelectPicks(t *testing.T) {
	t.Parallel()
	last := listsel.Choice{Last: true}
	n := func(n int) listsel.Choice { return listsel.Choice{N: n} }
	for msg, want := range map[string]listsel.Choice{
		// English, digits.
		"3": n(3), "#3": n(3), "3.": n(3), "3!": n(3), " 3 ": n(3), "3?": n(3),
		"No. 3": n(3), "no 3": n(3), "No.3": n(3), "number 3": n(3), "Number 12": n(12), "option 3": n(3),
		"item 2": n(2), "Option: 4": n(4), "3 please": n(3), "ok, 3": n(3), "3 thanks": n(3),
		"yes 2": n(2), "I'll go with 2": n(2), "let's go with 4": n(4), "I choose 1": n(1), "go with 5": n(5),
		"#12 please": n(12), "show me number 3": n(3), "what about number 3?": n(3),
		"tell me more about #2": n(2), "１": n(1), "＃３": n(3),
		// English, words.
		"three": n(3), "number two": n(2), "option three": n(3), "let's go with number two": n(2),
		"number twenty": n(20), "number twenty-one": n(21), "twelve": n(12), "one": n(1),
		// English ordinals.
		"the 3rd": n(3), "the 3rd one": n(3), "2nd one": n(2), "the 1st": n(1), "11th one": n(11),
		"the third": n(3), "the third one": n(3), "The Third One.": n(3), "third one please": n(3),
		"I'll take the second": n(2), "I’ll take the second one": n(2), "the second one please": n(2),
		"what about the third one?": n(3), "tell me more about the third one": n(3),
		"the fifth film": n(5), "the second option": n(2), "I want the first one": n(1),
		"second please": n(2), "first": n(1), "the first": n(1), "ok the first one": n(1),
		"the twentieth": n(20), "the twenty-first one": n(21), "the twelfth one": n(12),
		"the nineteenth": n(19), "the fourth one sounds good": n(4), "show me the 2nd one": n(2),
		// Last.
		"the last one": last, "last": last, "last one": last, "the last": last, "Last one please": last,
		"the final one": last, "I'll take the last one": last,
		// Chinese.
		"三": n(3), "第三个": n(3), "第3个": n(3), "第三部": n(3), "三号": n(3), "3号": n(3),
		"选3": n(3), "选 3": n(3), "要第二个": n(2), "就第一个吧": n(1), "最后一个": last, "第二本": n(2),
		"第三个怎么样？": n(3), "第十二个": n(12), "第二十个": n(20), "第十个": n(10), "第二十一部": n(21),
		"我要第二个": n(2), "那就第三个吧": n(3), "还是第一个吧": n(1), "第三": n(3), "第３个": n(3),
		"我选第五个": n(5), "最后那个": last, "最后一部": last, "最后": last, "介绍一下第二个": n(2),
		"第二部电影怎么样": n(2), "十": n(10), "好的，第一个": n(1), "第三个吧。": n(3), "就选3": n(3),
		"第三个 please": n(3), "详细说说第四个": n(4), "换成第二个": n(2), "第一首": n(1), "第三号": n(3),
	} {
		got, ok := listsel.Select(msg)
		require.True(t, ok, "%q picks an entry", msg)
		require.Equal(t, want, got, "%q", msg)
		require.True(t, got.N >= 1 || got.Last, "%q", msg)
	}
}

// Negations, counts, times, dates, ranges, pairs and longer messages are not
// picks, whatever numbers they hold.
func TestSelectRefuses(t *testing.T) {
	t.Parallel()
	for _, msg := range []string{
		"", " ", "?", "ok", "thanks", "the one", "that one", "this one", "more", "next",
		// Negations.
		"not the third one", "no, the third one", "don't want the third", "anything but the third",
		"except the third one", "no", "never the second", "no 3 please not", "not 3",
		"不要第三个", "不是第三个", "别选第二个", "除了第一个", "第三个不要", "没有第三个",
		// Counts.
		"give me 3 more", "3 more", "3 books please", "three books", "give me 3", "show me 3", "one more",
		"I want 3", "what about 3?", "3 of them", "two please more", "top 3", "3 stars", "another one",
		"推荐3本", "三个", "3本", "要三个", "再来3个", "来3个", "给我3", "要3", "两个", "两", "一个",
		"换一批", "换一个", "前两个", "最后两个", "再来一部",
		// Times and dates.
		"3pm", "3 pm", "3:00", "at 3", "March 3", "3月", "3点", "3日", "3号晚上", "2024", "in 3 days",
		"3月3号", "明天3点", "第3天",
		// Ranges, pairs, comparisons.
		"the first two", "the first 2", "1 and 3", "1,3", "1 or 3", "1-3", "1/3", "3.5", "the third and fourth",
		"second to last", "the last two", "second last", "the first one or the third", "1 3",
		"第一个和第三个", "第一个还是第三个", "第一个跟第二个", "一二", "倒数第二个", "第二个第三个",
		// Other things numbered.
		"page 2", "第二页", "第3集", "第二季", "第一名", "第三次", "3%", "$3", "3+", "3x", "3d",
		"v3", "#", "# 3", "number", "option", "no.", "第", "号", "3rd time", "for the third time",
		"a second", "one second", "wait a second", "first, tell me about it", "first tell me more",
		"at last", "the 3", "episode 3", "chapter 2",
		// Too long, or something else entirely.
		"I think I would like to go with the third one please",
		"请帮我详细介绍一下第三个电影的导演和演员信息吧",
		"what is the third one about and who directed it",
		"第三个😀", "3 👍", "третий", "3番目",
	} {
		c, ok := listsel.Select(msg)
		require.False(t, ok, "%q is not a pick, got %+v", msg, c)
		require.Equal(t, listsel.Choice{}, c, "%q", msg)
	}
}
