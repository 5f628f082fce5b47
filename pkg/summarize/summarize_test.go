package summarize_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/openaitest"
	"github.com/recallhq/recall/pkg/envconfig"
	"github.com/recallhq/recall/pkg/extract"
	"github.com/recallhq/recall/pkg/llm"
	"github.com/recallhq/recall/pkg/summarize"
)

var zhTurns = []summarize.Turn{
	{Role: "system", Text: "你是图书馆员。SECRET-SYSTEM-PROMPT"},
	{Role: "user", Text: "你好"},
	{Role: "assistant", Text: "你好！有什么可以帮你？"},
	{Role: "user", Text: "   \n\t "},
	{Role: "user", Text: "我最近在读刘慈欣的《三体》，很喜欢这种硬科幻小说。"},
	{Role: "assistant", Text: "《三体》确实很精彩，你也可以试试《球状闪电》。"},
	{Role: "tool", Text: `{"hits":3}`},
	{Role: "user", Text: "好的，我还想找一些关于人工智能的书，最好是入门级的。"},
}

func TestUsable(t *testing.T) {
	t.Parallel()
	got := summarize.Usable(zhTurns)
	require.Len(t, got, 5)
	for _, tu := range got {
		require.NotEqual(t, "system", tu.Role)
		require.NotEqual(t, "tool", tu.Role)
		require.NotEmpty(t, strings.TrimSpace(tu.Text))
	}
}

func TestExtractive(t *testing.T) {
	t.Parallel()
	e := summarize.NewExtractive(sharedRules(t), summarize.Options{})
	ctx := context.Background()
	s, err := e.Summarize(ctx, summarize.Input{Turns: zhTurns})
	require.NoError(t, err)
	require.Equal(t, summarize.ModelExtractive, s.Model)
	require.Contains(t, s.Text, "三体")
	require.True(t, strings.HasPrefix(s.Text, "用户："), "a Chinese conversation gets a Chinese summary: %s", s.Text)
	require.NotContains(t, s.Text, "SECRET", "system prompts never go into a summary")
	require.NotContains(t, s.Text, "hits", "nor tool results")
	names := s.TopicNames()
	require.Subset(t, names, []string{"三体", "刘慈欣", "科幻", "人工智能"})
	require.NotContains(t, names, "球状闪电", "what the assistant suggested is not the user's topic")
	for _, tp := range s.Topics {
		require.True(t, tp.Mentioned)
		require.Equal(t, extract.Normalize(tp.Display), tp.Value)
	}

	// Rolling: the next summary starts from this one; carried-over topics are
	// not new mentions.
	next, err := e.Summarize(ctx, summarize.Input{
		Previous: &summarize.Previous{Text: s.Text, KeyTopics: names},
		Turns:    []summarize.Turn{{Role: "user", Text: "周末去爬山回来了，想看点推理小说，比如东野圭吾的《白夜行》"}, {Role: "assistant", Text: "《白夜行》很经典。"}},
	})
	require.NoError(t, err)
	require.Contains(t, next.Text, "白夜行")
	require.Contains(t, next.Text, "三体", "the previous summary's thread is kept")
	byName := map[string]summarize.Topic{}
	for _, tp := range next.Topics {
		byName[tp.Display] = tp
	}
	require.True(t, byName["白夜行"].Mentioned)
	require.Equal(t, extract.KindBookTitle, byName["白夜行"].Kind)
	if tp, ok := byName["三体"]; ok {
		require.False(t, tp.Mentioned, "carried over, not mentioned again")
	}
	carried := false
	for _, tp := range next.Topics {
		require.False(t, carried && tp.Mentioned, "what the new turns mention ranks first: %v", next.TopicNames())
		carried = carried || !tp.Mentioned
	}
}

