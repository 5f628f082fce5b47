package embed

import (
	"context"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestHashingModel(t *testing.T) {
	t.Parallel()
	tests := []struct {
		dim       int
		wantDim   int
		wantModel string
	}{
		{0, 256, "hashing-v1-256"},
		{-1, 256, "hashing-v1-256"},
		{64, 64, "hashing-v1-64"},
		{1024, 1024, "hashing-v1-1024"},
	}
	for _, tt := range tests {
		t.Run(tt.wantModel, func(t *testing.T) {
			t.Parallel()
			h := NewHashing(tt.dim)
			require.Equal(t, tt.wantDim, h.Dimension())
			require.Equal(t, tt.wantModel, h.Model())
			require.Len(t, h.Vector("三体"), tt.wantDim)
		})
	}
}

func TestHashingUnitLength(t *testing.T) {
	t.Parallel()
	tests := []string{
		"三体",
		"a",
		"科幻小说",
		"science fiction novel",
		"最近在读 Frank Herbert 的 Dune，还有东野圭吾的ミステリー",
		"Достоевский «Преступление и наказание»",
		"jazz jazz jazz jazz",
		strings.Repeat("long text with many repeated words ", 200),
	}
	for _, dim := range []int{16, 256} {
		h := NewHashing(dim)
		for _, text := range tests {
			v := h.Vector(text)
			require.Len(t, v, dim)
			require.InDelta(t, 1, math.Sqrt(dot(v, v)), 1e-6, "dim %d, %q", dim, text)
		}
	}
}

func TestHashingZeroVector(t *testing.T) {
	t.Parallel()
	h := NewHashing(32)
	for _, text := range []string{"", "   ", "!!! ...", "《》", "🙂"} {
		v := h.Vector(text)
		require.Equal(t, make([]float32, 32), v, "%q", text)
	}
}

func TestHashingDeterministic(t *testing.T) {
	t.Parallel()
	text := "我最喜欢的作家是刘慈欣 and Ursula K. Le Guin"
	a, b := NewHashing(0).Vector(text), NewHashing(0).Vector(text)
	require.Equal(t, a, b)
	require.NotEqual(t, a, NewHashing(0).Vector(text+" 科幻"))
}

// TestHashingNormalizes checks that spellings extract.Normalize merges get
// the same vector.
func TestHashingNormalizes(t *testing.T) {
	t.Parallel()
	tests := []struct{ a, b string }{
		{"三体", "《三体》"},
		{"三体", " “三体” "},
		{"Science Fiction", "science   fiction"},
		{"ＳＣＩＥＮＣＥ", "science"},
		{"Start 自选集", "Start自选集"},
	}
	h := NewHashing(0)
	for _, tt := range tests {
		t.Run(tt.a+"|"+tt.b, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, h.Vector(tt.a), h.Vector(tt.b))
		})
	}
}

func TestHashingSimilarity(t *testing.T) {
	t.Parallel()
	tests := []struct {
		anchor, near, far string
	}{
		{"科幻小说", "科幻", "爵士乐"},
		{"科幻小说", "科幻电影", "古典音乐"},
		{"三体", "三体2：黑暗森林", "红楼梦"},
		{"刘慈欣", "刘慈欣的小说", "村上春树"},
		{"science fiction novel", "sci-fi novels", "jazz piano"},
		{"jazz piano", "jazz pianist", "science fiction"},
		{"Ursula K. Le Guin", "ursula le guin", "Isaac Asimov"},
		{"detective stories", "detective story", "cooking recipes"},
		{"東野圭吾", "東野圭吾のミステリー", "宮崎駿"},
		{"ミステリー小説", "ミステリー", "恋愛小説"},
	}
	h := NewHashing(0)
	for _, tt := range tests {
		t.Run(tt.anchor, func(t *testing.T) {
			t.Parallel()
			a := h.Vector(tt.anchor)
			near, far := Cosine(a, h.Vector(tt.near)), Cosine(a, h.Vector(tt.far))
			require.Greater(t, near, far, "near %q, far %q", tt.near, tt.far)
			require.Greater(t, near, 0.1, "near %q", tt.near)
		})
	}
}

