// Package seen is the worker that keeps each user's seen-item registry: it
// consumes the turn stream on its own durable consumer and records every item a
// turn presented (store.RecordSeen), so that a notifier can ask which items are
// new to a user (POST /v1/users/{user_id}/items/unseen).
//
// It runs apart from ingest on purpose. Recording costs about as much per
// presented item as storing a turn does, and in ingest's transaction it slowed
// ingest measurably (docs/benchmarks.md, History).
// Ingest is what the next prompt waits for; the registry is read by scheduled
// notifiers, which do not mind it being a few milliseconds behind. On its own
// consumer it costs one more delivery per turn, and turns without a list are
// acknowledged without being decoded.
package seen

import (
	"bytes"
	"context"
	"log/slog"

	"github.com/recallhq/recall/pkg/changefeed"
	"github.com/recallhq/recall/pkg/contract"
	"github.com/recallhq/recall/pkg/queue"
	"github.com/recallhq/recall/pkg/worker"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/store"
)

// Def is the seen-item worker as the registry lists it.
var Def = worker.Def[Config, *Worker]{
	Name:    "seen",
	Doc:     "records the items each turn presented in its user's seen registry",
	Binding: queue.Binding{Durable: "seen", Stream: queue.TurnsStream, Filters: []string{events.TurnsSubjects}},
	// The change of each list presented.
	Publishes: []string{events.ChangeSubjects},
	// Batches like ingest: most turns are acknowledged without work, and a
	// batch's lists are recorded in one round trip.
	BatchSize: 500, Concurrency: 2,
	Queue: func(c *Config) *worker.Queue { return &c.Queue },
	New:   func(_ context.Context, cfg Config, d *worker.Deps) (*Worker, error) { return New(cfg, d), nil },
}

// Config is the worker's part of the config.
type Config struct {
	Queue worker.Queue `envPrefix:"SEEN_"`
	// Cap bounds each user's registry; beyond it the items first seen longest
	// ago are deleted, at write time. A deployment that does not run this
	// worker keeps no registry.
	Cap int `env:"ITEMS_SEEN_CAP" envDefault:"100"`
}

// Worker records the items turns presented.
type Worker struct {
	store   *store.Store
	limits  events.Limits
	cap     int
	log     *slog.Logger
	metrics *metrics
	changes *changefeed.Publisher
}

type metrics struct {
	turns *prometheus.CounterVec
	items prometheus.Counter
}

// New returns the worker; its metrics go to d.Registry (nil: none).
func New(cfg Config, d *worker.Deps) *Worker {
	m := &metrics{
		turns: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "recall", Subsystem: "seen", Name: "turns_total",
			Help: "Turns read by the seen-item worker, by outcome (recorded: presented a list; no_list).",
		}, []string{"outcome"}),
		items: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: "recall", Subsystem: "seen", Name: "items_total",
			Help: "Presented items handed to the registry (before deduplication of redelivered turns).",
		}),
	}
	if d.Registry != nil {
		d.Registry.MustRegister(m.turns, m.items)
	}
	return &Worker{store: d.Store, limits: d.Limits, cap: cfg.Cap, log: d.Log, metrics: m, changes: changefeed.NewPublisher(d.JS)}
}

// Handle is the batch handler. A turn that cannot hold items is acknowledged
// without decoding; invalid turns fail permanently (the runner dead-letters
// them, as ingest does); the lists of the batch are recorded in one
// transaction (queue.Batch: one bad turn cannot hold back the others), and
// then told on the change feed (list.presented): each list recorded now, and
// each list of a redelivered turn, whose first handling may have recorded
// it and failed before it told (the stream drops what it has). When that
// publish fails, every turn of the batch is retried (ValueErrors: recorded
// again one at a time in this delivery, they would find nothing new).
func (w *Worker) Handle(ctx context.Context, msgs []queue.Message) []error {
	return queue.Batch[presented]{
		Prepare: func(_ context.Context, m queue.Message) (presented, bool, error) {
			if !mayHaveItems(m.Data) {
				w.metrics.turns.WithLabelValues("no_list").Inc()
				return presented{}, false, nil
			}
			t, err := queue.TurnEnvelope.Read(m, w.limits)
			if err == nil && len(t.Items) == 0 {
				w.metrics.turns.WithLabelValues("no_list").Inc()
				return presented{turn: t}, false, nil
			}
			return presented{turn: t, again: m.Deliveries > 1}, err == nil, err
		},
		Admit: worker.OwnSessions(w.store, func(p *presented) store.SessionClaim { return store.ClaimOf(&p.turn) }),
		Store: func(ctx context.Context, ps []presented) error {
			turns := make([]events.Turn, len(ps))
			for i := range ps {
				turns[i] = ps[i].turn
			}
			recorded, err := w.store.RecordSeen(ctx, turns, w.cap)
			if err != nil {
				return err
			}
			w.metrics.turns.WithLabelValues("recorded").Add(float64(len(turns)))
			for _, t := range turns {
				w.metrics.items.Add(float64(len(t.Items)))
			}
			var cs []contract.Change
			for _, p := range ps {
				if p.again || recorded[[2]string{p.turn.TenantID, p.turn.ID}] {
					cs = append(cs, changefeed.ListPresented(&p.turn))
				}
			}
			changefeed.Sort(cs)
			if err := w.changes.Publish(ctx, cs); err != nil {
				errs := make(queue.ValueErrors, len(ps))
				for i := range errs {
					errs[i] = err
				}
				return errs
			}
			return nil
		},
		Log: w.log,
	}.Handle(ctx, msgs)
}

// presented is a turn with a list, and whether it was delivered before.
type presented struct {
	turn  events.Turn
	again bool
}

// mayHaveItems reports whether an encoded turn can have an "items" member: the
// key spelled plainly, or some \u escape that might spell it. Everything else is
// a turn without a list, which ingest validates and stores; this worker has
// nothing to do with it.
func mayHaveItems(data []byte) bool {
	return bytes.Contains(data, []byte(`"items"`)) || bytes.Contains(data, []byte(`\u`))
}
