package store

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/recallhq/recall/pkg/events"
)

// searchRow is one of the user's entries as SearchScan returns it.
type searchRow struct {
	kind, sourceID, sessionID, role string
	at                              time.Time
	termCount                       int32
	// wanted: the filters keep it; live: not an inactive fact.
	wanted, live bool
	// terms is the entry's tsvector as text when it holds a query term.
	terms *string
	// distance is the cosine distance to the query vector, when the entry
	// is embedded by the query's model.
	distance *float64
}

func scanSearchRow(r pgx.CollectableRow) (searchRow, error) {
	var e searchRow
	err := r.Scan(&e.kind, &e.sourceID, &e.sessionID, &e.role, &e.at, &e.termCount,
		&e.wanted, &e.terms, &e.distance, &e.live)
	e.at = e.at.UTC()
	return e, err
}

// rankedHit is a hit before its text is read: the ranks and scores, the
// entry it is (an index into the scanned rows) and its neighbours (-1 for
// none).
type rankedHit struct {
	hit              SearchHit
	entry            int
	prev, next       int
	lexical, vector  bool
	lexRank, vecRank int
}

// BM25's parameters (see Tenant.Search) and the fusion's constant.
const (
	bm25K1   = 1.2
	bm25B    = 0.75
	rrfConst = 10
	// maxPriorHalvings caps the recency prior's exponent: 2^-60 is nothing.
	maxPriorHalvings = 60
)

// rankSearch ranks the scanned rows for p as Tenant.Search documents: the
// lexical and vector lists, their fusion with the recency prior, the cap
// per session and the top k, each hit with its neighbours when asked for.
func rankSearch(rows []searchRow, p SearchParams) []rankedHit {
	depth := p.depth()
	lex := bm25Scores(rows, p.Terms)

	byScore := make([]int, 0, len(lex))
	for i, s := range lex {
		if s > 0 && rows[i].wanted {
			byScore = append(byScore, i)
		}
	}
	slices.SortFunc(byScore, func(a, b int) int {
		return cmp.Or(cmp.Compare(lex[b], lex[a]), cmp.Compare(rows[a].kind, rows[b].kind), cmp.Compare(rows[a].sourceID, rows[b].sourceID))
	})
	byDistance := make([]int, 0, len(rows))
	for i := range rows {
		if rows[i].distance != nil && rows[i].wanted {
			byDistance = append(byDistance, i)
		}
	}
	slices.SortFunc(byDistance, func(a, b int) int {
		return cmp.Or(cmp.Compare(*rows[a].distance, *rows[b].distance), cmp.Compare(rows[a].kind, rows[b].kind), cmp.Compare(rows[a].sourceID, rows[b].sourceID))
	})

	found := map[int]*rankedHit{}
	get := func(i int) *rankedHit {
		h, ok := found[i]
		if !ok {
			h = &rankedHit{entry: i, prev: -1, next: -1}
			found[i] = h
		}
		return h
	}
	// Equal scores share a rank: a place is the first place of its score.
	for place, i := range byScore[:min(depth, len(byScore))] {
		h := get(i)
		h.lexical, h.lexRank = true, place+1
		if place > 0 && lex[i] == lex[byScore[place-1]] {
			h.lexRank = get(byScore[place-1]).lexRank
		}
		h.hit.LexicalScore = lex[i]
	}
	for place, i := range byDistance[:min(depth, len(byDistance))] {
		h := get(i)
		h.vector, h.vecRank = true, place+1
		if place > 0 && *rows[i].distance == *rows[byDistance[place-1]].distance {
			h.vecRank = get(byDistance[place-1]).vecRank
		}
		h.hit.Similarity = 1 - *rows[i].distance
	}

	scored := make([]*rankedHit, 0, len(found))
	for i, h := range found {
		if !rows[i].live {
			continue
		}
		rrf := 0.0
		if h.lexical {
			rrf += 1 / float64(rrfConst+h.lexRank)
			h.hit.LexicalRank = h.lexRank
		}
		if h.vector {
			rrf += p.VectorWeight / float64(rrfConst+h.vecRank)
			h.hit.VectorRank = h.vecRank
		}
		age := max(p.Now.Sub(rows[i].at).Seconds(), 0)
		h.hit.Score = rrf * (1 + p.RecencyWeight*math.Exp2(-min(age/p.RecencyHalfLife.Seconds(), maxPriorHalvings)))
		scored = append(scored, h)
	}
	slices.SortFunc(scored, func(a, b *rankedHit) int {
		ra, rb := &rows[a.entry], &rows[b.entry]
		return cmp.Or(cmp.Compare(b.hit.Score, a.hit.Score), rb.at.Compare(ra.at), cmp.Compare(ra.kind, rb.kind), cmp.Compare(ra.sourceID, rb.sourceID))
	})

	// The cap: a session's turns and summary together, each fact alone.
	perGroup := map[string]int{}
	top := make([]rankedHit, 0, p.K)
	for _, h := range scored {
		if len(top) == p.K {
			break
		}
		e := &rows[h.entry]
		group := "s" + e.sessionID
		if e.kind == SearchFact {
			group = "f" + e.sourceID
		}
		perGroup[group]++
		if p.MaxPerSession > 0 && perGroup[group] > p.MaxPerSession {
			continue
		}
		top = append(top, *h)
	}
	if p.Neighbors {
		setNeighbors(rows, top)
	}
	return top
}

