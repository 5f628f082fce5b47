// Package catalog is the worker that keeps the bookshelf: it consumes catalog
// items and shelf entries from the signal stream on its own durable consumer,
// embeds the items, stores both (last writer wins by event time, one
// transaction per batch), and asks the profiler to recompute the vectors of the
// users whose shelves or shelf items changed.
package catalog

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"strings"

	"github.com/recallhq/recall/pkg/queue"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/recallhq/recall/pkg/embed"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/store"
)

// ConsumerName is the catalog worker's durable consumer.
const ConsumerName = "catalog"

// Binding is where the catalog worker reads: catalog items and shelf entries.
var Binding = queue.Binding{Durable: ConsumerName, Stream: queue.SignalsStream, Filters: []string{events.CatalogSubjects, events.ShelfSubjects}}

// Config is the catalog worker's part of the config.
type Config struct {
	Consumer queue.ConsumerConfig `envPrefix:"CATALOG_"`
	Runner   queue.RunnerConfig   `envPrefix:"CATALOG_"`
	// Refresh debounces the profile tasks the worker publishes.
	Refresh queue.RefreshConfig
}

// DefaultRunnerConfig: embedding is per batch (one request to a remote model
// for the whole batch), and the batch is stored in one transaction.
var DefaultRunnerConfig = queue.RunnerConfig{BatchSize: 200, Concurrency: 2}

// Worker stores catalog items and shelf entries.
type Worker struct {
	cfg       Config
	store     *store.Store
	emb       embed.Embedder
	dims      int
	refresher *queue.Refresher
	limits    events.Limits
	log       *slog.Logger
	metrics   *metrics
}

type metrics struct {
	events    *prometheus.CounterVec
	refreshes prometheus.Counter
}

// New returns a Worker embedding with emb. It learns the embedder's dimension
// (asking a remote model once when it is not configured) and makes sure the
// catalog's HNSW index for that dimension exists, so that recommendations are
// served by the index from the first item on. reg may be nil.
func New(ctx context.Context, cfg Config, st *store.Store, emb embed.Embedder, js jetstream.JetStream, limits events.Limits, log *slog.Logger, reg prometheus.Registerer) (*Worker, error) {
	dims, err := embed.ProbeDimension(ctx, emb)
	if err != nil {
		return nil, err
	}
	if err := st.EnsureCatalogIndex(ctx, dims); err != nil {
		if dims <= store.MaxIndexedDims {
			return nil, err
		}
		// Too large for HNSW: recommendations still work, by exact scan.
		log.Warn("no HNSW index for catalog embeddings; recommendations scan exactly", "dims", dims, "error", err.Error())
	}
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
	if reg != nil {
		reg.MustRegister(m.events, m.refreshes)
	}
	return &Worker{
		cfg: cfg, store: st, emb: emb, dims: dims, refresher: queue.NewRefresher(js, cfg.Refresh.Bucket),
		limits: limits, log: log, metrics: m,
	}, nil
}

// Dimension is the dimension of the embeddings the worker stores.
func (w *Worker) Dimension() int { return w.dims }

