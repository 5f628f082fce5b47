package queue

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/recallhq/recall/pkg/events"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/recallhq/recall/pkg/eventmsg"
)

// SignalsStream holds what the app tells Recall apart from chat turns:
// catalog items, users' shelf entries, and explicit edits of their
// attributes. They are a source of truth for replay
// like turns, so the stream keeps them (file storage, limits retention).
const SignalsStream = "RECALL_SIGNALS"

// SignalsStreamConfig declares the signal stream. Several consumers read it
// independently, each filtered to its subjects.
func SignalsStreamConfig(c StreamConfig) jetstream.StreamConfig {
	return jetstream.StreamConfig{
		Name:        SignalsStream,
		Description: "Catalog items, shelf entries and attribute edits; source of truth for the bookshelf, interest vectors and explicit profile values.",
		Subjects:    []string{events.CatalogSubjects, events.ShelfSubjects, events.AttributeSubjects},
		Storage:     jetstream.FileStorage,
		Retention:   jetstream.LimitsPolicy,
		Replicas:    max(c.Replicas, 1),
		MaxAge:      c.MaxAge,
		Duplicates:  c.DuplicateWindow,
		Discard:     jetstream.DiscardOld,
	}
}

// TasksStream holds the work the workers hand each other (profile refreshes,
// summarize requests). A task is derived, not a source of truth: only the newest
// task per subject is kept (a newer request for the same user or session
// supersedes the older one, which is what the worker would do anyway), and tasks
// older than TASKS_MAX_AGE are dropped, so the stream stays bounded by the
// number of users and sessions instead of growing with every request.
const TasksStream = "RECALL_TASKS"

// TasksStreamConfig declares the task stream.
func TasksStreamConfig(c StreamConfig) jetstream.StreamConfig {
	return jetstream.StreamConfig{
		Name:              TasksStream,
		Description:       "Tasks workers hand each other (profile refresh, summarize); newest per subject, bounded age.",
		Subjects:          []string{events.TasksSubjects},
		Storage:           jetstream.FileStorage,
		Retention:         jetstream.LimitsPolicy,
		Replicas:          max(c.Replicas, 1),
		MaxAge:            c.TasksMaxAge,
		MaxMsgsPerSubject: 1,
		Duplicates:        c.DuplicateWindow,
		Discard:           jetstream.DiscardOld,
	}
}

// ChangesStream is the change feed: every change to what Recall holds about
// a user (contract.Change), published by the component that made it, for
// applications to follow. A change is derived (the database holds the
// truth), so the feed keeps CHANGES_MAX_AGE of it; each change is
// deduplicated by its id within STREAM_DUPLICATE_WINDOW.
const ChangesStream = "RECALL_CHANGES"

// ChangesStreamConfig declares the change feed: file storage, limits
// retention (any number of readers, each with its own consumer).
func ChangesStreamConfig(c StreamConfig) jetstream.StreamConfig {
	return jetstream.StreamConfig{
		Name:        ChangesStream,
		Description: "Changes to what Recall holds about each user (attributes, self-statements, forgets), once per change.",
		Subjects:    []string{events.ChangeSubjects},
		Storage:     jetstream.FileStorage,
		Retention:   jetstream.LimitsPolicy,
		Replicas:    max(c.Replicas, 1),
		MaxAge:      c.ChangesMaxAge,
		Duplicates:  c.DuplicateWindow,
		Discard:     jetstream.DiscardOld,
	}
}

// PublishChanges publishes the change feed's messages (subject, body and
// Nats-Msg-Id set; ids name them in errors) and waits for the server's
// acks. A message whose id the stream has seen within its duplicate window
// is dropped by the server, which is the point: a change derived again is
// published again safely.
func PublishChanges(ctx context.Context, js jetstream.JetStream, ids []string, msgs []*nats.Msg) ([]PublishResult, error) {
	return publishAll(ctx, js, ChangesStream, ids, msgs, nil)
}

// DefaultRefreshBucket is the debounce bucket of profile tasks when none is
// configured.
const DefaultRefreshBucket = 5 * time.Second

// RefreshConfig is the debounce of profile refresh tasks, for the binaries that
// publish them.
type RefreshConfig struct {
	// Bucket is the debounce period: a user gets at most one task per bucket of
	// publish time. It must stay below STREAM_DUPLICATE_WINDOW, which is what
	// drops the repeats. 0 turns debouncing off (only identical tasks dedupe).
	Bucket time.Duration `env:"PROFILE_REFRESH_BUCKET" envDefault:"5s"`
}

// Refresher publishes profile refresh tasks, debounced per user.
type Refresher struct {
	js     jetstream.JetStream
	bucket time.Duration
	now    func() time.Time
}

// NewRefresher returns a Refresher publishing on js with the given debounce
// bucket (see RefreshConfig).
func NewRefresher(js jetstream.JetStream, bucket time.Duration) *Refresher {
	return &Refresher{js: js, bucket: bucket, now: time.Now}
}

