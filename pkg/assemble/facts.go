package assemble

import (
	"sort"
	"time"

	"github.com/recallhq/recall/pkg/decay"
	"github.com/recallhq/recall/pkg/record"
)

// WeightedFact is a fact as the context shows it: with its weight now.
type WeightedFact struct {
	Type            string
	Value           string
	Display         string
	Weight          float64
	MentionCount    int64
	LastMentionedAt time.Time
}

// Facts is the interest part of the context.
type Facts struct {
	Facts []WeightedFact
	Cuts  []Cut
}

// TopFacts ranks active facts by their weight at time at under the policy
// (decay.Policy.Assess, the one formula), drops those expired or archived by
// then (whether or not the decayer has marked them yet), and keeps the k
// strongest (all with k < 0).
func TopFacts(p *decay.Policy, facts []record.Fact, at time.Time, k int) Facts {
	var out Facts
	var expired, faded int64
	for _, f := range facts {
		w, status := p.Assess(f.Type, f.Weight, f.LastMentionedAt, f.ExpiresAt, at)
		switch status {
		case decay.Expired:
			expired++
			continue
		case decay.Archived:
			faded++
			continue
		}
		out.Facts = append(out.Facts, WeightedFact{Type: f.Type, Value: f.Value, Display: f.Display, Weight: w,
			MentionCount: f.MentionCount, LastMentionedAt: f.LastMentionedAt})
	}
	sort.SliceStable(out.Facts, func(i, j int) bool {
		a, b := out.Facts[i], out.Facts[j]
		if a.Weight != b.Weight {
			return a.Weight > b.Weight
		}
		if a.MentionCount != b.MentionCount {
			return a.MentionCount > b.MentionCount
		}
		return a.LastMentionedAt.After(b.LastMentionedAt)
	})
	if k >= 0 && len(out.Facts) > k {
		out.Cuts = appendCut(out.Cuts, "count", int64(len(out.Facts)-k))
		out.Facts = out.Facts[:k]
	}
	out.Cuts = appendCut(out.Cuts, "expired", expired)
	out.Cuts = appendCut(out.Cuts, "decayed", faded)
	if out.Facts == nil {
		out.Facts = []WeightedFact{}
	}
	return out
}
