package listsel_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/listsel"
)

// items builds candidates from "ref=title" pairs.
func items(pairs ...string) []events.Item {
	out := make([]events.Item, len(pairs))
	for i, p := range pairs {
		for k := 0; k < len(p); k++ {
			if p[k] == '=' {
				out[i] = events.Item{Ref: p[:k], Title: p[k+1:]}
				break
			}
		}
	}
	return out
}

// A reply's list is tied to the candidates its entries name, in the reply's
// order, however the titles are cased, quoted or bracketed.
func TestMatchTiesEntriesToCandidates(t *testing.T) {
	t.Parallel()
	films := items("/mv/1=Dune", "/mv/2=Arrival", "/mv/3=Heat", "/mv/4=Blade Runner", "/mv/5=Blade Runner 2049",
		"/p/9=Frank Herbert", "/mv/6=Up", "/mv/7=1917")
	books := items("/b/1=三体", "/b/2=沙丘", "/b/3=基地", "/b/4=流浪地球", "/b/5=三体：黑暗森林")
	for _, c := range []struct {
		name       string
		reply      string
		candidates []events.Item
		want       []string
	}{
		{"plain", "Here are three:\n1. Dune\n2. Arrival\n3. Heat", films,
			[]string{"/mv/1=Dune", "/mv/2=Arrival", "/mv/3=Heat"}},
		{"reply order, not candidate order", "1. Heat\n2. Dune", films, []string{"/mv/3=Heat", "/mv/1=Dune"}},
		{"some of the candidates", "1. **Arrival** (2016) — linguists and aliens", films, []string{"/mv/2=Arrival"}},
		{"case and quotes", "1. \"DUNE\" – desert\n2. 'arrival'", films, []string{"/mv/1=Dune", "/mv/2=Arrival"}},
		{"full width and brackets", "1. 《三体》——刘慈欣\n2. 「沙丘」\n3. ＂基地＂", books,
			[]string{"/b/1=三体", "/b/2=沙丘", "/b/3=基地"}},
		{"chinese punctuation in title", "1、《三体 黑暗森林》\n2、《三体》", books, []string{"/b/5=三体：黑暗森林", "/b/1=三体"}},
		{"longer title wins", "1. Blade Runner 2049 — the sequel to Blade Runner\n2. Blade Runner (1982)", films,
			[]string{"/mv/5=Blade Runner 2049", "/mv/4=Blade Runner"}},
		{"head decides", "1. Dune (2021) — from Frank Herbert's novel\n2. Heat, a crime epic; more tense than Arrival", films,
			[]string{"/mv/1=Dune", "/mv/3=Heat"}},
		{"shorter title on its own after the head", "1. Blade Runner — not to be confused with Blade Runner 2049", films,
			[]string{"/mv/4=Blade Runner"}},
		{"head ends at by", "1. Dune by Frank Herbert", films, []string{"/mv/1=Dune"}},
		{"short title as a word", "1. Up — a balloon house, looking up at the sky", films, []string{"/mv/6=Up"}},
		{"digits title at the start", "1. 1917 — one take\n2. Heat (1995)", films, []string{"/mv/7=1917", "/mv/3=Heat"}},
		{"digits title elsewhere is a year", "1. Heat (1917)\n2. Arrival 1917", films, []string{"/mv/3=Heat", "/mv/2=Arrival"}},
		{"ref only", "1. [watch it](https://example.com/mv/2)\n2. Heat", films, []string{"/mv/2=Arrival", "/mv/3=Heat"}},
		{"inline list", "Try 1) Heat; 2) Up; 3) Dune.", films, []string{"/mv/3=Heat", "/mv/6=Up", "/mv/1=Dune"}},
		{"chinese reply, english titles", "1. Dune：沙漠史诗\n2. Arrival，语言学家", films, []string{"/mv/1=Dune", "/mv/2=Arrival"}},
		{"title glued to chinese", "1、沙丘是一部经典\n2、三体讲的是外星文明", books, []string{"/b/2=沙丘", "/b/1=三体"}},
	} {
		require.Equal(t, c.want, refsTitles(listsel.Match(c.reply, c.candidates)), c.name)
	}
}

// Two items with the same title are told apart only by their links.
func TestMatchSameTitleToldApartByRef(t *testing.T) {
	t.Parallel()
	dunes := items("https://x.test/mv/1984=Dune", "https://x.test/mv/2021=Dune")
	got := listsel.Match("1. [Dune](https://x.test/mv/2021) (2021)\n2. [Dune](https://x.test/mv/1984) (1984)", dunes)
	require.Equal(t, []string{"https://x.test/mv/2021=Dune", "https://x.test/mv/1984=Dune"}, refsTitles(got))
	require.Nil(t, listsel.Match("1. Dune (2021)\n2. Dune (1984)", dunes), "without links the two are not told apart")
}

// When any entry names no candidate, or more than one, or a candidate is named
// twice, there is no list: a list with one wrong position is worse than none.
func TestMatchRefusesUncertainLists(t *testing.T) {
	t.Parallel()
	films := items("/mv/1=Dune", "/mv/2=Arrival", "/mv/3=Heat", "/p/9=Frank Herbert", "/mv/8=X",
		"/mv/7=1917", "/mv/6=It", "/b/4=流浪地球", "/mv/10=Dune 1984", "https://x.test/mv/1=Solaris Remake")
	for name, reply := range map[string]string{
		"no list":                        "Dune, Arrival and Heat are all good.",
		"an entry names nothing":         "1. Dune\n2. Arrival\n3. Something else",
		"an entry names two":             "1. Dune or Arrival\n2. Heat",
		"named twice":                    "1. Dune\n2. Dune, again",
		"author first":                   "1. Frank Herbert's Dune\n2. Heat",
		"one rune title":                 "1. X",
		"word inside a word":             "1. Witness for the Prosecution",
		"plural is another word":         "1. Dunes of the Sahara",
		"sequel number":                  "1. 流浪地球2",
		"digits title not at the start":  "1. A war film of 1917",
		"longer unknown ref path":        "1. [a](/mv/12)",
		"ref continued by query":         "1. [a](https://x.test/mv/1?page=2)",
		"ref continued by path":          "1. https://x.test/mv/1/reviews",
		"path under another path":        "1. https://y.test/old/mv/1",
		"steps":                          "1. Open the app\n2. Search\n3. Watch",
		"title only after the head":      "1. Solaris — in the spirit of Dune\n2. Heat",
		"head and someone else's link":   "1. Dune — see also [this](https://y.test/mv/2)",
		"two links":                      "1. [a](https://x.test/mv/1) or [b](/mv/10)",
		"broken numbering":               "1. Dune\n2. Arrival\n4. Heat",
		"candidate in last list missing": "1. Dune\n2. Arrival\n\nAlso:\n1. Heat\n2. Alien",
	} {
		require.Nil(t, listsel.Match(reply, films), name)
	}
	require.Nil(t, listsel.Match("1. Dune", nil), "no candidates")
	require.Nil(t, listsel.Match("", items("/a=Dune")), "no reply")
}
