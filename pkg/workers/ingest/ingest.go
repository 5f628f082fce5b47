// Package ingest is the worker that stores turns: it consumes the turn stream in
// batches and writes sessions and messages in one transaction per batch. The same
// statement reports the sessions the batch made due for a summary
// (summarize.Policy), and the worker asks for those after the commit.
package ingest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/recallhq/recall/pkg/queue"
	"github.com/recallhq/recall/pkg/worker"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/store"
	"github.com/recallhq/recall/pkg/summarize"
)

// Def is the ingest worker as the registry lists it.
var Def = worker.Def[Config, *Worker]{
	Name:    "ingest",
	Doc:     "stores turns: sessions and messages, one transaction per batch",
	Binding: queue.Binding{Durable: "ingest", Stream: queue.TurnsStream, Filters: []string{events.TurnsSubjects}},
	// A session's summary request, once enough messages have come.
	Publishes: []string{events.SummarizeTaskSubjects},
	// Hundreds of turns or a few milliseconds, whichever comes first, with two
	// batches in flight so the database never idles while the next is gathered.
	BatchSize: 500, Concurrency: 2,
	Queue: func(c *Config) *worker.Queue { return &c.Queue },
	New:   func(_ context.Context, cfg Config, d *worker.Deps) (*Worker, error) { return New(cfg, d), nil },
}

// Config is the ingest worker's part of the config; env names are prefixed with
// INGEST_ so that the all-in-one process can tune each worker apart.
type Config struct {
	Queue worker.Queue `envPrefix:"INGEST_"`
	// Summary is when a session's summary is due (SUMMARY_EVERY_MESSAGES,
	// SUMMARY_MIN_INTERVAL).
	Summary summarize.Policy
}

// Worker decodes turns and stores them.
type Worker struct {
	store   *store.Store
	limits  events.Limits
	log     *slog.Logger
	trigger store.SummaryTrigger // cfg.Summary, its zero fields defaulted
	pub     *queue.Publisher
}

// New returns the ingest worker: it stores turns and asks for the summaries
// they make due (cfg.Summary) on d.JS.
func New(cfg Config, d *worker.Deps) *Worker {
	p := cfg.Summary.WithDefaults()
	trigger := store.SummaryTrigger{EveryMessages: p.EveryMessages, MinInterval: p.MinInterval}
	return &Worker{store: d.Store, limits: d.Limits, log: d.Log, trigger: trigger, pub: queue.NewPublisher(d.JS)}
}

// Handle is the batch handler: malformed or invalid turns fail permanently (the
// runner dead-letters them at once), and so do turns whose session belongs to
// another user, which the statement that stores the others judges (and, for
// a session the batch is the first to write, decides: store.IngestTurns);
// the others are stored in one transaction (queue.Batch: one poisoned turn
// cannot hold back the others).
func (w *Worker) Handle(ctx context.Context, msgs []queue.Message) []error {
	return queue.Batch[store.StoredTurn]{
		Prepare: func(_ context.Context, m queue.Message) (store.StoredTurn, bool, error) {
			t, err := queue.TurnEnvelope.Read(m, w.limits)
			return store.StoredTurn{Turn: t, Seq: m.Seq}, err == nil, err
		},
		Store: w.store1,
		Log:   w.log,
	}.Handle(ctx, msgs)
}

func (w *Worker) store1(ctx context.Context, turns []store.StoredTurn) error {
	res, err := w.store.IngestTurns(ctx, turns, w.trigger)
	if err != nil {
		return classify(err)
	}
	if len(res.Due) > 0 {
		w.requestSummaries(ctx, res.Due)
	}
	if len(res.Refused) == 0 {
		return nil
	}
	// The others are stored: each refused turn is dead-lettered with the
	// reason, the same every worker of the stream gives (worker.OwnSessions).
	errs := make(queue.ValueErrors, len(turns))
	for _, r := range res.Refused {
		errs[r.Index] = queue.Permanent(worker.SessionOwnedError(turns[r.Index].Turn.SessionID, r.Owner))
	}
	return errs
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
