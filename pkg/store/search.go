package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
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

// SplitFactSourceID returns the type and value of a fact's source id.
func SplitFactSourceID(sourceID string) (factType, value string, ok bool) {
	return strings.Cut(sourceID, "\x1f")
}

// UpsertSearchEntries stores a batch of search entries in one statement (see
// UpsertSearchEntriesTx) and returns how many rows it wrote: redelivery,
// duplicates and replays of entries already stored write none.
func (s *Store) UpsertSearchEntries(ctx context.Context, entries []SearchEntry) (int64, error) {
	n, err := upsertSearchEntries(ctx, s.pool, entries)
	if err != nil {
		return 0, fmt.Errorf("upsert search entries: %w", err)
	}
	return n, nil
}

// UpsertSearchEntriesTx is UpsertSearchEntries inside the caller's
// transaction, for writers that index what they store in the same commit.
// An entry is written when it is new, when its revision is newer than the
// stored one, or when at the same revision its text, terms or attributes
// differ or it brings an embedding of another model (a replay after the
// embedding model changed); a lower revision changes nothing.
func UpsertSearchEntriesTx(ctx context.Context, tx pgx.Tx, entries []SearchEntry) (int64, error) {
	n, err := upsertSearchEntries(ctx, tx, entries)
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
		embedding                  = make([]*pgvector.Vector, n)
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
			v := pgvector.NewVector(e.Embedding)
			embedding[i], model[i] = &v, &e.Model
		}
	}
	tag, err := db.Exec(ctx, q("SearchEntryUpsertBatch"), tenant, user, kind, source, revision, session,
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
	if e.Embedding != nil && (len(e.Embedding) == 0 || len(e.Embedding) > maxVectorDims) {
		return fmt.Errorf("search entry %s %q: embedding of %d dimensions", e.Kind, e.SourceID, len(e.Embedding))
	}
	return nil
}

// maxVectorDims is pgvector's limit for the vector type.
const maxVectorDims = 16000

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
	tag, err := t.s.pool.Exec(ctx, q("SearchEntryDelete"), t.id, userID, kind, sourceIDs)
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
	// and after it (event time; system turns left out).
	Neighbors bool
	// Now is the time the recency prior measures age from: zero means the
	// current time. RecencyHalfLife (0: 30 days) is the age at which the
	// prior's lift halves; RecencyWeight (0: 0.1, negative: none) the lift
	// of an entry of age zero, as a fraction of its relevance score.
	Now             time.Time
	RecencyHalfLife time.Duration
	RecencyWeight   float64
	// VectorWeight weighs the vector list against the lexical one in the
	// fusion: 0 means 1 (equal), negative means the vector list does not
	// count (its similarities are still reported).
	VectorWeight float64
}

// MaxSearchK bounds SearchParams.K.
const MaxSearchK = 100

