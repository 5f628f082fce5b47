package search

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/store"
)

// A long message's rare word tells the turn it needs better than several
// of its common words do: at IDFPower 2 the turn holding the rare term
// outranks the one holding four common ones, which plain BM25 prefers.
func TestIDFPowerFavoursTheRareTerms(t *testing.T) {
	// Query terms: one rare (in 2 of 100 turns), four common (in 30 each).
	rows := make([]store.SearchRow, 100)
	for i := range rows {
		rows[i] = store.SearchRow{TermCount: 20, Live: true}
	}
	rare := []int32{1, 0, 0, 0, 0}
	common := []int32{0, 1, 1, 1, 1}
	rows[0].TF = rare
	rows[1].TF = []int32{1, 0, 0, 0, 0}
	rows[2].TF = common
	for i := 3; i < 32; i++ {
		rows[i].TF = []int32{0, 1, 1, 1, 1}
	}
	rk := &ranker{}
	plain := append([]float64(nil), rk.bm25Scores(rows, 5, 0, nil, nil, nil)...)
	require.Greater(t, plain[2], plain[0], "plain BM25: the common words win")
	require.Equal(t, plain, rk.bm25Scores(rows, 5, 1, nil, nil, nil), "power 1 is BM25 as it is")
	squared := rk.bm25Scores(rows, 5, 2, nil, nil, nil)
	require.Greater(t, squared[0], squared[2], "IDF squared: the rare word wins")

	// A number's IDF stays as it is: the same rows, the rare term a number.
	terms := []string{"2022", "b", "c", "d", "e"}
	numbers := rk.bm25Scores(rows, 5, 2, terms, nil, nil)
	require.InDelta(t, plain[0], numbers[0], 1e-12, "the number weighs as in BM25")
	require.InDelta(t, squared[2], numbers[2], 1e-12, "the words are squared")
	require.True(t, numeric("2022"))
	require.False(t, numeric("9am"))
	require.False(t, numeric(""))

	// A term's weight scales its part (Params.TermWeights), the rest as
	// they were; weights past the terms' count as 1.
	weighted := rk.bm25Scores(rows, 5, 0, nil, []float64{0.5}, nil)
	require.InDelta(t, plain[0]/2, weighted[0], 1e-12)
	require.InDelta(t, plain[2], weighted[2], 1e-12)
}
