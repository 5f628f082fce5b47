package search

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/recallhq/recall/pkg/decay"
	"github.com/recallhq/recall/pkg/store"
	"github.com/recallhq/recall/pkg/when"
)

// Params is one search of one user's history. Terms and Vector are the
// query as the analyzer and the embedder made it; either may be empty, not
// both. The filters narrow what is found, never how it is weighed.
type Params struct {
	UserID string
	// Terms are the query's distinct terms (Analyzer.QueryTerms).
	Terms []string
	// Vector is the query's embedding by Model; nil searches by terms only.
	// Only entries embedded by the same model are compared with it.
	Vector []float32
	Model  string
	// SessionID and AgentID, when set, keep entries of that session or
	// agent only. Roles and Kinds, when set, keep entries with one of them;
	// summaries and facts have no role, so a role filter leaves them out.
	SessionID string
	AgentID   string
	Roles     []string
	Kinds     []string
	// Since and Until bound event time, [Since, Until); zero is open.
	Since time.Time
	Until time.Time
	// At, when set, searches the history as it stood then: what happened
	// at or after At is not read at all (store.SearchScan.Before), so,
	// unlike what Until leaves out, it is not shown as a neighbour nor
	// counted in the ranking's statistics either; a fact is live when it
	// was active at At under Decay (nil: decay.DefaultPolicy), not when it
	// is active now (asOf); and Now, when zero, is At.
	At    time.Time
	Decay *decay.Policy
	// K is how many hits to return: 0 means 10, at most MaxK.
	K int
	// MaxPerSession caps the hits of one session (its turns and summary
	// together; each fact counts on its own), so that one long session
	// cannot fill the result: 0 means 3, negative means no cap.
	MaxPerSession int
	// Neighbors reads, for each turn found, the session's turns just before
	// and after it (event time; system turns left out): NeighborTurns on
	// each side (0 means 1, at most MaxNeighborTurns); for the first
	// NeighborHits hits only, when it is above 0 (a context shows the
	// neighbours of its first hits, and every neighbour is a copy of a turn
	// and its text).
	Neighbors     bool
	NeighborTurns int
	NeighborHits  int
	// Now is the time the recency prior measures age from: zero means the
	// current time. RecencyHalfLife (0: 30 days) is the age at which the
	// prior's lift halves; RecencyWeight (0: 0.1, negative: none) the lift
	// of an entry of age zero, as a fraction of its relevance score.
	Now             time.Time
	RecencyHalfLife time.Duration
	RecencyWeight   float64
	// DialogueWeight is how much of a query term's score in a neighbouring
	// turn a turn without the term borrows (see withDialogue): 0 means 0.5,
	// negative none.
	DialogueWeight float64
	// SessionWeight lifts each turn that matches by how well its session,
	// its turns read as one document, matches: BM25 over the sessions,
	// scaled so that the best session adds SessionWeight × the best turn's
	// lexical score (0 or negative: none). A turn without a query term of
	// its own or borrowed from a neighbour is not lifted; summaries and
	// facts keep their own scores.
	SessionWeight float64
	// UserWeight lifts the user's own turns over the assistant's, as a
	// fraction of their fused score (0: none): what a user said about
	// themselves, asked for and decided is what a later message most often
	// needs, and an assistant's long answers otherwise crowd it out.
	UserWeight float64
	// TermWeights weighs each of Terms' distinct terms, in their order, in
	// the lexical score (a term past them, or all of them when nil: 1):
	// the terms Feedback adds weigh less than the message's own.
	TermWeights []float64
	// IDFPower raises each query term's IDF to this power in the lexical
	// score (0 means 1: BM25 as it is). At 2 a query term weighs by its IDF
	// as the document's occurrences do, as in the classic tf-idf vector
	// space: a message that says much besides what it asks about ("I've
	// been thinking about making a cocktail for an upcoming get-together,
	// any suggestions?") is matched by its rare words rather than by turns
	// holding several of its common ones. A number's IDF is not raised: a
	// match of "9" or "2022" is as often a coincidence as what the message
	// means.
	IDFPower float64
	// During lifts the entries that occurred in one of these spans (the
	// times the message names: "last Saturday", "four weeks ago";
	// when.MessageSpans) by DuringWeight, as a fraction of their fused
	// score (0 or negative: no lift). Unlike Since and Until it narrows
	// nothing: a message that says "four weeks ago" of what happened five
	// weeks ago still finds it.
	During       []when.Span
	DuringWeight float64
	// Asked lists the user's turns that hold the kind of answer the
	// message asks for, told by their form (MessageAsks: "I'm 32" for "how
	// old will I be in May?"), in the fusion by AskedWeight as the time
	// list is: weighed by how much of the history it leaves out (0 or
	// negative: no list).
	Asked       Asked
	AskedWeight float64
	// VectorWeight weighs the vector list against the lexical one in the
	// fusion: 0 means 1 (equal), negative means the vector list does not
	// count (its similarities are still reported).
	VectorWeight float64
	// Distinct leaves out a turn whose text is a turn's already found
	// (letters and digits the same, whatever the case, spaces and
	// punctuation): the newest of them is found, once. A context asks for
	// it: its budget goes to distinct evidence, where a long history says
	// "good morning" or the same daily request hundreds of times.
	Distinct bool
	// Large reads a user with at least Large.From entries through indexes
	// instead of scanning every entry (store.LargeSearch); the zero value
	// scans every user. A search narrowed to a session, an agent or a time
	// (SessionID, AgentID, Since, Until) scans all the same: what it is
	// narrowed to need not be among the candidates the indexes give.
	Large store.LargeSearch
}

