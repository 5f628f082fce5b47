package search_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/search"
)

func analyzer(t testing.TB) *search.Analyzer {
	t.Helper()
	return search.SharedAnalyzer()
}

func TestAnalyzerTerms(t *testing.T) {
	t.Parallel()
	a := analyzer(t)
	cases := []struct {
		name, text string
		want       []string
	}{
		{"english: lower-cased, stemmed, stopwords and punctuation dropped",
			"She was Running to the Libraries, reading novels!", []string{"run", "librari", "read", "novel"}},
		{"contractions and possessives", "I don't know Caroline's friends; they're won't-go people",
			[]string{"know", "carolin", "friend", "go", "peopl"}},
		{"ids and numbers kept whole and in parts", "Order B-1234 shipped 2023-05-01, book 823D",
			[]string{"order", "b-1234", "1234", "ship", "2023-05-01", "2023", "05", "01", "book", "823d"}},
		{"a URL's host and path parts", "see https://books.example.com/book/823D?ref=home",
			[]string{"see", "https", "books.example.com/book/823d", "book", "exampl", "com", "book", "823d", "ref", "home"}},
		{"full-width letters and digits", "ＧＰＴ－４ and ２０２３", []string{"gpt-4", "gpt", "4", "2023"}},
		{"chinese: segmented words, function words dropped", "我最近在看刘慈欣的作品",
			[]string{"最近", "看", "刘慈欣", "刘慈", "慈欣", "作品"}},
		{"chinese: a title the dictionary splits is rejoined as a bigram", "《三体》真好看",
			[]string{"三", "体", "三体", "好看"}},
		{"chinese: long words also yield their bigrams", "推荐科幻小说",
			[]string{"推荐", "科幻小说", "科幻", "幻小", "小说"}},
		{"mixed chinese and english", "我想读 Dune 和 The Three-Body Problem，2008年出版的",
			[]string{"想", "读", "想读", "dune", "three", "bodi", "problem", "2008", "年", "出版"}},
		{"letters and digits inside chinese", "iPhone15很好用", []string{"iphone15", "很", "好", "很好"}},
		{"an abbreviated title as the word it stands for", "Dr. Patel and prof. Lee, my doctors",
			[]string{"doctor", "patel", "professor", "lee", "doctor"}},
		{"nothing to index", "……！！ ??? 的了吗", nil},
	}
	for _, c := range cases {
		require.Equal(t, c.want, a.Terms(c.text, nil), c.name)
	}
}

func TestAnalyzerQueryTermsAreDistinct(t *testing.T) {
	t.Parallel()
	a := analyzer(t)
	require.Equal(t, []string{"dune", "book", "三", "体", "三体"}, a.QueryTerms("Dune? the book Dune, books 《三体》，三体"))
	require.Empty(t, a.QueryTerms(""))
}

// A question and the turn that answers it are written differently; what they
// share is what the analyzer makes of both.
func TestAnalyzerQuestionMeetsAnswer(t *testing.T) {
	t.Parallel()
	a := analyzer(t)
	shared := func(q, doc string) []string {
		in := map[string]bool{}
		for _, term := range a.Terms(doc, nil) {
			in[term] = true
		}
		var out []string
		for _, term := range a.QueryTerms(q) {
			if in[term] {
				out = append(out, term)
			}
		}
		return out
	}
	require.Equal(t, []string{"科幻", "小说"}, shared("你给我推荐过哪些科幻小说？", "这几本科幻的小说都不错"))
	require.Equal(t, []string{"三", "体", "三体"}, shared("三体的作者是谁", "我在读三体"))
	require.Equal(t, []string{"novel", "recommend"}, shared("Which novels did you recommend?", "I recommended two novels last week"))
	require.Equal(t, []string{"order", "b-1234", "1234"}, shared("Where is order B-1234?", "Your order b-1234 has shipped"))
	require.Equal(t, []string{"doctor"}, shared("How many different doctors did I visit?", "my ENT specialist, Dr. Patel, prescribed a spray"))
}
