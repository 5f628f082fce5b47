package search

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/segment"
)

// The analyzer asks for the segmenter only when a text has Han characters:
// a process that never meets Chinese never loads the dictionary.
func TestAnalyzerLoadsTheSegmenterForChineseOnly(t *testing.T) {
	t.Parallel()
	loads := 0
	a := &Analyzer{seg: func() (*segment.Segmenter, error) {
		loads++
		return segment.Shared()
	}}
	require.Equal(t, []string{"camp", "lake", "2023-05-08", "2023", "05", "08"}, a.QueryTerms("Camping by the lake on 2023-05-08?"))
	require.Zero(t, loads, "English and numbers need no dictionary")
	require.Contains(t, a.QueryTerms("科幻小说"), "科幻")
	require.Equal(t, 1, loads)
}

// Should the dictionary fail to load, Han runs become character bigrams (a
// single character stays itself): coarser terms, nothing dropped.
func TestAnalyzerWithoutTheDictionary(t *testing.T) {
	t.Parallel()
	a := &Analyzer{seg: func() (*segment.Segmenter, error) { return nil, errors.New("no dictionary") }}
	require.Equal(t, []string{"科幻", "幻小", "小说", "书", "book"}, a.QueryTerms("科幻小说 书 book"))
}
