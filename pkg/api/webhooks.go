package api

import (
	"net/http"

	"github.com/recallhq/recall/pkg/contract"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/memory"
	"github.com/recallhq/recall/pkg/webhooks"
)

// postWebhook registers an endpoint for the tenant's changes: 201 with its
// secret, the only answer that holds it.
func (s *Server) postWebhook(w http.ResponseWriter, r *http.Request, tenant string) {
	var req contract.WebhookCreate
	if !s.readJSON(w, r, &req) {
		return
	}
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	out, err := s.hooks.Create(ctx, tenant, req)
	s.answer(w, r, http.StatusCreated, out, err)
}

// getWebhooks lists the tenant's endpoints, without their secrets.
func (s *Server) getWebhooks(w http.ResponseWriter, r *http.Request, tenant string) {
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	out, err := s.hooks.List(ctx, tenant)
	s.answer(w, r, http.StatusOK, out, err)
}

// deleteWebhook removes an endpoint and its deliveries: 204.
func (s *Server) deleteWebhook(w http.ResponseWriter, r *http.Request, tenant string) {
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	if err := s.hooks.Delete(ctx, tenant, r.PathValue("webhook_id")); err != nil {
		s.answer(w, r, 0, nil, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// getWebhookDeliveries answers an endpoint's newest deliveries (status=,
// limit=) and its counts.
func (s *Server) getWebhookDeliveries(w http.ResponseWriter, r *http.Request, tenant string) {
	qv := r.URL.Query()
	var fe []events.FieldError
	limit := memory.Count("limit", args(qv).count("limit"), 50, webhooks.MaxDeliveries, &fe)
	if len(fe) > 0 {
		s.answer(w, r, 0, nil, contract.Invalid("invalid parameter", fe...))
		return
	}
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	out, err := s.hooks.Deliveries(ctx, tenant, r.PathValue("webhook_id"), qv.Get("status"), limit)
	s.answer(w, r, http.StatusOK, out, err)
}

// postWebhookRedrive makes a failed delivery pending again, due now: 202.
func (s *Server) postWebhookRedrive(w http.ResponseWriter, r *http.Request, tenant string) {
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	out, err := s.hooks.Redrive(ctx, tenant, r.PathValue("webhook_id"), r.PathValue("change_id"))
	s.answer(w, r, http.StatusAccepted, out, err)
}
