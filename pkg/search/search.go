package search

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/recallhq/recall/pkg/embed"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/store"
	"github.com/recallhq/recall/pkg/when"
)

// ErrEmbed marks an indexing error that only cost the entries their
// vectors: they were stored with their terms, so they are found lexically,
// and indexing them again (a redelivery) adds the vectors.
var ErrEmbed = errors.New("search: embedding failed")

// maxEmbedBytes bounds the text sent to the embedder for one entry: a turn
// may hold 64 KiB, more than embedding models take in one input (8k tokens
// for OpenAI's), and its beginning says what it is about.
const maxEmbedBytes = 8 << 10

// Indexer turns entries into what the store keeps (terms, and a vector when
// an embedder is configured) and stores them.
type Indexer struct {
	store *store.Store
	an    *Analyzer
	emb   embed.Embedder
}

// NewIndexer returns an indexer. emb may be nil: entries are then stored
// with terms only, and found lexically.
func NewIndexer(st *store.Store, an *Analyzer, emb embed.Embedder) *Indexer {
	return &Indexer{store: st, an: an, emb: emb}
}

// Prepare fills each entry's terms and marks (EntryMarks) from its text
// and, with an embedder, its embedding and model, in place. Writers that store entries in their own
// transaction (store.SummaryWrite.Search, store.RecordMentionsIndexed) call
// it before they begin. When the embedder fails, the entries are left
// without vectors and the error wraps ErrEmbed; they can still be stored.
func (ix *Indexer) Prepare(ctx context.Context, entries []store.SearchEntry) error {
	for i := range entries {
		entries[i].Terms = ix.an.Terms(entries[i].Text, entries[i].Terms[:0])
		entries[i].Marks = EntryMarks(&entries[i])
		entries[i].Embedding, entries[i].Model = nil, ""
	}
	if ix.emb == nil || len(entries) == 0 {
		return nil
	}
	texts := make([]string, len(entries))
	for i := range entries {
		texts[i] = events.ClipUTF8(entries[i].Text, maxEmbedBytes, "")
	}
	vecs, err := ix.emb.Embed(ctx, texts)
	if err == nil && len(vecs) != len(entries) {
		err = fmt.Errorf("%d vectors for %d texts", len(vecs), len(entries))
	}
	if err != nil {
		return fmt.Errorf("%w: %w", ErrEmbed, err)
	}
	model := ix.emb.Model()
	for i := range entries {
		entries[i].Embedding, entries[i].Model = vecs[i], model
	}
	return nil
}

// Index prepares entries (Prepare) and stores them in one statement,
// returning how many rows were written: none for entries already stored as
// they are, so redelivery and replays are harmless. When only embedding
// failed the entries are stored without vectors and the error wraps
// ErrEmbed: a caller that retries (a nak) gets the vectors added.
func (ix *Indexer) Index(ctx context.Context, entries []store.SearchEntry) (int64, error) {
	embedErr := ix.Prepare(ctx, entries)
	n, err := ix.store.UpsertSearchEntries(ctx, entries)
	if err != nil {
		return n, err
	}
	return n, embedErr
}

// Searcher answers queries over one user's history: it analyzes the query,
// embeds it when an embedder is configured, and runs the hybrid search
// (Find).
//
// The vector list weighs as much as the lexical one in the fusion, except
// with the offline hashing embedder (embed.Hashing), whose vectors share
// character n-grams rather than meaning: at full weight they buried good
// lexical hits, and they weigh HashingVectorWeight.
type Searcher struct {
	store        *store.Store
	an           *Analyzer
	emb          embed.Embedder
	embedTimeout time.Duration
	vectorWeight float64
	log          *slog.Logger
}

// HashingVectorWeight is the weight of the hashing embedder's vector list in
// the fusion: at a full weight its lists, which match words rather than
// meanings, outranked the terms' on KdConv and LoCoMo; at 0.25 the fusion
// finds what the terms alone find (docs/benchmarks.md, History).
const HashingVectorWeight = 0.25

// DefaultEmbedTimeout bounds the embedding of a query: search answers a
// request in flight, and a slow embedder must not hold it; past the bound
// the search goes on with terms only.
const DefaultEmbedTimeout = 2 * time.Second

