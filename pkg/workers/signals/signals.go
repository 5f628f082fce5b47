// Package signals is the worker of the signal stream, registered as "catalog"
// (its binary cmd/catalog, its durable consumer, NATS user and metrics keep
// that name): what the app tells Recall beside chat turns. It consumes catalog
// items, shelf entries and attribute edits on its own durable consumer, embeds
// the items, stores the items and shelf entries (last writer wins by event
// time, one transaction per batch) and the edits (assertions of source
// explicit, pkg/attribute), and asks the profiler to recompute the vectors of
// the users whose shelves or shelf items changed.
package signals

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"

	"github.com/recallhq/recall/pkg/queue"
	"github.com/recallhq/recall/pkg/worker"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/recallhq/recall/pkg/attribute"
	"github.com/recallhq/recall/pkg/changefeed"
	"github.com/recallhq/recall/pkg/embed"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/store"
)

// Def is the catalog worker as the registry lists it.
var Def = worker.Def[Config, *Worker]{
	Name:    "catalog",
	Doc:     "stores catalog items (embedded), shelf entries and attribute edits, and asks for the profiles they change",
	Binding: queue.Binding{Durable: "catalog", Stream: queue.SignalsStream, Filters: []string{events.CatalogSubjects, events.ShelfSubjects, events.AttributeSubjects}},
	// The profile refresh of a user whose shelf changed, and the changes
	// the attribute edits made.
	Publishes: []string{events.ProfileTaskSubjects, events.ChangeSubjects},
	// Embedding is per batch (one request to a remote model for the whole
	// batch), and the batch is stored in one transaction.
	BatchSize: 200, Concurrency: 2,
	Queue: func(c *Config) *worker.Queue { return &c.Queue },
	New:   New,
}

// Config is the catalog worker's part of the config.
type Config struct {
	Queue worker.Queue `envPrefix:"CATALOG_"`
	// Refresh debounces the profile tasks the worker publishes.
	Refresh queue.RefreshConfig
	// Embed is the embedder items are embedded with (EMBED_*): the
	// profiler's, since their vectors are compared.
	Embed embed.Config
	// Attributes are the schemas attribute edits are checked against.
	Attributes attribute.Config
}

// Worker stores catalog items and shelf entries.
type Worker struct {
	store     *store.Store
	emb       embed.Embedder
	dims      int
	refresher *queue.Refresher
	changes   *changefeed.Publisher
	limits    events.Limits
	schemas   *attribute.Schemas
	log       *slog.Logger
	metrics   *metrics
}

type metrics struct {
	events    *prometheus.CounterVec
	refreshes prometheus.Counter
}

// New returns the worker, embedding with the process's embedder for
// cfg.Embed. It learns the embedder's dimension (asking a remote model once
// when it is not configured) and makes sure the catalog's HNSW index for that
// dimension exists, so that recommendations are served by the index from the
// first item on.
func New(ctx context.Context, cfg Config, d *worker.Deps) (*Worker, error) {
	schemas, err := cfg.Attributes.Schemas()
	if err != nil {
		return nil, err
	}
	emb, err := d.Embedder(cfg.Embed)
	if err != nil {
		return nil, err
	}
	dims, err := embed.ProbeDimension(ctx, emb)
	if err != nil {
		return nil, err
	}
	if err := d.Store.EnsureCatalogIndex(ctx, dims); err != nil {
		if dims <= store.MaxIndexedDims {
			return nil, err
		}
		// Too large for HNSW: recommendations still work, by exact scan.
		d.Log.Warn("no HNSW index for catalog embeddings; recommendations scan exactly", "dims", dims, "error", err.Error())
	}
	d.Log.Info("embedding catalog items", "model", emb.Model(), "dims", dims)
	m := &metrics{
		events: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "recall", Subsystem: "catalog", Name: "events_total",
			Help: "Catalog and shelf events handled, by kind and outcome (given: the producer's embedding was used; embedded: computed from the item's text).",
		}, []string{"kind", "outcome"}),
		refreshes: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: "recall", Subsystem: "catalog", Name: "profile_refreshes_total",
			Help: "Profile refresh tasks published (before debouncing by the stream).",
		}),
	}
	if d.Registry != nil {
		d.Registry.MustRegister(m.events, m.refreshes)
	}
	return &Worker{
		store: d.Store, emb: emb, dims: dims, refresher: queue.NewRefresher(d.JS, cfg.Refresh.Bucket), changes: changefeed.NewPublisher(d.JS),
		limits: d.Limits, schemas: schemas, log: d.Log, metrics: m,
	}, nil
}

// Dimension is the dimension of the embeddings the worker stores.
func (w *Worker) Dimension() int { return w.dims }

// signal is one event of a batch: a catalog item (text set when it must be
// embedded from its text), a shelf entry, or an attribute edit.
type signal struct {
	item  *store.CatalogUpsert
	shelf *store.ShelfUpsert
	attr  *store.AssertionRow
	text  string
	// again: the event was delivered before (an edit's changes are
	// published again, for the stream to drop those it has).
	again bool
}

