package extract

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestGazetteer(t *testing.T) {
	t.Parallel()
	g := NewGazetteer([]CatalogEntry{
		{KindFilm, "盗梦空间"},
		{KindFilm, "无间道"},
		{KindFilm, "无间道Ⅱ"},
		{KindPerson, "梁朝伟"},
		{KindBookTitle, "三体"},
		{KindFilm, "三体"},      // same name, second kind
		{KindBookTitle, "三体"}, // exact duplicate
		{KindMusic, "Rain"},
		{KindPerson, "Christopher Nolan"},
		{KindFilm, "The Godfather"},
		{KindPerson, "李"}, // one character: skipped
		{KindMusic, "x"},  // one character: skipped
		{"place", "北京"},   // invalid kind: skipped
	})
	require.Equal(t, 8, g.Len())

	tests := []struct {
		name string
		text string
		want []Fact
	}{
		{"no brackets needed", "我昨天看了盗梦空间，很烧脑。", []Fact{{Kind: KindFilm, Value: "盗梦空间", Display: "盗梦空间"}}},
		{
			"leftmost-longest picks the sequel",
			"无间道Ⅱ比第一部还好看",
			[]Fact{{Kind: KindFilm, Value: "无间道ii", Display: "无间道Ⅱ"}},
		},
		{
			"overlapping names: the earlier one wins",
			"梁朝伟无间道",
			[]Fact{{Kind: KindPerson, Value: "梁朝伟", Display: "梁朝伟"}, {Kind: KindFilm, Value: "无间道", Display: "无间道"}},
		},
		{
			"every kind of a shared name",
			"《三体》",
			[]Fact{{Kind: KindBookTitle, Value: "三体", Display: "三体"}, {Kind: KindFilm, Value: "三体", Display: "三体"}},
		},
		{"latin names need word boundaries", "Training in the rain.", []Fact{{Kind: KindMusic, Value: "rain", Display: "Rain"}}},
		{"no match inside a latin word", "Brainstorming", nil},
		{"latin next to chinese is a boundary", "我喜欢Rain这首歌", []Fact{{Kind: KindMusic, Value: "rain", Display: "Rain"}}},
		{
			"case, width and spacing are normalised",
			"ｃｈｒｉｓｔｏｐｈｅｒ   nolan directed THE GODFATHER? no.",
			[]Fact{{Kind: KindPerson, Value: "christopher nolan", Display: "Christopher Nolan"}, {Kind: KindFilm, Value: "the godfather", Display: "The Godfather"}},
		},
		{"single characters never match", "李先生说x", nil},
		{"empty text", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := g.Extract(context.Background(), Input{Text: tt.text})
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestGazetteerEmptyCatalog(t *testing.T) {
	t.Parallel()
	for _, entries := range [][]CatalogEntry{nil, {}, {{KindPerson, " "}}} {
		g := NewGazetteer(entries)
		require.Zero(t, g.Len())
		got, err := g.Extract(context.Background(), Input{Text: "盗梦空间 and anything else"})
		require.NoError(t, err)
		require.Empty(t, got)
	}
}

func TestGazetteerCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := NewGazetteer([]CatalogEntry{{KindFilm, "盗梦空间"}}).Extract(ctx, Input{Text: "盗梦空间"})
	require.ErrorIs(t, err, context.Canceled)
}

// bigCatalog makes n distinct synthetic names, half Chinese and half Latin.
func bigCatalog(n int) []CatalogEntry {
	han := []rune("天地玄黄宇宙洪荒日月盈昃辰宿列张寒来暑往秋收冬藏闰余成岁律吕调阳云腾致雨露结为霜")
	out := make([]CatalogEntry, 0, n)
	for i := range n {
		if i%2 == 0 {
			var b strings.Builder
			for k, v := 0, i; k < 4; k, v = k+1, v/len(han) {
				b.WriteRune(han[v%len(han)])
			}
			out = append(out, CatalogEntry{Kind: KindFilm, Name: b.String() + "传"})
		} else {
			out = append(out, CatalogEntry{Kind: KindPerson, Name: fmt.Sprintf("Person Number %d", i)})
		}
	}
	return out
}

func TestGazetteerLargeCatalog(t *testing.T) {
	t.Parallel()
	entries := bigCatalog(100_000)
	g := NewGazetteer(entries)
	require.Greater(t, g.Len(), 90_000)
	text := "I met " + entries[99_999].Name + " who loves " + entries[50_000].Name + "."
	got, err := g.Extract(context.Background(), Input{Text: text})
	require.NoError(t, err)
	require.Equal(t, []Fact{
		{Kind: KindPerson, Value: Normalize(entries[99_999].Name), Display: entries[99_999].Name},
		{Kind: KindFilm, Value: entries[50_000].Name, Display: entries[50_000].Name},
	}, got)
}

func BenchmarkGazetteer100k(b *testing.B) {
	g := NewGazetteer(bigCatalog(100_000))
	turns := loadTurns(b)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := g.Extract(ctx, Input{Text: turns[i%len(turns)]}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "turns/s")
}

func BenchmarkNewGazetteer100k(b *testing.B) {
	entries := bigCatalog(100_000)
	for b.Loop() {
		NewGazetteer(entries)
	}
}

func TestGazetteerBoundaryRejectionKeepsShorterName(t *testing.T) {
	t.Parallel()
	g := NewGazetteer([]CatalogEntry{{KindFilm, "Rain Man"}, {KindMusic, "Rain"}})
	got, err := g.Extract(context.Background(), Input{Text: "Rain Manor is a hotel; Rain Man is a film."})
	require.NoError(t, err)
	require.Equal(t, []Fact{{Kind: KindMusic, Value: "rain", Display: "Rain"}, {Kind: KindFilm, Value: "rain man", Display: "Rain Man"}}, got)
}
