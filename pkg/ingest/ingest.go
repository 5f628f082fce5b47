// Package ingest is the worker that stores turns: it consumes the turn stream in
// batches and writes sessions and messages in one transaction per batch. The same
// statement reports the sessions the batch made due for a summary
// (store.SummaryPolicy), and the worker asks for those after the commit.
package ingest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/recallhq/recall/pkg/queue"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/store"
)

// ConsumerName is the ingest worker's durable consumer.
const ConsumerName = "ingest"

// Binding is where the ingest worker reads: every turn.
var Binding = queue.Binding{Durable: ConsumerName, Stream: queue.TurnsStream, Filters: []string{events.TurnsSubjects}}

// DefaultRunnerConfig batches hundreds of turns or a few milliseconds, whichever
// comes first, with two batches in flight so the database never idles while the
// next batch is gathered.
var DefaultRunnerConfig = queue.RunnerConfig{BatchSize: 500, Concurrency: 2}

// Worker decodes turns and stores them.
type Worker struct {
	store  *store.Store
	limits events.Limits
	log    *slog.Logger
	policy store.SummaryPolicy
	pub    *queue.Publisher
}

// New returns a Worker that asks for no summaries; NewRunner's worker does.
func New(st *store.Store, limits events.Limits, log *slog.Logger) *Worker {
	return &Worker{store: st, limits: limits, log: log, policy: store.SummaryPolicy{EveryMessages: -1}}
}

// WithSummaries makes the worker ask for session summaries by policy,
// publishing the requests with pub.
func (w *Worker) WithSummaries(policy store.SummaryPolicy, pub *queue.Publisher) *Worker {
	w.policy, w.pub = policy, pub
	return w
}

// Handle is the batch handler: malformed or invalid turns fail permanently (the
// runner dead-letters them at once); the valid ones are stored in one transaction.
// If that transaction fails, each turn is retried alone so one poisoned turn cannot
// hold back the others.
func (w *Worker) Handle(ctx context.Context, msgs []queue.Message) []error {
	errs := make([]error, len(msgs))
	turns := make([]store.StoredTurn, 0, len(msgs))
	idx := make([]int, 0, len(msgs))
	for i, m := range msgs {
		t, err := events.DecodeTurn(m.Data, events.ValidateOptions{Limits: w.limits})
		if err == nil {
			err = events.CheckSubject(m.Subject, &t)
		}
		if err != nil {
			errs[i] = queue.Permanent(err)
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
	res, err := w.store.IngestTurns(ctx, turns, w.policy)
	if err != nil {
		return classify(err)
	}
	if len(res.Due) > 0 {
		w.requestSummaries(ctx, res.Due)
	}
	return nil
}

// requestSummaries publishes a summarize request for each session the batch
// made due. The turns are committed whatever happens here, so a failure does
// not fail the batch (its redelivery would store nothing and ask for nothing):
// the sessions whose request was not stored are reset instead, so that their
// next batch asks again, and the idle sweep asks in any case once they go quiet.
func (w *Worker) requestSummaries(ctx context.Context, due []store.DueSession) {
	reqs := make([]events.SummarizeRequest, len(due))
	for i, d := range due {
		reqs[i] = events.SummarizeRequest{TenantID: d.TenantID, UserID: d.UserID, SessionID: d.SessionID,
			Reason: events.SummarizeThreshold, FromCount: d.FromCount, ThroughCount: d.ThroughCount, RequestedAt: d.LastMessageAt}
	}
	res, err := w.pub.PublishSummarizeRequests(ctx, reqs)
	if err == nil {
		return
	}
	failed := due
	if len(res) == len(due) {
		failed = nil
		for i, r := range res {
			if r.Err != nil {
				failed = append(failed, due[i])
			}
		}
	}
	w.log.Warn("publish summarize requests; the sessions will ask again", "failed", len(failed), "error", err.Error())
	if rerr := w.store.ResetSummaryRequests(context.WithoutCancel(ctx), failed); rerr != nil {
		w.log.Error("reset summary requests", "error", rerr.Error())
	}
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
	Consumer queue.ConsumerConfig `envPrefix:"INGEST_"`
	Runner   queue.RunnerConfig   `envPrefix:"INGEST_"`
	// Summary is when a session's summary is due (SUMMARY_EVERY_MESSAGES,
	// SUMMARY_MIN_INTERVAL); zero fields take the defaults.
	Summary store.SummaryPolicy
}

// NewRunner declares the ingest consumer and returns the runner that feeds Handle.
func NewRunner(ctx context.Context, js jetstream.JetStream, st *store.Store, cfg Config, limits events.Limits, log *slog.Logger, metrics *queue.RunnerMetrics) (*queue.Runner, error) {
	w := New(st, limits, log).WithSummaries(cfg.Summary, queue.NewPublisher(js))
	return Binding.NewRunner(ctx, js, cfg.Consumer, w.Handle, cfg.Runner.Or(DefaultRunnerConfig), log, metrics)
}