// Handle is the batch handler. Invalid events fail permanently (dead letter);
// the rest are stored in one transaction, and if that fails each event is
// retried alone so one bad event cannot hold back the others. After the commit,
// the users whose vectors changed get a profile refresh task; if that publish
// fails, the events are retried, and being redelivered makes them publish
// their users' tasks even though the database has nothing new to say.
func (w *Worker) Handle(ctx context.Context, msgs []queue.Message) []error {
	errs := make([]error, len(msgs))
	var items []store.CatalogUpsert
	var shelf []store.ShelfUpsert
	var itemIdx, shelfIdx []int
	var texts []string
	var textItems []int // index into items of each text to embed
	for i, m := range msgs {
		ids, err := events.ParseSignalSubject(m.Subject)
		if err != nil {
			errs[i] = queue.Permanent(&events.ValidationError{Fields: []events.FieldError{{Field: "(subject)", Message: err.Error()}}})
			continue
		}
		opts := events.ValidateOptions{Limits: w.limits}
		switch ids.Kind {
		case events.KindCatalog:
			it, err := events.DecodeCatalogItem(m.Data, opts)
			if err == nil {
				err = events.CheckCatalogSubject(m.Subject, &it)
			}
			if err != nil {
				errs[i] = queue.Permanent(err)
				continue
			}
			up := store.CatalogUpsert{
				TenantID: it.TenantID, Ref: it.Ref, Type: it.Type, Title: it.Title, Attrs: it.Attrs,
				Deleted: it.Deleted, EventID: it.ID, OccurredAt: it.OccurredAt, Force: m.Deliveries > 1,
			}
			switch {
			case it.Deleted:
				w.metrics.events.WithLabelValues("catalog", "deleted").Inc()
			case w.usable(&it):
				vec, ok, err := unit(w.dims, it.Embedding)
				if err != nil {
					errs[i] = queue.Permanent(fmt.Errorf("embedding: %w", err))
					continue
				}
				if ok {
					up.Embedding, up.EmbeddingModel = vec, w.emb.Model()
					w.metrics.events.WithLabelValues("catalog", "given").Inc()
					break
				}
				fallthrough // a zero vector says nothing: embed the text instead
			default:
				texts = append(texts, ItemText(it.Title, it.Attrs))
				textItems = append(textItems, len(items))
			}
			items = append(items, up)
			itemIdx = append(itemIdx, i)
		case events.KindShelf:
			e, err := events.DecodeShelfEntry(m.Data, opts)
			if err == nil {
				err = events.CheckShelfSubject(m.Subject, &e)
			}
			if err != nil {
				errs[i] = queue.Permanent(err)
				continue
			}
			shelf = append(shelf, store.ShelfUpsert{
				TenantID: e.TenantID, UserID: e.UserID, Ref: e.Ref, Status: e.Status,
				EventID: e.ID, OccurredAt: e.OccurredAt, Force: m.Deliveries > 1,
			})
			shelfIdx = append(shelfIdx, i)
			w.metrics.events.WithLabelValues("shelf", e.Status).Inc()
		default:
			errs[i] = queue.Permanent(fmt.Errorf("subject %q: the catalog worker reads catalog and shelf events only", m.Subject))
		}
	}
	if len(texts) > 0 {
		if err := w.embedItems(ctx, items, texts, textItems); err != nil {
			// The items that needed embedding are retried; the rest of the
			// batch (shelf entries, deletions, given embeddings) goes on.
			failed := make(map[int]bool, len(textItems))
			for _, k := range textItems {
				failed[k] = true
				errs[itemIdx[k]] = err
			}
			var keep []store.CatalogUpsert
			var keepIdx []int
			for k := range items {
				if !failed[k] {
					keep, keepIdx = append(keep, items[k]), append(keepIdx, itemIdx[k])
				}
			}
			items, itemIdx = keep, keepIdx
		}
	}
	if len(items)+len(shelf) == 0 {
		return errs
	}
	refresh, err := w.store.ApplySignals(ctx, items, shelf)
	if err != nil && len(items)+len(shelf) > 1 {
		// One at a time, so that only the events the database refuses fail.
		refresh = nil
		for k, it := range items {
			r, err := w.store.ApplySignals(ctx, []store.CatalogUpsert{it}, nil)
			errs[itemIdx[k]] = err
			refresh = append(refresh, r...)
		}
		for k, e := range shelf {
			r, err := w.store.ApplySignals(ctx, nil, []store.ShelfUpsert{e})
			errs[shelfIdx[k]] = err
			refresh = append(refresh, r...)
		}
		err = nil
	}
	if err != nil {
		for _, i := range slices.Concat(itemIdx, shelfIdx) {
			errs[i] = err
		}
		return errs
	}
	if perr := w.publishRefresh(ctx, refresh); perr != nil {
		for _, i := range slices.Concat(itemIdx, shelfIdx) {
			if errs[i] == nil {
				errs[i] = perr
			}
		}
	}
	return errs
}

// usable reports whether the producer's embedding can stand for the item: the
// embedder's dimension, and its model when the producer names one. Vectors of
// other models live in other spaces and must not be compared with ours.
func (w *Worker) usable(it *events.CatalogItem) bool {
	return len(it.Embedding) == w.dims && (it.EmbeddingModel == "" || it.EmbeddingModel == w.emb.Model())
}

// embedItems embeds texts and sets the vectors on the items they belong to.
// A text with nothing to embed leaves its item without a vector.
func (w *Worker) embedItems(ctx context.Context, items []store.CatalogUpsert, texts []string, textItems []int) error {
	vecs, err := w.emb.Embed(ctx, texts)
	if err != nil {
		return fmt.Errorf("embed %d catalog items: %w", len(texts), err)
	}
	if len(vecs) != len(texts) {
		return fmt.Errorf("embed %d catalog items: %d vectors: %w", len(texts), len(vecs), embed.ErrBadResponse)
	}
	for k, v := range vecs {
		vec, ok, err := unit(w.dims, v)
		if err != nil {
			return fmt.Errorf("embed catalog item %s: %w", items[textItems[k]].Ref, err)
		}
		if ok {
			items[textItems[k]].Embedding, items[textItems[k]].EmbeddingModel = vec, w.emb.Model()
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

// NewRunner declares the catalog consumer (catalog and shelf subjects of the
// signal stream) and returns the runner for w.
func NewRunner(ctx context.Context, js jetstream.JetStream, w *Worker, log *slog.Logger, m *queue.RunnerMetrics) (*queue.Runner, error) {
	return Binding.NewRunner(ctx, js, w.cfg.Consumer, w.Handle, w.RunnerConfig(), log, m)
}

// RunnerConfig is the configured runner settings over the worker\'s defaults.
func (w *Worker) RunnerConfig() queue.RunnerConfig { return w.cfg.Runner.Or(DefaultRunnerConfig) }
