package search

import (
	"math"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/store"
	"github.com/recallhq/recall/pkg/when"
)

// The ranking of a search: the scanned rows of a user's history (a
// store.SearchScan) filtered, scored by BM25 with the dialogue's share,
// listed by score and by vector distance, fused with the recency prior,
// capped per session and cut to the top k, as Find documents. It runs on
// every context with a query, so its arrays are pooled (ranker) and a
// search allocates only its hits.

// compareKey orders rows by kind, then source: the last tie-break of every
// list.
func compareKey(e, o *store.SearchRow) int {
	if c := strings.Compare(e.Kind, o.Kind); c != 0 {
		return c
	}
	return strings.Compare(e.SourceID, o.SourceID)
}

// compareTime orders turns by event time, then id: a session's order.
func compareTime(e, o *store.SearchRow) int {
	if c := e.OccurredAt.Compare(o.OccurredAt); c != 0 {
		return c
	}
	return strings.Compare(e.SourceID, o.SourceID)
}

// rankedHit is a ranked hit: the ranks and scores, the
// entry it is (an index into the scanned rows) and its neighbours (-1 for
// none; earlier and later are the turns beyond them, nearest first, when
// more than one on each side was asked for).
type rankedHit struct {
	entry          int
	prev, next     int
	earlier, later beyond
	// score is the fused score; lexRank and vecRank the places in the two
	// lists (0: not in it), lexScore and similarity what placed it there;
	// timeRank the place in the list of what happened when the message
	// says (Params.During).
	score, lexScore, similarity float64
	lexRank, vecRank, timeRank  int
	// askedRank is the place in the list of the turns that hold the kind
	// of answer the message asks for (Params.Asked).
	askedRank int
}

// BM25's parameters (see Find) and the fusion's constant.
const (
	bm25K1   = 1.2
	bm25B    = 0.75
	rrfConst = 10
	// maxPriorHalvings caps the recency prior's exponent: 2^-60 is nothing.
	maxPriorHalvings = 60
)

// ranker is what ranking a search needs besides the rows: the scores, the
// lists and the hits, in arrays kept from one search to the next (rankers
// are pooled), so that a search allocates only its hits and the collector
// has less to reclaim on every context with a query.
type ranker struct {
	wanted   []bool    // row -> the filters keep it (Params.keeps)
	lex      []float64 // BM25 score per row (bm25Scores)
	dialogue []float64 // lex with the neighbours' parts (withDialogue)
	parts    []float64 // each matching row's terms' parts, nTerms each
	partOf   []int32   // row -> offset of its parts in parts, -1 for none
	nTerms   int       // the parts of a row
	df, idf  []float64
	turns    []int
	prev     []int // row -> the turn before it in its session, -1 for none
	next     []int // row -> the turn after it
	byScore  []int
	byDist   []int
	byTime   []int // rows when the message says (Params.During)
	byAsked  []int // rows that hold what the message asks for (Params.Asked)
	found    []rankedHit
	slot     []int32
	scored   []int32 // places in found
	top      []rankedHit
	groups   map[string]int
	said     map[uint64]bool // the texts of the turns in top (sameText)
	// The sessions' scores (withSessions): each turn's session, and per
	// session its terms' frequencies (nTerms each), its length and score.
	sessionOf  []int32
	sessionTF  []float64
	sessionLen []float64
	sessionLex []float64
	sessionDF  []float64
}

var rankers = sync.Pool{New: func() any { return &ranker{groups: map[string]int{}, said: map[uint64]bool{}} }}

// rankHits ranks the rows for p and returns the hits with their texts, with
// a pooled ranker.
func rankHits(rows []store.SearchRow, p Params, nTerms int, stats *store.SearchStats) []Hit {
	rk := rankers.Get().(*ranker)
	defer rk.release()
	return searchHits(rows, rk.rank(rows, p, nTerms, stats))
}

// release hands the ranker back to its pool (one that ranked a history
// larger than a pooled row array is left to the collector); what rank
// returned is not to be read after it.
func (rk *ranker) release() {
	if cap(rk.slot) > store.MaxPooledSearchRows {
		return
	}
	clear(rk.groups)
	clear(rk.said)
	rankers.Put(rk)
}