// NewSearcher returns a searcher. emb may be nil (lexical search only);
// embedTimeout 0 means DefaultEmbedTimeout.
func NewSearcher(st *store.Store, an *Analyzer, emb embed.Embedder, embedTimeout time.Duration, log *slog.Logger) *Searcher {
	if embedTimeout <= 0 {
		embedTimeout = DefaultEmbedTimeout
	}
	weight := 1.0
	if _, ok := emb.(*embed.Hashing); ok {
		weight = HashingVectorWeight
	}
	return &Searcher{store: st, an: an, emb: emb, embedTimeout: embedTimeout, vectorWeight: weight, log: log}
}

// Query is one search: the tenant, the query text, and the user, filters and
// knobs of Params (whose Terms, and Vector, Model and VectorWeight unless
// given, the searcher fills in).
type Query struct {
	TenantID string
	Text     string
	// Untimed, when set, is what is searched for instead of Text (its
	// terms and its vector): the message without the times it names
	// (when.MessageTimes), which During stands for; "Saturday" said of
	// other days is not what "last Saturday" asks for. Text's terms when
	// nothing is left to search for.
	Untimed string
	Params
}

// Result is what a search found, and how it searched.
type Result struct {
	Hits []Hit
	// During are the times the query names that the search lifted
	// (Params.During).
	During []when.Span
	// Terms are the query's terms.
	Terms []string
	// Vector says whether the vector side ran; EmbedErr is why not when an
	// embedder is configured (it failed or timed out).
	Vector   bool
	EmbedErr error
}

// Search searches a user's history. A query that yields neither terms nor a
// vector finds nothing and is no error.
func (s *Searcher) Search(ctx context.Context, q Query) (Result, error) {
	p, res, ok := s.Prepare(ctx, q)
	if !ok {
		return res, nil
	}
	// A search reads what was indexed, which a read replica may serve
	// (store.Store.Read).
	var hits []Hit
	err := s.store.Read(ctx, func(r *store.Store) (err error) {
		hits, err = Find(ctx, r.Tenant(q.TenantID), p)
		return err
	})
	if err != nil {
		return res, err
	}
	res.Hits = hits
	return res, nil
}

// Prepare turns a query into search parameters: its terms, and its vector
// when an embedder is configured (a failed or slow embedder leaves the
// vector out and says why in the result). ok is false when the query has
// neither terms nor a vector, so there is nothing to search for. For a
// caller that runs the search itself, as the context does within its own
// reads (Plan, store.Tenant.Context).
func (s *Searcher) Prepare(ctx context.Context, q Query) (p Params, res Result, ok bool) {
	p = q.Params
	text := q.Text
	if q.Untimed != "" {
		text = q.Untimed
	}
	p.Terms = s.an.QueryTerms(WithoutCountOperators(text))
	if p.VectorWeight == 0 {
		p.VectorWeight = s.vectorWeight
	}
	if p.Vector == nil && s.emb != nil && text != "" {
		p.Vector, p.Model, res.EmbedErr = s.embedQuery(ctx, text)
		if res.EmbedErr != nil {
			s.log.WarnContext(ctx, "search: query not embedded, searching by terms only",
				"tenant", q.TenantID, "user", p.UserID, "err", res.EmbedErr)
		}
	}
	if len(p.Terms) == 0 && p.Vector == nil && text != q.Text {
		// Nothing left to search for but the times the message names: its
		// own words then.
		p.Terms = s.an.QueryTerms(q.Text)
	}
	res.Terms, res.Vector = p.Terms, p.Vector != nil
	return p, res, len(p.Terms) > 0 || p.Vector != nil
}

func (s *Searcher) embedQuery(ctx context.Context, text string) ([]float32, string, error) {
	// The local embedder computes in this process, in microseconds: there
	// is no call to give up on, and arming a deadline for it cost as much
	// as the vector.
	if h, ok := s.emb.(*embed.Hashing); ok {
		return h.Vector(events.ClipUTF8(text, maxEmbedBytes, "")), h.Model(), nil
	}
	ctx, cancel := context.WithTimeout(ctx, s.embedTimeout)
	defer cancel()
	vecs, err := s.emb.Embed(ctx, []string{events.ClipUTF8(text, maxEmbedBytes, "")})
	if err != nil {
		return nil, "", err
	}
	if len(vecs) != 1 || len(vecs[0]) == 0 {
		return nil, "", fmt.Errorf("%w: %d vectors for one text", embed.ErrBadResponse, len(vecs))
	}
	return vecs[0], s.emb.Model(), nil
}