// With the assistant's turns among the topic roles (EXTRACT_ROLES=user,assistant),
// what it suggested is a topic too, and a new mention.
func TestExtractiveTopicRoles(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	both := summarize.NewExtractive(sharedRules(t), summarize.Options{TopicRoles: []string{"user", "assistant"}})
	s, err := both.Summarize(ctx, summarize.Input{Turns: zhTurns})
	require.NoError(t, err)
	byName := map[string]summarize.Topic{}
	for _, tp := range s.Topics {
		byName[tp.Display] = tp
	}
	require.Contains(t, byName, "球状闪电")
	require.True(t, byName["球状闪电"].Mentioned)

	en := []summarize.Turn{
		{Role: "user", Text: "I loved Dune, and I'd like another novel of the kind."},
		{Role: "assistant", Text: `You might enjoy "The Left Hand of Darkness" by Ursula K. Le Guin.`},
	}
	values := func(s summarize.Summary) []string {
		var out []string
		for _, tp := range s.Topics {
			out = append(out, tp.Value)
		}
		return out
	}
	got, err := summarize.NewExtractive(sharedRules(t), summarize.Options{}).Summarize(ctx, summarize.Input{Turns: en})
	require.NoError(t, err)
	require.NotContains(t, values(got), "the left hand of darkness", "the assistant's suggestion is not the user's topic")
	require.NotContains(t, values(got), "ursula k. le guin")
	withAssistant, err := both.Summarize(ctx, summarize.Input{Turns: en})
	require.NoError(t, err)
	require.Subset(t, values(withAssistant), []string{"the left hand of darkness", "ursula k. le guin"})
}

func TestExtractiveBounds(t *testing.T) {
	t.Parallel()
	e := summarize.NewExtractive(sharedRules(t), summarize.Options{MaxRunes: 80, MaxTopics: 2})
	long := strings.Repeat("I really enjoyed the long science fiction novel about the desert planet and its politics ", 20)
	s, err := e.Summarize(context.Background(), summarize.Input{Turns: []summarize.Turn{
		{Role: "user", Text: long}, {Role: "user", Text: "Dune by Frank Herbert and Hyperion by Dan Simmons are my favourite science fiction books."},
	}})
	require.NoError(t, err)
	require.NotEmpty(t, s.Text)
	require.LessOrEqual(t, utf8.RuneCountInString(s.Text), 80)
	require.Len(t, s.Topics, 2)

	s, err = e.Summarize(context.Background(), summarize.Input{Turns: []summarize.Turn{{Role: "user", Text: "hi"}, {Role: "assistant", Text: "hello!"}}})
	require.NoError(t, err)
	require.NotEmpty(t, s.Text, "greetings alone still give a summary")
}

// llmSetup points a summarizer at a fake OpenAI server.
func llmSetup(t *testing.T, tweak func(*llm.Config)) (*summarize.LLM, *openaitest.Server) {
	t.Helper()
	srv := openaitest.New(t)
	cfg := envconfig.Defaults[llm.Config]()
	cfg.BaseURL, cfg.Model = srv.URL()+"/v1", "summary-model"
	cfg.Timeout, cfg.MaxRetries, cfg.MaxConcurrency, cfg.MaxTokens = 2*time.Second, 2, 2, 200
	cfg.RetryInitial, cfg.RetryMax = time.Millisecond, 10*time.Millisecond
	if tweak != nil {
		tweak(&cfg)
	}
	c, err := llm.New("summarize", cfg, nil, nil)
	require.NoError(t, err)
	return summarize.NewLLM(c, sharedRules(t), summarize.Options{MaxRunes: 120, MaxTopics: 3}), srv
}

const goodSummary = `{"summary": "用户在读刘慈欣的《三体》，想找人工智能入门书。", "key_topics": ["《三体》", "刘慈欣", "人工智能", "机器人", "太空"], "mood": "ok"}`

