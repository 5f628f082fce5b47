package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Webhook delivery statuses.
const (
	// WebhookPending: waiting for its next attempt (or in one).
	WebhookPending = "pending"
	// WebhookDelivered: the endpoint answered 2xx.
	WebhookDelivered = "delivered"
	// WebhookFailed: given up on after the last attempt, and dead-lettered.
	WebhookFailed = "failed"
)

// WebhookEndpoint is a tenant's webhook receiver.
type WebhookEndpoint struct {
	ID, URL string
	// Types are the change types it wants: exact ones, prefixes ending in
	// ".*", or "*".
	Types     []string
	Secret    string
	CreatedAt time.Time
}

// WebhookDelivery is one change for one endpoint, as its state stands.
type WebhookDelivery struct {
	ChangeID, ChangeType, UserID, Status string
	Attempts, Redrives                   int
	// NextAttemptAt is when a pending delivery is due (in flight: when its
	// attempt's lease ends).
	NextAttemptAt time.Time
	InFlight      bool
	// LastStatusCode is the last answer's status (0: no answer yet);
	// LastError the last failed attempt's error.
	LastStatusCode int
	LastError      string
	LastAttemptAt  *time.Time
	CreatedAt      time.Time
	UpdatedAt      time.Time
	FinishedAt     *time.Time
}

// WebhookClaim is a delivery claimed for an attempt, with what the attempt
// needs.
type WebhookClaim struct {
	TenantID, EndpointID, ChangeID, ChangeType, UserID string
	StreamSeq                                          uint64
	Body                                               []byte
	Attempts, Redrives                                 int
	LastError, URL, Secret                             string
}

// WebhookOutcome is what a claimed delivery came to.
type WebhookOutcome struct {
	// Attempted is whether a request was made (false: given up on without
	// one, its attempts already spent).
	Attempted bool
	// Status is the delivery's status now; RetryIn when it is due again,
	// if pending.
	Status  string
	RetryIn time.Duration
	// StatusCode is the answer's status (0: none); Error the failure (""
	// keeps the last one).
	StatusCode int
	Error      string
	At         time.Time
}

// CreateWebhook stores a new endpoint and returns it with its time.
func (t *Tenant) CreateWebhook(ctx context.Context, e WebhookEndpoint) (WebhookEndpoint, error) {
	if err := t.s.pool.QueryRow(ctx, q(qWebhookEndpointInsert), t.id, e.ID, e.URL, e.Types, e.Secret).Scan(&e.CreatedAt); err != nil {
		return e, fmt.Errorf("create webhook: %w", err)
	}
	e.CreatedAt = e.CreatedAt.UTC()
	return e, nil
}

// Webhooks returns the tenant's endpoints, oldest first.
func (t *Tenant) Webhooks(ctx context.Context) ([]WebhookEndpoint, error) {
	rows, err := t.s.pool.Query(ctx, q(qWebhookEndpointList), t.id)
	if err != nil {
		return nil, fmt.Errorf("list webhooks: %w", err)
	}
	out, err := pgx.CollectRows(rows, scanWebhookEndpoint)
	if err != nil {
		return nil, fmt.Errorf("list webhooks: %w", err)
	}
	return out, nil
}

// Webhook returns one endpoint; ErrNotFound when the tenant has none by id.
func (t *Tenant) Webhook(ctx context.Context, id string) (WebhookEndpoint, error) {
	rows, err := t.s.pool.Query(ctx, q(qWebhookEndpointGet), t.id, id)
	if err != nil {
		return WebhookEndpoint{}, fmt.Errorf("get webhook: %w", err)
	}
	e, err := pgx.CollectExactlyOneRow(rows, scanWebhookEndpoint)
	if errors.Is(err, pgx.ErrNoRows) {
		return e, ErrNotFound
	}
	if err != nil {
		return e, fmt.Errorf("get webhook: %w", err)
	}
	return e, nil
}

