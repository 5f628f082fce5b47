package stated_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/attribute/stated"
)

// The statements below are of the kinds people make about themselves, in
// phrasings no rule names one by one: each must be kept, with its kind and
// its polarity.
func TestSelfKeepsWhatUsersSayOfThemselves(t *testing.T) {
	t.Parallel()
	type want struct {
		kind     string
		negative bool
	}
	cases := map[string]want{
		"I have an intense fear of flying, so I avoid air travel whenever possible.": {stated.KindFear, true},
		"I have no interest in motorsports.":                                         {stated.KindDislike, true},
		"I avoid hotels located in busy downtown areas due to noise.":                {stated.KindAvoid, true},
		"I strongly prefer not to read self-help books.":                             {stated.KindAvoid, true},
		"I despise open-concept floor plans.":                                        {stated.KindDislike, true},
		"I am lactose intolerant and avoid dairy products.":                          {stated.KindHealth, false},
		"My son Tom can't have any nuts, he has a severe allergy.":                   {stated.KindHealth, false},
		"We finally moved to Toronto last week!":                                     {stated.KindLocation, false},
		"Honestly, I can't stand crowded beaches.":                                   {stated.KindDislike, true},
		"I'm a huge fan of old jazz records.":                                        {stated.KindLike, false},
		"I'm not much of a morning person.":                                          {stated.KindDislike, true},
		"I find podcasts about true crime relaxing.":                                 {stated.KindLike, false},
		"Group workouts, I find them exhausting.":                                    {stated.KindDislike, true},
		"I've been vegan for six years.":                                             {stated.KindHealth, false},
		"I usually cycle to the office every day.":                                   {stated.KindHabit, false},
		"We never eat out on weeknights.":                                            {stated.KindAvoid, true},
		"I'd rather take the train than drive.":                                      {stated.KindLike, false},
		"I'm training for my first half marathon.":                                   {stated.KindGoal, false},
		"I have two teenage daughters.":                                              {stated.KindFamily, false},
		"My wife loves spicy food.":                                                  {stated.KindLike, false},
		"I work as a pharmacist in a small town.":                                    {stated.KindIdentity, false},
		"Please never recommend horror films to me.":                                 {stated.KindRequest, false},
		"From now on, keep your answers under five sentences.":                       {stated.KindRequest, false},
		"我对芒果过敏。":                                                                    {stated.KindHealth, true},
		"我不吃香菜。":                                                                     {stated.KindAvoid, true},
		"我特别喜欢爬山。":                                                                   {stated.KindLike, false},
		"我非常害怕坐过山车。":                                                                 {stated.KindFear, true},
		"我对古典音乐不感兴趣。":                                                                {stated.KindDislike, true},
		"我家养了两只狗。":                                                                   {stated.KindFamily, false},
		"我在一家医院工作。":                                                                  {stated.KindIdentity, false},
		"我们上个月搬到了成都。":                                                                {stated.KindLocation, false},
		"我每天早上都去游泳。":                                                                 {stated.KindHabit, false},
		"以后回答请尽量简短一点":                                                                {stated.KindRequest, false},
		"请用中文简短回答。":                                                                  {stated.KindRequest, false},
		"我是四川人。":                                                                     {stated.KindIdentity, false},
	}
	for text, w := range cases {
		got := stated.Self(text)
		require.Len(t, got, 1, text)
		require.Equal(t, w.kind, got[0].Kind, text)
		require.Equal(t, w.negative, got[0].Negative, text)
		require.NotEmpty(t, got[0].Matter, text)
		require.Equal(t, text, got[0].Text, text)
		require.Greater(t, got[0].Strength, 0.0, text)
	}
}

// Questions, hypotheticals, reported speech, the past, passing needs and
// events, other people's words and small talk are not statements.
func TestSelfKeepsNothingElse(t *testing.T) {
	t.Parallel()
	for _, text := range []string{
		"Do you think I would like sushi?",
		"What should I pack if I'm afraid of flying?",
		"If I were vegetarian I would eat more beans.",
		"Imagine I lived in Paris.",
		"She said \"I hate flying\".",
		"I used to love sushi.",
		"I watched a great movie yesterday.",
		"I'm looking for a recipe for dinner tonight.",
		"I want to know how to fix a flat tire.",
		"I need some help with my resume.",
		"I'd like some book recommendations.",
		"I think that's fine, thanks.",
		"I'm not sure what to do.",
		"I'm so excited about the trip.",
		"I love it!",
		"User: I love cats",
		"Assistant: I can't eat anything.",
		"> I despise open-concept floor plans.",
		"I'm not vegetarian.",
		"I don't hate it.",
		"Thanks, that helps a lot.",
		"I just want to make sure she has a great day and enjoys her gifts.",
		"My first dream is about being chased by a giant spider.",
		"I've never played a cooperative game before, but it sounds interesting.",
		"I like the template.",
		"Our job is to connect people.",
		"My name is [User].",
		"我想问一下明天的天气。",
		"我是说这个方案不太好。",
		"你喜欢吃辣吗？",
		"如果我搬到上海会怎样？",
		"我以前很喜欢游泳。",
		"我昨天看了一部电影。",
		"请问怎么做红烧肉？",
	} {
		require.Empty(t, stated.Self(text), text)
	}
}

// A newer statement on the same matter shares its matter with the older
// one, so that it supersedes it; statements on other matters do not.
func TestSelfMatters(t *testing.T) {
	t.Parallel()
	matter := func(text string) string {
		got := stated.Self(text)
		require.Len(t, got, 1, text)
		return got[0].Matter
	}
	require.Equal(t, matter("I live in Lyon."), matter("We finally moved to Toronto last week!"))
	require.Equal(t, matter("我住在上海。"), matter("我们搬到了成都。"))
	require.Equal(t, matter("I love spicy food."), matter("I no longer like spicy food."))
	require.NotEqual(t, matter("I love spicy food."), matter("I love jazz."))
	require.NotEqual(t, matter("My son loves football."), matter("I love football."))
	require.Equal(t, matter("Please answer in English."), matter("From now on reply in French."))
}

