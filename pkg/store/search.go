package store

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pgvector/pgvector-go"
)

// Search entry kinds: what a search can find in a user's history.
const (
	// SearchMessage is a turn; its source is the turn's event id.
	SearchMessage = "message"
	// SearchSummary is a session's current summary; its source is the
	// session, so a new version replaces the previous one.
	SearchSummary = "summary"
	// SearchFact is an interest fact; its source is FactSourceID. It is found
	// only while the fact is active.
	SearchFact = "fact"
)

// SearchEntry is one searchable thing of a user's history, as the indexer
// stores it: the text shown as a snippet, its lexical terms (made by the
// search analyzer, in order, repeats included) and optionally its embedding.
//
// The key is (tenant, user, kind, source), so storing an entry again changes
// nothing; Revision orders the versions of one source (a summary's version, a
// fact's newest mention) so that an older one replayed late never replaces a
// newer one.
type SearchEntry struct {
	TenantID  string
	UserID    string
	Kind      string
	SourceID  string
	Revision  int64
	SessionID string
	AgentID   string
	Role      string
	// OccurredAt is event time: the turn's, the newest summarized
	// message's, the fact's newest mention's.
	OccurredAt time.Time
	Text       string
	Terms      []string
	// Embedding of Text by Model; nil when there is none (no embedder, or
	// it failed): the entry is then found by its terms only, and a stored
	// embedding of the same text is kept.
	Embedding []float32
	Model     string
}

// FactSourceID is the source of a fact's search entry: its type and value,
// joined by U+001F (fact types are plain identifiers, so the first U+001F
// ends the type whatever the value holds).
func FactSourceID(factType, value string) string { return factType + "\x1f" + value }

// UpsertSearchEntries stores a batch of search entries in one statement and
// returns how many rows it wrote: redelivery, duplicates and replays of
// entries already stored write none. An entry is written when it is new,
// when its revision is newer than the stored one, or when at the same
// revision its text, terms or attributes differ or it brings an embedding of
// another model (a replay after the embedding model changed); a lower
// revision changes nothing. The writers that index what they store in the
// same commit (RecordMentionsIndexed, WriteSummary's search entry) run the
// same statement inside their transaction.
func (s *Store) UpsertSearchEntries(ctx context.Context, entries []SearchEntry) (int64, error) {
	n, err := upsertSearchEntries(ctx, s.pool, entries)
	if err != nil {
		return 0, fmt.Errorf("upsert search entries: %w", err)
	}
	return n, nil
}

// execer is what runs a statement: the pool or a transaction.
type execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

func upsertSearchEntries(ctx context.Context, db execer, entries []SearchEntry) (int64, error) {
	if len(entries) == 0 {
		return 0, nil
	}
	n := len(entries)
	var (
		tenant, user, kind, source = make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		session, agent, role, body = make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		terms, model               = make([]string, n), make([]*string, n)
		revision                   = make([]int64, n)
		termCount                  = make([]int32, n)
		occurred                   = make([]time.Time, n)
		embedding                  = make([]any, n)
	)
	for i := range entries {
		e := &entries[i]
		if err := e.validate(); err != nil {
			return 0, err
		}
		tenant[i], user[i], kind[i], source[i], revision[i] = e.TenantID, e.UserID, e.Kind, e.SourceID, e.Revision
		session[i], agent[i], role[i], occurred[i], body[i] = e.SessionID, e.AgentID, e.Role, e.OccurredAt, e.Text
		terms[i], termCount[i] = TSVector(e.Terms), int32(len(e.Terms))
		if e.Embedding != nil {
			embedding[i], model[i] = halfvecArg(e.Embedding), &e.Model
		}
	}
	tag, err := db.Exec(ctx, q(qSearchEntryUpsertBatch), tenant, user, kind, source, revision, session,
		agent, role, occurred, body, terms, termCount, embedding, model)
	if err != nil {
		return 0, err
	}
	return tag.RowsAffected(), nil
}

func (e *SearchEntry) validate() error {
	switch e.Kind {
	case SearchMessage, SearchSummary, SearchFact:
	default:
		return fmt.Errorf("search entry %q: unknown kind %q", e.SourceID, e.Kind)
	}
	if e.TenantID == "" || e.UserID == "" || e.SourceID == "" {
		return fmt.Errorf("search entry %s %q: tenant, user and source are required", e.Kind, e.SourceID)
	}
	if (e.Embedding == nil) != (e.Model == "") {
		return fmt.Errorf("search entry %s %q: an embedding needs its model and a model its embedding", e.Kind, e.SourceID)
	}
	if e.Embedding != nil {
		if err := checkVector(e.Embedding); err != nil {
			return fmt.Errorf("search entry %s %q: embedding %w", e.Kind, e.SourceID, err)
		}
	}
	return nil
}

