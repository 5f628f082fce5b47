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
	// Marks are lexemes stored with the terms that are no words of the
	// text but what its form tells (search.Asked: a user's turn that says
	// their age): a large user's search finds such entries through the
	// terms' index whatever their words (SearchScan.Marked). They do not
	// count in the entry's number of terms, BM25's length.
	Marks []string
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

// FactSourceType is the fact type of a fact entry's source (FactSourceID).
func FactSourceType(sourceID string) string {
	typ, _, _ := strings.Cut(sourceID, "\x1f")
	return typ
}

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
	args, err := searchEntryArgs(entries)
	if err != nil {
		return 0, err
	}
	tag, err := db.Exec(ctx, q(qSearchEntryUpsertBatch), args...)
	if err != nil {
		return 0, err
	}
	return tag.RowsAffected(), nil
}

// searchEntryArgs are qSearchEntryUpsertBatch's arguments for entries, for
// a caller that runs it in a batch of its own.
func searchEntryArgs(entries []SearchEntry) ([]any, error) {
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
			return nil, err
		}
		tenant[i], user[i], kind[i], source[i], revision[i] = e.TenantID, e.UserID, e.Kind, e.SourceID, e.Revision
		session[i], agent[i], role[i], occurred[i], body[i] = e.SessionID, e.AgentID, e.Role, e.OccurredAt, e.Text
		if len(e.Marks) == 0 {
			terms[i] = TSVector(e.Terms)
		} else {
			terms[i] = TSVector(slices.Concat(e.Terms, e.Marks))
		}
		termCount[i] = int32(len(e.Terms))
		if e.Embedding != nil {
			embedding[i], model[i] = halfvecArg(e.Embedding), &e.Model
		}
	}
	return []any{tenant, user, kind, source, revision, session, agent, role, occurred, body, terms, termCount, embedding, model}, nil
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
	sc := tsvScratchPool.Get().(*tsvScratch)
	defer sc.release()
	// Each distinct term in the order it first occurs (first), and its
	// occurrences chained in order of position (next): the map only finds
	// a term's group, and it and the arrays are reused from entry to entry
	// (a map of positions made for each entry was most of what indexing
	// it allocated).
	sc.next = slices.Grow(sc.next[:0], len(terms))[:len(terms)]
	size := 0
	for i, t := range terms {
		if t == "" {
			continue
		}
		sc.next[i] = -1
		if g, ok := sc.group[t]; ok {
			sc.next[sc.last[g]] = int32(i)
			sc.last[g] = int32(i)
		} else {
			sc.group[t] = int32(len(sc.first))
			sc.first = append(sc.first, int32(i))
			sc.last = append(sc.last, int32(i))
			size += len(t) + 2
		}
		size += 6
	}
	if len(sc.first) == 0 {
		return ""
	}
	var b strings.Builder
	b.Grow(size)
	var digits [8]byte
	for g, first := range sc.first {
		if g > 0 {
			b.WriteByte(' ')
		}
		writeLexeme(&b, terms[first])
		b.WriteByte(':')
		last := 0
		for o, j := first, 0; o >= 0; o, j = sc.next[o], j+1 {
			p := min(int(o)+1, maxTSPosition)
			if p == last {
				continue
			}
			if j > 0 {
				b.WriteByte(',')
			}
			b.Write(strconv.AppendInt(digits[:0], int64(p), 10))
			last = p
		}
	}
	return b.String()
}

// tsvScratch is what TSVector works in: the group of each distinct term,
// each group's first and last position, and after each position the next
// one of the same term (-1: none).
type tsvScratch struct {
	group       map[string]int32
	first, last []int32
	next        []int32
}

var tsvScratchPool = sync.Pool{New: func() any { return &tsvScratch{group: map[string]int32{}} }}

