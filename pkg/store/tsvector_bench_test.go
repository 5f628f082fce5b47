package store_test

import (
	"encoding/binary"
	"slices"
	"strings"
	"testing"

	"github.com/recallhq/recall/pkg/search"
	"github.com/recallhq/recall/pkg/store"
)

// tsvectorSend encodes lexemes (each at positions 1..n) as tsvectorsend
// does.
func tsvectorSend(lexemes []string, positions int) []byte {
	slices.Sort(lexemes)
	b := binary.BigEndian.AppendUint32(nil, uint32(len(lexemes)))
	for _, l := range lexemes {
		b = append(append(b, l...), 0)
		b = binary.BigEndian.AppendUint16(b, uint16(positions))
		for p := range positions {
			b = binary.BigEndian.AppendUint16(b, uint16(p+1))
		}
	}
	return b
}

// BenchmarkTSVectorFrequencies reads a query's six terms from the lexemes
// of a long answer, one of them present: what a search does for every
// entry of the user's history.
func BenchmarkTSVectorFrequencies(b *testing.B) {
	// An assistant's answer of LongMemEval's kind, as the analyzer stems it.
	text := strings.Repeat("Here are some tips for planning a weekend trip to the mountains with your family: "+
		"check the weather forecast, pack layers and rain gear, bring enough water and snacks for the kids, "+
		"choose trails that match everyone's fitness, and leave a note of your route with someone at home. ", 2) +
		"Many national parks offer ranger programs, guided walks and campfire talks that children enjoy; " +
		"booking a cabin early helps, since popular sites fill up months ahead during the summer season."
	terms := search.SharedAnalyzer().Terms(text, nil)
	lexemes := slices.Compact(slices.Sorted(slices.Values(terms)))
	row := tsvectorSend(lexemes, 1)
	index := map[string]int{"hour": 0, "spent": 1, "play": 2, "game": 3, "total": 4, lexemes[len(lexemes)/2]: 5}
	tf := make([]int32, len(index))
	read := store.TSVectorReader(index)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := read(row, tf); err != nil {
			b.Fatal(err)
		}
	}
}
