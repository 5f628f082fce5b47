// Package indexer is the worker that makes a user's history searchable: on
// its own durable consumer of the turn stream, it writes a search entry for
// every user and assistant turn with text (terms from package search's
// analyzer, and an embedding from the configured embedder), so that the
// context can recall what the current message needs from all of the user's
// past. The search itself (analyzer, ranking) is package search; summaries
// and facts are indexed by the workers that write them.
//
// Re-indexing after a change of analyzer or embedding model is a replay:
// `recall replay -worker indexer`. Writes are idempotent, so redelivery,
// duplicate publishes and replays change nothing but what the change asks
// for (a new model's vectors).
package indexer

import (
	"context"
	"errors"
	"log/slog"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/recallhq/recall/pkg/embed"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/queue"
	"github.com/recallhq/recall/pkg/search"
	"github.com/recallhq/recall/pkg/store"
	"github.com/recallhq/recall/pkg/worker"
)

// Def is the indexer as the registry lists it.
var Def = worker.Def[Config, *Worker]{
	Name:    "indexer",
	Doc:     "indexes every user and assistant turn for memory search: terms and an embedding",
	Binding: queue.Binding{Durable: "indexer", Stream: queue.TurnsStream, Filters: []string{events.TurnsSubjects}},
	// Analysis is CPU work per turn; a batch is embedded in one request and
	// stored in one statement.
	BatchSize: 200, Concurrency: 2,
	Queue: func(c *Config) *worker.Queue { return &c.Queue },
	New:   New,
}

// Config is the indexer's part of the config.
type Config struct {
	Queue worker.Queue `envPrefix:"INDEXER_"`
	// ToolResults also indexes the string values of a turn's tool results
	// (what a search tool returned), which are not what was said and can be
	// large; off by default.
	ToolResults bool `env:"INDEX_TOOL_RESULTS" envDefault:"false"`
	// Embed is the embedder (EMBED_*); without EMBED_MODEL the local hashing
	// embedder, so search works offline.
	Embed embed.Config
}

// Worker indexes turns.
type Worker struct {
	cfg        Config
	store      *store.Store
	ix         *search.Indexer
	emb        embed.Embedder
	limits     events.Limits
	maxDeliver int
	log        *slog.Logger
	metrics    *prometheus.CounterVec
}

// New builds the indexer on the process's shared analyzer (the segmenter's
// dictionary, loaded once) and embedder.
func New(_ context.Context, cfg Config, d *worker.Deps) (*Worker, error) {
	an := search.SharedAnalyzer()
	emb, err := d.Embedder(cfg.Embed)
	if err != nil {
		return nil, err
	}
	m := prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "recall", Subsystem: "indexer", Name: "turns_total",
		Help: "Turns read by the indexer, by outcome: indexed, skipped (system and tool turns, no text), unembedded (stored with terms only after the embedder failed on the last delivery).",
	}, []string{"outcome"})
	if d.Registry != nil {
		d.Registry.MustRegister(m)
	}
	d.Log.Info("indexing turns", "embedder", emb.Model(), "tool_results", cfg.ToolResults)
	return &Worker{cfg: cfg, store: d.Store, ix: search.NewIndexer(d.Store, an, emb), emb: emb, limits: d.Limits,
		maxDeliver: cfg.Queue.Consumer.MaxDeliver, log: d.Log, metrics: m}, nil
}

// entry is a turn's search entry and whether its message is on its last
// delivery.
type entry struct {
	e store.SearchEntry
	// claim is the turn's claim on its session (worker.OwnSessions).
	claim store.SessionClaim
	last  bool
}

// Handle is the batch handler. Invalid turns fail permanently (ingest
// dead-letters them too); the batch's entries get their terms, are embedded
// in one request and stored in one statement (queue.Batch). When the embedder
// fails, the turns are retried so they get their vectors, except on their
// last delivery, where they are stored with terms only: search finds them
// lexically, and a replay adds the vectors.
func (w *Worker) Handle(ctx context.Context, msgs []queue.Message) []error {
	return queue.Batch[entry]{
		Prepare: func(_ context.Context, m queue.Message) (entry, bool, error) {
			t, err := queue.TurnEnvelope.Read(m, w.limits)
			if err != nil {
				return entry{}, false, err
			}
			if w.cfg.ToolResults {
				for _, tc := range t.ToolCalls {
					if s := strings.Join(tc.ResultStrings(), "\n"); s != "" {
						t.Content += "\n" + s
					}
				}
			}
			e, ok := search.TurnEntry(t)
			if !ok {
				w.metrics.WithLabelValues("skipped").Inc()
				return entry{}, false, nil
			}
			return entry{e: e, claim: store.ClaimOf(&t), last: w.maxDeliver > 0 && m.Deliveries >= uint64(w.maxDeliver)}, true, nil
		},
		Admit:  worker.OwnSessions(w.store, func(e *entry) store.SessionClaim { return e.claim }),
		Enrich: w.prepare,
		Store: func(ctx context.Context, es []entry) error {
			entries := make([]store.SearchEntry, len(es))
			for i := range es {
				entries[i] = es[i].e
			}
			if _, err := w.store.UpsertSearchEntries(ctx, entries); err != nil {
				return err
			}
			for _, e := range es {
				if e.e.Embedding == nil && w.emb != nil {
					w.metrics.WithLabelValues("unembedded").Inc()
				} else {
					w.metrics.WithLabelValues("indexed").Inc()
				}
			}
			return nil
		},
		Log: w.log,
	}.Handle(ctx, msgs)
}

// prepare gives the batch's entries their terms and, in one request, their
// vectors. When embedding fails, the entries on their last delivery go on
// with terms only and the others are retried.
func (w *Worker) prepare(ctx context.Context, es []entry) []error {
	entries := make([]store.SearchEntry, len(es))
	for i := range es {
		entries[i] = es[i].e
	}
	err := w.ix.Prepare(ctx, entries)
	for i := range es {
		es[i].e = entries[i]
	}
	if err == nil {
		return nil
	}
	if !errors.Is(err, search.ErrEmbed) {
		errs := make([]error, len(es))
		for i := range errs {
			errs[i] = err
		}
		return errs
	}
	errs := make([]error, len(es))
	retried := 0
	for i, e := range es {
		if !e.last {
			errs[i] = err
			retried++
		}
	}
	w.log.Warn("embedding failed; retrying the batch's turns, storing those on their last delivery with terms only",
		"turns", len(es), "retried", retried, "error", err.Error())
	return errs
}
