// Package seen is the worker that keeps each user's seen-item registry: it
// consumes the turn stream on its own durable consumer and records every item a
// turn presented (store.RecordSeen), so that a notifier can ask which items are
// new to a user (POST /v1/users/{user_id}/items/unseen).
//
// It runs apart from ingest on purpose. Recording costs about as much per
// presented item as storing a turn does; in ingest's transaction it cut ingest's
// rate by 12–22% on the benchmark's turns (a three-item list every tenth turn).
// Ingest is what the next prompt waits for; the registry is read by scheduled
// notifiers, which do not mind it being a few milliseconds behind. On its own
// consumer it costs one more delivery per turn, and turns without a list are
// acknowledged without being decoded.
package seen

import (
	"bytes"
	"context"
	"log/slog"

	"github.com/recallhq/recall/pkg/queue"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/store"
)

// ConsumerName is the worker's durable consumer.
const ConsumerName = "seen"

// Binding is where the worker reads: every turn (it records those with items).
var Binding = queue.Binding{Durable: ConsumerName, Stream: queue.TurnsStream, Filters: []string{events.TurnsSubjects}}

// DefaultRunnerConfig batches like ingest: most turns are acknowledged without
// work, and a batch's lists are recorded in one round trip.
var DefaultRunnerConfig = queue.RunnerConfig{BatchSize: 500, Concurrency: 2}

// Config is the worker's part of the config.
type Config struct {
	Consumer queue.ConsumerConfig `envPrefix:"SEEN_"`
	Runner   queue.RunnerConfig   `envPrefix:"SEEN_"`
	// Cap bounds each user's registry; beyond it the items first seen longest
	// ago are deleted (0: store.DefaultSeenCap).
	Cap int `env:"ITEMS_SEEN_CAP" envDefault:"100"`
}

// Worker records the items turns presented.
type Worker struct {
	store   *store.Store
	limits  events.Limits
	cap     int
	log     *slog.Logger
	metrics *metrics
}

type metrics struct {
	turns *prometheus.CounterVec
	items prometheus.Counter
}

// New returns a Worker. reg may be nil.
func New(cfg Config, st *store.Store, limits events.Limits, log *slog.Logger, reg prometheus.Registerer) *Worker {
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
	if reg != nil {
		reg.MustRegister(m.turns, m.items)
	}
	return &Worker{store: st, limits: limits, cap: cfg.Cap, log: log, metrics: m}
}

// Handle is the batch handler. A turn that cannot hold items is acknowledged
// without decoding; invalid turns fail permanently (the runner dead-letters
// them, as ingest does); the lists of the batch are recorded in one
// transaction, and if that fails each turn is retried alone, so that one bad
// turn cannot hold back the others.
func (w *Worker) Handle(ctx context.Context, msgs []queue.Message) []error {
	errs := make([]error, len(msgs))
	var turns []events.Turn
	var idx []int
	items := 0
	for i, m := range msgs {
		if !mayHaveItems(m.Data) {
			w.metrics.turns.WithLabelValues("no_list").Inc()
			continue
		}
		t, err := events.DecodeTurn(m.Data, events.ValidateOptions{Limits: w.limits})
		if err == nil {
			err = events.CheckSubject(m.Subject, &t)
		}
		if err != nil {
			errs[i] = queue.Permanent(err)
			continue
		}
		if len(t.Items) == 0 {
			w.metrics.turns.WithLabelValues("no_list").Inc()
			continue
		}
		turns = append(turns, t)
		idx = append(idx, i)
		items += len(t.Items)
	}
	if len(turns) == 0 {
		return errs
	}
	err := w.store.RecordSeen(ctx, turns, w.cap)
	if err == nil || len(turns) == 1 {
		for _, i := range idx {
			errs[i] = err
		}
		if err == nil {
			w.metrics.turns.WithLabelValues("recorded").Add(float64(len(turns)))
			w.metrics.items.Add(float64(items))
		}
		return errs
	}
	w.log.Warn("recording a batch's lists failed; retrying each turn alone", "turns", len(turns), "error", err.Error())
	for k := range turns {
		err := w.store.RecordSeen(ctx, turns[k:k+1], w.cap)
		errs[idx[k]] = err
		if err == nil {
			w.metrics.turns.WithLabelValues("recorded").Inc()
			w.metrics.items.Add(float64(len(turns[k].Items)))
		}
	}
	return errs
}

// mayHaveItems reports whether an encoded turn can have an "items" member: the
// key spelled plainly, or some \u escape that might spell it. Everything else is
// a turn without a list, which ingest validates and stores; this worker has
// nothing to do with it.
func mayHaveItems(data []byte) bool {
	return bytes.Contains(data, []byte(`"items"`)) || bytes.Contains(data, []byte(`\u`))
}

// NewRunner declares the worker's consumer on the turn stream and returns the
// runner that feeds Handle.
func NewRunner(ctx context.Context, js jetstream.JetStream, w *Worker, cfg Config, log *slog.Logger, metrics *queue.RunnerMetrics) (*queue.Runner, error) {
	return Binding.NewRunner(ctx, js, cfg.Consumer, w.Handle, cfg.Runner.Or(DefaultRunnerConfig), log, metrics)
}