// grow returns s resliced to n, reallocated when it is too short; what it
// holds is whatever was there before: callers set what they read.
func grow[T any](s []T, n int) []T {
	return slices.Grow(s[:0], n)[:n]
}

// descending and ascending order two scores (never NaN: the rows are
// checked when read) without cmp.Compare's care for NaN, which was a tenth
// of ranking.
func descending(a, b float64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}

func ascending(a, b float64) int { return descending(b, a) }

// rank ranks the scanned rows for p as Find documents: the filters, the
// lexical and vector lists, their fusion with the recency prior, the cap
// per session and the top k, each hit with its neighbours when asked for.
// The hits returned are the ranker's own, valid until its next use.
//
// With stats (a large user's rows, read through indexes: store.SearchStats),
// BM25's collection statistics are the whole history's rather than the
// rows', and a session's terms are weighed by the same IDFs.
func (rk *ranker) rank(rows []store.SearchRow, p Params, nTerms int, stats *store.SearchStats) []rankedHit {
	lex, prevTurn, nextTurn := rk.lexical(rows, p, nTerms, stats)
	timeWeight := rk.lists(rows, p, lex)
	askedWeight := rk.asked(rows, p, lex)
	rk.fuse(rows, p, lex, timeWeight, askedWeight)
	return rk.cut(rows, p, prevTurn, nextTurn)
}

// lexical marks the rows p's filters keep (rk.wanted) and scores them by
// BM25, with the dialogue's share and the sessions' lift; with the turns
// before and after each row when the dialogue or the neighbours need them.
func (rk *ranker) lexical(rows []store.SearchRow, p Params, nTerms int, stats *store.SearchStats) (lex []float64, prevTurn, nextTurn []int) {
	wanted := grow(rk.wanted, len(rows))
	for i := range rows {
		wanted[i] = p.keeps(&rows[i])
	}
	rk.wanted = wanted
	lex = rk.bm25Scores(rows, nTerms, p.IDFPower, p.Terms, p.TermWeights, stats)
	if p.DialogueWeight > 0 || p.Neighbors {
		prevTurn, nextTurn = rk.turnOrder(rows)
	}
	if p.DialogueWeight > 0 {
		lex = rk.withDialogue(lex, prevTurn, nextTurn, p.DialogueWeight)
	}
	if p.SessionWeight > 0 {
		rk.withSessions(rows, lex, nTerms, p.IDFPower, p.Terms, p.TermWeights, p.SessionWeight, stats != nil)
	}
	return lex, prevTurn, nextTurn
}

// lists orders the kept rows into the fusion's lists: by lexical score
// (rk.byScore), by vector distance (rk.byDist), and what happened during
// the times the message names (rk.byTime); it returns the time list's
// weight.
func (rk *ranker) lists(rows []store.SearchRow, p Params, lex []float64) (timeWeight float64) {
	wanted := rk.wanted
	byScore := rk.byScore[:0]
	for i, s := range lex {
		if s > 0 && wanted[i] {
			byScore = append(byScore, i)
		}
	}
	slices.SortFunc(byScore, func(a, b int) int {
		if c := descending(lex[a], lex[b]); c != 0 {
			return c
		}
		return compareKey(&rows[a], &rows[b])
	})
	byDistance := rk.byDist[:0]
	for i := range rows {
		if rows[i].HasDistance && wanted[i] {
			byDistance = append(byDistance, i)
		}
	}
	slices.SortFunc(byDistance, func(a, b int) int {
		if c := ascending(rows[a].Distance, rows[b].Distance); c != 0 {
			return c
		}
		return compareKey(&rows[a], &rows[b])
	})
	// What happened when the message says, the best matches first (by
	// their lexical score, then by their distance), those that match in
	// neither way last: "what gardening did I do two weeks ago?" is
	// answered by "I just planted 12 new tomato saplings today", which
	// shares no word with it.
	//
	// The list weighs by how much of the history it leaves out: "in the
	// past two months" of a history that began three weeks ago says
	// nothing about what the message needs, and its list would only count
	// the lexical one twice.
	byTime := rk.byTime[:0]
	if p.DuringWeight > 0 && len(p.During) > 0 {
		kept := 0
		for i := range rows {
			if !wanted[i] {
				continue
			}
			kept++
			if during(p.During, rows[i].OccurredAt) {
				byTime = append(byTime, i)
			}
		}
		if kept > 0 {
			timeWeight = p.DuringWeight * (1 - float64(len(byTime))/float64(kept))
		}
		if timeWeight <= 0 {
			byTime = byTime[:0]
		}
		slices.SortFunc(byTime, func(a, b int) int {
			if c := descending(lex[a], lex[b]); c != 0 {
				return c
			}
			if rows[a].HasDistance != rows[b].HasDistance {
				if rows[a].HasDistance {
					return -1
				}
				return 1
			}
			if c := ascending(rows[a].Distance, rows[b].Distance); c != 0 {
				return c
			}
			return compareKey(&rows[a], &rows[b])
		})
	}
	rk.byScore, rk.byDist, rk.byTime = byScore, byDistance, byTime
	return timeWeight
}

