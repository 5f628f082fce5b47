package api

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/recallhq/recall/pkg/client"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/queue"
	"github.com/recallhq/recall/pkg/store"
)

// Operations as the inspector shows them. Consumer backlogs and the
// decayer's runs hold no tenant's data (counts over every tenant), so any
// tenant's key reads them; dead letters hold the original messages, so each
// tenant sees and re-drives only its own.

// consumerView is a durable consumer's backlog as the server counts it.
type consumerView struct {
	Stream string `json:"stream"`
	Name   string `json:"name"`
	// Pending are messages not yet delivered; AckPending delivered and not
	// yet acknowledged (in flight).
	Pending    uint64 `json:"pending"`
	AckPending uint64 `json:"ack_pending"`
}

// getConsumers lists every durable consumer with its backlog.
func (s *Server) getConsumers(w http.ResponseWriter, r *http.Request, _ *store.Tenant) {
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	lags, err := queue.ConsumerLags(ctx, s.js)
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	out := make([]consumerView, len(lags))
	for i, l := range lags {
		out[i] = consumerView{Stream: l.Stream, Name: l.Name, Pending: l.Pending, AckPending: l.AckPending}
	}
	writeJSON(w, http.StatusOK, map[string]any{"consumers": out})
}

type deadLettersResponse struct {
	DeadLetters []any `json:"dead_letters"`
	// NextAfter is the after= of the next page; absent on the last.
	NextAfter uint64 `json:"next_after,omitempty"`
}

// getDeadLetters lists the tenant's dead letters, oldest first, with their
// reasons and original payloads: ?consumer= narrows them to one consumer,
// ?after= (a sequence) and ?limit= page through them.
func (s *Server) getDeadLetters(w http.ResponseWriter, r *http.Request, t *store.Tenant) {
	qv := r.URL.Query()
	var fe []events.FieldError
	limit := queryInt(qv, "limit", 50, 500, &fe)
	var after uint64
	if v := qv.Get("after"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			fe = append(fe, events.FieldError{Field: "after", Message: "want a dead-letter sequence (a whole number)"})
		}
		after = n
	}
	consumer := qv.Get("consumer")
	if consumer != "" && !s.validID(consumer) {
		fe = append(fe, events.FieldError{Field: "consumer", Message: "a consumer name such as ingest"})
	}
	if len(fe) > 0 {
		writeError(w, http.StatusBadRequest, "invalid_request", "invalid parameter", fe)
		return
	}
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	entries, more, err := queue.TenantDeadLetters(ctx, s.js, t.ID(), consumer, after, limit)
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	out := deadLettersResponse{DeadLetters: make([]any, 0, len(entries))}
	for _, e := range entries {
		out.DeadLetters = append(out.DeadLetters, e.Showable())
	}
	if more {
		out.NextAfter = entries[len(entries)-1].Seq
	}
	writeJSON(w, http.StatusOK, out)
}

// redriveResponse is a re-driven dead letter and where it went.
type redriveResponse struct {
	Seq      uint64 `json:"seq"`
	Subject  string `json:"subject"`
	EventID  string `json:"event_id"`
	Consumer string `json:"consumer"`
	// AlsoRemoved are the other consumers' dead letters of the same
	// message, answered by the same copy.
	AlsoRemoved []uint64 `json:"also_removed"`
}

// postRedrive publishes the message of one of the tenant's dead letters back
// to its original subject, once for every consumer that gave up on it, and
// removes their dead letters of it (queue.RedriveMessage). Another tenant's
// dead letter reads as not found. Inside the stream's duplicate window the
// answer is a 409 that says when a re-drive will work.
func (s *Server) postRedrive(w http.ResponseWriter, r *http.Request, t *store.Tenant) {
	seq, err := strconv.ParseUint(r.PathValue("seq"), 10, 64)
	if err != nil || seq == 0 {
		writeError(w, http.StatusBadRequest, "invalid_request", "invalid sequence",
			[]events.FieldError{{Field: "seq", Message: "want a dead-letter sequence (a whole number from 1)"}})
		return
	}
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	e, err := queue.GetDeadLetter(ctx, s.js, seq)
	if tenant, ok := e.Tenant(); errors.Is(err, queue.ErrNoDeadLetter) || (err == nil && (!ok || tenant != t.ID())) {
		writeError(w, http.StatusNotFound, "not_found", "no such dead letter (already re-driven or deleted?)", nil)
		return
	}
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	others, err := queue.RedriveMessage(ctx, s.js, e)
	if err != nil {
		if errors.Is(err, queue.ErrStillDuplicate) {
			stillDuplicate(w, err)
			return
		}
		s.internalError(w, r, err)
		return
	}
	s.log.Info("dead letter re-driven", "tenant_id", t.ID(), "seq", seq, "consumer", e.Consumer, "subject", e.Subject, "event_id", e.EventID, "also_removed", others)
	writeJSON(w, http.StatusOK, redriveResponse{Seq: seq, Subject: e.Subject, EventID: e.EventID, Consumer: e.Consumer, AlsoRemoved: others})
}

// stillDuplicate answers a re-drive the stream would drop as a duplicate:
// 409, with when it will work (retry_at, and Retry-After in seconds) where
// the stream told.
func stillDuplicate(w http.ResponseWriter, err error) {
	body := client.Error{Code: "still_duplicate", Message: err.Error()}
	if de, ok := errors.AsType[*queue.DuplicateError](err); ok && !de.Until.IsZero() {
		until := de.Until.UTC()
		body.RetryAt = &until
		wait := max(time.Until(until), 0)
		w.Header().Set("Retry-After", strconv.FormatInt(int64((wait+time.Second-1)/time.Second), 10))
	}
	writeJSON(w, http.StatusConflict, client.ErrorBody{Error: &body})
}

type decayerResponse struct {
	// LastRun is the decayer's newest run, LastSuccess its newest run that
	// did not fail; null before there was one.
	LastRun     *store.DecayerRun `json:"last_run"`
	LastSuccess *store.DecayerRun `json:"last_success"`
}

// getDecayer answers what the decayer's last run did.
func (s *Server) getDecayer(w http.ResponseWriter, r *http.Request, _ *store.Tenant) {
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	runs, err := s.store.DecayerRuns(ctx)
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	var out decayerResponse
	for i := range runs {
		if out.LastRun == nil {
			out.LastRun = &runs[i]
		}
		if runs[i].Result == store.DecayerRunOK && out.LastSuccess == nil {
			out.LastSuccess = &runs[i]
		}
	}
	writeJSON(w, http.StatusOK, out)
}