// Search defaults, see SearchParams.
const (
	DefaultSearchK         = 10
	DefaultMaxPerSession   = 3
	DefaultRecencyHalfLife = 30 * 24 * time.Hour
	DefaultRecencyWeight   = 0.1
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

// Search finds the best matches for a query in one user's history, in one
// statement (SearchHybrid): BM25 over the user's entries and cosine
// similarity to the entries embedded by the query's model, fused by
// reciprocal rank, with a mild recency prior and a cap per session.
//
// Both sides are exact within the user, never an approximate index: a
// user's history is thousands of entries, and the user's range of the
// primary key bounds the work whatever the table's size. Measured with
// EXPLAIN ANALYZE on PostgreSQL 15 (shared_buffers 128MB, the table in the OS
// cache, two cores shared with other work), 1M entries: 10k users of 100 and
// one of 5k, each user's entries spread over the heap as interleaved ingest
// writes them, 20 terms and a 384-dimension embedding each (1.9 GB):
//
//	user of 5k entries                                         ms
//	  rare terms, by terms only (GIN AND the key range)          3.9
//	    the same reading the key range instead of the GIN        8.5
//	  a term in 44% of the entries, by terms only (key range)   28
//	  vector only (5k distances)                                14
//	  rare terms and vector                                     18
//	  common term and vector                                    41
//	user of 100 entries
//	  rare terms, by terms only                                  0.9
//	  common term and vector                                     1.6
//
// The lexical side reads the user's range of the key and matches each entry
// (ts_match_vq, the function behind @@, which no index serves), never the GIN
// index. With the index the cost follows the whole table, not the user: a
// common term (a speaker's name in every turn) made the planner AND the GIN
// bitmap of every user's matching entries (13k of 100k entries, 1.2 ms, ten
// times that at 1M) with the user's 100; the key range reads 100 entries in
// 0.04 ms. Without a plan that depends on the terms, the statement is also
// prepared once and its plan cached, instead of planned on every call (1.7 to
// 2.4 ms of planning, as much as the execution). Measured with EXPLAIN
// ANALYZE on 1000 users of 100 LoCoMo turns, 100 hits with neighbours: 2.4 ms
// of execution. Cost grows with the user's entries (every one is matched;
// the vector side reads every embedding of the model) and with the
// embedding's dimension; the measurements above are of the first version,
// which used the index.
func (t *Tenant) Search(ctx context.Context, p SearchParams) ([]SearchHit, error) {
	p = p.WithDefaults()
	if p.UserID == "" {
		return nil, errors.New("search: user is required")
	}
	if p.K < 0 || p.K > MaxSearchK {
		return nil, fmt.Errorf("search: k %d outside 1..%d", p.K, MaxSearchK)
	}
	tsq := TSQuery(p.Terms)
	if tsq == "" && p.Vector == nil {
		return nil, ErrEmptyQuery
	}
	var query *string
	if tsq != "" {
		query = &tsq
	}
	var vec *pgvector.Vector
	if p.Vector != nil {
		if p.Model == "" {
			return nil, errors.New("search: a query vector needs its model")
		}
		if len(p.Vector) == 0 || len(p.Vector) > maxVectorDims {
			return nil, fmt.Errorf("search: vector of %d dimensions", len(p.Vector))
		}
		v := pgvector.NewVector(p.Vector)
		vec = &v
	}
	terms := p.Terms
	if terms == nil {
		terms = []string{}
	}
	roles, kinds := p.Roles, p.Kinds
	if roles == nil {
		roles = []string{}
	}
	if kinds == nil {
		kinds = []string{}
	}
	rows, err := t.s.pool.Query(ctx, q("SearchHybrid"), t.id, p.UserID, terms, query, vec, p.Model,
		p.SessionID, p.AgentID, roles, kinds, nullTime(p.Since), nullTime(p.Until), p.K, p.MaxPerSession,
		p.Now, p.RecencyHalfLife.Seconds(), p.RecencyWeight, p.Neighbors, p.depth(), p.VectorWeight)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	hits, err := pgx.CollectRows(rows, scanSearchHit)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	return hits, nil
}

func nullTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

func scanSearchHit(r pgx.CollectableRow) (SearchHit, error) {
	var h SearchHit
	var lexRank, vecRank int64
	var prevID, prevRole, prevContent, nextID, nextRole, nextContent *string
	var prevAt, nextAt *time.Time
	err := r.Scan(&h.Kind, &h.SourceID, &h.SessionID, &h.AgentID, &h.Role, &h.OccurredAt, &h.Text,
		&h.Score, &lexRank, &h.LexicalScore, &vecRank, &h.Similarity,
		&prevID, &prevRole, &prevAt, &prevContent, &nextID, &nextRole, &nextAt, &nextContent)
	h.LexicalRank, h.VectorRank = int(lexRank), int(vecRank)
	h.OccurredAt = h.OccurredAt.UTC()
	if prevID != nil {
		h.Previous = &Neighbor{EventID: *prevID, Role: *prevRole, OccurredAt: prevAt.UTC(), Content: *prevContent}
	}
	if nextID != nil {
		h.Next = &Neighbor{EventID: *nextID, Role: *nextRole, OccurredAt: nextAt.UTC(), Content: *nextContent}
	}
	return h, err
}
