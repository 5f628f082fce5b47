package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/recallhq/recall/pkg/contract"
	"github.com/recallhq/recall/pkg/events"
)

// getAttributes returns who the user is and what they asked for: the
// current values of their attributes' keys (with their history on
// history=true).
func (s *Server) getAttributes(w http.ResponseWriter, r *http.Request, tenant string) {
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	out, err := s.mem.Attributes(ctx, tenant, r.PathValue("user_id"), args(r.URL.Query()).flag("history"))
	s.answer(w, r, http.StatusOK, out, err)
}

// patchAttributes publishes explicit edits of the user's attributes (a list of
// puts and removals); 202 once they are in the stream.
func (s *Server) patchAttributes(w http.ResponseWriter, r *http.Request, tenant string) {
	var req contract.AttributeEdits
	if !s.readJSON(w, r, &req) {
		return
	}
	s.editAttributes(w, r, tenant, req, false)
}

// attributeValue is PUT .../attributes/{key}'s body.
type attributeValue struct {
	ID         string     `json:"id,omitempty"`
	Value      string     `json:"value"`
	OccurredAt *time.Time `json:"occurred_at,omitempty"`
}

// putAttribute sets one key's value (a single key) or adds one item (a set).
func (s *Server) putAttribute(w http.ResponseWriter, r *http.Request, tenant string) {
	var v attributeValue
	if !s.readJSON(w, r, &v) {
		return
	}
	s.editAttributes(w, r, tenant, contract.AttributeEdits{ID: v.ID, OccurredAt: v.OccurredAt,
		Edits: []contract.AttributeEdit{{Key: r.PathValue("key"), Op: events.AttributePut, Value: v.Value}}}, true)
}

// deleteAttribute clears one key, or takes the item value= out of a set.
func (s *Server) deleteAttribute(w http.ResponseWriter, r *http.Request, tenant string) {
	qv := r.URL.Query()
	s.editAttributes(w, r, tenant, contract.AttributeEdits{ID: qv.Get("id"),
		Edits: []contract.AttributeEdit{{Key: r.PathValue("key"), Op: events.AttributeRemove, Value: qv.Get("value")}}}, true)
}

// editAttributes publishes edits and answers 202. A route of one edit
// (single) names its fields by the route's own words: key (the path's),
// value, id.
func (s *Server) editAttributes(w http.ResponseWriter, r *http.Request, tenant string, req contract.AttributeEdits, single bool) {
	out, err := s.mem.EditAttributes(r.Context(), tenant, r.PathValue("user_id"), req)
	if e, ok := errors.AsType[*contract.Error](err); ok && single {
		e.TrimFieldPrefix("edits[0].")
	}
	s.answer(w, r, http.StatusAccepted, out, err)
}

// readJSON reads a request's body, one JSON object, into v: a body over
// API_MAX_BODY_BYTES is 413, malformed JSON, a field v does not have, a
// value of the wrong type and half a surrogate pair are 400 naming the
// field. It reports whether it answered nothing yet.
func (s *Server) readJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	body, ok := s.readBody(w, r)
	if !ok {
		return false
	}
	if events.HasLoneSurrogate(body) {
		writeError(w, http.StatusBadRequest, "invalid_request", "invalid body",
			[]events.FieldError{{Field: "(body)", Message: "contains a \\u escape of half a UTF-16 surrogate pair, which is not a character"}})
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		fe := bodyError(err)
		if pe, ok := errors.AsType[*time.ParseError](err); ok {
			// The attribute bodies' one time (a year past 9999, a date
			// without its time): named, as a turn's is.
			fe = events.FieldError{Field: "occurred_at", Message: "want an RFC 3339 time such as 2026-11-22T08:00:00Z, got " + strconv.Quote(pe.Value)}
		}
		writeError(w, http.StatusBadRequest, "invalid_request", "invalid body", []events.FieldError{fe})
		return false
	}
	if dec.More() {
		writeError(w, http.StatusBadRequest, "invalid_request", "invalid body", []events.FieldError{{Field: "(body)", Message: "want one JSON object"}})
		return false
	}
	return true
}
