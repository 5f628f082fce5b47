package search

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

func wantTerms(a *Analyzer, query string) []string { return a.QueryTerms(query) }

// A long turn shows its opening and then the passage that matches the
// message, within the snippet's length.
func TestPassageShowsWhatMatches(t *testing.T) {
	t.Parallel()
	a := SharedAnalyzer()
	text := "Here are some ideas for your trip to Japan. " + strings.Repeat("Kyoto has many temples and gardens worth a visit. ", 12) +
		"For the flight, the cheapest fares to Osaka are usually on Tuesdays in late January. " + strings.Repeat("Enjoy the food too. ", 6)
	p := passage(wantTerms(a, "when are the cheapest fares to Osaka?"), text, 200)
	require.NotEmpty(t, p)
	require.True(t, strings.HasPrefix(p, "Here are some ideas"), "the opening names the turn: %q", p)
	require.Contains(t, p, " … For the flight, the cheapest fares to Osaka are usually on Tuesdays")
	require.LessOrEqual(t, utf8.RuneCountInString(p), 200)

	// Nothing better than the opening: the caller cuts as before.
	p = passage(wantTerms(a, "ideas for Japan"), text, 200)
	require.Empty(t, p)
	// A turn that fits is shown whole by the caller.
	p = passage(wantTerms(a, "Osaka fares"), "Osaka fares are cheap.", 200)
	require.Empty(t, p)
	// No terms, no passage.
	p = passage(nil, text, 200)
	require.Empty(t, p)
}

func TestPassageChinese(t *testing.T) {
	t.Parallel()
	a := SharedAnalyzer()
	text := "关于这次旅行，我整理了一些建议。" + strings.Repeat("京都有很多寺庙和庭园值得一去。", 15) +
		"至于机票，去大阪最便宜的航班通常在一月下旬的周二。" + strings.Repeat("祝你旅途愉快。", 5)
	p := passage(wantTerms(a, "去大阪的机票什么时候最便宜？"), text, 120)
	require.NotEmpty(t, p)
	require.True(t, strings.HasPrefix(p, "关于这次旅行"), p)
	require.Contains(t, p, "至于机票，去大阪最便宜的航班")
	require.LessOrEqual(t, utf8.RuneCountInString(p), 120)
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
	want := wantTerms(a, "when are the cheapest fares to Osaka?")
	b.ReportAllocs()
	for b.Loop() {
		if p := passage(want, text, 400); p == "" {
			b.Fatal("no passage")
		}
	}
}