func TestLLMSummarize(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cases := []struct {
		name     string
		replies  []openaitest.Reply
		requests int
	}{
		{"good", []openaitest.Reply{{Content: goodSummary}}, 1},
		{"fenced after thinking", []openaitest.Reply{{Content: "<think>hmm</think>\n```json\n" + goodSummary + "\n```"}}, 1},
		{"malformed then good", []openaitest.Reply{{Content: "Here is a summary: the user likes sci-fi."}, {Content: goodSummary}}, 2},
		{"missing key_topics then good", []openaitest.Reply{{Content: `{"summary": "x"}`}, {Content: goodSummary}}, 2},
		{"429 then good", []openaitest.Reply{{Status: 429, RetryAfter: "0"}, {Content: goodSummary}}, 2},
		{"503 then good", []openaitest.Reply{{Status: 503}, {Content: goodSummary}}, 2},
		{"cut off then good", []openaitest.Reply{{Content: `{"summary": "用户`, FinishReason: "length"}, {Content: goodSummary}}, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			l, srv := llmSetup(t, nil)
			srv.Enqueue(c.replies...)
			s, err := l.Summarize(ctx, summarize.Input{Turns: zhTurns})
			require.NoError(t, err)
			require.Equal(t, "用户在读刘慈欣的《三体》，想找人工智能入门书。", s.Text)
			require.Equal(t, "summary-model", s.Model)
			require.Equal(t, []string{"三体", "刘慈欣", "人工智能"}, s.TopicNames(), "capped, quotes stripped")
			require.Equal(t, extract.KindBookTitle, s.Topics[0].Kind)
			for _, tp := range s.Topics {
				require.True(t, tp.Mentioned, tp.Display)
			}
			require.Len(t, srv.ChatRequests(), c.requests)
		})
	}
}

// A topic the model names from the assistant's turns alone (its suggestion
// 《球状闪电》) is a key topic, but no new mention of the user's.
func TestLLMTopicOfTheAssistant(t *testing.T) {
	t.Parallel()
	l, srv := llmSetup(t, nil)
	srv.Enqueue(openaitest.Reply{Content: `{"summary": "用户在读《三体》。", "key_topics": ["三体", "球状闪电"]}`})
	s, err := l.Summarize(context.Background(), summarize.Input{Turns: zhTurns})
	require.NoError(t, err)
	require.Equal(t, []string{"三体", "球状闪电"}, s.TopicNames())
	require.True(t, s.Topics[0].Mentioned)
	require.False(t, s.Topics[1].Mentioned, "only the assistant said it")
}

// The names the user's turns give the conversation's own people are no
// topics of theirs, whatever the model lists: the user's own name, the
// assistant's, whom the user greets; the book they talk about stays.
func TestLLMTopicsLeaveOutOwnNames(t *testing.T) {
	t.Parallel()
	l, srv := llmSetup(t, nil)
	srv.Enqueue(openaitest.Reply{Content: `{"summary": "王芳在读《三体》，想找科幻小说。", "key_topics": ["王芳", "小美", "三体"]}`})
	s, err := l.Summarize(context.Background(), summarize.Input{Turns: []summarize.Turn{
		{Role: "user", Text: "我叫王芳。你就叫小美吧。"},
		{Role: "assistant", Text: "好的，王芳！"},
		{Role: "user", Text: "小美你好，我在读《三体》，想找类似的科幻小说。"},
	}})
	require.NoError(t, err)
	require.Equal(t, []string{"三体"}, s.TopicNames())

	l, srv = llmSetup(t, nil)
	srv.Enqueue(openaitest.Reply{Content: `{"summary": "Anna Smith is reading Dune.", "key_topics": ["Anna Smith", "Max", "Dune"]}`})
	s, err = l.Summarize(context.Background(), summarize.Input{Turns: []summarize.Turn{
		{Role: "user", Text: "My name is Anna Smith. I'll call you Max."},
		{Role: "user", Text: "I'm reading the novel Dune, any tips?"},
	}})
	require.NoError(t, err)
	require.Equal(t, []string{"Dune"}, s.TopicNames())
}