// maxVectorDims is pgvector's limit for the halfvec type.
const maxVectorDims = 16000

// checkVector reports what keeps v from being stored or searched as a
// halfvec: its dimension, or a component that is not a finite number.
func checkVector(v []float32) error {
	if len(v) == 0 || len(v) > maxVectorDims {
		return fmt.Errorf("of %d dimensions (1..%d)", len(v), maxVectorDims)
	}
	for i, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("component %d is %v", i, x)
		}
	}
	return nil
}

// maxTSPosition is the largest position a tsvector holds; later terms share it.
const maxTSPosition = 16383

// TSVector renders terms, in order, as the text form of a tsvector: each
// distinct term quoted, with the positions (1-based) where it occurs. The
// cast of that text to tsvector takes the terms as they are, unlike
// to_tsvector, which would parse and normalize them again. PostgreSQL keeps
// at most 256 positions per term, which bounds a term's frequency in an
// entry, and caps positions at 16383.
func TSVector(terms []string) string {
	if len(terms) == 0 {
		return ""
	}
	pos := make(map[string][]int, len(terms))
	order := make([]string, 0, len(terms))
	for i, t := range terms {
		if t == "" {
			continue
		}
		if _, ok := pos[t]; !ok {
			order = append(order, t)
		}
		pos[t] = append(pos[t], min(i+1, maxTSPosition))
	}
	var b strings.Builder
	for i, t := range order {
		if i > 0 {
			b.WriteByte(' ')
		}
		writeLexeme(&b, t)
		b.WriteByte(':')
		last := 0
		for j, p := range pos[t] {
			if p == last {
				continue
			}
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(p))
			last = p
		}
	}
	return b.String()
}

// TSQuery renders terms as the text form of a tsquery that matches an entry
// holding any of them, or "" for none.
func TSQuery(terms []string) string {
	var b strings.Builder
	for _, t := range terms {
		if t == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(" | ")
		}
		writeLexeme(&b, t)
	}
	return b.String()
}

