// Package ingest is the worker that stores turns: it consumes the turn stream in
// batches and writes sessions and messages in one transaction per batch.
package ingest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/store"
)

// ConsumerName is the ingest worker's durable consumer.
const ConsumerName = "ingest"

// DefaultRunnerConfig batches hundreds of turns or a few milliseconds, whichever
// comes first, with two batches in flight so the database never idles while the
// next batch is gathered.
var DefaultRunnerConfig = events.RunnerConfig{BatchSize: 500, Concurrency: 2}

// Worker decodes turns and stores them.
type Worker struct {
	store  *store.Store
	limits events.Limits
	log    *slog.Logger
}

// New returns a Worker.
func New(st *store.Store, limits events.Limits, log *slog.Logger) *Worker {
	return &Worker{store: st, limits: limits, log: log}
}

// Handle is the batch handler: malformed or invalid turns fail permanently (the
// runner dead-letters them at once); the valid ones are stored in one transaction.
// If that transaction fails, each turn is retried alone so one poisoned turn cannot
// hold back the others.
func (w *Worker) Handle(ctx context.Context, msgs []events.Message) []error {
	errs := make([]error, len(msgs))
	turns := make([]store.StoredTurn, 0, len(msgs))
	idx := make([]int, 0, len(msgs))
	for i, m := range msgs {
		t, err := events.DecodeTurn(m.Data, events.ValidateOptions{Limits: w.limits})
		if err == nil {
			err = events.CheckSubject(m.Subject, &t)
		}
		if err != nil {
			errs[i] = events.Permanent(err)
			continue
		}
		turns = append(turns, store.StoredTurn{Turn: t, Seq: m.Seq})
		idx = append(idx, i)
	}
	if len(turns) == 0 {
		return errs
	}
	if err := w.store1(ctx, turns); err == nil || len(turns) == 1 {
		for _, i := range idx {
			errs[i] = err
		}
		return errs
	}
	for k, t := range turns {
		errs[idx[k]] = w.store1(ctx, []store.StoredTurn{t})
	}
	return errs
}

func (w *Worker) store1(ctx context.Context, turns []store.StoredTurn) error {
	if _, err := w.store.InsertTurns(ctx, turns); err != nil {
		return classify(err)
	}
	return nil
}

// classify keeps database errors retryable (the runner dead-letters after
// MaxDeliver), but names the constraint so the dead letter says what was wrong.
func classify(err error) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.ConstraintName != "" {
		return fmt.Errorf("%w (constraint %s)", err, pgErr.ConstraintName)
	}
	return err
}

// Config is the ingest worker's part of the config; env names are prefixed with
// INGEST_ so that the all-in-one process can tune each worker apart.
type Config struct {
	Consumer events.ConsumerConfig `envPrefix:"INGEST_"`
	Runner   events.RunnerConfig   `envPrefix:"INGEST_"`
}

// NewRunner declares the ingest consumer and returns the runner that feeds Handle.
func NewRunner(ctx context.Context, js jetstream.JetStream, st *store.Store, cfg Config, limits events.Limits, log *slog.Logger, metrics *events.RunnerMetrics) (*events.Runner, error) {
	rc := cfg.Runner
	if rc.BatchSize == 0 {
		rc.BatchSize = DefaultRunnerConfig.BatchSize
	}
	if rc.Concurrency == 0 {
		rc.Concurrency = DefaultRunnerConfig.Concurrency
	}
	w := New(st, limits, log)
	return events.NewRunner(ctx, js, events.TurnsStream,
		events.DurableConsumer(ConsumerName, events.TurnsSubjects, cfg.Consumer),
		w.Handle, rc, log, metrics)
}