// maxZoneOffset is the most a time zone is off UTC (UTC+14).
const maxZoneOffset = 14 * time.Hour

// MaxK bounds Params.K.
const MaxK = 100

// MaxNeighborTurns bounds Params.NeighborTurns.
const MaxNeighborTurns = 3

// Search defaults, see Params.
const (
	DefaultK               = 10
	DefaultMaxPerSession   = 3
	DefaultRecencyHalfLife = 30 * 24 * time.Hour
	DefaultRecencyWeight   = 0.1
	DefaultDialogueWeight  = 0.5
	minSearchDepth         = 100
	maxSearchDepth         = 1000
	searchDepthPerHit      = 10
)

// WithDefaults fills the zero fields of p with the defaults.
func (p Params) WithDefaults() Params {
	if p.K == 0 {
		p.K = DefaultK
	}
	if p.MaxPerSession == 0 {
		p.MaxPerSession = DefaultMaxPerSession
	}
	if p.Now.IsZero() {
		p.Now = p.At
	}
	if p.Now.IsZero() {
		p.Now = time.Now()
	}
	if p.RecencyHalfLife <= 0 {
		p.RecencyHalfLife = DefaultRecencyHalfLife
	}
	if p.RecencyWeight == 0 {
		p.RecencyWeight = DefaultRecencyWeight
	}
	p.RecencyWeight = max(p.RecencyWeight, 0)
	if p.DialogueWeight == 0 {
		p.DialogueWeight = DefaultDialogueWeight
	}
	p.DialogueWeight = max(p.DialogueWeight, 0)
	if p.VectorWeight == 0 {
		p.VectorWeight = 1
	}
	p.VectorWeight = max(p.VectorWeight, 0)
	return p
}

// depth is how far down each ranked list (lexical, vector) fusion looks:
// deep enough that the session cap still leaves k hits when a few sessions
// hold the best matches.
func (p Params) depth() int {
	return min(max(searchDepthPerHit*p.K, minSearchDepth), maxSearchDepth)
}