// release clears the scratch and hands it back, unless one long text grew
// it past what a turn needs. The map holds the terms' strings until it is
// cleared, never longer.
func (sc *tsvScratch) release() {
	if len(sc.group) > 4096 || cap(sc.next) > 1<<16 {
		return
	}
	clear(sc.group)
	sc.first, sc.last, sc.next = sc.first[:0], sc.last[:0], sc.next[:0]
	tsvScratchPool.Put(sc)
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

// ErrEmptyQuery is returned for a search with neither terms nor a vector:
// there is nothing to scan for.
var ErrEmptyQuery = errors.New("search: the query has no terms and no vector")

// SearchScan is one scan of a user's search entries (the statement
// SearchScan): the query as the store sends it and, once read, the rows, in
// an array from a pool until Release. Package search ranks the rows; the
// store only reads them.
//
// The scan reads every entry of the user, never an approximate index: a
// user's history is thousands of entries, and the user's range of the
// primary key bounds the work whatever the table's size. (From
// LargeSearch.From entries on, the user is read through indexes instead:
// Large.) PostgreSQL reads
// that range once and returns a row per entry: its terms when it holds a
// query term, its distance to the query vector, whether a fact is active,
// and its text and attributes (the filters are applied by the ranking). The
// texts ride along in the scan rather than being read by key afterwards,
// which saves a round trip and the lookups; the price is the texts of a
// user's whole history on every search (about 20 KB for 100 turns). Cost
// grows with the user's entries (each is matched against the query and,
// when embedded by the query's model, measured against its vector) and with
// the embedding's dimension.
type SearchScan struct {
	userID string
	query  *string // the tsquery, nil for none
	vector any     // halfvecArg of the query vector, nil for none
	model  string
	index  *queryTerms  // query term -> place in a row's TF (termIndex)
	before time.Time    // entries at or after it are not read (Before)
	keep   bool         // every row keeps its terms (KeepTerms)
	buf    *[]SearchRow // the rows read, until Release
	large  LargeSearch  // a large user's search (Large)
	stats  *SearchStats // what SearchCandidates read of the history, nil for a scan
	since  []time.Time  // the times the message names, from (Spans)
	until  []time.Time  // and until
	marks  []string     // the marks whose entries a large user's search reads (Marked)
	// sizes is told of the user's size once the statements have read it
	// (smallUsers); tenant is the scan's, both whether SearchCandidates
	// was sent beside the scan.
	sizes  *smallUsers
	tenant string
	both   bool
}

// LargeSearch is how a search reads a large user's history: through indexes
// (the statement SearchCandidates) rather than by a scan of every entry,
// from From entries on. The scan's cost grows with the history, about 10 µs
// a turn; this one's with the message's rare terms and the sessions read.
// It reads the newest Sample entries (found by time; the sample each
// term's share of the history is estimated from), the entries holding the
// rarest of the message's terms as long as their estimated number adds up
// to at most Budget (estimated from the sessions of the sample holding a
// term, each once) (each term's looked up in the user's postings of the
// GIN index), and of the Sessions whose entries hold the most of those
// terms, weighed by IDF and by how many of the session's entries hold each
// (saturated as BM25 saturates a term's frequency, k1 1.2), every entry when a session has at most
// WholeSession turns, else the entries around each holder; the facts
// holding a rare term; and the statistics of the whole history (SearchStats) the ranking
// weighs them by. A user below From is read by the scan, whose ranking
// this one keeps: a user that crosses From keeps its best hits
// (TestSearchLargeUserSwitch).
type LargeSearch struct {
	From, Sample, Budget, Sessions, WholeSession int
}

// WholeSessionTurns is LargeSearch.WholeSession as the API sets it: a
// session of up to 60 turns is read whole.
const WholeSessionTurns = 60

// Large has a user with at least l.From entries read through indexes
// (LargeSearch); From 0 (the zero LargeSearch) scans every user. Which way
// a user is read is decided by the store, in the same round trip as the
// read itself: both statements are sent, and the one that does not apply
// returns nothing.
func (sc *SearchScan) Large(l LargeSearch) {
	if l.From <= 0 {
		sc.large = LargeSearch{}
		return
	}
	sc.large = l
}

// termQueries are the distinct query terms, each as a tsquery of its own,
// in the order of a row's TF: SearchCandidates' $8, made only when it is
// sent.
func (sc *SearchScan) termQueries() []string {
	out := make([]string, len(sc.index.index))
	for t, j := range sc.index.index {
		out[j] = TSQuery([]string{t})
	}
	return out
}

// Spans gives a large user's search (Large) the times the message names,
// [since[i], until[i]): their newest entries are read too, found by time,
// whatever their words.
func (sc *SearchScan) Spans(since, until []time.Time) {
	sc.since, sc.until = since, until
}

// Marked gives a large user's search (Large) marks (SearchEntry.Marks):
// the entries that hold one are read too, LargeSearch.Sample of each at
// most, whatever their words and however old.
func (sc *SearchScan) Marked(marks []string) { sc.marks = marks }

// markQueries are the marks as tsqueries: SearchCandidates' $16.
func (sc *SearchScan) markQueries() []string {
	out := make([]string, len(sc.marks))
	for i, m := range sc.marks {
		out[i] = TSQuery([]string{m})
	}
	return out
}

// Stats are the statistics of the user's history when it was read through
// indexes (Large), nil when it was scanned: the ranking then counts them
// among the rows.
func (sc *SearchScan) Stats() *SearchStats { return sc.stats }

// KeepTerms has every row read keep its terms (SearchRow.Terms), whether
// or not it holds a query term, so that the rows can be scored again for
// other terms (Rescore) without reading them again: a search whose first
// hits extend its query (search feedback) costs one scan, not two. The
// rows' terms are the price: about as much again as their texts.
func (sc *SearchScan) KeepTerms() { sc.keep = true }

// Rescore sets each row's TF (and NumTerms) for terms instead of the
// query's, from the terms the rows kept (KeepTerms): the rows as a scan for
// terms would have read them.
func (sc *SearchScan) Rescore(terms []string) error {
	if !sc.keep {
		return errors.New("search: rescoring a scan that kept no terms")
	}
	index := termIndex(terms)
	if sc.stats != nil {
		// The history's counts of the terms it had stay theirs; a new
		// term's are not known (-1): the ranking estimates them from the
		// rows.
		df := make([]float64, len(index.index))
		for t, j := range index.index {
			df[j] = -1
			if k, ok := sc.index.index[t]; ok && k < len(sc.stats.DF) {
				df[j] = sc.stats.DF[k]
			}
		}
		sc.stats.DF = df
	}
	for i, r := range sc.Rows() {
		tf, err := rowFrequencies(r.Terms, index)
		if err != nil {
			return fmt.Errorf("search: rescore row %d: %w", i+1, err)
		}
		(*sc.buf)[i].TF = tf
	}
	sc.index = index
	return nil
}

// Before bounds the scan to the history as it stood before t (a search or a
// context asked as of t): the entries of what happened at or after t are
// not read, as if they were not there (not found, not anyone's neighbour,
// not counted in the ranking's statistics); zero reads them all. A scan
// applies it as the rows are read, so the statement is the same either
// way; a large user's search (Large) in its statement as well (its
// statistics count the whole history, though).
func (sc *SearchScan) Before(t time.Time) { sc.before = t }

// NewSearchScan checks a query and prepares its scan: the user whose
// entries are read, the query's terms (repeats and empty terms ignored) and
// optionally its vector by model. Either terms or a vector is needed
// (ErrEmptyQuery).
func NewSearchScan(userID string, terms []string, vector []float32, model string) (*SearchScan, error) {
	if userID == "" {
		return nil, errors.New("search: user is required")
	}
	tsq := TSQuery(terms)
	if tsq == "" && vector == nil {
		return nil, ErrEmptyQuery
	}
	sc := &SearchScan{userID: userID, model: model, index: termIndex(terms)}
	if tsq != "" {
		sc.query = &tsq
	}
	if vector != nil {
		if model == "" {
			return nil, errors.New("search: a query vector needs its model")
		}
		if err := checkVector(vector); err != nil {
			return nil, fmt.Errorf("search: query vector %w", err)
		}
		sc.vector = halfvecArg(vector)
	}
	return sc, nil
}

// ScanSearch reads the rows of sc: every entry of its user in this tenant.
// A context reads the same scan in the batch of its other reads instead
// (Context).
func (t *Tenant) ScanSearch(ctx context.Context, sc *SearchScan) error {
	var b pgx.Batch
	sc.queue(&b, t)
	return t.s.pool.SendBatch(ctx, &b).Close()
}

// queue queues the scan's statements in a batch of a tenant's reads: the
// scan of the user's range and, for a search told of large users (Large),
// SearchCandidates; the one that does not apply to the user reads nothing.
// A user the store found small a moment ago (smallUsers) is scanned alone.
func (sc *SearchScan) queue(b *pgx.Batch, t *Tenant) {
	sc.sizes, sc.tenant = &t.s.small, t.id
	var from *int64
	if sc.large.From > 0 && !sc.sizes.small(t.id, sc.userID) {
		n := int64(sc.large.From)
		from = &n
	}
	sc.both = from != nil
	// The scan reads the user's range of the primary key, whatever the
	// user's share of the table. Its plan is prepared once per connection,
	// and PostgreSQL keeps a generic plan once it looks no costlier than
	// those planned for each user: in a table of few users, one of them
	// large, that plan estimated half the table for any user and read all
	// of it, sorted (65 ms for a user of 500 entries beside one of
	// 100,000, against 1). With sequential scans off for this statement
	// alone, every plan of it, the generic one included, reads the range.
	b.Queue(setNoSeqScan)
	b.Queue(q(qSearchScan), t.id, sc.userID, sc.query, sc.vector, sc.model, sc.keep, from).Query(sc.read)
	b.Queue(resetSeqScan)
	if from == nil {
		return
	}
	l := sc.large
	// The statement's plan is the same for any arguments (every lookup is
	// bounded by its LIMIT and reached through LATERAL), but planned for
	// each one it cost a sixth of its time (0.8 of 5 ms for a user of
	// 100,000 turns): the generic plan is kept instead, for this statement
	// alone. A failed batch rolls the setting back with its implicit
	// transaction.
	b.Queue(setGenericPlan)
	b.Queue(q(qSearchCandidates), t.id, sc.userID, sc.query, sc.vector, sc.model, sc.keep, from,
		sc.termQueries(), nullTime(sc.before), l.Sample, l.Budget, l.Sessions, l.WholeSession,
		nonNilTimes(sc.since), nonNilTimes(sc.until), sc.markQueries()).Query(sc.readCandidates)
	b.Queue(resetPlanMode)
}

// setGenericPlan and resetPlanMode surround a statement that the planner is
// to plan once per connection (plan_cache_mode), whatever its arguments;
// setNoSeqScan and resetSeqScan one whose every plan is to read through an
// index (enable_seqscan); setNoNestLoop and resetNestLoop one whose join is
// to read each side once (enable_nestloop).
const (
	setGenericPlan = "SET plan_cache_mode = force_generic_plan"
	resetPlanMode  = "RESET plan_cache_mode"
	setNoSeqScan   = "SET enable_seqscan = off"
	resetSeqScan   = "RESET enable_seqscan"
	setNoNestLoop  = "SET enable_nestloop = off"
	resetNestLoop  = "RESET enable_nestloop"
)

// NumTerms is the number of distinct query terms: the length of a row's TF.
func (sc *SearchScan) NumTerms() int { return len(sc.index.index) }

// Rows are the rows read, until Release; nil before they are read.
func (sc *SearchScan) Rows() []SearchRow {
	if sc.buf == nil {
		return nil
	}
	return *sc.buf
}

// read reads the scanned rows into a pooled array, for the caller to rank
// once the connection is back in the pool. A context reads its search in
// the batch of its other statements, on one connection of a small pool:
// ranking while holding it kept it from the other requests for as long as
// the ranking took and as long as the Go scheduler left it waiting.
func (sc *SearchScan) read(rows pgx.Rows) error {
	sc.Release()
	sc.stats = nil
	sc.buf = scanRows.Get().(*[]SearchRow)
	seen, err := sc.readMore(rows)
	if err != nil {
		return err
	}
	// Scanned alone (the user was found small a moment ago), what it read
	// tells whether the user still is.
	if !sc.both && sc.large.From > 0 && sc.sizes != nil {
		sc.sizes.set(sc.tenant, sc.userID, seen < sc.large.From)
	}
	return nil
}

// readCandidates reads the rows of SearchCandidates after the scan's: none
// and no statistics when the user is below the switch, which the next
// searches then remember (smallUsers).
func (sc *SearchScan) readCandidates(rows pgx.Rows) error {
	if _, err := sc.readMore(rows); err != nil {
		return err
	}
	if sc.sizes != nil {
		sc.sizes.set(sc.tenant, sc.userID, sc.stats == nil)
	}
	return nil
}

// readMore appends the rows of a statement to those read, returning how
// many it returned (those passed over included).
func (sc *SearchScan) readMore(rows pgx.Rows) (int, error) {
	if sc.buf == nil {
		sc.buf = scanRows.Get().(*[]SearchRow)
	}
	entries, seen, err := readSearchRows(rows, sc.index, sc.before, sc.keep, *sc.buf, &sc.stats)
	*sc.buf = entries
	if err != nil {
		sc.Release()
		return seen, fmt.Errorf("search: %w", err)
	}
	return seen, nil
}

// Release hands the row array back to the pool, once the rows are ranked:
// the rows' texts live on in what was made of them (strings are not
// copied), not in the array, so they are dropped (the rows past the ones
// read are zero already: each use clears what it read); an array larger
// than a usual history is left to the collector. It may be called more than
// once, and on a scan never read.
func (sc *SearchScan) Release() {
	buf := sc.buf
	if buf == nil {
		return
	}
	sc.buf = nil
	if cap(*buf) <= MaxPooledSearchRows {
		clear(*buf)
		*buf = (*buf)[:0]
		scanRows.Put(buf)
	}
}

// scanRows holds the arrays searches read their rows into: every search
// reads a user's whole history, and an array grown afresh for each was the
// largest part of what a context with a query allocates.
var scanRows = sync.Pool{New: func() any { return new([]SearchRow) }}

// MaxPooledSearchRows is the largest row array a scan hands back to its
// pool (about 1.5 MB): a history longer than that is rare, and keeping
// arrays for it (here, or in what ranks it) would hold its memory for
// every search after.
const MaxPooledSearchRows = 8192

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

// nonNilTimes is ts, or an empty array for none: a statement's array
// parameter that is never NULL.
func nonNilTimes(ts []time.Time) []time.Time {
	if ts == nil {
		return []time.Time{}
	}
	return ts
}