// asked lists the kept rows that hold the kind of answer the message asks
// for (rk.byAsked; Params.Asked): the best matches first, then the newest
// (an age said last year is older than one said last week). It returns
// the list's weight, which, as the time list's, is less the more of the
// history the list holds.
func (rk *ranker) asked(rows []store.SearchRow, p Params, lex []float64) (weight float64) {
	byAsked := rk.byAsked[:0]
	defer func() { rk.byAsked = byAsked }()
	if p.AskedWeight <= 0 || p.Asked == AskedNothing {
		return 0
	}
	kept := 0
	for i := range rows {
		if !rk.wanted[i] {
			continue
		}
		kept++
		if p.Asked.holds(&rows[i]) {
			byAsked = append(byAsked, i)
		}
	}
	if kept == 0 || len(byAsked) == 0 {
		return 0
	}
	weight = p.AskedWeight * (1 - float64(len(byAsked))/float64(kept))
	if weight <= 0 {
		byAsked = byAsked[:0]
		return 0
	}
	slices.SortFunc(byAsked, func(a, b int) int {
		if c := descending(lex[a], lex[b]); c != 0 {
			return c
		}
		if c := rows[b].OccurredAt.Compare(rows[a].OccurredAt); c != 0 {
			return c
		}
		return compareKey(&rows[a], &rows[b])
	})
	return weight
}

// fuse gives each row the lists hold its places (rk.found) and its fused
// score with the recency prior and the user's lift, and orders the live
// ones by it (rk.scored).
func (rk *ranker) fuse(rows []store.SearchRow, p Params, lex []float64, timeWeight, askedWeight float64) {
	depth := p.depth()
	byScore, byDistance, byTime, byAsked := rk.byScore, rk.byDist, rk.byTime, rk.byAsked
	// found[slot[i]-1] is row i's hit once one of the lists holds it; its
	// capacity is the most the lists can hold, so it never moves.
	found := grow(rk.found, min(4*depth, len(rows)))[:0]
	slot := grow(rk.slot, len(rows))
	clear(slot)
	rk.slot = slot
	get := func(i int) *rankedHit {
		if slot[i] == 0 {
			found = append(found, rankedHit{entry: i, prev: -1, next: -1})
			slot[i] = int32(len(found))
		}
		return &found[slot[i]-1]
	}
	// Equal scores share a rank: a place is the first place of its score.
	for place, i := range byScore[:min(depth, len(byScore))] {
		h := get(i)
		h.lexRank = place + 1
		if place > 0 && lex[i] == lex[byScore[place-1]] {
			h.lexRank = get(byScore[place-1]).lexRank
		}
		h.lexScore = lex[i]
	}
	for place, i := range byDistance[:min(depth, len(byDistance))] {
		h := get(i)
		h.vecRank = place + 1
		if place > 0 && rows[i].Distance == rows[byDistance[place-1]].Distance {
			h.vecRank = get(byDistance[place-1]).vecRank
		}
		h.similarity = 1 - rows[i].Distance
	}
	for place, i := range byTime[:min(depth, len(byTime))] {
		get(i).timeRank = place + 1
	}
	for place, i := range byAsked[:min(depth, len(byAsked))] {
		get(i).askedRank = place + 1
	}
	rk.found = found

	scored := rk.scored[:0]
	for k := range found {
		h := &found[k]
		i := h.entry
		if !rows[i].Live {
			continue
		}
		rrf := 0.0
		if h.lexRank > 0 {
			rrf += 1 / float64(rrfConst+h.lexRank)
		}
		if h.vecRank > 0 {
			rrf += p.VectorWeight / float64(rrfConst+h.vecRank)
		}
		if h.timeRank > 0 {
			rrf += timeWeight / float64(rrfConst+h.timeRank)
		}
		if h.askedRank > 0 {
			rrf += askedWeight / float64(rrfConst+h.askedRank)
		}
		age := max(p.Now.Sub(rows[i].OccurredAt).Seconds(), 0)
		h.score = rrf * (1 + p.RecencyWeight*math.Exp2(-min(age/p.RecencyHalfLife.Seconds(), maxPriorHalvings)))
		if p.UserWeight > 0 && rows[i].Role == events.RoleUser {
			h.score *= 1 + p.UserWeight
		}
		scored = append(scored, int32(k))
	}
	slices.SortFunc(scored, func(x, y int32) int {
		a, b := &found[x], &found[y]
		if c := descending(a.score, b.score); c != 0 {
			return c
		}
		ra, rb := &rows[a.entry], &rows[b.entry]
		if c := rb.OccurredAt.Compare(ra.OccurredAt); c != 0 {
			return c
		}
		return compareKey(ra, rb)
	})
	rk.scored = scored
}

