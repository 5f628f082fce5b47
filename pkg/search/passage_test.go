package search

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/listsel"
)

func wantTerms(a *Analyzer, query string) []string { return a.QueryTerms(query) }

// A long turn shows its opening and then the passage that matches the
// message, within the snippet's length.
func TestPassageShowsWhatMatches(t *testing.T) {
	t.Parallel()
	a := SharedAnalyzer()
	text := "Here are some ideas for your trip to Japan. " + strings.Repeat("Kyoto has many temples and gardens worth a visit. ", 12) +
		"For the flight, the cheapest fares to Osaka are usually on Tuesdays in late January. " + strings.Repeat("Enjoy the food too. ", 6)
	p := passage(passageQuery{terms: wantTerms(a, "when are the cheapest fares to Osaka?")}, text, 200)
	require.NotEmpty(t, p)
	require.True(t, strings.HasPrefix(p, "Here are some ideas"), "the opening names the turn: %q", p)
	require.Contains(t, p, " … For the flight, the cheapest fares to Osaka are usually on Tuesdays")
	require.LessOrEqual(t, utf8.RuneCountInString(p), 200)

	// Nothing better than the opening: the caller cuts as before.
	p = passage(passageQuery{terms: wantTerms(a, "ideas for Japan")}, text, 200)
	require.Empty(t, p)
	// A turn that fits is shown whole by the caller.
	p = passage(passageQuery{terms: wantTerms(a, "Osaka fares")}, "Osaka fares are cheap.", 200)
	require.Empty(t, p)
	// No terms, no passage.
	p = passage(passageQuery{}, text, 200)
	require.Empty(t, p)
}

func TestPassageChinese(t *testing.T) {
	t.Parallel()
	a := SharedAnalyzer()
	text := "关于这次旅行，我整理了一些建议。" + strings.Repeat("京都有很多寺庙和庭园值得一去。", 15) +
		"至于机票，去大阪最便宜的航班通常在一月下旬的周二。" + strings.Repeat("祝你旅途愉快。", 5)
	p := passage(passageQuery{terms: wantTerms(a, "去大阪的机票什么时候最便宜？")}, text, 120)
	require.NotEmpty(t, p)
	require.True(t, strings.HasPrefix(p, "关于这次旅行"), p)
	require.Contains(t, p, "至于机票，去大阪最便宜的航班")
	require.LessOrEqual(t, utf8.RuneCountInString(p), 120)
}

// A message that names an entry of a list by its position ("the fifth
// bottle") is shown that entry of a long turn, even when other sentences
// hold more of its words.
func TestPassageListPosition(t *testing.T) {
	t.Parallel()
	a := SharedAnalyzer()
	text := "To make the widest variety of gin-based cocktails, I would recommend these five bottles:\n\n" +
		"1. Sweet Vermouth: a fortified wine, key in gin cocktails like the Negroni and the Martinez. It adds sweetness.\n" +
		"2. Dry Vermouth: essential for a classic gin Martini, and in many other gin cocktails.\n" +
		"3. Campari: a bitter Italian liqueur for the Negroni and other gin-based cocktails.\n" +
		"4. Elderflower liqueur: delicate and floral, it brightens gin cocktails like the Elderflower Collins.\n" +
		"5. Absinthe: a strong herbal liqueur, used in small amounts for the Corpse Reviver No. 2.\n\n" +
		"With these five bottles and a good gin you can make a wide variety of gin-based cocktails."
	query := "You recommended five bottles to make the widest variety of gin-based cocktails. Can you remind me what the fifth bottle was?"
	q := passageQuery{terms: wantTerms(a, query), positions: listsel.Positions(query)}
	require.Equal(t, []int{5}, q.positions)
	p := passage(q, text, 300)
	require.Contains(t, p, " … 5. Absinthe: a strong herbal liqueur", p)
	require.True(t, strings.HasPrefix(p, "To make the widest variety"), p)
	require.LessOrEqual(t, utf8.RuneCountInString(p), 300)

	// Without the position, the words decide.
	p = passage(passageQuery{terms: q.terms}, text, 300)
	require.NotContains(t, p, "Absinthe", p)

	// An entry the plain cut shows already: nothing to do.
	q.positions = []int{1}
	require.Empty(t, passage(q, text, 300))

	// A position on its own finds its entry too; one the turn has not, nothing.
	require.Contains(t, passage(passageQuery{positions: []int{4}}, text, 300), " … 4. Elderflower liqueur")
	require.Empty(t, passage(passageQuery{positions: []int{9}}, text, 300))

	// Chinese lists.
	zh := "这几本书都很适合入门，下面按难度排列：\n" + strings.Repeat("这里是一些介绍性的文字，说明为什么推荐它们。", 6) + "\n" +
		"一、《三体》\n二、《活着》\n三、《围城》：钱钟书的小说，讽刺知识分子。\n四、《边城》"
	p = passage(passageQuery{positions: listsel.Positions("你推荐的第三本书叫什么？")}, zh, 120)
	require.Contains(t, p, " … 三、《围城》", p)
}

