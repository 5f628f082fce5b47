package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"unicode/utf8"

	"github.com/recallhq/recall/pkg/client"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/store"
)

// postTurns accepts one turn or an array. The whole request is validated first and
// rejected as a whole with every field error; nothing is published from a request
// that has any invalid turn. A turn is reported accepted only once JetStream has
// stored it; on a publish failure the response lists what was and was not stored,
// and resending the same request is safe (dedupe by id).
func (s *Server) postTurns(w http.ResponseWriter, r *http.Request, t *store.Tenant) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			writeError(w, http.StatusRequestEntityTooLarge, "too_large", fmt.Sprintf("body over %d bytes", s.cfg.MaxBodyBytes), nil)
			return
		}
		writeError(w, http.StatusBadRequest, "invalid_request", "reading body: "+err.Error(), nil)
		return
	}
	if !utf8.Valid(body) {
		writeError(w, http.StatusBadRequest, "invalid_request", "body is not valid UTF-8", []events.FieldError{{Field: "(body)", Message: "not valid UTF-8"}})
		return
	}
	raws, isArray, err := splitBody(body)
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request", "malformed JSON", []events.FieldError{{Field: "(body)", Message: err.Error()}})
		return
	}
	if len(raws) == 0 {
		writeError(w, http.StatusBadRequest, "invalid_request", "no turns", []events.FieldError{{Field: "(body)", Message: "empty array"}})
		return
	}
	if len(raws) > s.cfg.MaxBatch {
		writeError(w, http.StatusRequestEntityTooLarge, "too_large", fmt.Sprintf("%d turns, limit is %d per request", len(raws), s.cfg.MaxBatch), nil)
		return
	}

	turns := make([]events.Turn, len(raws))
	var fields []events.FieldError
	for i, raw := range raws {
		prefix := ""
		if isArray {
			prefix = fmt.Sprintf("[%d].", i)
		}
		tn, err := events.ParseTurn(raw, s.limits)
		if err == nil {
			if tn.TenantID == "" {
				tn.TenantID = t.ID()
			}
			err = events.ValidateTurn(&tn, events.ValidateOptions{Limits: s.limits, Now: s.now})
			if tn.TenantID != t.ID() {
				fields = append(fields, events.FieldError{Field: prefix + "tenant_id", Message: "does not match X-Tenant-ID"})
			}
		}
		var ve *events.ValidationError
		if errors.As(err, &ve) {
			fields = append(fields, ve.Prefixed(prefix).Fields...)
		}
		turns[i] = tn
	}
	fields = append(fields, events.RepeatedIDs(turns)...)
	if len(fields) > 0 {
		s.metrics.turns.WithLabelValues("rejected").Add(float64(len(turns)))
		writeError(w, http.StatusBadRequest, "invalid_request", "invalid turn(s); nothing was accepted", fields)
		return
	}

	pctx, cancel := context.WithTimeout(r.Context(), s.cfg.PublishTimeout)
	defer cancel()
	results, err := s.pub.PublishTurns(pctx, turns)
	accepted := make([]client.Accepted, 0, len(results))
	var failed []string
	for _, res := range results {
		if res.Err != nil {
			failed = append(failed, res.ID)
			continue
		}
		accepted = append(accepted, res)
		if res.Duplicate {
			s.metrics.turns.WithLabelValues("duplicate").Inc()
		} else {
			s.metrics.turns.WithLabelValues("accepted").Inc()
		}
	}
	if err != nil {
		s.metrics.turns.WithLabelValues("failed").Add(float64(len(failed)))
		s.log.Error("publish turns", "tenant_id", t.ID(), "failed", len(failed), "error", err.Error())
		w.Header().Set("Retry-After", "1")
		writeJSON(w, http.StatusServiceUnavailable, client.TurnsResult{
			Error:    &client.Error{Code: "unavailable", Message: "some turns were not stored; resend them (ids are deduplicated)"},
			Accepted: accepted, Failed: failed,
		})
		return
	}
	writeJSON(w, http.StatusAccepted, client.TurnsResult{Accepted: accepted})
}

// splitBody returns the raw turns of a body that is one object or an array.
func splitBody(body []byte) ([]json.RawMessage, bool, error) {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return nil, false, errors.New("empty body")
	}
	switch trimmed[0] {
	case '[':
		var raws []json.RawMessage
		if err := json.Unmarshal(trimmed, &raws); err != nil {
			return nil, true, err
		}
		for i, r := range raws {
			if c := bytes.TrimSpace(r); len(c) == 0 || c[0] != '{' {
				return nil, true, fmt.Errorf("element %d is not an object", i)
			}
		}
		return raws, true, nil
	case '{':
		if !json.Valid(trimmed) {
			var v any
			return nil, false, json.Unmarshal(trimmed, &v)
		}
		return []json.RawMessage{trimmed}, false, nil
	default:
		return nil, false, errors.New("want a turn object or an array of them")
	}
}
