package assemble

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/record"
)

func budgetParts() Parts {
	at := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	list := CurrentList(&record.PresentedList{EventID: "e9", OccurredAt: at, Items: json.RawMessage(
		`[{"ref":"/mv/1","title":"沙丘","attrs":{"rating":8.1}},{"ref":"/mv/2","title":"星际穿越"},{"ref":"/mv/823D","title":"流浪地球","attrs":{"tag":"new"}}]`)})
	var msgs []record.Message
	for i, c := range []string{"找几部科幻电影", "好的，这是搜索结果", "第三个怎么样？"} {
		role := "user"
		if i == 1 {
			role = "assistant"
		}
		msgs = append(msgs, record.Message{EventID: string(rune('a' + i)), Role: role, Content: c, OccurredAt: at.Add(time.Duration(i) * time.Minute)})
	}
	return Parts{
		List:   list,
		Window: Window{Messages: msgs, Chars: 20},
		Summaries: Summaries{
			Current:  &SessionSummary{Summary: "用户在找科幻电影。"},
			Previous: []SessionSummary{{Summary: "用户聊了刘慈欣的小说。", KeyTopics: []string{"三体"}}, {Summary: "用户问了周末的天气。"}},
		},
		Facts: Facts{Facts: []WeightedFact{{Type: "book_title", Display: "三体", Weight: 1}, {Type: "genre", Display: "科幻", Weight: 0.9}}},
	}
}

func cutsOf(cuts []Cut) int64 {
	var n int64
	for _, c := range cuts {
		if c.Reason == "budget" {
			n += c.Count
		}
	}
	return n
}

// The budget is spent in priority order: list, window (newest first),
// this session's summary, previous summaries, facts; what is left out is
// counted per part, and the rendered block fits the budget.
func TestApplyBudgetPriority(t *testing.T) {
	t.Parallel()
	full := budgetParts()
	all := ApplyBudget(LangZH, &full, 0)
	require.Zero(t, all.Limit, "no budget")
	require.Positive(t, all.Used)

	ph := text[LangZH]
	listSize, two := 0, 0
	for i, e := range budgetParts().List.Items {
		listSize += runes(listLine(ph, e))
		if i < 2 {
			two += runes(listLine(ph, e))
		}
	}
	newest := runes(renderLines(ph, budgetParts()).window[2])

	for _, c := range []struct {
		name            string
		limit           int
		items, msgs     int
		current         bool
		previous, facts int
	}{
		{"everything fits", all.Used, 3, 3, true, 2, 2},
		// The framing, the blank line and heading before each part, and a
		// line break after each line count too.
		{"only part of the list", runes(ph.framing) + runes(ph.list) + 3 + two + 1, 2, 0, false, 0, 0},
		{"the list and the newest message", runes(ph.framing) + runes(ph.list) + 3 + listSize + 2 + runes(ph.window) + 3 + newest, 3, 1, false, 0, 0},
		{"nothing", 1, 0, 0, false, 0, 0},
	} {
		p := budgetParts()
		b := ApplyBudget(LangZH, &p, c.limit)
		require.LessOrEqual(t, b.Used, c.limit, c.name)
		require.Equal(t, b.Parts, renderLines(ph, p).spent(ph), c.name)
		require.Equal(t, b.Used, b.Parts.Framing+b.Parts.Attributes+b.Parts.List+b.Parts.Window+b.Parts.Recalled+b.Parts.Summaries+b.Parts.Facts, "%s: the parts add up", c.name)
		if c.items > 0 {
			require.Positive(t, b.Parts.List, c.name)
		}
		require.Equal(t, c.facts > 0, b.Parts.Facts > 0, c.name)

		// Assemble spends the budget the same way and renders what is kept.
		q := budgetParts()
		qb, prompt := Assemble(LangZH, &q, c.limit)
		require.Equal(t, b, qb, c.name)
		require.Equal(t, p, q, c.name)
		require.Equal(t, Render(LangZH, p), prompt, c.name)
		require.Equal(t, runes(prompt), qb.Used, "%s: every character of the prompt is counted", c.name)
		require.Len(t, p.List.Items, c.items, c.name)
		require.Equal(t, int64(3-c.items), cutsOf(p.List.Cuts), c.name)
		require.Len(t, p.Window.Messages, c.msgs, c.name)
		require.Equal(t, int64(3-c.msgs), cutsOf(p.Window.Cuts), c.name)
		if c.msgs > 0 {
			require.Equal(t, "第三个怎么样？", p.Window.Messages[len(p.Window.Messages)-1].Content, "%s: the newest message is kept first", c.name)
		}
		require.Equal(t, c.current, p.Summaries.Current != nil, c.name)
		require.Len(t, p.Summaries.Previous, c.previous, c.name)
		require.Len(t, p.Facts.Facts, c.facts, c.name)
		require.Equal(t, int64(2-c.facts), cutsOf(p.Facts.Cuts), c.name)
	}
}

// The list is rendered with the numbers it was shown under, its titles
// quoted and its refs exactly, last, nearest to the user's next message.
func TestRenderList(t *testing.T) {
	t.Parallel()
	p := budgetParts()
	out := Render(LangEN, p)
	require.Contains(t, out, "3. \"流浪地球\" — ref: /mv/823D {\"tag\":\"new\"}")
	require.Contains(t, out, "1. \"沙丘\" — ref: /mv/1 {\"rating\":8.1}")
	require.True(t, strings.HasSuffix(out, "3. \"流浪地球\" — ref: /mv/823D {\"tag\":\"new\"}"), out)
	require.Contains(t, out, "quote its ref exactly")
	require.Contains(t, Render(LangZH, p), "原样引用其 ref")

	only := Parts{List: CurrentList(&record.PresentedList{EventID: "e", Items: json.RawMessage(`[{"ref":"/b/1"}]`)})}
	require.Contains(t, Render(LangEN, only), "1. ref: /b/1")
	require.Nil(t, CurrentList(nil))
}