// Strength follows the words: intensifiers raise it, hedges lower it, and
// an allergy weighs more than a plan.
func TestSelfStrength(t *testing.T) {
	t.Parallel()
	s := func(text string) float64 {
		got := stated.Self(text)
		require.Len(t, got, 1, text)
		return got[0].Strength
	}
	require.Greater(t, s("I absolutely despise horror films."), s("I kinda dislike horror films."))
	require.Greater(t, s("I'm allergic to peanuts."), s("I'm planning to learn the guitar."))
}

func TestSelfClipsLongSentences(t *testing.T) {
	t.Parallel()
	long := "I love hiking in the mountains with my friends"
	for range 40 {
		long += " and my cousins"
	}
	got := stated.Self(long + ".")
	require.Len(t, got, 1)
	require.LessOrEqual(t, len([]rune(got[0].Text)), stated.MaxSaidChars)
	require.True(t, len(got[0].Text) > 100)
}

// A concession keeps the statement it qualifies; a stance followed at once
// by its other side is one statement; two unrelated statements in a row
// stay two, and a supposition stays none.
func TestSelfConcessionsAndContrasts(t *testing.T) {
	t.Parallel()
	got := stated.Self("I have a strong preference for sustainable fashion, even if it costs more than fast fashion.")
	require.Len(t, got, 1)
	require.Equal(t, stated.KindLike, got[0].Kind)
	got = stated.Self("I have a strong dislike for any exercise in the water. I much prefer land-based activities.")
	require.Len(t, got, 1)
	require.Equal(t, "I have a strong dislike for any exercise in the water. I much prefer land-based activities.", got[0].Text)
	require.True(t, got[0].Negative)
	got = stated.Self("I love hiking. I am allergic to nuts.")
	require.Len(t, got, 2)
	got = stated.Self("I love jazz. I also love blues.")
	require.Len(t, got, 2, "two likes are two statements")
	require.Empty(t, stated.Self("If I had the money I would prefer a villa, even if it is far."))
}

// A statement that points back at what the sentence before said ("the
// field") keeps that sentence with it; one that does not stands alone.
func TestSelfKeepsWhatItPointsBackAt(t *testing.T) {
	t.Parallel()
	got := stated.Self("Can you give me an overview of recent advances in deep learning for medical imaging? Skip the basics as I am working in the field.")
	require.Len(t, got, 1)
	require.Equal(t, "Can you give me an overview of recent advances in deep learning for medical imaging? Skip the basics as I am working in the field.", got[0].Text)
	got = stated.Self("Thanks for the list. I work as a nurse.")
	require.Len(t, got, 1)
	require.Equal(t, "I work as a nurse.", got[0].Text)
}

// What the user has been doing for a while ("lately", "for two years") is
// a habit, weaker than one said with "usually"; what they have been trying,
// thinking or feeling, and a "been …ing" with no while, are not.
func TestSelfOngoingHabits(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		"I've been using basil and mint in my cooking lately.",
		"I've been running for two years now.",
		"I have been volunteering at the shelter since May.",
	} {
		got := stated.Self(s)
		require.Len(t, got, 1, s)
		require.Equal(t, stated.KindHabit, got[0].Kind, s)
		require.Less(t, got[0].Strength, stated.Self("I usually cycle to the office every day.")[0].Strength, s)
	}
	for _, s := range []string{
		"I've been thinking about this lately.",
		"I've been having trouble with my laptop for a week.",
		"I've been cooking all afternoon.",
	} {
		require.Empty(t, stated.Self(s), s)
	}
}

// A sentence that goes further on a statement ("I've even …") is kept with
// it, even when it is no statement of its own.
func TestSelfKeepsWhatGoesFurther(t *testing.T) {
	t.Parallel()
	got := stated.Self("I've been using basil and mint in my cooking lately. I've even harvested some cherry tomatoes from my garden. Any tips?")
	require.Len(t, got, 1)
	require.Equal(t, "I've been using basil and mint in my cooking lately. I've even harvested some cherry tomatoes from my garden.", got[0].Text)
	got = stated.Self("Thanks! I've even harvested some cherry tomatoes from my garden.")
	require.Empty(t, got, "nothing to go further on")
}

// A long turn is mostly pasted (a script, a transcript, a draft): only its
// opening is read as the user's own words. A full stop inside a word or
// after a title's abbreviation ends no sentence. A reaction to a fact ("I
// find it fascinating that …") is no statement.
func TestSelfOwnWords(t *testing.T) {
	t.Parallel()
	pasted := "Please tighten this script for me. I love short videos.\n\n" + strings.Repeat("Our channel is about cooking. ", 60) + "We love hearing from our viewers. I hate long intros."
	var got []string
	for _, s := range stated.Self(pasted) {
		got = append(got, s.Text)
	}
	require.Equal(t, []string{"I love short videos."}, got)
	require.Equal(t, "I'm interested in learning more about Dr. Rachel Ross's project.", stated.Self("I'm interested in learning more about Dr. Rachel Ross's project.")[0].Text)
	require.Equal(t, "I am just a beginner in Next.js and React.", stated.Self("I am just a beginner in Next.js and React.")[0].Text)
	require.Empty(t, stated.Self("I find it fascinating that the Mellotron had such an impact."))
	require.Len(t, stated.Self("I find it hard to focus in the mornings."), 1)
}
