package main

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/recallhq/recall/internal/eval/datasets"
)

// padSession is a session of the data set that holds no evidence for any
// question: what a padded history is filled with.
type padSession struct {
	source string // the data's session id
	turns  []datasets.Turn
	// span is how long its turns last, first to last.
	span time.Duration
}

// padPool is every session of the data set that is an answer session of no
// question and holds no evidence turn of any, once each (a session recurs
// in several histories), in the data's order.
func padPool(all []datasets.LongMemEvalInstance) []padSession {
	answer := map[string]bool{} // data session ids that hold evidence anywhere
	for _, in := range all {
		source := map[string]string{}
		for _, s := range in.Sessions {
			source[s.ID] = s.Source
		}
		for _, ids := range in.Question.AnswerSessions {
			for _, id := range ids {
				answer[source[id]] = true
			}
		}
		evidence := map[string]bool{}
		for _, id := range in.Question.Evidence {
			evidence[id] = true
		}
		for _, t := range in.Turns {
			if evidence[t.ID] {
				answer[source[t.SessionID]] = true
			}
		}
	}
	var pool []padSession
	seen := map[string]bool{}
	for _, in := range all {
		bySession := map[string][]datasets.Turn{}
		for _, t := range in.Turns {
			bySession[t.SessionID] = append(bySession[t.SessionID], t)
		}
		for _, s := range in.Sessions {
			if s.Source == "" || answer[s.Source] || seen[s.Source] || len(bySession[s.ID]) == 0 {
				continue
			}
			seen[s.Source] = true
			turns := bySession[s.ID]
			pool = append(pool, padSession{source: s.Source, turns: turns, span: turns[len(turns)-1].OccurredAt.Sub(turns[0].OccurredAt)})
		}
	}
	return pool
}

// minPadSpan is the least time a padded history spreads over, maxPadSpan
// the most (a life's worth of chats).
const (
	minPadSpan = 30 * 24 * time.Hour
	maxPadSpan = 50 * 365 * 24 * time.Hour
)

// padSpan is how long a history of n sessions spreads over when its own k
// sessions took own (at least minPadSpan): as dense as its own, at most
// maxPadSpan. Computed in floating point: own times n overflows a Duration
// past about 290 years, which a history of seven months padded to 500
// sessions from 45 already reaches.
func padSpan(own time.Duration, k, n int) time.Duration {
	span := float64(max(own, minPadSpan)) * float64(n) / float64(k)
	return time.Duration(min(span, float64(maxPadSpan)))
}

// pad fills each instance's history up to n sessions with sessions of the
// pool its history does not hold, drawn by seed and the question's id (the
// same seed, the same histories), each dated at random before the question:
// over the instance's own span (its first session to the question),
// stretched back so that the padded history is as dense as the instance's
// own, its turns as far apart as in the data. The padded sessions and
// turns get ids of their own under the instance's user
// (<user>-p<k>-<data session id>). A history of n sessions or more is left
// as it is; so is every instance when n is 0.
func pad(insts []datasets.LongMemEvalInstance, pool []padSession, n int, seed uint64) ([]datasets.LongMemEvalInstance, error) {
	if n <= 0 {
		return insts, nil
	}
	out := make([]datasets.LongMemEvalInstance, len(insts))
	for i, in := range insts {
		out[i] = in
		k := len(in.Sessions)
		if k >= n || len(in.Turns) == 0 {
			continue
		}
		have := map[string]bool{}
		for _, s := range in.Sessions {
			have[s.Source] = true
		}
		h := fnv.New64a()
		h.Write([]byte(in.Question.ID))
		rng := rand.New(rand.NewPCG(seed, h.Sum64()))
		asked := askedAt(in)
		span := padSpan(asked.Sub(in.Turns[0].OccurredAt), k, n)
		from := asked.Add(-span)
		sessions := slices.Clone(in.Sessions)
		turns := slices.Clone(in.Turns)
		added := 0
		for _, p := range rng.Perm(len(pool)) {
			if k+added >= n {
				break
			}
			ps := pool[p]
			if have[ps.source] {
				continue
			}
			// Its last turn an hour before the question at the latest.
			room := span - ps.span - time.Hour
			if room <= 0 {
				continue
			}
			start := from.Add(time.Duration(rng.Int64N(int64(room))))
			sid := fmt.Sprintf("%s-p%d-%s", in.SampleID, added, ps.source)
			sessions = append(sessions, datasets.Session{ID: sid, Turns: len(ps.turns), Source: ps.source})
			for j, t := range ps.turns {
				t.ID, t.SessionID = fmt.Sprintf("%s-%d", sid, j), sid
				t.OccurredAt = start.Add(t.OccurredAt.Sub(ps.turns[0].OccurredAt))
				turns = append(turns, t)
			}
			added++
		}
		if k+added < n {
			return nil, fmt.Errorf("question %s: the data holds %d sessions to pad its %d with, %d wanted", in.Question.ID, added, k, n-k)
		}
		slices.SortStableFunc(turns, func(a, b datasets.Turn) int { return a.OccurredAt.Compare(b.OccurredAt) })
		out[i].Sessions, out[i].Turns = sessions, turns
	}
	return out, nil
}
