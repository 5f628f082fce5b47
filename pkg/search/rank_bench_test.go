package search

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/store"
)

// BenchmarkRankSearch ranks a history of 100 turns in 10 sessions as a
// context with a query does (60 hits, 8 per session, neighbours for the
// first ones, sessions lifting their turns): a sixth of them hold a query term, all are embedded. The
// filters are part of the ranking (they keep every row here).
func BenchmarkRankSearch(b *testing.B) {
	rows := benchRows(100, 10, 4)
	p := Params{UserID: "u", K: 60, MaxPerSession: 8, Neighbors: true, NeighborTurns: 2, NeighborHits: 38,
		VectorWeight: 0.25, SessionWeight: 0.4, Now: time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)}.WithDefaults()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		hits := rankHits(rows, p, 4, nil)
		if len(hits) != 60 {
			b.Fatalf("%d hits", len(hits))
		}
	}
}

// benchRows is n turns in sessions of perSession, each sixth holding some
// of nTerms query terms, every one embedded.
func benchRows(n, perSession, nTerms int) []store.SearchRow {
	r := rand.New(rand.NewPCG(7, 7))
	start := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	rows := make([]store.SearchRow, n)
	for i := range rows {
		role := events.RoleUser
		if i%2 == 1 {
			role = events.RoleAssistant
		}
		rows[i] = store.SearchRow{Kind: store.SearchMessage, SourceID: fmt.Sprintf("e%d", i), SessionID: fmt.Sprintf("s-%d", i/perSession),
			Role: role, Text: strings.Repeat("word ", 30), OccurredAt: start.Add(time.Duration(i) * 24 * time.Hour),
			TermCount: int32(10 + r.IntN(30)), Live: true, Distance: 0.4 + 0.6*r.Float64(), HasDistance: true}
		if i%6 == 0 {
			rows[i].TF = make([]int32, nTerms)
			for j := range rows[i].TF {
				if r.IntN(2) == 0 {
					rows[i].TF[j] = int32(1 + r.IntN(2))
				}
			}
		}
	}
	return rows
}