// Hit is one thing found in a user's history.
type Hit struct {
	Kind       string
	SourceID   string
	SessionID  string
	AgentID    string
	Role       string
	OccurredAt time.Time
	Text       string
	// Score orders the hits: fused reciprocal ranks times the recency prior.
	Score float64
	// LexicalRank and VectorRank are the hit's places (1-based) in the two
	// ranked lists, 0 when it is not in one; LexicalScore is its BM25 score
	// and Similarity its cosine similarity to the query vector. For
	// debugging and tuning.
	LexicalRank  int
	LexicalScore float64
	VectorRank   int
	Similarity   float64
	// TimeRank is its place in the list of what happened when the message
	// says (Params.During), 0 when it is not in it.
	TimeRank int
	// AskedRank is its place in the list of the turns that hold the kind
	// of answer the message asks for (Params.Asked), 0 when it is not in
	// it.
	AskedRank int
	// Previous and Next are the session's neighbouring turns of a turn
	// found, when asked for (Params.Neighbors) and there are any.
	Previous *Neighbor
	Next     *Neighbor
	// Earlier and Later are the turns before Previous and after Next, the
	// nearest first, when more than one turn on each side was asked for
	// (Params.NeighborTurns).
	Earlier []Neighbor
	Later   []Neighbor
}

// Neighbor is a turn next to a turn found.
type Neighbor struct {
	EventID    string
	Role       string
	OccurredAt time.Time
	Content    string
}

// Find finds the best matches for a query in one user's history: BM25
// over the user's entries and cosine similarity to the entries embedded by
// the query's model, fused by reciprocal rank, with a mild recency prior and
// a cap per session; optionally each turn's neighbouring turns.
//
// Both sides are exact within the user, never an approximate index: the
// store reads every entry of the user once (store.Tenant.ScanSearch: its
// attributes and text, its terms' frequencies when it holds a query term,
// its distance to the query vector, whether a fact is active), and the
// ranking is done here (ranker.rank), filters included. A user of
// Params.Large.From entries or more is read through indexes instead (the
// newest entries, the sessions holding the message's rare terms:
// store.LargeSearch), ranked the same way with the whole history's
// statistics.
//
// The ranking is not one statement: as SQL (CTEs for both lists, the
// fusion, the cap, a join back for the texts, index lookups for the
// neighbours) its cost was the executor's, not the data's, several times
// the scan's (docs/benchmarks.md, History).
//
// BM25: k1 = 1.2, b = 0.75, idf = ln(1 + (N - df + 0.5) / (df + 0.5)), with
// N, the document frequencies and the average length taken over the user's
// whole history (every kind, whatever the filters), so that a filter
// narrows the results without changing the weights. A term's frequency is
// its number of positions in the entry's tsvector; the length is the
// entry's term count. A turn then borrows DialogueWeight of the score of
// each query term it lacks from the neighbouring turn that holds it best
// (withDialogue).
//
// Fusion: score = (1/(10 + lexical rank) + VectorWeight × 1/(10 + vector
// rank)) × (1 + RecencyWeight × 2^(-age / half-life)), a missing rank adding
// nothing, each list cut at depth(). The constant is 10, not the 60 of the
// RRF paper, which fused 1000-deep lists of many strong systems: here two
// short lists feed a top 10, and 10 lets a list's first place count
// (measured on KdConv and LoCoMo: docs/benchmarks.md, History). The prior
// lifts a fresh entry by at most RecencyWeight (0.1: the gap between
// neighbouring places at the top), enough to order near-equal hits, not to
// overturn relevance.
// Equal scores share a rank (the same text twice scores the same); ties go
// to the newer entry.
func Find(ctx context.Context, t *store.Tenant, p Params) ([]Hit, error) {
	sc, p, err := p.scan()
	if err != nil {
		return nil, err
	}
	defer sc.Release()
	if err := t.ScanSearch(ctx, sc); err != nil {
		return nil, err
	}
	return rankHits(asOf(sc.Rows(), p), p, sc.NumTerms(), sc.Stats()), nil
}