// TestHashingSublinear checks that repeating a word does not drown the rest
// of the text. With raw counts the two cosines would be about 0.70 and 0.06.
func TestHashingSublinear(t *testing.T) {
	t.Parallel()
	h := NewHashing(0)
	repeated := h.Vector(strings.Repeat("jazz ", 20) + "piano")
	once := h.Vector("jazz piano")
	require.Greater(t, Cosine(repeated, once), 0.8)
	require.Greater(t, Cosine(repeated, h.Vector("piano")), 0.2)
}

func TestHashingEmbed(t *testing.T) {
	t.Parallel()
	h := NewHashing(64)
	texts := []string{"三体", "", "jazz", "三体"}
	got, err := h.Embed(t.Context(), texts)
	require.NoError(t, err)
	require.Len(t, got, len(texts))
	for i, text := range texts {
		require.Equal(t, h.Vector(text), got[i])
	}

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err = h.Embed(ctx, texts)
	require.ErrorIs(t, err, context.Canceled)
}

// TestHashingConcurrent embeds from many goroutines at once; the pooled
// scratch buffers must not leak between calls.
func TestHashingConcurrent(t *testing.T) {
	t.Parallel()
	h := NewHashing(0)
	texts := benchTexts
	want := make([][]float32, len(texts))
	for i, text := range texts {
		want[i] = h.Vector(text)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8*len(texts))
	for range 8 {
		wg.Go(func() {
			for i, text := range texts {
				if !equalVec(h.Vector(text), want[i]) {
					errs <- text
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for text := range errs {
		t.Errorf("concurrent vector differs for %q", text)
	}
}

func equalVec(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// benchTexts are the sort of strings the pipeline embeds: fact values,
// shelf titles and short chat turns, in Chinese and English.
var benchTexts = []string{
	"三体",
	"刘慈欣",
	"科幻小说",
	"science fiction",
	"Frank Herbert",
	"The Left Hand of Darkness",
	"jazz piano",
	"东野圭吾 白夜行",
	"最近在读刘慈欣写的《三体》，也爱看科幻片。",
	"I just finished reading Dune by Frank Herbert, and now I'm into jazz.",
	"有没有类似《银河帝国》那样的长篇科幻推荐？最好是已经完结的系列。",
	"Can you recommend something like Foundation, but with more character development and less politics?",
}

// BenchmarkHashing measures embedding one short text, the pipeline's unit of
// work, and reports texts per second.
func BenchmarkHashing(b *testing.B) {
	h := NewHashing(0)
	b.ReportAllocs()
	start := time.Now()
	n := 0
	for b.Loop() {
		h.Vector(benchTexts[n%len(benchTexts)])
		n++
	}
	b.ReportMetric(float64(n)/time.Since(start).Seconds(), "texts/s")
}

// BenchmarkHashingLong measures embedding one long turn (about 1,000
// characters, as chat histories with pasted answers hold), where counting
// the repeated features is most of the work.
func BenchmarkHashingLong(b *testing.B) {
	h := NewHashing(0)
	text := "Here are a few ideas for quick vegetarian dinners this week. Monday: a chickpea and spinach curry " +
		"with coconut milk, served over basmati rice; it takes about twenty-five minutes. Tuesday: whole-wheat " +
		"pasta with roasted cherry tomatoes, garlic, basil and a handful of toasted pine nuts. Wednesday: black " +
		"bean tacos with pickled red onion, avocado and a squeeze of lime. Thursday: a vegetable stir-fry with " +
		"tofu, broccoli, snap peas and a ginger-soy glaze over jasmine rice. Friday: homemade margherita flatbreads " +
		"using store-bought dough, fresh mozzarella and a drizzle of olive oil. Saturday: lentil soup with carrots, " +
		"celery and cumin, with crusty bread on the side. Sunday: a Mediterranean grain bowl with quinoa, cucumber, " +
		"kalamata olives, feta and a lemon-tahini dressing. Would you like a shopping list for the week, or tips on " +
		"preparing some of these ingredients ahead of time so that weeknights go even faster?"
	b.ReportAllocs()
	for b.Loop() {
		h.Vector(text)
	}
}

// The table of small counts gives what the logarithm gives, and a count
// past it is computed.
func TestTermFrequencyIsOnePlusLog(t *testing.T) {
	for n := uint32(1); n < 3*uint32(len(smallTF)); n++ {
		if got, want := termFrequency(n), 1+math.Log(float64(n)); got != want {
			t.Fatalf("termFrequency(%d) = %v, want %v", n, got, want)
		}
	}
	if termFrequency(1) != 1 {
		t.Fatal("a feature said once weighs 1")
	}
}