// Publish publishes the tasks concurrently and waits for the server's acks. A
// result marked Duplicate was folded into a task already stored for its user
// (that is the debounce, not an error). Retrying after an error is safe.
func (r *Refresher) Publish(ctx context.Context, tasks []events.ProfileTask) ([]PublishResult, error) {
	now := r.now()
	msgs := make([]*nats.Msg, len(tasks))
	ids := make([]string, len(tasks))
	var errs []error
	for i := range tasks {
		ids[i] = tasks[i].TenantID + "/" + tasks[i].UserID
		if err := events.ValidateProfileTask(&tasks[i], events.ValidateOptions{}); err != nil {
			errs = append(errs, fmt.Errorf("profile task for %s: %w", ids[i], err))
			continue
		}
		m, err := eventmsg.ProfileTask(&tasks[i], now, r.bucket)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		msgs[i] = m
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return publishAll(ctx, r.js, TasksStream, ids, msgs, nil)
}

// PublishProfileRefresh asks for a recompute of one user's interest vector as
// of at (event time: the newest change the caller made, such as the turn whose
// facts it just recorded), debounced with DefaultRefreshBucket. Publish it after
// the change is committed: the profiler reads the database, not the task.
func PublishProfileRefresh(ctx context.Context, js jetstream.JetStream, tenantID, userID string, at time.Time) error {
	_, err := NewRefresher(js, DefaultRefreshBucket).Publish(ctx, []events.ProfileTask{{TenantID: tenantID, UserID: userID, RequestedAt: at}})
	return err
}

// PublishCatalogItems publishes catalog items (validated by the caller) and
// waits for the server's acks; retrying is safe because of the dedupe id.
func (p *Publisher) PublishCatalogItems(ctx context.Context, items []events.CatalogItem) ([]PublishResult, error) {
	msgs := make([]*nats.Msg, len(items))
	ids := make([]string, len(items))
	for i := range items {
		m, err := eventmsg.CatalogItem(&items[i])
		if err != nil {
			return nil, err
		}
		msgs[i], ids[i] = m, items[i].ID
	}
	return publishAll(ctx, p.js, SignalsStream, ids, msgs, nil)
}

// PublishAttributeEdits publishes attribute edits (validated by the caller)
// and waits for the server's acks; retrying is safe because of the dedupe id.
func (p *Publisher) PublishAttributeEdits(ctx context.Context, edits []events.AttributeEdit) ([]PublishResult, error) {
	msgs := make([]*nats.Msg, len(edits))
	ids := make([]string, len(edits))
	for i := range edits {
		m, err := eventmsg.AttributeEdit(&edits[i])
		if err != nil {
			return nil, err
		}
		msgs[i], ids[i] = m, edits[i].ID
	}
	return publishAll(ctx, p.js, SignalsStream, ids, msgs, nil)
}

// PublishShelfEntries publishes shelf entries (validated by the caller) and
// waits for the server's acks; retrying is safe because of the dedupe id.
func (p *Publisher) PublishShelfEntries(ctx context.Context, entries []events.ShelfEntry) ([]PublishResult, error) {
	msgs := make([]*nats.Msg, len(entries))
	ids := make([]string, len(entries))
	for i := range entries {
		m, err := eventmsg.ShelfEntry(&entries[i])
		if err != nil {
			return nil, err
		}
		msgs[i], ids[i] = m, entries[i].ID
	}
	return publishAll(ctx, p.js, SignalsStream, ids, msgs, nil)
}

// publishAll publishes msgs to stream asynchronously and waits for every
// ack; ids name them in the results and errors. A nil message is one that
// could not be built: its result is its error in buildErrs. The publish is
// traced (startSend): every message carries its trace context.
func publishAll(ctx context.Context, js jetstream.JetStream, stream string, ids []string, msgs []*nats.Msg, buildErrs []error) ([]PublishResult, error) {
	results := make([]PublishResult, len(msgs))
	futures := make([]jetstream.PubAckFuture, len(msgs))
	var errs []error
	span := startSend(ctx, stream, msgs)
	for i, m := range msgs {
		results[i].ID = ids[i]
		if m == nil {
			results[i].Err = buildErrs[i]
			errs = append(errs, results[i].Err)
			continue
		}
		f, err := js.PublishMsgAsync(m)
		if err != nil {
			results[i].Err = fmt.Errorf("publish %s: %w", ids[i], err)
			errs = append(errs, results[i].Err)
			continue
		}
		futures[i] = f
	}
	for i, f := range futures {
		if f == nil {
			continue
		}
		select {
		case ack := <-f.Ok():
			results[i].Sequence = ack.Sequence
			results[i].Duplicate = ack.Duplicate
		case err := <-f.Err():
			results[i].Err = fmt.Errorf("publish %s: %w", ids[i], err)
			errs = append(errs, results[i].Err)
		case <-ctx.Done():
			results[i].Err = fmt.Errorf("publish %s: %w", ids[i], ctx.Err())
			errs = append(errs, results[i].Err)
		}
	}
	err := errors.Join(errs...)
	endSend(span, err)
	return results, err
}