func TestLLMRequest(t *testing.T) {
	t.Parallel()
	l, srv := llmSetup(t, nil)
	srv.Enqueue(openaitest.Reply{Content: `{"summary": "The user wants more sci-fi.", "key_topics": ["Dune", "The Expanse"]}`})
	s, err := l.Summarize(context.Background(), summarize.Input{
		Previous: &summarize.Previous{Text: "用户在读《三体》。", KeyTopics: []string{"三体"}},
		Turns:    zhTurns,
	})
	require.NoError(t, err)
	require.False(t, s.Topics[0].Mentioned, "a topic the turns do not mention is no new mention")
	reqs := srv.ChatRequests()
	require.Len(t, reqs, 1)
	r := reqs[0]
	require.Equal(t, "summary-model", r.Model)
	require.Equal(t, 200, r.MaxTokens, "the answer is capped")
	require.Equal(t, "json_object", r.ResponseFormat)
	require.Len(t, r.Messages, 2)
	require.Contains(t, r.Messages[0].Content, `"key_topics"`)
	prompt := r.Messages[1].Content
	require.Contains(t, prompt, "Previous summary of this session: 用户在读《三体》。")
	require.Contains(t, prompt, "User: 我最近在读刘慈欣的《三体》")
	require.Contains(t, prompt, "Assistant: 《三体》确实很精彩")
	require.NotContains(t, prompt, "SECRET", "system prompts never go into a summary")
	require.NotContains(t, prompt, `"hits"`)
	require.Equal(t, 3, strings.Count(prompt, "User: "), "blank turns are left out")
}

func TestLLMFailures(t *testing.T) {
	t.Parallel()
	l, srv := llmSetup(t, func(c *llm.Config) { c.MaxRetries = 1; c.Timeout = 50 * time.Millisecond })
	srv.SetDefault(openaitest.Reply{Content: `{"summary": ""}`})
	_, err := l.Summarize(context.Background(), summarize.Input{Turns: zhTurns})
	var le *llm.Error
	require.True(t, errors.As(err, &le), "%v", err)
	require.Equal(t, llm.ReasonMalformed, le.Reason)
	require.Equal(t, 2, le.Attempts)

	srv.SetDefault(openaitest.Reply{Content: goodSummary, Delay: time.Second})
	_, err = l.Summarize(context.Background(), summarize.Input{Turns: zhTurns})
	require.True(t, errors.As(err, &le), "%v", err)
	require.Equal(t, llm.ReasonTimeout, le.Reason)

	_, err = l.Summarize(context.Background(), summarize.Input{Turns: []summarize.Turn{{Role: "system", Text: "x"}, {Role: "user", Text: " "}}})
	require.Error(t, err, "nothing to summarize is refused without a request")
}