func scanWebhookEndpoint(row pgx.CollectableRow) (WebhookEndpoint, error) {
	var e WebhookEndpoint
	err := row.Scan(&e.ID, &e.URL, &e.Types, &e.Secret, &e.CreatedAt)
	e.CreatedAt = e.CreatedAt.UTC()
	return e, err
}

// DeleteWebhook removes an endpoint and its deliveries; ErrNotFound when the
// tenant has none by id.
func (t *Tenant) DeleteWebhook(ctx context.Context, id string) error {
	tag, err := t.s.pool.Exec(ctx, q(qWebhookEndpointDelete), t.id, id)
	if err != nil {
		return fmt.Errorf("delete webhook: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return ErrNotFound
	}
	return nil
}

// EnqueueWebhookDeliveries makes a delivery of a change for each of the
// endpoints, due now, and returns the endpoints that got a new one: an
// endpoint that already has one for the change id keeps it as it is.
func (t *Tenant) EnqueueWebhookDeliveries(ctx context.Context, changeID, changeType, userID string, streamSeq uint64, body []byte, endpoints []string) ([]string, error) {
	rows, err := t.s.pool.Query(ctx, q(qWebhookDeliveryInsertBatch), t.id, changeID, changeType, userID, int64(streamSeq), string(body), endpoints)
	if err != nil {
		return nil, fmt.Errorf("enqueue webhook deliveries: %w", err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("enqueue webhook deliveries: %w", err)
	}
	return out, nil
}

// WebhookDeliveries returns an endpoint's deliveries, newest first, of one
// status ("" for any), at most limit, and how many it has of each status.
func (t *Tenant) WebhookDeliveries(ctx context.Context, endpointID, status string, limit int) ([]WebhookDelivery, map[string]int64, error) {
	rows, err := t.s.pool.Query(ctx, q(qWebhookDeliveryList), t.id, endpointID, status, limit)
	if err != nil {
		return nil, nil, fmt.Errorf("list webhook deliveries: %w", err)
	}
	out, err := pgx.CollectRows(rows, scanWebhookDelivery)
	if err != nil {
		return nil, nil, fmt.Errorf("list webhook deliveries: %w", err)
	}
	counts := map[string]int64{WebhookPending: 0, WebhookDelivered: 0, WebhookFailed: 0}
	rows, err = t.s.pool.Query(ctx, q(qWebhookDeliveryCounts), t.id, endpointID)
	if err != nil {
		return nil, nil, fmt.Errorf("count webhook deliveries: %w", err)
	}
	var st string
	var n int64
	if _, err := pgx.ForEachRow(rows, []any{&st, &n}, func() error { counts[st] = n; return nil }); err != nil {
		return nil, nil, fmt.Errorf("count webhook deliveries: %w", err)
	}
	return out, counts, nil
}

// WebhookDelivery returns one delivery of an endpoint; ErrNotFound when it
// has none for the change.
func (t *Tenant) WebhookDelivery(ctx context.Context, endpointID, changeID string) (WebhookDelivery, error) {
	return t.oneDelivery(ctx, "get webhook delivery", qWebhookDeliveryGet, endpointID, changeID)
}

// RedriveWebhookDelivery makes a failed delivery due now, its attempts
// counted afresh; ErrNotFound when the endpoint has no failed delivery of
// the change.
func (t *Tenant) RedriveWebhookDelivery(ctx context.Context, endpointID, changeID string) (WebhookDelivery, error) {
	return t.oneDelivery(ctx, "re-drive webhook delivery", qWebhookDeliveryRedrive, endpointID, changeID)
}

func (t *Tenant) oneDelivery(ctx context.Context, what string, query queryName, endpointID, changeID string) (WebhookDelivery, error) {
	rows, err := t.s.pool.Query(ctx, q(query), t.id, endpointID, changeID)
	if err != nil {
		return WebhookDelivery{}, fmt.Errorf("%s: %w", what, err)
	}
	d, err := pgx.CollectExactlyOneRow(rows, scanWebhookDelivery)
	if errors.Is(err, pgx.ErrNoRows) {
		return d, ErrNotFound
	}
	if err != nil {
		return d, fmt.Errorf("%s: %w", what, err)
	}
	return d, nil
}

func scanWebhookDelivery(row pgx.CollectableRow) (WebhookDelivery, error) {
	var d WebhookDelivery
	var code *int32
	err := row.Scan(&d.ChangeID, &d.ChangeType, &d.UserID, &d.Status, &d.Attempts, &d.Redrives, &d.NextAttemptAt, &d.InFlight,
		&code, &d.LastError, &d.LastAttemptAt, &d.CreatedAt, &d.UpdatedAt, &d.FinishedAt)
	if code != nil {
		d.LastStatusCode = int(*code)
	}
	d.NextAttemptAt, d.CreatedAt, d.UpdatedAt = d.NextAttemptAt.UTC(), d.CreatedAt.UTC(), d.UpdatedAt.UTC()
	for _, p := range []*time.Time{d.LastAttemptAt, d.FinishedAt} {
		if p != nil {
			*p = p.UTC()
		}
	}
	return d, err
}

// ClaimWebhookDeliveries claims at most n deliveries due now, of every
// tenant, at most perEndpoint of one endpoint and none of an endpoint with
// a claim in flight; each is due again after lease unless its outcome is
// recorded (RecordWebhookAttempt) under the same claim first.
func (s *Store) ClaimWebhookDeliveries(ctx context.Context, claim string, n, perEndpoint int, lease time.Duration) ([]WebhookClaim, error) {
	rows, err := s.pool.Query(ctx, q(qWebhookDeliveryClaim), n, perEndpoint, claim, lease.Microseconds())
	if err != nil {
		return nil, fmt.Errorf("claim webhook deliveries: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (WebhookClaim, error) {
		var c WebhookClaim
		var seq int64
		var body string
		err := row.Scan(&c.TenantID, &c.EndpointID, &c.ChangeID, &c.ChangeType, &c.UserID, &seq, &body, &c.Attempts, &c.Redrives, &c.LastError, &c.URL, &c.Secret)
		c.StreamSeq, c.Body = uint64(seq), []byte(body)
		return c, err
	})
	if err != nil {
		return nil, fmt.Errorf("claim webhook deliveries: %w", err)
	}
	return out, nil
}

// RecordWebhookAttempt records what a claimed delivery came to. It reports
// false when the claim was no longer held (its lease ran out and another
// claim took the delivery), which then records nothing.
func (s *Store) RecordWebhookAttempt(ctx context.Context, c WebhookClaim, claim string, o WebhookOutcome) (bool, error) {
	added := 0
	if o.Attempted {
		added = 1
	}
	var code *int32
	if o.StatusCode != 0 {
		v := int32(o.StatusCode)
		code = &v
	}
	var at *time.Time
	if !o.At.IsZero() {
		at = &o.At
	}
	tag, err := s.pool.Exec(ctx, q(qWebhookDeliveryRecord), c.TenantID, c.EndpointID, c.ChangeID, claim,
		added, o.Status, o.RetryIn.Microseconds(), code, o.Error, at)
	if err != nil {
		return false, fmt.Errorf("record webhook attempt: %w", err)
	}
	return tag.RowsAffected() == 1, nil
}

// PruneWebhookDeliveries deletes at most limit deliveries of every tenant
// that finished (delivered or given up on) before before, and returns how
// many.
func (s *Store) PruneWebhookDeliveries(ctx context.Context, before time.Time, limit int) (int64, error) {
	tag, err := s.pool.Exec(ctx, q(qWebhookDeliveryPrune), before, limit)
	if err != nil {
		return 0, fmt.Errorf("prune webhook deliveries: %w", err)
	}
	return tag.RowsAffected(), nil
}
