package api

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/recallhq/recall/pkg/contract"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/memory"
	"github.com/recallhq/recall/pkg/queue"
	"github.com/recallhq/recall/pkg/store"
)

// Operations as the inspector shows them. Consumer backlogs and the
// decayer's runs hold no tenant's data (counts over every tenant), so any
// tenant's key reads them; dead letters hold the original messages, so each
// tenant sees and re-drives only its own.

// getConsumers lists every durable consumer with its backlog.
func (s *Server) getConsumers(w http.ResponseWriter, r *http.Request, _ string) {
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	lags, err := queue.ConsumerLags(ctx, s.js)
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	out := contract.Consumers{Consumers: make([]contract.Consumer, len(lags))}
	for i, l := range lags {
		out.Consumers[i] = contract.Consumer{Stream: l.Stream, Name: l.Name, Pending: l.Pending, AckPending: l.AckPending}
	}
	writeJSON(w, http.StatusOK, out)
}

// getDeadLetters lists the tenant's dead letters, oldest first, with their
// reasons and original payloads: ?consumer= narrows them to one consumer,
// ?after= (a sequence) and ?limit= page through them.
func (s *Server) getDeadLetters(w http.ResponseWriter, r *http.Request, tenant string) {
	qv := r.URL.Query()
	var fe []events.FieldError
	limit := memory.Count("limit", args(qv).count("limit"), 50, 500, &fe)
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
	entries, more, err := queue.TenantDeadLetters(ctx, s.js, tenant, consumer, after, limit)
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	out := contract.DeadLetters{DeadLetters: make([]contract.DeadLetter, len(entries))}
	for i, e := range entries {
		out.DeadLetters[i] = e.Wire()
	}
	if more {
		out.NextAfter = entries[len(entries)-1].Seq
	}
	writeJSON(w, http.StatusOK, out)
}

// postRedrive publishes the message of one of the tenant's dead letters back
// to its original subject, once for every consumer that gave up on it, and
// removes their dead letters of it (queue.RedriveMessage). Another tenant's
// dead letter reads as not found. Inside the stream's duplicate window the
// answer is a 409 that says when a re-drive will work.
func (s *Server) postRedrive(w http.ResponseWriter, r *http.Request, tenant string) {
	seq, err := strconv.ParseUint(r.PathValue("seq"), 10, 64)
	if err != nil || seq == 0 {
		writeError(w, http.StatusBadRequest, "invalid_request", "invalid sequence",
			[]events.FieldError{{Field: "seq", Message: "want a dead-letter sequence (a whole number from 1)"}})
		return
	}
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	e, err := queue.GetDeadLetter(ctx, s.js, seq)
	if owner, ok := e.Tenant(); errors.Is(err, queue.ErrNoDeadLetter) || (err == nil && (!ok || owner != tenant)) {
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
	s.log.Info("dead letter re-driven", "tenant_id", tenant, "seq", seq, "consumer", e.Consumer, "subject", e.Subject, "event_id", e.EventID, "also_removed", others)
	writeJSON(w, http.StatusOK, contract.Redrive{Seq: seq, Subject: e.Subject, EventID: e.EventID, Consumer: e.Consumer, AlsoRemoved: others})
}

// stillDuplicate answers a re-drive the stream would drop as a duplicate:
// 409, with when it will work (retry_at, and Retry-After in seconds) where
// the stream told.
func stillDuplicate(w http.ResponseWriter, err error) {
	body := contract.Error{Code: contract.CodeStillDuplicate, Message: err.Error()}
	if de, ok := errors.AsType[*queue.DuplicateError](err); ok && !de.Until.IsZero() {
		until := de.Until.UTC()
		body.RetryAt = &until
		wait := max(time.Until(until), 0)
		w.Header().Set("Retry-After", strconv.FormatInt(int64((wait+time.Second-1)/time.Second), 10))
	}
	writeJSON(w, http.StatusConflict, contract.ErrorBody{Error: &body})
}

// getDecayer answers what the decayer's last run did.
func (s *Server) getDecayer(w http.ResponseWriter, r *http.Request, _ string) {
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	runs, err := s.store.DecayerRuns(ctx)
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	var out contract.Decayer
	for _, run := range runs {
		if out.LastRun == nil {
			out.LastRun = toDecayerRun(run)
		}
		if run.Result == store.DecayerRunOK && out.LastSuccess == nil {
			out.LastSuccess = toDecayerRun(run)
		}
	}
	writeJSON(w, http.StatusOK, out)
}

// toDecayerRun is a decayer run as /v1 shows it.
func toDecayerRun(r store.DecayerRun) *contract.DecayerRun {
	out := &contract.DecayerRun{Result: r.Result, At: r.At, StartedAt: r.StartedAt, FinishedAt: r.FinishedAt, Error: r.Error}
	if r.Steps != nil {
		out.Steps = make([]contract.DecayerStep, len(r.Steps))
		for i, st := range r.Steps {
			out.Steps[i] = contract.DecayerStep{Name: st.Name, Batches: st.Batches, DurationMS: st.DurationMS, Counts: st.Counts, Error: st.Error}
		}
	}
	return out
}