// writeLexeme writes a quoted lexeme: quotes doubled, backslashes escaped.
func writeLexeme(b *strings.Builder, t string) {
	b.WriteByte('\'')
	for _, r := range t {
		switch r {
		case '\'':
			b.WriteString("''")
		case '\\':
			b.WriteString(`\\`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('\'')
}

// DeleteSearchEntries deletes a user's entries of one kind by source: for a
// writer that removes what an entry was made of outside the deletes that
// already take entries with them (DeleteSession, retention, ForgetUser,
// the purge of expired facts).
func (t *Tenant) DeleteSearchEntries(ctx context.Context, userID, kind string, sourceIDs []string) (int64, error) {
	tag, err := t.s.pool.Exec(ctx, q(qSearchEntryDelete), t.id, userID, kind, sourceIDs)
	if err != nil {
		return 0, fmt.Errorf("delete search entries: %w", err)
	}
	return tag.RowsAffected(), nil
}

// SearchParams is one search of one user's history. Terms and Vector are the
// query as the analyzer and the embedder made it; either may be empty, not
// both. The filters narrow what is found, never how it is weighed.
type SearchParams struct {
	UserID string
	// Terms are the query's distinct terms (search.Analyzer.QueryTerms).
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
	// K is how many hits to return: 0 means 10, at most MaxSearchK.
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
	// VectorWeight weighs the vector list against the lexical one in the
	// fusion: 0 means 1 (equal), negative means the vector list does not
	// count (its similarities are still reported).
	VectorWeight float64
}

// MaxSearchK bounds SearchParams.K.
const MaxSearchK = 100

// MaxNeighborTurns bounds SearchParams.NeighborTurns.
const MaxNeighborTurns = 3

// Search defaults, see SearchParams.
const (
	DefaultSearchK         = 10
	DefaultMaxPerSession   = 3
	DefaultRecencyHalfLife = 30 * 24 * time.Hour
	DefaultRecencyWeight   = 0.1
	DefaultDialogueWeight  = 0.5
	minSearchDepth         = 100
	maxSearchDepth         = 1000
	searchDepthPerHit      = 10
)

// WithDefaults fills the zero fields of p with the defaults.
func (p SearchParams) WithDefaults() SearchParams {
	if p.K == 0 {
		p.K = DefaultSearchK
	}
	if p.MaxPerSession == 0 {
		p.MaxPerSession = DefaultMaxPerSession
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
func (p SearchParams) depth() int {
	return min(max(searchDepthPerHit*p.K, minSearchDepth), maxSearchDepth)
}

// SearchHit is one thing found in a user's history.
type SearchHit struct {
	Kind       string    `json:"kind"`
	SourceID   string    `json:"source_id"`
	SessionID  string    `json:"session_id,omitempty"`
	AgentID    string    `json:"agent_id,omitempty"`
	Role       string    `json:"role,omitempty"`
	OccurredAt time.Time `json:"occurred_at"`
	Text       string    `json:"text"`
	// Score orders the hits: fused reciprocal ranks times the recency prior.
	Score float64 `json:"score"`
	// LexicalRank and VectorRank are the hit's places (1-based) in the two
	// ranked lists, 0 when it is not in one; LexicalScore is its BM25 score
	// and Similarity its cosine similarity to the query vector. For
	// debugging and tuning.
	LexicalRank  int     `json:"lexical_rank,omitempty"`
	LexicalScore float64 `json:"lexical_score,omitempty"`
	VectorRank   int     `json:"vector_rank,omitempty"`
	Similarity   float64 `json:"similarity,omitempty"`
	// Previous and Next are the session's neighbouring turns of a turn
	// found, when asked for (SearchParams.Neighbors) and there are any.
	Previous *Neighbor `json:"previous,omitempty"`
	Next     *Neighbor `json:"next,omitempty"`
	// Earlier and Later are the turns before Previous and after Next, the
	// nearest first, when more than one turn on each side was asked for
	// (SearchParams.NeighborTurns).
	Earlier []Neighbor `json:"earlier,omitempty"`
	Later   []Neighbor `json:"later,omitempty"`
}

// Neighbor is a turn next to a turn found.
type Neighbor struct {
	EventID    string    `json:"id"`
	Role       string    `json:"role"`
	OccurredAt time.Time `json:"occurred_at"`
	Content    string    `json:"content"`
}

// ErrEmptyQuery is returned by Search for a query with neither terms nor a
// vector.
var ErrEmptyQuery = errors.New("search: the query has no terms and no vector")

// Search finds the best matches for a query in one user's history: BM25
// over the user's entries and cosine similarity to the entries embedded by
// the query's model, fused by reciprocal rank, with a mild recency prior and
// a cap per session; optionally each turn's neighbouring turns.
//
// Both sides are exact within the user, never an approximate index: a
// user's history is thousands of entries, and the user's range of the
// primary key bounds the work whatever the table's size. PostgreSQL reads
// that range once (SearchScan) and returns a row per entry: the filters'
// verdict, its terms when it holds a query term, its distance to the query
// vector, whether a fact is active, and its text. The ranking is done here
// (ranker.rank).
//
// The ranking is not one statement: as SQL (CTEs for both lists, the
// fusion, the cap, a join back for the texts, index lookups for the
// neighbours) its cost was the executor's, not the data's, several times
// the scan's (docs/benchmarks.md, History). The texts ride along in the
// scan rather than being read by key afterwards, which saves a round trip
// and the lookups; the price is the texts of a user's whole history on
// every search (about 20 KB for 100 turns). Cost grows with the user's
// entries (each is matched against the query and, when embedded by the
// query's model, measured against its vector) and with the embedding's
// dimension.
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
func (t *Tenant) Search(ctx context.Context, p SearchParams) ([]SearchHit, error) {
	scan, err := t.newSearchScan(p)
	if err != nil {
		return nil, err
	}
	rows, err := t.s.pool.Query(ctx, q(qSearchScan), scan.args...)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	if err := scan.read(rows); err != nil {
		return nil, err
	}
	return scan.rank(), nil
}

// searchScan is one search: its parameters checked and completed, the scan's
// arguments, and, once read, its rows until they are ranked.
type searchScan struct {
	p     SearchParams
	index map[string]int // query term -> place (termIndex)
	args  []any
	buf   *[]searchRow // the rows read, until ranked
}

// newSearchScan checks p, fills in its defaults and prepares the scan's
// arguments.
func (t *Tenant) newSearchScan(p SearchParams) (*searchScan, error) {
	p = p.WithDefaults()
	if p.UserID == "" {
		return nil, errors.New("search: user is required")
	}
	if p.K < 0 || p.K > MaxSearchK {
		return nil, fmt.Errorf("search: k %d outside 1..%d", p.K, MaxSearchK)
	}
	if p.NeighborTurns < 0 || p.NeighborTurns > MaxNeighborTurns {
		return nil, fmt.Errorf("search: neighbor turns %d outside 0..%d", p.NeighborTurns, MaxNeighborTurns)
	}
	if !p.Neighbors {
		p.NeighborTurns = 0
	}
	tsq := TSQuery(p.Terms)
	if tsq == "" && p.Vector == nil {
		return nil, ErrEmptyQuery
	}
	var query *string
	if tsq != "" {
		query = &tsq
	}
	var vec any
	if p.Vector != nil {
		if p.Model == "" {
			return nil, errors.New("search: a query vector needs its model")
		}
		if err := checkVector(p.Vector); err != nil {
			return nil, fmt.Errorf("search: query vector %w", err)
		}
		vec = halfvecArg(p.Vector)
	}
	return &searchScan{p: p, index: termIndex(p.Terms), args: []any{t.id, p.UserID, query, vec, p.Model}}, nil
}

// read reads the scanned rows into a pooled array; rank ranks them once
// the connection is back in the pool. A context reads its search in the
// batch of its other statements, on one connection of a small pool: ranking
// while holding it kept it from the other requests for as long as the
// ranking took and as long as the Go scheduler left it waiting.
func (sc *searchScan) read(rows pgx.Rows) error {
	sc.release()
	buf := scanRows.Get().(*[]searchRow)
	entries, err := readSearchRows(rows, sc.index, *buf)
	*buf, sc.buf = entries, buf
	if err != nil {
		sc.release()
		return fmt.Errorf("search: %w", err)
	}
	return nil
}

// rank ranks the rows read into the hits, and lets the array go.
func (sc *searchScan) rank() []SearchHit {
	defer sc.release()
	if sc.buf == nil {
		return nil
	}
	entries := *sc.buf
	for i := range entries {
		entries[i].wanted = sc.p.keeps(&entries[i])
	}
	return rankHits(entries, sc.p, len(sc.index))
}

// release hands the row array back to the pool: the rows' texts live on in
// the hits, not there, so they are dropped (the rows past the ones read are
// zero already: each use clears what it read); an array larger than a usual
// history is left to the collector. It may be called more than once.
func (sc *searchScan) release() {
	buf := sc.buf
	if buf == nil {
		return
	}
	sc.buf = nil
	if cap(*buf) <= maxPooledRows {
		clear(*buf)
		*buf = (*buf)[:0]
		scanRows.Put(buf)
	}
}

// scanRows holds the arrays searches read their rows into: every search
// reads a user's whole history, and an array grown afresh for each was the
// largest part of what a context with a query allocates.
var scanRows = sync.Pool{New: func() any { return new([]searchRow) }}

// maxPooledRows is the largest array scanRows keeps (about 1.5 MB).
const maxPooledRows = 8192

// searchHits returns the ranked hits with their texts and the neighbours
// the ranking found for them.
func searchHits(entries []searchRow, ranked []rankedHit) []SearchHit {
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
		slab = append(slab, Neighbor{EventID: e.sourceID, Role: e.role, OccurredAt: e.at, Content: e.body})
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
	hits := make([]SearchHit, 0, len(ranked))
	for k := range ranked {
		r := &ranked[k]
		e := &entries[r.entry]
		hits = append(hits, SearchHit{Kind: e.kind, SourceID: e.sourceID, SessionID: e.sessionID, AgentID: e.agent,
			Role: e.role, OccurredAt: e.at, Text: e.body, Score: r.score,
			LexicalRank: r.lexRank, LexicalScore: r.lexScore, VectorRank: r.vecRank, Similarity: r.similarity,
			Previous: neighbor(r.prev), Next: neighbor(r.next), Earlier: turns(r.earlier.list()), Later: turns(r.later.list())})
	}
	return hits
}

// keeps reports whether the filters of p keep an entry: its session, agent,
// role, kind and event time.
func (p *SearchParams) keeps(e *searchRow) bool {
	return (p.SessionID == "" || e.sessionID == p.SessionID) &&
		(p.AgentID == "" || e.agent == p.AgentID) &&
		(len(p.Roles) == 0 || slices.Contains(p.Roles, e.role)) &&
		(len(p.Kinds) == 0 || slices.Contains(p.Kinds, e.kind)) &&
		(p.Since.IsZero() || !e.at.Before(p.Since)) &&
		(p.Until.IsZero() || e.at.Before(p.Until))
}

// halfvecArg is a checked vector (checkVector) as a statement's argument
// for a halfvec column or parameter: scaled to unit length, which changes
// no cosine distance and keeps every component within half precision's
// range (a larger one would be infinite, which PostgreSQL refuses), and
// passed as a pgvector.HalfVector value, never a pointer, so that pgx
// encodes it with the registered binary codec rather than through its
// driver.Valuer and the text form, which costs a hundred times more. A zero
// vector stays zero.
func halfvecArg(v []float32) any {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 {
		return pgvector.NewHalfVector(v)
	}
	inv := 1 / math.Sqrt(sum)
	unit := make([]float32, len(v))
	for i, x := range v {
		unit[i] = float32(float64(x) * inv)
	}
	return pgvector.NewHalfVector(unit)
}

// vectorArg is a vector as a statement's argument, nil for none: a
// pgvector.Vector value, never a pointer, for the same reason as halfvecArg.
func vectorArg(v []float32) any {
	if v == nil {
		return nil
	}
	return pgvector.NewVector(v)
}

func nullTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}
