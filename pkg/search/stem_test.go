package search

import (
	"fmt"
	"hash/maphash"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/kljensen/snowball/english"
	"github.com/stretchr/testify/require"
)

// A cached stem is the stemmer's, the first time and every time after.
func TestStemIsTheStemmers(t *testing.T) {
	words := strings.Fields("running libraries reading novels caroline's friends people generously " +
		"photographs photography painted paintings sunsets adoption counseling volunteering a be is")
	for range 2 {
		for _, w := range words {
			require.Equal(t, english.Stem(w, true), stem(w), w)
		}
	}
}

// The cache keeps its own copy of a word, never a slice of the text the word
// was cut from, so a cached word does not hold a whole message in memory.
func TestStemCacheKeepsNoText(t *testing.T) {
	text := strings.Repeat("x", 64) + " unforgettableness " + strings.Repeat("y", 64)
	start := strings.Index(text, "unforgettableness")
	w := text[start : start+len("unforgettableness")]
	stem(w)
	lo := uintptr(unsafe.Pointer(unsafe.StringData(text)))
	hi := lo + uintptr(len(text))
	slot := stems[maphash.String(stemSeed, w)&(stemCacheWords-1)].Load()
	require.NotNil(t, slot, "the word is cached")
	require.Equal(t, w, slot.word, "the word is cached")
	for _, k := range []string{slot.word, slot.stem} {
		p := uintptr(unsafe.Pointer(unsafe.StringData(k)))
		require.False(t, p >= lo && p < hi, "the cache points into the text")
	}
}

// The cache is bounded: it has its slots and no more, and a word whose slot
// another took is stemmed again, to the same stem.
func TestStemCacheIsBounded(t *testing.T) {
	for i := range stemCacheWords + 1000 {
		stem(fmt.Sprintf("word%dings", i))
	}
	require.Equal(t, stemCacheWords, len(stems))
	for i := range stemCacheWords + 1000 {
		w := fmt.Sprintf("word%dings", i)
		require.Equal(t, english.Stem(w, true), stem(w))
	}
}

// Many goroutines stemming the same and different words at once all get
// the stemmer's stems (go test -race reads the slots' loads and stores).
func TestStemConcurrently(t *testing.T) {
	words := strings.Fields("running libraries reading novels friends people generously photographs painted sunsets")
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 2000 {
				w := words[(g+i)%len(words)]
				if i%3 == 0 {
					w = fmt.Sprintf("%s%d", w, i%50)
				}
				if got, want := stem(w), english.Stem(w, true); got != want {
					t.Errorf("stem(%q) = %q, want %q", w, got, want)
					return
				}
			}
		})
	}
	wg.Wait()
}

// BenchmarkTermsParallel is the analysis of English turns from every core
// at once, as the indexer, the summarizer and the API run it: the stem
// cache is read by all of them.
func BenchmarkTermsParallel(b *testing.B) {
	turns := []string{
		"I just finished watching the latest season of Stranger Things on Netflix and I'm already craving more sci-fi shows.",
		"We went camping at Yosemite last weekend; the kids loved the waterfalls and the night sky was amazing.",
		"Can you recommend some recipes for a dinner party? I'm thinking of roasted vegetables and a lemon tart.",
		"My daughter started piano lessons in March and she practices every evening after school.",
		"The conference in Berlin was exhausting, but I met a few researchers working on retrieval and summaries.",
	}
	a := SharedAnalyzer()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		var buf []string
		i := 0
		for pb.Next() {
			buf = a.Terms(turns[i%len(turns)], buf[:0])
			i++
		}
	})
}