// cut takes the top K of the scored hits, a session's at most
// MaxPerSession and, with Distinct, a text once, each of the first with
// its neighbours when asked for.
func (rk *ranker) cut(rows []store.SearchRow, p Params, prevTurn, nextTurn []int) []rankedHit {
	found, scored := rk.found, rk.scored
	// The cap: a session's turns and summary together, each fact alone (a
	// group of one, never over a cap). With Distinct, a turn that says
	// what a turn already taken says (sameText: "good morning", a request
	// made every day) is left out: the newest of them comes first, and the
	// room goes to what else the history holds.
	top := rk.top[:0]
	clear(rk.said)
	for _, k := range scored {
		if len(top) == p.K {
			break
		}
		h := &found[k]
		e := &rows[h.entry]
		if p.Distinct && e.Kind == store.SearchMessage {
			key := sameText(e.Text)
			if rk.said[key] {
				continue
			}
			rk.said[key] = true
		}
		if p.MaxPerSession > 0 && e.Kind != store.SearchFact {
			n := rk.groups[e.SessionID] + 1
			rk.groups[e.SessionID] = n
			if n > p.MaxPerSession {
				continue
			}
		}
		top = append(top, *h)
	}
	rk.top = top
	if p.Neighbors {
		n := len(top)
		if p.NeighborHits > 0 {
			n = min(n, p.NeighborHits)
		}
		for k := range top[:n] {
			h := &top[k]
			h.prev, h.next = prevTurn[h.entry], nextTurn[h.entry]
			h.earlier, h.later = further(prevTurn, h.prev, p.NeighborTurns-1), further(nextTurn, h.next, p.NeighborTurns-1)
		}
	}
	return top
}

// termIndex gives each distinct query term its place in searchRow.tf.
func termIndex(terms []string) map[string]int {
	index := make(map[string]int, len(terms))
	for _, t := range terms {
		if _, ok := index[t]; !ok && t != "" {
			index[t] = len(index)
		}
	}
	return index
}

