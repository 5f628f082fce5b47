// Package forget removes a user completely: every row stored about them and
// every message of theirs in the streams, so that no replay brings them back.
package forget

import (
	"context"

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
// message of theirs is delivered again, then the rows are deleted in one
// transaction. A message a worker was already handed before the purge may
// still commit after the delete: forgetting is idempotent (a second call
// removes only such leftovers and is no error), so callers that must be sure
// call it again after the workers' AckWait.
func User(ctx context.Context, st *store.Store, js jetstream.JetStream, tenantID, userID string) (Report, error) {
	r := Report{TenantID: tenantID, UserID: userID}
	var err error
	if r.StreamMessages, err = queue.PurgeUser(ctx, js, tenantID, userID); err != nil {
		return r, err
	}
	r.Rows, err = st.Tenant(tenantID).ForgetUser(ctx, userID)
	return r, err
}

// Count is what User would remove now, counted without removing anything:
// for a confirmation that names it before a user is forgotten.
func Count(ctx context.Context, st *store.Store, js jetstream.JetStream, tenantID, userID string) (Report, error) {
	r := Report{TenantID: tenantID, UserID: userID}
	var err error
	if r.StreamMessages, err = queue.CountUser(ctx, js, tenantID, userID); err != nil {
		return r, err
	}
	r.Rows, err = st.Tenant(tenantID).CountUser(ctx, userID)
	return r, err
}