// A sentence too long to show whole is shown from a little before its
// matches when a cut from its start would leave them out.
func TestPassageWindowsALongSentence(t *testing.T) {
	t.Parallel()
	a := SharedAnalyzer()
	text := "I'm planning to move into my new home soon and I need to set up cable and TV services. " +
		strings.Repeat("Can you compare the providers in my area and their prices for me? ", 3) +
		"By the way, I'm really looking forward to finally owning a home, it's been a long process with lots of " +
		"paperwork and waiting and phone calls, but it'll be worth it to have a backyard like the one I'll have - " +
		"remember when I got pre-approved for $400,000 from Wells Fargo? That was a great day."
	q := passageQuery{terms: wantTerms(a, "What was the amount I was pre-approved for when I got my mortgage from Wells Fargo?")}
	p := passage(q, text, 300)
	require.Contains(t, p, "pre-approved for $400,000 from Wells Fargo", p)
	require.Contains(t, p, " … …", p)
	require.LessOrEqual(t, utf8.RuneCountInString(p), 300)

	// A sentence whose matches a cut from its start shows is shown from its
	// start.
	short := "I'm planning to move into my new home soon. " + strings.Repeat("Can you compare the providers in my area? ", 8) +
		"I got pre-approved by Wells Fargo for $400,000, which was a relief after months of paperwork, phone calls, " +
		"bank statements and letters from my employer about my salary and my savings and what not."
	p = passage(q, short, 300)
	require.Contains(t, p, " … I got pre-approved by Wells Fargo", p)

	// Chinese, whose sentences run long between full stops.
	zh := "我下个月就要搬进新家了，想请你帮我办一下有线电视。" + strings.Repeat("你能比较一下附近几家运营商的价格吗？", 3) +
		"说起来，我真的很期待终于拥有自己的房子，这个过程很长，有很多文件要填，有很多电话要打，有很多等待，" +
		"但是能有一个那样的后院还是值得的，你还记得我从富国银行拿到四十万美元的贷款预批吗？"
	p = passage(passageQuery{terms: wantTerms(a, "我从富国银行拿到的贷款预批是多少？")}, zh, 100)
	require.Contains(t, p, "富国银行拿到四十万美元的贷款预批", p)
	require.LessOrEqual(t, utf8.RuneCountInString(p), 100)
}

func TestSentenceEnd(t *testing.T) {
	t.Parallel()
	s := "First one. Version 1.5 is out! 第二句。Third\nfourth"
	var got []string
	for start := 0; start < len(s); {
		end := sentenceEnd(s, start)
		got = append(got, s[start:end])
		start = end
	}
	require.Equal(t, []string{"First one. ", "Version 1.5 is out! ", "第二句。", "Third\n", "fourth"}, got)
}

// BenchmarkPassage finds the passage of a 1,600-character answer, the
// kind of long turn a context shows a snippet of, for a question.
func BenchmarkPassage(b *testing.B) {
	a := SharedAnalyzer()
	text := "Here are some ideas for your trip to Japan. " + strings.Repeat("Kyoto has many temples and gardens worth a visit, especially in the spring. ", 18) +
		"For the flight, the cheapest fares to Osaka are usually on Tuesdays in late January. " + strings.Repeat("Enjoy the food too. ", 6)
	want := passageQuery{terms: wantTerms(a, "when are the cheapest fares to Osaka?")}
	b.ReportAllocs()
	for b.Loop() {
		if p := passage(want, text, 400); p == "" {
			b.Fatal("no passage")
		}
	}
}

// sentenceEnd ends the same sentences as reading every rune does, in any
// text: ASCII, other scripts, invalid UTF-8.
func TestSentenceEndSameAsRunes(t *testing.T) {
	t.Parallel()
	byRunes := func(s string, start int) int {
		for i := start; i < len(s); {
			r, size := utf8.DecodeRuneInString(s[i:])
			i += size
			switch r {
			case '\n', '。', '！', '？', '；':
				return i
			case '.', '!', '?':
				if i == len(s) || s[i] == ' ' || s[i] == '\n' {
					for i < len(s) && s[i] == ' ' {
						i++
					}
					return i
				}
			}
		}
		return len(s)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"a", "Z", " ", ".", "!", "?", "\n", "。", "！", "？", "；", "é", "好", "\xff", "\xe3\x80", "1.5", "  "}
	for range 5000 {
		var b strings.Builder
		for range rng.IntN(30) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		s := b.String()
		for start := 0; start <= len(s); start++ {
			require.Equal(t, byRunes(s, start), sentenceEnd(s, start), "%q from %d", s, start)
		}
	}
}

// sameText gives every text the hash reading it rune by rune gives (the
// letters and digits, lower-cased, each rune's UTF-8 bytes; the whole text
// when it has none), with its ASCII read byte by byte.
func TestSameTextSameAsRunes(t *testing.T) {
	t.Parallel()
	byRunes := func(text string) uint64 {
		const offset, prime = 14695981039346656037, 1099511628211
		h, any := uint64(offset), false
		var buf [utf8.UTFMax]byte
		for _, r := range text {
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				continue
			}
			any = true
			for _, b := range buf[:utf8.EncodeRune(buf[:], unicode.ToLower(r))] {
				h = (h ^ uint64(b)) * prime
			}
		}
		if !any {
			for i := 0; i < len(text); i++ {
				h = (h ^ uint64(text[i])) * prime
			}
		}
		return h
	}
	rng := rand.New(rand.NewPCG(3, 4))
	pieces := []string{"a", "Z", "q", "0", "9", " ", "!", "@", "[", "`", "{", "\n", "É", "ß", "İ", "好", "٣", "👍", "\xff", "\xe3\x80", "Σ"}
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(20) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		s := b.String()
		require.Equal(t, byRunes(s), sameText(s), "%q", s)
	}
	require.Equal(t, sameText("Good morning!"), sameText("good  MORNING"))
	require.NotEqual(t, sameText("good morning"), sameText("good evening"))
}

// BenchmarkSameText hashes a 1,600-character answer, the kind of turn a
// context's cut passes over.
func BenchmarkSameText(b *testing.B) {
	text := "Here are some ideas for your trip to Japan. " + strings.Repeat("Kyoto has many temples and gardens worth a visit, especially in the spring. ", 20)
	for b.Loop() {
		_ = sameText(text)
	}
}