// bm25Scores returns each row's BM25 score for the query's terms (0 for a
// row that holds none), with the collection statistics of all the rows; and
// keeps, for each row holding a query term, each term's part of its score
// (rk.parts at rk.partOf[row]). nTerms is the number of distinct query
// terms (the length of a row's tf), terms the query's distinct terms in
// the same order; each term's IDF is raised to power (Params.IDFPower; 0
// or 1: as it is), a number's excepted (numeric). With stats, the number of
// documents, their average length and the terms' document frequencies are
// the history's (a term's at least the rows'; one the stats do not count,
// the rows' scaled to the history).
func (rk *ranker) bm25Scores(rows []store.SearchRow, nTerms int, power float64, terms []string, weights []float64, stats *store.SearchStats) []float64 {
	scores := grow(rk.lex, len(rows))
	clear(scores)
	rk.lex, rk.nTerms = scores, nTerms
	partOf := grow(rk.partOf, len(rows))
	rk.partOf = partOf
	for i := range partOf {
		partOf[i] = -1
	}
	if nTerms == 0 || len(rows) == 0 {
		return scores
	}
	// The number of rows holding each query term.
	df := grow(rk.df, nTerms)
	clear(df)
	rk.df = df
	var total float64
	matched := 0
	for i := range rows {
		total += float64(rows[i].TermCount)
		if rows[i].TF == nil {
			continue
		}
		matched++
		for j, n := range rows[i].TF {
			if n > 0 {
				df[j]++
			}
		}
	}
	n := float64(len(rows))
	avgdl := max(total/n, 1)
	if stats != nil && stats.Entries >= n {
		scale := stats.Entries / n
		for j := range df {
			if j < len(stats.DF) && stats.DF[j] >= 0 {
				df[j] = max(df[j], stats.DF[j])
			} else {
				df[j] *= scale
			}
		}
		n, avgdl = stats.Entries, max(stats.Terms/stats.Entries, 1)
	}
	idf := grow(rk.idf, nTerms)
	rk.idf = idf
	for j := range idf {
		idf[j] = termIDF(n, df[j], power, termAt(terms, j)) * weightAt(weights, j)
	}
	slab := grow(rk.parts, matched*nTerms)
	clear(slab)
	rk.parts = slab
	at := int32(0)
	for i := range rows {
		f := rows[i].TF
		if f == nil {
			continue
		}
		norm := bm25Norm(float64(rows[i].TermCount), avgdl)
		part := slab[at : int(at)+nTerms : int(at)+nTerms]
		partOf[i] = at
		at += int32(nTerms)
		for j, c := range f {
			if c == 0 {
				continue
			}
			part[j] = bm25Part(idf[j], float64(c), norm)
			scores[i] += part[j]
		}
	}
	return scores
}

// termIDF is BM25's IDF of a term that df of n documents hold, raised to
// power (Params.IDFPower; 0 or 1: as it is) unless the term is a number
// (numeric).
func termIDF(n, df, power float64, term string) float64 {
	idf := math.Log(1 + (n-df+0.5)/(df+0.5))
	if power > 0 && power != 1 && !numeric(term) {
		idf = math.Pow(idf, power)
	}
	return idf
}

// weightAt is the weight of the j-th of the query's terms (Params.TermWeights),
// 1 past them.
func weightAt(weights []float64, j int) float64 {
	if j < len(weights) {
		return weights[j]
	}
	return 1
}

// termAt is the j-th of the query's terms, "" past them.
func termAt(terms []string, j int) string {
	if j < len(terms) {
		return terms[j]
	}
	return ""
}

// bm25Norm is BM25's length normalization of a document of length dl
// where the average is avgdl: k1 × (1 - b + b × dl / avgdl).
func bm25Norm(dl, avgdl float64) float64 { return bm25K1 * (1 - bm25B + bm25B*dl/avgdl) }

// bm25Part is a term's part of a document's BM25 score: its IDF, times its
// c occurrences saturated by the document's norm (bm25Norm).
func bm25Part(idf, c, norm float64) float64 { return idf * c * (bm25K1 + 1) / (c + norm) }

// partsOf is row i's terms' parts of its BM25 score, nil when it holds no
// query term or i is -1.
func (rk *ranker) partsOf(i int) []float64 {
	if i < 0 || rk.partOf[i] < 0 {
		return nil
	}
	at := int(rk.partOf[i])
	return rk.parts[at : at+rk.nTerms : at+rk.nTerms]
}

// beyond is the turns past a hit's neighbour on one side, nearest first:
// rows[:n], held in place (a search has dozens of hits, each with two).
type beyond struct {
	rows [MaxNeighborTurns - 1]int32
	n    int
}

func (b *beyond) list() []int32 { return b.rows[:b.n] }

// further follows order from the row from, up to n rows (at most
// MaxNeighborTurns-1), nearest first.
func further(order []int, from, n int) beyond {
	var out beyond
	for j := from; j >= 0 && out.n < min(n, len(out.rows)); {
		if j = order[j]; j >= 0 {
			out.rows[out.n] = int32(j)
			out.n++
		}
	}
	return out
}

