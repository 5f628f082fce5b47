package extract

import (
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// naiveFind lists every occurrence of every pattern, as findAll should.
func naiveFind(patterns []string, text string) []acMatch {
	var out []acMatch
	first := map[string]int{}
	for i, p := range patterns {
		if _, ok := first[p]; !ok && p != "" {
			first[p] = i
		}
	}
	for p, idx := range first {
		for start := 0; start+len(p) <= len(text); start++ {
			if strings.HasPrefix(text[start:], p) {
				out = append(out, acMatch{start: start, end: start + len(p), pattern: idx})
			}
		}
	}
	return out
}

func sortMatches(ms []acMatch) {
	sort.Slice(ms, func(i, j int) bool {
		if ms[i].start != ms[j].start {
			return ms[i].start < ms[j].start
		}
		return ms[i].end < ms[j].end
	})
}

func TestAutomatonFindAll(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		patterns []string
		text     string
	}{
		{"classic", []string{"he", "she", "his", "hers"}, "ushers and his sheep"},
		{"nested", []string{"a", "ab", "abc", "bc", "c"}, "abcabc"},
		{"chinese", []string{"三体", "三体2", "体", "刘慈欣"}, "刘慈欣写了三体和三体2"},
		{"duplicates report the first index", []string{"x", "y", "x"}, "xyx"},
		{"empty pattern ignored", []string{"", "a"}, "aa"},
		{"no patterns", nil, "text"},
		{"empty text", []string{"a"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := newAutomaton(tt.patterns).findAll(tt.text, nil)
			want := naiveFind(tt.patterns, tt.text)
			sortMatches(got)
			sortMatches(want)
			require.Equal(t, len(want), len(got))
			if len(want) > 0 {
				require.Equal(t, want, got)
			}
		})
	}
}

func TestAutomatonRandomAgainstNaive(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "b", "c", "三", "体"}
	word := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()
	}
	for range 200 {
		patterns := make([]string, 1+rng.IntN(8))
		for i := range patterns {
			patterns[i] = word(1 + rng.IntN(4))
		}
		text := word(rng.IntN(30))
		got := newAutomaton(patterns).findAll(text, nil)
		want := naiveFind(patterns, text)
		sortMatches(got)
		sortMatches(want)
		require.Equal(t, len(want), len(got), "patterns %q text %q", patterns, text)
		for i := range want {
			require.Equal(t, want[i].start, got[i].start)
			require.Equal(t, want[i].end, got[i].end)
			require.Equal(t, patterns[want[i].pattern], patterns[got[i].pattern])
		}
	}
}

func TestLeftmostLongest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   []acMatch
		keep func(acMatch) bool
		want []acMatch
	}{
		{
			"longest at the same start",
			[]acMatch{{0, 2, 0}, {0, 5, 1}, {1, 3, 2}},
			nil,
			[]acMatch{{0, 5, 1}},
		},
		{
			"leftmost beats longer later match",
			[]acMatch{{2, 9, 0}, {0, 3, 1}},
			nil,
			[]acMatch{{0, 3, 1}},
		},
		{
			"adjacent matches both kept",
			[]acMatch{{3, 6, 1}, {0, 3, 0}},
			nil,
			[]acMatch{{0, 3, 0}, {3, 6, 1}},
		},
		{
			"rejected match lets a shorter one in",
			[]acMatch{{0, 5, 0}, {0, 2, 1}},
			func(m acMatch) bool { return m.end != 5 },
			[]acMatch{{0, 2, 1}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, leftmostLongest(tt.in, tt.keep))
		})
	}
}