// TestExtractiveSkipsSmallTalk: greetings, thanks and acknowledgements say
// nothing about the user, however often the conversation repeats them.
func TestExtractiveSkipsSmallTalk(t *testing.T) {
	t.Parallel()
	e := summarize.NewExtractive(sharedRules(t), summarize.Options{})
	ctx := context.Background()
	cases := []struct {
		name     string
		previous *summarize.Previous
		turns    []summarize.Turn
		want     []string
		never    []string
	}{
		{
			// The speakers address each other by name in every other
			// sentence; the names are no subject.
			name: "english",
			turns: []summarize.Turn{
				{Role: "user", Text: "Hey Sam! So good to hear from you, Sam!"},
				{Role: "assistant", Text: "Hey Priya! Great to hear from you too!"},
				{Role: "user", Text: "Sam, I've started restoring an old wooden sailboat with my father on weekends."},
				{Role: "assistant", Text: "Wow Priya, that sounds like a wonderful project!"},
				{Role: "user", Text: "Thanks so much, Sam! Your support really means a lot."},
				{Role: "assistant", Text: "Anytime, Priya! Your dedication is inspiring."},
				{Role: "user", Text: "Thanks, Sam! Talk soon!"},
			},
			want: []string{"sailboat"},
			// (A reaction that has content words of its own, "that sounds
			// like a wonderful project", may stay.)
			never: []string{"Thanks", "Hey", "hear from you", "means a lot", "inspiring", "Talk soon"},
		},
		{
			name: "chinese",
			turns: []summarize.Turn{
				{Role: "user", Text: "你好！早上好！"},
				{Role: "assistant", Text: "你好，很高兴见到你！"},
				{Role: "user", Text: "我下个月要去云南旅行，想在大理和丽江拍古城的照片。"},
				{Role: "assistant", Text: "大理古城清晨人少，适合拍照。"},
				{Role: "user", Text: "太感谢你了！你的建议对我帮助很大！"},
				{Role: "assistant", Text: "不客气，祝你旅途愉快！"},
			},
			want:  []string{"云南"},
			never: []string{"感谢", "建议", "不客气", "你好"},
		},
		{
			// A stretch of goodbyes after a summary with content: the
			// rolling summary keeps what the session was about.
			name: "goodbyes after content",
			previous: &summarize.Previous{
				Text:      "User: I'm training for the Berlin marathon in September and want a plan for long runs.",
				KeyTopics: []string{"Berlin marathon"},
			},
			turns: []summarize.Turn{
				{Role: "user", Text: "Thanks a lot for all the tips, Alex!"},
				{Role: "assistant", Text: "Anytime, Jordan! Your determination is inspiring."},
				{Role: "user", Text: "Your support really means a lot, Alex."},
				{Role: "assistant", Text: "Take care, Jordan!"},
			},
			want:  []string{"Berlin marathon"},
			never: []string{"thanks", "Anytime", "inspiring", "support", "Take care"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s, err := e.Summarize(ctx, summarize.Input{Previous: c.previous, Turns: c.turns})
			require.NoError(t, err)
			for _, w := range c.want {
				require.Contains(t, s.Text, w)
			}
			for _, w := range c.never {
				require.NotContains(t, strings.ToLower(s.Text), strings.ToLower(w))
			}
		})
	}
}