// turnOrder returns, for each row, the row of the turn just before it and
// just after it in its session (event time, then id; system turns left out),
// -1 for none and for rows that are not turns. The dialogue scoring and the
// neighbours of the hits both read it.
func (rk *ranker) turnOrder(rows []store.SearchRow) (prev, next []int) {
	turns := rk.turns[:0]
	for i := range rows {
		if rows[i].Kind == store.SearchMessage && rows[i].Role != events.RoleSystem {
			turns = append(turns, i)
		}
	}
	slices.SortFunc(turns, func(a, b int) int {
		if c := strings.Compare(rows[a].SessionID, rows[b].SessionID); c != 0 {
			return c
		}
		return compareTime(&rows[a], &rows[b])
	})
	rk.turns = turns
	prev, next = grow(rk.prev, len(rows)), grow(rk.next, len(rows))
	rk.prev, rk.next = prev, next
	for i := range rows {
		prev[i], next[i] = -1, -1
	}
	for k := 1; k < len(turns); k++ {
		a, b := turns[k-1], turns[k]
		if rows[a].SessionID == rows[b].SessionID {
			next[a], prev[b] = b, a
		}
	}
	return prev, next
}

// withDialogue returns the lexical scores with each turn read with its
// neighbours in its session (the turns just before and after it in event
// time): a query term the turn lacks counts at weight × its part in the
// neighbour that holds it best. A turn is read with the turn it answers and
// the one that answers it: "I ran a charity race last Saturday" holds
// "charity" and "race", the reply "that charity race sounds great, Mel" the
// name the question asks about, and each is found better with the other. A
// term the turn holds itself counts as its own, however often the
// neighbours repeat it, so that a run of turns repeating a name does not
// outrank the turn that answers all of the question.
//
// Measured by make eval-context and the KdConv topic questions of
// TestSearchKdConvTopics (docs/benchmarks.md, History): the neighbours'
// whole scores added had the turns around a name said again and again
// outrank the conversation about it; the missing terms only, at half
// their score (DefaultDialogueWeight), gain on LoCoMo and lose little on
// KdConv. Summaries and facts keep their own scores.
func (rk *ranker) withDialogue(lex []float64, prevTurn, nextTurn []int, weight float64) []float64 {
	out := grow(rk.dialogue, len(lex))
	copy(out, lex)
	rk.dialogue = out
	for i := range lex {
		prev, next := rk.partsOf(prevTurn[i]), rk.partsOf(nextTurn[i])
		if prev == nil && next == nil {
			continue
		}
		own := rk.partsOf(i)
		for j := range max(len(prev), len(next)) {
			if own != nil && own[j] > 0 {
				continue
			}
			var borrowed float64
			if prev != nil {
				borrowed = prev[j]
			}
			if next != nil {
				borrowed = max(borrowed, next[j])
			}
			out[i] += weight * borrowed
		}
	}
	return out
}

// numeric reports whether a query term is a number ("9", "2022"): rare in a
// history, so its IDF is high already, but a match is as often a
// coincidence (another day's "9", another year) as what the message means,
// and a date in a question is more often the turn's date than its words;
// its IDF is not raised (Params.IDFPower).
func numeric(t string) bool {
	for _, r := range t {
		if r < '0' || r > '9' {
			return false
		}
	}
	return t != ""
}

