package search

import (
	"fmt"
	"strings"
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
	found := false
	for _, k := range stems.Keys() {
		if k == w {
			found = true
			p := uintptr(unsafe.Pointer(unsafe.StringData(k)))
			require.False(t, p >= lo && p < hi, "the cached word points into the text")
		}
	}
	require.True(t, found, "the word is cached")
}

// The cache is bounded: past its size the least recently used words go.
func TestStemCacheIsBounded(t *testing.T) {
	for i := range stemCacheWords + 1000 {
		stem(fmt.Sprintf("word%dings", i))
	}
	require.Equal(t, stemCacheWords, stems.Len())
	require.Equal(t, english.Stem("word1ings", true), stem("word1ings"))
}