// bm25Scores returns each row's BM25 score for the query's terms (0 for a
// row that holds none), with the collection statistics of all the rows.
func bm25Scores(rows []searchRow, terms []string) []float64 {
	scores := make([]float64, len(rows))
	index := make(map[string]int, len(terms))
	for _, t := range terms {
		if _, ok := index[t]; !ok && t != "" {
			index[t] = len(index)
		}
	}
	if len(index) == 0 || len(rows) == 0 {
		return scores
	}
	// The frequency of each query term in each matching row, and the
	// number of rows holding each.
	tf := map[int][]int{}
	df := make([]float64, len(index))
	var total float64
	for i := range rows {
		total += float64(rows[i].termCount)
		if rows[i].terms == nil {
			continue
		}
		f := make([]int, len(index))
		lexemeFrequencies(*rows[i].terms, index, f)
		for j, n := range f {
			if n > 0 {
				df[j]++
			}
		}
		tf[i] = f
	}
	n := float64(len(rows))
	avgdl := max(total/n, 1)
	for i, f := range tf {
		norm := bm25K1 * (1 - bm25B + bm25B*float64(rows[i].termCount)/avgdl)
		for j, c := range f {
			if c == 0 {
				continue
			}
			idf := math.Log(1 + (n-df[j]+0.5)/(df[j]+0.5))
			scores[i] += idf * float64(c) * (bm25K1 + 1) / (float64(c) + norm)
		}
	}
	return scores
}

// lexemeFrequencies reads the text form of a tsvector ('a':1,3 'b':2, as
// PostgreSQL writes it: quotes doubled, backslashes escaped, a weight letter
// after a position) and sets tf[index[lexeme]] to the number of positions of
// each lexeme that index holds.
func lexemeFrequencies(tsv string, index map[string]int, tf []int) {
	var lexeme strings.Builder
	for i := 0; i < len(tsv); {
		if tsv[i] != '\'' {
			i++
			continue
		}
		lexeme.Reset()
		for i++; i < len(tsv); i++ {
			c := tsv[i]
			if c == '\\' && i+1 < len(tsv) {
				i++
				lexeme.WriteByte(tsv[i])
				continue
			}
			if c == '\'' {
				if i+1 < len(tsv) && tsv[i+1] == '\'' {
					lexeme.WriteByte('\'')
					i++
					continue
				}
				i++
				break
			}
			lexeme.WriteByte(c)
		}
		count := 0
		if i < len(tsv) && tsv[i] == ':' {
			count = 1
			for i++; i < len(tsv) && tsv[i] != ' '; i++ {
				if tsv[i] == ',' {
					count++
				}
			}
		}
		if j, ok := index[lexeme.String()]; ok {
			// A lexeme stored without positions still occurs once.
			tf[j] = max(count, 1)
		}
	}
}

// setNeighbors sets each turn hit's neighbours: the session's turns just
// before and after it in event time (system turns left out), whatever the
// filters, among the scanned rows.
func setNeighbors(rows []searchRow, hits []rankedHit) {
	sessions := map[string][]int{}
	for _, h := range hits {
		if e := &rows[h.entry]; e.kind == SearchMessage {
			sessions[e.sessionID] = nil
		}
	}
	if len(sessions) == 0 {
		return
	}
	for i := range rows {
		e := &rows[i]
		if turns, ok := sessions[e.sessionID]; ok && e.kind == SearchMessage && e.role != events.RoleSystem {
			sessions[e.sessionID] = append(turns, i)
		}
	}
	for s, turns := range sessions {
		slices.SortFunc(turns, func(a, b int) int {
			return cmp.Or(rows[a].at.Compare(rows[b].at), cmp.Compare(rows[a].sourceID, rows[b].sourceID))
		})
		sessions[s] = turns
	}
	for k := range hits {
		e := &rows[hits[k].entry]
		if e.kind != SearchMessage {
			continue
		}
		turns := sessions[e.sessionID]
		at := slices.Index(turns, hits[k].entry)
		if at < 0 {
			continue
		}
		if at > 0 {
			hits[k].prev = turns[at-1]
		}
		if at+1 < len(turns) {
			hits[k].next = turns[at+1]
		}
	}
}