// Handle is the batch handler. Invalid events fail permanently (dead letter);
// the items that need it are embedded in one request, and the batch is stored
// in one transaction (queue.Batch: one bad event cannot hold back the
// others). After the commit, the users whose vectors changed get a profile
// refresh task; if that publish fails, the events are retried, and being
// redelivered makes them publish their users' tasks even though the database
// has nothing new to say.
func (w *Worker) Handle(ctx context.Context, msgs []queue.Message) []error {
	return queue.Batch[signal]{Prepare: w.prepare, Enrich: w.embedItems, Store: w.apply, Log: w.log}.Handle(ctx, msgs)
}

func (w *Worker) prepare(_ context.Context, m queue.Message) (signal, bool, error) {
	ids, err := events.ParseSignalSubject(m.Subject)
	if err != nil {
		return signal{}, false, queue.Permanent(&events.ValidationError{Fields: []events.FieldError{{Field: "(subject)", Message: err.Error()}}})
	}
	switch ids.Kind {
	case events.KindCatalog:
		it, err := queue.CatalogEnvelope.Read(m, w.limits)
		if err != nil {
			return signal{}, false, err
		}
		up := &store.CatalogUpsert{
			TenantID: it.TenantID, Ref: it.Ref, Type: it.Type, Title: it.Title, Attrs: it.Attrs,
			Deleted: it.Deleted, EventID: it.ID, OccurredAt: it.OccurredAt, Force: m.Deliveries > 1,
		}
		switch {
		case it.Deleted:
			w.metrics.events.WithLabelValues("catalog", "deleted").Inc()
		case w.usable(&it):
			vec, ok, err := unit(w.dims, it.Embedding)
			if err != nil {
				return signal{}, false, queue.Permanent(fmt.Errorf("embedding: %w", err))
			}
			if ok {
				up.Embedding, up.EmbeddingModel = vec, w.emb.Model()
				w.metrics.events.WithLabelValues("catalog", "given").Inc()
				break
			}
			// A zero vector says nothing: embed the text instead.
			return signal{item: up, text: ItemText(it.Title, it.Attrs)}, true, nil
		default:
			return signal{item: up, text: ItemText(it.Title, it.Attrs)}, true, nil
		}
		return signal{item: up}, true, nil
	case events.KindShelf:
		e, err := queue.ShelfEnvelope.Read(m, w.limits)
		if err != nil {
			return signal{}, false, err
		}
		w.metrics.events.WithLabelValues("shelf", e.Status).Inc()
		return signal{shelf: &store.ShelfUpsert{
			TenantID: e.TenantID, UserID: e.UserID, Ref: e.Ref, Status: e.Status,
			EventID: e.ID, OccurredAt: e.OccurredAt, Force: m.Deliveries > 1,
		}}, true, nil
	case events.KindAttributes:
		e, err := queue.AttributeEnvelope.Read(m, w.limits)
		if err != nil {
			return signal{}, false, err
		}
		a := attribute.Assertion{Key: e.Key, Op: e.Op, Value: e.Value, Source: attribute.Explicit, EventID: e.ID,
			Confidence: 1, At: e.OccurredAt}
		if err := attribute.Normalize(w.schemas.For(e.TenantID), &a); err != nil {
			// The API checks edits against the same schema; one that fails here
			// was published by another producer, or the schema changed since.
			var fe *attribute.FieldError
			if errors.As(err, &fe) {
				err = &events.ValidationError{Fields: []events.FieldError{{Field: fe.Field, Message: fe.Message}}}
			}
			return signal{}, false, queue.Permanent(err)
		}
		w.metrics.events.WithLabelValues("attributes", e.Op).Inc()
		return signal{attr: &store.AssertionRow{TenantID: e.TenantID, UserID: e.UserID, Assertion: a}, again: m.Deliveries > 1}, true, nil
	default:
		return signal{}, false, queue.Permanent(fmt.Errorf("subject %q: the catalog worker reads catalog, shelf and attribute events only", m.Subject))
	}
}