// A Plan is a search whose scan travels in another batch of reads, as a
// context's does: planned first (Searcher.Plan: the query's terms, vector
// and the times it names, and the scan to read), its scan queued in the
// context's batch (Scan, which store.ContextRead takes), then ranked once
// the batch has returned, with its connection back in the pool (Rank), and
// released (Release). A nil Plan is no search: its Scan is nil, and Rank
// finds nothing.
type Plan struct {
	q        Params // with its defaults
	sc       *store.SearchScan
	s        *Searcher
	feedback FeedbackParams
}

// Plan plans a search to read in another batch (Plan), for a message
// whose first hits may extend its query (f: Feedback, for a count or a
// total; off: none). It returns nil and no error when the query has neither
// terms nor a vector (nothing to search for), and an error for a search
// Find would refuse. res is what Prepare says of the query; its Hits are
// Rank's.
func (s *Searcher) Plan(ctx context.Context, q Query, f FeedbackParams) (*Plan, Result, error) {
	p, res, ok := s.Prepare(ctx, q)
	if !ok {
		return nil, res, nil
	}
	pl, err := s.PlanParams(p, f)
	return pl, res, err
}

// PlanParams is Plan for parameters already prepared (their terms and
// vector set: Prepare). With f on, the scan keeps every row's terms, for
// the second ranking.
func (s *Searcher) PlanParams(p Params, f FeedbackParams) (*Plan, error) {
	sc, q, err := p.scan()
	if err != nil {
		return nil, err
	}
	pl := &Plan{q: q, sc: sc, s: s}
	if s != nil && f.on() {
		pl.feedback = f
		sc.KeepTerms()
	}
	return pl, nil
}

// PlanParams is the Searcher's PlanParams without feedback, which needs no
// Searcher.
func PlanParams(p Params) (*Plan, error) { return (*Searcher)(nil).PlanParams(p, FeedbackParams{}) }

// Scan is the store's scan to queue in the batch (store.ContextRead.Search);
// nil for a nil Plan.
func (pl *Plan) Scan() *store.SearchScan {
	if pl == nil {
		return nil
	}
	return pl.sc
}

// During is the times the message names, as the plan read them (in UTC,
// at the query's time): what Rank lifts unless given the user's own.
func (pl *Plan) During() []when.Span {
	if pl == nil {
		return nil
	}
	return pl.q.During
}

// Rank ranks the rows the scan read, lifting what happened during the
// times given (the message's times reckoned in the user's zone, which the
// batch may have told; Plan.During otherwise). With feedback on and terms
// to add (Feedback), the same rows are scored again for them and ranked
// again: the hits a second search with the extended query would find,
// without reading the history a second time (which was a second round trip
// and a second scan, twice the time, for every such message).
func (pl *Plan) Rank(during []when.Span) ([]Hit, error) {
	if pl == nil {
		return nil, nil
	}
	q := pl.q
	q.During = during
	hits := rankHits(asOf(pl.sc.Rows(), q), q, pl.sc.NumTerms(), pl.sc.Stats())
	if !pl.feedback.on() {
		return hits, nil
	}
	fq, ok := pl.s.Feedback(q, hits, pl.feedback)
	if !ok {
		return hits, nil
	}
	if err := pl.sc.Rescore(fq.Terms); err != nil {
		return nil, err
	}
	return rankHits(pl.sc.Rows(), fq, pl.sc.NumTerms(), pl.sc.Stats()), nil
}

// Release hands the scan's rows back (what Rank returned stays valid).
func (pl *Plan) Release() {
	if pl != nil {
		pl.sc.Release()
	}
}

