package stated_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/attribute"
	"github.com/recallhq/recall/pkg/attribute/stated"
)

func read(text string) []string {
	var out []string
	for _, s := range stated.Extract(text) {
		out = append(out, s.Key+"="+s.Value)
	}
	return out
}

func TestReadsWhatTheUserSaysOfThemselves(t *testing.T) {
	t.Parallel()
	cases := map[string][]string{
		"Hi, my name is Xiao Li and I moved to Berlin last month.": {"name=Xiao Li", "location=Berlin"},
		"Call me Ann, please.":                    {"name=Ann"},
		"I live in New York with two cats.":       {"location=New York"},
		"I work as a nurse at the city hospital.": {"occupation=nurse"},
		"I'm vegetarian, so no meat please.":      {"diet=vegetarian"},
		"I'm allergic to shellfish.":              {"allergies=shellfish"},
		"My daughter is allergic to peanuts, so please never suggest recipes with peanuts.": {"allergies=peanuts (daughter)", "requests=please never suggest recipes with peanuts"},
		"Please answer in English from now on.":                                             {"reply_language=English"},
		"Keep it short.":                                                                    {"reply_length=short"},
		"Don't use bullet points.":                                                          {"reply_format=no bullet points"},
		"I'll call you Max.":                                                                {"assistant_name=Max"},
		"我叫小李。":                                                                             {"name=小李"},
		"以后叫我老王就行":                                                                          {"name=老王"},
		"我最近搬到了杭州，":                                                                         {"location=杭州"},
		"我住在北京朝阳区。":                                                                         {"location=北京朝阳区"},
		"我是一名护士。":                                                                           {"occupation=护士"},
		"我吃素。":                                                                              {"diet=素食"},
		"我对花生过敏":                                                                            {"allergies=花生"},
		"我女儿对花生过敏，以后别推荐带花生的菜":                                                               {"allergies=花生（女儿）", "requests=以后别推荐带花生的菜"},
		"请用英文回答":                                                                            {"reply_language=英文"},
		"简短一点":                                                                              {"reply_length=简短"},
		"别用列表":                                                                              {"reply_format=不要用列表"},
		"你就叫小书吧":                                                                            {"assistant_name=小书"},
	}
	for text, want := range cases {
		require.Equal(t, want, read(text), text)
	}
}

// Precision first: questions, negations, hypotheticals, reported speech and
// other people's attributes yield nothing.
func TestReadsNothingThatIsNotAStatement(t *testing.T) {
	t.Parallel()
	for _, text := range []string{
		"Are you vegetarian?",
		"Is Berlin nice? I might move there.",
		"I'm not a vegetarian.",
		"I'm not allergic to anything.",
		"If I were vegetarian, what would I eat?",
		"Can you write a resume? Asume that my name is Juan Perez and I'm from Buenos Aires.",
		"She said \"call me Ann\" and left.",
		"My friend is vegetarian.",
		"My friend is allergic to cats.",
		"I used to live in Paris.",
		"call me tomorrow",
		"I'll be brief about it.",
		"I don't mention it often.",
		"Keep them realistic and don't include further explanation.",
		"Make it shorter, and don't mention the customers age.",
		"Assume that my name is Juan Perez and I'm from Buenos Aires.",
		"I write in English at work.",
		"我叫了外卖。",
		"他叫我去开会。",
		"你是素食者吗？",
		"我不是老师。",
		"我以前住在上海。",
		"如果我吃素会怎样",
		"我朋友对花生过敏。",
		"她告诉我她住在广州。",
		"我在吃饭。",
		"裙子短一点",
	} {
		require.Empty(t, read(text), text)
	}
}

// Every value read fits the default schema.
func TestStatementsFitTheSchema(t *testing.T) {
	t.Parallel()
	s := attribute.Default()
	for _, text := range []string{"My daughter is allergic to peanuts, so please never suggest recipes with peanuts.", "我女儿对花生过敏，以后别推荐带花生的菜", "Hi, my name is Xiao Li and I moved to Berlin last month. Keep it short."} {
		for _, st := range stated.Extract(text) {
			a := attribute.Assertion{Key: st.Key, Value: st.Value, Op: attribute.Put, Source: attribute.Stated, Confidence: st.Confidence}
			require.NoError(t, attribute.Normalize(s, &a), "%+v", st)
		}
	}
}
