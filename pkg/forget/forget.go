// Package forget removes a user completely: every row stored about them and
// every message of theirs in the streams, so that no replay brings them back.
package forget

import (
	"context"
	"fmt"
	"time"

	"github.com/recallhq/recall/pkg/changefeed"
	"github.com/recallhq/recall/pkg/contract"
	"github.com/recallhq/recall/pkg/queue"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/recallhq/recall/pkg/store"
)

// Report is what forgetting a user removed.
type Report struct {
	TenantID string
	UserID   string
	// Rows deleted per table.
	Rows map[string]int64
	// StreamMessages purged per stream.
	StreamMessages map[string]uint64
}

// User forgets one user of a tenant. The streams are purged first, so that no
// message of theirs is delivered again (the change feed's earlier changes of
// theirs too: they hold what is forgotten), then the rows are deleted in one
// transaction. A message a worker was already handed before the purge may
// still commit after the delete: forgetting is idempotent (a second call
// removes only such leftovers and is no error), so callers that must be sure
// call it again after the workers' AckWait.
//
// When it removed anything, the forget is published on the change feed
// (user.forgotten, with the report) once it is done; a forget that found
// nothing to remove changes nothing and publishes nothing. Nothing of the
// user is left to derive that change from again, so an error publishing it
// is returned with the report (everything was removed) and the change is
// not published by a later call.
func User(ctx context.Context, st *store.Store, js jetstream.JetStream, tenantID, userID string) (Report, error) {
	at := time.Now()
	r := Report{TenantID: tenantID, UserID: userID}
	var err error
	if r.StreamMessages, err = queue.PurgeUser(ctx, js, tenantID, userID); err != nil {
		return r, err
	}
	if r.Rows, err = st.Tenant(tenantID).ForgetUser(ctx, userID); err != nil {
		return r, err
	}
	if !r.removed() {
		return r, nil
	}
	c := changefeed.Forgotten(tenantID, userID, at, &contract.UserData{TenantID: tenantID, UserID: userID, Rows: r.Rows, StreamMessages: r.StreamMessages})
	if err := changefeed.NewPublisher(js).Publish(ctx, []contract.Change{c}); err != nil {
		return r, fmt.Errorf("user forgotten, its change not published: %w", err)
	}
	return r, nil
}

// removed reports whether the forget removed anything of the user's but
// their changes: erasing the change feed's own news of an earlier forget is
// no change to tell of (else each forget would have one to erase).
func (r Report) removed() bool {
	for _, n := range r.Rows {
		if n > 0 {
			return true
		}
	}
	for stream, n := range r.StreamMessages {
		if n > 0 && stream != queue.ChangesStream {
			return true
		}
	}
	return false
}

// Count is what User would remove now, counted without removing anything:
// for a confirmation that names it before a user is forgotten. A user of
// whom nothing is left but the change feed's news that they were forgotten
// counts as nothing stored (that news is not what was forgotten).
func Count(ctx context.Context, st *store.Store, js jetstream.JetStream, tenantID, userID string) (Report, error) {
	r := Report{TenantID: tenantID, UserID: userID}
	var err error
	if r.StreamMessages, err = queue.CountUser(ctx, js, tenantID, userID); err != nil {
		return r, err
	}
	if r.Rows, err = st.Tenant(tenantID).CountUser(ctx, userID); err != nil {
		return r, err
	}
	if !r.removed() {
		delete(r.StreamMessages, queue.ChangesStream)
	}
	return r, nil
}
