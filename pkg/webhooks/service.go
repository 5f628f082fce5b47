// Package webhooks is what webhooks are, apart from delivering them: the
// endpoints' use cases (Service, behind POST, GET and DELETE /v1/webhooks and
// `recall webhooks`), which change types an endpoint wants (Matches), the
// delivery's headers and signature (Sign) and the network guard (Network,
// checked at registration and by the worker on every connection). The
// webhooks worker that delivers the change feed is pkg/workers/webhooks.
package webhooks

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/recallhq/recall/pkg/contract"
	"github.com/recallhq/recall/pkg/store"
)

// MaxEndpoints bounds a tenant's endpoints.
const MaxEndpoints = 100

// Service is what the webhook routes of every front door do (the API,
// `recall webhooks`): endpoints made, listed and removed, their deliveries
// read and re-driven, tenant by tenant. It answers contract types, and
// *contract.Error for what the caller got wrong.
type Service struct {
	store *store.Store
	net   Network
}

// NewService returns the service on st, checking endpoints' URLs with n.
func NewService(st *store.Store, n Network) *Service { return &Service{store: st, net: n} }

// Create registers an endpoint. Its secret is the request's or, when it
// has none, a new one; the answer is the only one that holds it.
func (s *Service) Create(ctx context.Context, tenant string, req contract.WebhookCreate) (*contract.Webhook, error) {
	var fe []contract.FieldError
	if err := s.net.CheckURL(ctx, req.URL); err != nil {
		fe = append(fe, contract.FieldError{Field: "url", Message: err.Error()})
	}
	switch {
	case len(req.Types) == 0:
		fe = append(fe, contract.FieldError{Field: "types", Message: `want at least one change type, prefix (attribute.*) or "*"`})
	case len(req.Types) > MaxTypes:
		fe = append(fe, contract.FieldError{Field: "types", Message: fmt.Sprintf("at most %d", MaxTypes)})
	}
	for i, p := range req.Types {
		if err := CheckPattern(p); err != nil {
			fe = append(fe, contract.FieldError{Field: fmt.Sprintf("types[%d]", i), Message: err.Error()})
		}
	}
	if req.Secret != "" && (len(req.Secret) < 16 || len(req.Secret) > 256 || !utf8.ValidString(req.Secret) || strings.ContainsRune(req.Secret, 0)) {
		fe = append(fe, contract.FieldError{Field: "secret", Message: "want 16 to 256 bytes of text, or none for the server to make one"})
	}
	if len(fe) > 0 {
		return nil, contract.Invalid("invalid webhook", fe...)
	}
	t := s.store.Tenant(tenant)
	have, err := t.Webhooks(ctx)
	if err != nil {
		return nil, err
	}
	if len(have) >= MaxEndpoints {
		return nil, contract.Invalid("too many webhooks", contract.FieldError{Field: "url", Message: fmt.Sprintf("a tenant has at most %d endpoints; remove one first", MaxEndpoints)})
	}
	secret := req.Secret
	if secret == "" {
		secret = "whsec_" + randomHex(24)
	}
	types := slices.Clone(req.Types)
	slices.Sort(types)
	e, err := t.CreateWebhook(ctx, store.WebhookEndpoint{ID: "wh_" + randomHex(12), URL: req.URL, Types: slices.Compact(types), Secret: secret})
	if err != nil {
		return nil, err
	}
	out := toWebhook(e)
	out.Secret = e.Secret
	return &out, nil
}

// List returns the tenant's endpoints, without their secrets.
func (s *Service) List(ctx context.Context, tenant string) (*contract.Webhooks, error) {
	es, err := s.store.Tenant(tenant).Webhooks(ctx)
	if err != nil {
		return nil, err
	}
	out := &contract.Webhooks{Webhooks: make([]contract.Webhook, len(es))}
	for i, e := range es {
		out.Webhooks[i] = toWebhook(e)
	}
	return out, nil
}

// Delete removes an endpoint and its deliveries: nothing more is sent to it.
func (s *Service) Delete(ctx context.Context, tenant, id string) error {
	err := s.store.Tenant(tenant).DeleteWebhook(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return notFound(id)
	}
	return err
}

// MaxDeliveries bounds a page of deliveries.
const MaxDeliveries = 200

// Deliveries returns an endpoint's newest deliveries (at most limit, of
// status, "" for any) and its counts.
func (s *Service) Deliveries(ctx context.Context, tenant, id, status string, limit int) (*contract.WebhookDeliveries, error) {
	switch status {
	case "", contract.WebhookPending, contract.WebhookDelivered, contract.WebhookFailed:
	default:
		return nil, contract.Invalid("invalid parameter", contract.FieldError{Field: "status", Message: "want pending, delivered or failed"})
	}
	t := s.store.Tenant(tenant)
	if _, err := t.Webhook(ctx, id); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, notFound(id)
		}
		return nil, err
	}
	ds, counts, err := t.WebhookDeliveries(ctx, id, status, limit)
	if err != nil {
		return nil, err
	}
	out := &contract.WebhookDeliveries{WebhookID: id, Deliveries: make([]contract.WebhookDelivery, len(ds)),
		Counts: contract.WebhookCounts{Pending: counts[store.WebhookPending], Delivered: counts[store.WebhookDelivered], Failed: counts[store.WebhookFailed]}}
	for i, d := range ds {
		out.Deliveries[i] = toDelivery(d)
	}
	return out, nil
}

// Redrive makes a failed delivery pending again, due now, its attempts
// counted afresh. A delivery that is not failed is a not_failed error (it
// is on its way, or arrived).
func (s *Service) Redrive(ctx context.Context, tenant, id, changeID string) (*contract.WebhookDelivery, error) {
	t := s.store.Tenant(tenant)
	d, err := t.RedriveWebhookDelivery(ctx, id, changeID)
	if errors.Is(err, store.ErrNotFound) {
		cur, gerr := t.WebhookDelivery(ctx, id, changeID)
		switch {
		case errors.Is(gerr, store.ErrNotFound):
			return nil, contract.Errorf(contract.CodeNotFound, "webhook %s has no delivery of change %s", id, changeID)
		case gerr != nil:
			return nil, gerr
		}
		return nil, contract.Errorf(contract.CodeNotFailed, "the delivery of change %s to webhook %s is %s, not failed: only a failed delivery is re-driven", changeID, id, cur.Status)
	}
	if err != nil {
		return nil, err
	}
	out := toDelivery(d)
	return &out, nil
}

func notFound(id string) error {
	return contract.Errorf(contract.CodeNotFound, "no webhook %s", id)
}

func toWebhook(e store.WebhookEndpoint) contract.Webhook {
	return contract.Webhook{ID: e.ID, URL: e.URL, Types: e.Types, CreatedAt: e.CreatedAt}
}

func toDelivery(d store.WebhookDelivery) contract.WebhookDelivery {
	out := contract.WebhookDelivery{ChangeID: d.ChangeID, Type: d.ChangeType, UserID: d.UserID, Status: d.Status,
		Attempts: d.Attempts, Redrives: d.Redrives, InFlight: d.InFlight, LastStatusCode: d.LastStatusCode, LastError: d.LastError,
		LastAttemptAt: d.LastAttemptAt, CreatedAt: d.CreatedAt, FinishedAt: d.FinishedAt}
	if d.Status == store.WebhookPending {
		next := d.NextAttemptAt
		out.NextAttemptAt = &next
	}
	return out
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