// apply stores a batch's items and shelf entries in one transaction, and its
// attribute edits, and asks for the profiles they change. Both writes are
// idempotent, so a batch retried after the first succeeded changes nothing
// twice. The edits' changes are published before the batch is
// acknowledged: those of the edits stored now, and those of every
// redelivered edit (its first handling may have stored it and failed
// before publishing; the stream drops what it has). When that publish
// fails, every event of the batch is retried (ValueErrors: storing them
// again one at a time in this delivery would find nothing new to publish).
func (w *Worker) apply(ctx context.Context, sigs []signal) error {
	var items []store.CatalogUpsert
	var shelf []store.ShelfUpsert
	var attrs, again []store.AssertionRow
	for _, s := range sigs {
		switch {
		case s.item != nil:
			items = append(items, *s.item)
		case s.shelf != nil:
			shelf = append(shelf, *s.shelf)
		default:
			attrs = append(attrs, *s.attr)
			if s.again {
				again = append(again, *s.attr)
			}
		}
	}
	changed, err := w.store.RecordAssertionsNew(ctx, attrs)
	if err != nil {
		return err
	}
	cs, err := changefeed.Attributes(ctx, w.store, w.schemas, append(changed, again...))
	if err == nil {
		err = w.changes.Publish(ctx, cs)
	}
	if err != nil {
		errs := make(queue.ValueErrors, len(sigs))
		for i := range errs {
			errs[i] = err
		}
		return errs
	}
	if len(items) == 0 && len(shelf) == 0 {
		return nil
	}
	refresh, err := w.store.ApplySignals(ctx, items, shelf)
	if err != nil {
		return err
	}
	return w.publishRefresh(ctx, refresh)
}

// usable reports whether the producer's embedding can stand for the item: the
// embedder's dimension, and its model when the producer names one. Vectors of
// other models live in other spaces and must not be compared with ours.
func (w *Worker) usable(it *events.CatalogItem) bool {
	return len(it.Embedding) == w.dims && (it.EmbeddingModel == "" || it.EmbeddingModel == w.emb.Model())
}

// embedItems embeds, in one request, the items of a batch that have a text
// to embed from. When that fails, those items are retried and the rest of the
// batch (shelf entries, deletions, given embeddings) goes on. A text with
// nothing to embed leaves its item without a vector.
func (w *Worker) embedItems(ctx context.Context, sigs []signal) []error {
	var texts []string
	var at []int
	for k, s := range sigs {
		if s.text != "" {
			texts, at = append(texts, s.text), append(at, k)
		}
	}
	if len(texts) == 0 {
		return nil
	}
	fail := func(err error) []error {
		errs := make([]error, len(sigs))
		for _, k := range at {
			errs[k] = err
		}
		return errs
	}
	vecs, err := w.emb.Embed(ctx, texts)
	if err != nil {
		return fail(fmt.Errorf("embed %d catalog items: %w", len(texts), err))
	}
	if len(vecs) != len(texts) {
		return fail(fmt.Errorf("embed %d catalog items: %d vectors: %w", len(texts), len(vecs), embed.ErrBadResponse))
	}
	for j, v := range vecs {
		it := sigs[at[j]].item
		vec, ok, err := unit(w.dims, v)
		if err != nil {
			return fail(fmt.Errorf("embed catalog item %s: %w", it.Ref, err))
		}
		if ok {
			it.Embedding, it.EmbeddingModel = vec, w.emb.Model()
		}
		w.metrics.events.WithLabelValues("catalog", "embedded").Inc()
	}
	return nil
}

// publishRefresh asks for the users' vectors to be recomputed.
func (w *Worker) publishRefresh(ctx context.Context, refresh []store.Refresh) error {
	if len(refresh) == 0 {
		return nil
	}
	tasks := make([]events.ProfileTask, len(refresh))
	for i, r := range refresh {
		tasks[i] = events.ProfileTask{TenantID: r.TenantID, UserID: r.UserID, RequestedAt: r.At}
	}
	if _, err := w.refresher.Publish(ctx, tasks); err != nil {
		return fmt.Errorf("publish profile refresh: %w", err)
	}
	w.metrics.refreshes.Add(float64(len(tasks)))
	return nil
}

// unit returns v scaled to unit length, so that every item counts by its
// direction alone in an interest vector. ok is false for a vector with no
// direction (all zeros); a non-finite component or a wrong length is an error.
// It is Combine over one contribution: the same arithmetic as the profiles.
func unit(dims int, v []float32) ([]float32, bool, error) {
	if len(v) == 0 {
		return nil, false, nil
	}
	vec, _, ok, err := embed.Combine(dims, []embed.Contribution{{Source: "item", Weight: 1, Vector: v}})
	if err != nil {
		return nil, false, err
	}
	return vec, ok, nil
}

// ItemText is the text an item is embedded from when the producer gives no
// usable embedding: the title, then every string in attrs (authors, genres,
// tags...) with keys in sorted order, one per line, so that the same item
// always gives the same text. Keys, numbers and booleans are left out: keys
// are shared by every item ("author") and would make all items alike.
func ItemText(title string, attrs json.RawMessage) string {
	parts := []string{title}
	if len(attrs) > 0 {
		var v any
		if err := json.Unmarshal(attrs, &v); err == nil {
			parts = appendStrings(parts, v)
		}
	}
	return strings.Join(parts, "\n")
}

func appendStrings(out []string, v any) []string {
	switch x := v.(type) {
	case string:
		if s := strings.TrimSpace(x); s != "" {
			out = append(out, s)
		}
	case []any:
		for _, e := range x {
			out = appendStrings(out, e)
		}
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			out = appendStrings(out, x[k])
		}
	}
	return out
}