// TestExtractiveKeepsTheUser: the summary is memory about the user, so
// what the user says about themselves, asks for and decides comes before
// the assistant's praise and well-wishing, in either language and in a
// rolling summary.
func TestExtractiveKeepsTheUser(t *testing.T) {
	t.Parallel()
	e := summarize.NewExtractive(sharedRules(t), summarize.Options{})
	ctx := context.Background()
	cases := []struct {
		name     string
		previous *summarize.Previous
		turns    []summarize.Turn
		want     []string
		never    []string
	}{
		{
			name: "what the user likes",
			turns: []summarize.Turn{
				{Role: "user", Text: "I liked Dune as a teenager."},
				{Role: "assistant", Text: "Great choice: Dune by Frank Herbert. Enjoy the desert planet Arrakis!"},
				{Role: "user", Text: "I also enjoy Le Guin."},
				{Role: "assistant", Text: "Le Guin is wonderful! Enjoy the Earthsea books, a great choice after Dune and Arrakis."},
			},
			want:  []string{"User: I liked Dune as a teenager.", "Le Guin"},
			never: []string{"Great choice", "Enjoy the"},
		},
		{
			name: "what the user asks for and decides",
			turns: []summarize.Turn{
				{Role: "user", Text: "Can you recommend a science fiction novel for my trip to Lisbon?"},
				{Role: "assistant", Text: "Sure! Dune by Frank Herbert is a great choice. You'll love the desert planet Arrakis!"},
				{Role: "user", Text: "I'll take Dune, and please remember that I don't like horror."},
				{Role: "assistant", Text: "Great choice! Enjoy Dune by Frank Herbert and the desert planet Arrakis!"},
			},
			want:  []string{"User: I'll take Dune, and please remember that I don't like horror."},
			never: []string{"Great choice", "Enjoy", "You'll love"},
		},
		{
			name: "用户喜欢什么",
			turns: []summarize.Turn{
				{Role: "user", Text: "我十几岁时很喜欢《三体》。"},
				{Role: "assistant", Text: "好选择：刘慈欣的《三体》。祝你在三体世界里读得开心！"},
				{Role: "user", Text: "我也喜欢王晋康。"},
				{Role: "assistant", Text: "王晋康很棒！好选择，祝你读《三体》和刘慈欣的其他作品愉快！"},
			},
			want:  []string{"用户：我十几岁时很喜欢《三体》。", "王晋康"},
			never: []string{"好选择", "祝你"},
		},
		{
			name: "用户要什么、决定了什么",
			turns: []summarize.Turn{
				{Role: "user", Text: "能给我推荐一本适合旅行时读的科幻小说吗？"},
				{Role: "assistant", Text: "好选择很多！刘慈欣的《三体》很棒，祝你读得开心！"},
				{Role: "user", Text: "我决定先读《三体》，以后别给我推荐恐怖小说。"},
				{Role: "assistant", Text: "好的，祝你阅读愉快！刘慈欣的《三体》是很棒的选择。"},
			},
			want:  []string{"用户：我决定先读《三体》，以后别给我推荐恐怖小说。"},
			never: []string{"好选择", "祝你", "很棒"},
		},
		{
			// The previous version kept the user's words beside the
			// assistant's praise; new praise does not push them out.
			name: "rolling",
			previous: &summarize.Previous{
				Text:      "User: I liked Dune as a teenager and I enjoy Le Guin. Assistant: Great choice: Dune by Frank Herbert.",
				KeyTopics: []string{"Le Guin", "Frank Herbert"},
			},
			turns: []summarize.Turn{
				{Role: "assistant", Text: "Enjoy the desert planet Arrakis! Dune by Frank Herbert is a great choice for a summer read."},
				{Role: "user", Text: "Thanks, Sam!"},
				{Role: "assistant", Text: "Happy reading, and enjoy Frank Herbert's Arrakis!"},
			},
			want:  []string{"User: I liked Dune as a teenager and I enjoy Le Guin."},
			never: []string{"Great choice", "Enjoy the", "enjoy Frank", "Happy reading"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s, err := e.Summarize(ctx, summarize.Input{Previous: c.previous, Turns: c.turns})
			require.NoError(t, err)
			for _, w := range c.want {
				require.Contains(t, s.Text, w)
			}
			for _, w := range c.never {
				require.NotContains(t, strings.ToLower(s.Text), strings.ToLower(w))
			}
		})
	}
}

// TestExtractiveKeepsWhatTheUserSaidOfThemselves: a session whose assistant
// turns say most keeps what the user said about themselves (stated.Self),
// as one more sentence when the best ones are the assistant's.
func TestExtractiveKeepsWhatTheUserSaidOfThemselves(t *testing.T) {
	t.Parallel()
	e := summarize.NewExtractive(sharedRules(t), summarize.Options{})
	for _, turns := range [][]summarize.Turn{
		{
			{Role: "user", Text: "Any ideas for a weekend away in the Alps? I'm terrified of heights, by the way."},
			{Role: "assistant", Text: "The Alps offer cable cars to glacier viewpoints, via ferrata routes along cliff faces, and hiking trails across high mountain passes. Cable cars to glacier viewpoints give sweeping mountain views. Mountain huts along the high passes serve hearty meals to hikers after a day on the trails."},
			{Role: "user", Text: "Thanks."},
		},
		{
			{Role: "user", Text: "周末去杭州玩有什么推荐？我对海鲜过敏。"},
			{Role: "assistant", Text: "杭州西湖周边景点很多，可以去灵隐寺、雷峰塔和西溪湿地。西湖边的餐馆有西湖醋鱼、龙井虾仁等杭帮菜，灵隐寺附近还有不少茶馆可以品尝龙井茶。"},
		},
	} {
		s, err := e.Summarize(context.Background(), summarize.Input{Turns: turns})
		require.NoError(t, err)
		require.True(t, strings.Contains(s.Text, "terrified of heights") || strings.Contains(s.Text, "我对海鲜过敏"), s.Text)
	}
}