// scan checks p, fills in its defaults and prepares the store's scan of
// its user's entries.
func (p Params) scan() (*store.SearchScan, Params, error) {
	p = p.WithDefaults()
	if p.K < 0 || p.K > MaxK {
		return nil, p, fmt.Errorf("search: k %d outside 1..%d", p.K, MaxK)
	}
	if p.NeighborTurns < 0 || p.NeighborTurns > MaxNeighborTurns {
		return nil, p, fmt.Errorf("search: neighbor turns %d outside 0..%d", p.NeighborTurns, MaxNeighborTurns)
	}
	if !p.Neighbors {
		p.NeighborTurns = 0
	}
	sc, err := store.NewSearchScan(p.UserID, p.Terms, p.Vector, p.Model)
	if err == nil {
		sc.Before(p.At)
		if p.SessionID == "" && p.AgentID == "" && p.Since.IsZero() && p.Until.IsZero() {
			sc.Large(p.Large)
			if m := p.Asked.mark(); m != "" && p.AskedWeight > 0 {
				sc.Marked([]string{m})
			}
			if p.DuringWeight > 0 && len(p.During) > 0 {
				// The spans as read in UTC, widened by the most any zone
				// is off it: the user's zone is learned in the same
				// batch, which reckons them again (Plan.Rank).
				since, until := make([]time.Time, len(p.During)), make([]time.Time, len(p.During))
				for i, s := range p.During {
					since[i], until[i] = s.From.Add(-maxZoneOffset), s.To.Add(maxZoneOffset)
				}
				sc.Spans(since, until)
			}
		}
	}
	return sc, p, err
}

// keeps reports whether the filters of p keep an entry: its session, agent,
// role, kind and event time.
func (p *Params) keeps(e *store.SearchRow) bool {
	return (p.SessionID == "" || e.SessionID == p.SessionID) &&
		(p.AgentID == "" || e.AgentID == p.AgentID) &&
		(len(p.Roles) == 0 || slices.Contains(p.Roles, e.Role)) &&
		(len(p.Kinds) == 0 || slices.Contains(p.Kinds, e.Kind)) &&
		(p.Since.IsZero() || !e.OccurredAt.Before(p.Since)) &&
		(p.Until.IsZero() || e.OccurredAt.Before(p.Until))
}

// searchHits returns the ranked hits with their texts and the neighbours
// the ranking found for them.
func searchHits(entries []store.SearchRow, ranked []rankedHit) []Hit {
	// The neighbours of all the hits share one array.
	n := 0
	for _, r := range ranked {
		n += r.earlier.n + r.later.n
		if r.prev >= 0 {
			n++
		}
		if r.next >= 0 {
			n++
		}
	}
	slab := make([]Neighbor, 0, n)
	neighbor := func(i int) *Neighbor {
		if i < 0 {
			return nil
		}
		e := &entries[i]
		slab = append(slab, Neighbor{EventID: e.SourceID, Role: e.Role, OccurredAt: e.OccurredAt, Content: e.Text})
		return &slab[len(slab)-1]
	}
	turns := func(rows []int32) []Neighbor {
		if len(rows) == 0 {
			return nil
		}
		start := len(slab)
		for _, i := range rows {
			neighbor(int(i))
		}
		return slab[start:len(slab):len(slab)]
	}
	hits := make([]Hit, 0, len(ranked))
	for k := range ranked {
		r := &ranked[k]
		e := &entries[r.entry]
		hits = append(hits, Hit{Kind: e.Kind, SourceID: e.SourceID, SessionID: e.SessionID, AgentID: e.AgentID,
			Role: e.Role, OccurredAt: e.OccurredAt, Text: e.Text, Score: r.score,
			LexicalRank: r.lexRank, LexicalScore: r.lexScore, VectorRank: r.vecRank, Similarity: r.similarity, TimeRank: r.timeRank, AskedRank: r.askedRank,
			Previous: neighbor(r.prev), Next: neighbor(r.next), Earlier: turns(r.earlier.list()), Later: turns(r.later.list())})
	}
	return hits
}