// withSessions adds to each matching turn's lexical score its session's:
// BM25 over the sessions, each session's turns read as one document (their
// terms' frequencies and lengths summed), scaled so that the best session
// adds weight × the best turn's score. A question's words are often spread
// over the turns of the conversation that answers it ("what activities does
// Melanie partake in?": the activity in one turn, the name and the asking
// in the turns around it, the kind of thing elsewhere in that talk): a turn
// of a conversation that holds them all is more likely the answer than one
// of the same words alone in a conversation about something else. Only
// turns that hold a query term themselves, or borrow one from a neighbour
// (withDialogue), are lifted, so a session cannot bring turns that say
// nothing of the query. Summaries and facts keep their own scores.
//
// With rowIDF (the rows are a large user's sessions read through indexes,
// not every session) a term is weighed by its IDF over the history's
// entries (bm25Scores): the sessions read are those that hold the
// message's rare terms, and counted among them the rare terms would weigh
// least.
func (rk *ranker) withSessions(rows []store.SearchRow, lex []float64, nTerms int, power float64, terms []string, weights []float64, weight float64, rowIDF bool) {
	if nTerms == 0 || len(rows) == 0 {
		return
	}
	clear(rk.groups)
	sessionOf := grow(rk.sessionOf, len(rows))
	rk.sessionOf = sessionOf
	for i := range rows {
		sessionOf[i] = -1
		if rows[i].Kind != store.SearchMessage || rows[i].Role == events.RoleSystem {
			continue
		}
		k, ok := rk.groups[rows[i].SessionID]
		if !ok {
			k = len(rk.groups)
			rk.groups[rows[i].SessionID] = k
		}
		sessionOf[i] = int32(k)
	}
	n := len(rk.groups)
	clear(rk.groups)
	if n == 0 {
		return
	}
	tf := grow(rk.sessionTF, n*nTerms)
	clear(tf)
	length := grow(rk.sessionLen, n)
	clear(length)
	score := grow(rk.sessionLex, n)
	clear(score)
	df := grow(rk.sessionDF, nTerms)
	clear(df)
	rk.sessionTF, rk.sessionLen, rk.sessionLex, rk.sessionDF = tf, length, score, df
	var total float64
	for i := range rows {
		k := sessionOf[i]
		if k < 0 {
			continue
		}
		length[k] += float64(rows[i].TermCount)
		total += float64(rows[i].TermCount)
		for j, c := range rows[i].TF {
			tf[int(k)*nTerms+j] += float64(c)
		}
	}
	for k := range n {
		for j := range nTerms {
			if tf[k*nTerms+j] > 0 {
				df[j]++
			}
		}
	}
	// The sessions' IDFs, in place of their document frequencies.
	idf := df
	for j := range idf {
		if rowIDF {
			idf[j] = rk.idf[j]
			continue
		}
		idf[j] = termIDF(float64(n), df[j], power, termAt(terms, j)) * weightAt(weights, j)
	}
	avg := max(total/float64(n), 1)
	best := 0.0
	for k := range n {
		norm := bm25Norm(length[k], avg)
		for j := range nTerms {
			if c := tf[k*nTerms+j]; c > 0 {
				score[k] += bm25Part(idf[j], c, norm)
			}
		}
		best = max(best, score[k])
	}
	top := 0.0
	for i, s := range lex {
		if sessionOf[i] >= 0 {
			top = max(top, s)
		}
	}
	if best <= 0 || top <= 0 {
		return
	}
	scale := weight * top / best
	for i, s := range lex {
		if k := sessionOf[i]; k >= 0 && s > 0 {
			lex[i] += scale * score[k]
		}
	}
}

// during reports whether t falls in one of spans.
func during(spans []when.Span, t time.Time) bool {
	for _, s := range spans {
		if s.Contains(t) {
			return true
		}
	}
	return false
}

// sameText is a turn's text as two turns that say the same thing share it:
// a hash (FNV-1a) of its letters and digits, lower-cased, whatever the
// spaces, punctuation and case between them ("Good morning!" and "good
// morning"); of the whole text when it has none ("👍").
//
// A context hashes every turn its cut passes over (a thousand characters
// each, often), so an ASCII byte is read as itself: a letter or digit is
// its own lower case, one byte long, as unicode would make it.
func sameText(text string) uint64 {
	const offset, prime = 14695981039346656037, 1099511628211
	h, any := uint64(offset), false
	var buf [utf8.UTFMax]byte
	for i := 0; i < len(text); {
		if c := text[i]; c < utf8.RuneSelf {
			i++
			switch {
			case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
			case 'A' <= c && c <= 'Z':
				c += 'a' - 'A'
			default:
				continue
			}
			any = true
			h = (h ^ uint64(c)) * prime
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			continue
		}
		any = true
		for _, b := range buf[:utf8.EncodeRune(buf[:], unicode.ToLower(r))] {
			h = (h ^ uint64(b)) * prime
		}
	}
	if !any {
		for i := 0; i < len(text); i++ {
			h = (h ^ uint64(text[i])) * prime
		}
	}
	return h
}