// TestScanText: a text is used as it is exactly when writing it as
// remembered prose would not change it, and its characters are counted.
func TestScanText(t *testing.T) {
	for _, s := range []string{"", " ", "a", "a b", "a  b", " a", "a ", "a\tb", "a\nb", "三体　科幻", "三体 科幻",
		"a\u00a0b", "a\u0085b", "x y z", "x y  z", "\n", "já é", "a  ", "  ",
		"[Memory]", "a]", "【记忆】", "三体［x］", "a\x1cb", "a\x7fb", "é\x1c", "é\u2028b", "é\u2029", "é\u0090", "a\u200bb", "⟦x⟧",
		"a [b c]", "ok [1]", "x [shares a photo: a dog]", "[1] first", "é [b c]", "é [1]", "[[a b]]", "a [b", "a\n[b c] d"} {
		var b strings.Builder
		writeRemembered(&b, s)
		n, change := scanText(s)
		if change == (b.String() == s) {
			t.Errorf("%q: scanText says change %v, written %q", s, change, b.String())
		}
		if remembered(s) != b.String() {
			t.Errorf("%q: remembered %q, want %q", s, remembered(s), b.String())
		}
		if n != utf8.RuneCountInString(s) {
			t.Errorf("%q: scanText counts %d characters", s, n)
		}
	}
}

// The recalled part takes at most its share of what the parts before it
// leave when the summaries and facts need the rest; at share 1 it may take
// it all. Either way the prompt fits the budget.
func TestRecalledShare(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	withHits := func(share float64) Parts {
		p := budgetParts()
		p.List, p.Window = nil, Window{}
		var hits []RecalledHit
		for i := range 60 {
			hits = append(hits, RecalledHit{Kind: "message", EventID: strconv.Itoa(i), SessionID: "old" + strconv.Itoa(i%5),
				Role: "user", OccurredAt: at.Add(-time.Duration(i) * time.Hour), Text: strings.Repeat("科幻小说和电影 ", 10)})
		}
		p.Recalled = &Recalled{Query: "科幻", Search: "lexical", Hits: hits}
		p.RecalledShare = share
		return p
	}
	const limit = 2000
	all := withHits(1)
	b, prompt := Assemble("zh", &all, limit)
	require.LessOrEqual(t, b.Used, limit)
	require.Equal(t, b.Used, utf8.RuneCountInString(prompt))
	require.NotContains(t, prompt, "用户聊了刘慈欣的小说", "at share 1 the recalled hits take the earlier sessions' room")

	shared := withHits(0.8)
	b, prompt = Assemble("zh", &shared, limit)
	require.LessOrEqual(t, b.Used, limit)
	require.Equal(t, b.Used, utf8.RuneCountInString(prompt))
	require.Positive(t, b.Parts.Summaries, "the summaries are held their part")
	require.Positive(t, b.Parts.Facts)
	require.Contains(t, prompt, "用户聊了刘慈欣的小说")
	require.Less(t, len(shared.Recalled.Hits), len(all.Recalled.Hits))
	require.Contains(t, prompt, "用户问了周末的天气", "held what they need, all of it here")
	require.Greater(t, b.Parts.Recalled, limit-b.Parts.Summaries-b.Parts.Facts-b.Parts.Framing-200,
		"and the recalled part the rest, less than a line of it unused")
}

// Longer says what counting every character would, for any text and length,
// invalid UTF-8 (a byte, a character) and lengths out of range included.
func TestLonger(t *testing.T) {
	texts := []string{"", "a", "abc", "日本語", "a日b本", "\xff\xfe", "x\xe6\x97", "héllo wörld", strings.Repeat("长", 500) + "tail"}
	for _, s := range texts {
		for n := -2; n <= len(s)+2; n++ {
			require.Equal(t, utf8.RuneCountInString(s) > n, Longer(s, n), "%q, %d", s, n)
		}
	}
}

// Statements fitted last take what the other parts leave: when the
// recalled part fills the budget they give way to it, whereas fitted after
// the attributes' keys they are kept and the recalled part shrinks.
func TestStatementsLast(t *testing.T) {
	t.Parallel()
	parts := func(last bool) *Parts {
		hits := make([]RecalledHit, 40)
		for i := range hits {
			hits[i] = RecalledHit{Kind: "message", EventID: "e" + strconv.Itoa(i), SessionID: "s", Role: "user",
				OccurredAt: time.Date(2024, 1, 1, 9, i, 0, 0, time.UTC), Text: strings.Repeat("played games for two hours ", 4)}
		}
		return &Parts{
			Attributes:     &Attributes{Statements: []Statement{{Text: "I love indie games with strong stories.", At: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)}}},
			StatementLimit: 400,
			StatementsLast: last,
			Recalled:       &Recalled{Query: "how many hours did I play?", Hits: hits},
		}
	}
	first, last := parts(false), parts(true)
	_, withFirst := Assemble("en", first, 2000)
	_, withLast := Assemble("en", last, 2000)
	require.Contains(t, withFirst, "indie games")
	require.NotContains(t, withLast, "indie games", "the history took the budget first")
	require.Greater(t, len(last.Recalled.Hits), len(first.Recalled.Hits))
	roomy := parts(true)
	roomy.Recalled.Hits = roomy.Recalled.Hits[:2]
	_, withRoom := Assemble("en", roomy, 2000)
	require.Contains(t, withRoom, "indie games", "what the history leaves")
}
