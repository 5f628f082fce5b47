package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"unicode/utf8"

	"github.com/recallhq/recall/pkg/events"
)

// postTurns accepts one turn or an array. The whole request is validated first and
// rejected as a whole with every field error; nothing is published from a request
// that has any invalid turn. A turn is reported accepted only once JetStream has
// stored it; on a publish failure the response lists what was and was not stored,
// and resending the same request is safe (dedupe by id). With ?wait=stored or
// searchable (and an optional timeout=) the answer comes once the workers have
// got that far with every accepted turn, or when the bound passes, and says which
// (memory.Service.AddTurnsWait).
func (s *Server) postTurns(w http.ResponseWriter, r *http.Request, tenant string) {
	a := args(r.URL.Query())
	wait, err := s.mem.CheckTurnWait(a.text("wait"), a.seconds("timeout"))
	if err != nil {
		s.answer(w, r, 0, nil, err)
		return
	}
	body, ok := s.readBody(w, r)
	if !ok {
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

	// Each turn is read here; one that cannot be read is refused by the
	// service in its place, with the others' mistakes (events.ReadTurn).
	turns := make([]events.Turn, len(raws))
	for i, raw := range raws {
		turns[i] = events.ReadTurn(raw, s.limits)
	}
	out, err := s.mem.AddTurnsWait(r.Context(), tenant, turns, isArray, wait)
	if out != nil && out.Error != nil {
		w.Header().Set("Retry-After", "1")
		writeJSON(w, http.StatusServiceUnavailable, out)
		return
	}
	s.answer(w, r, http.StatusAccepted, out, err)
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

// getTurn answers where one of the tenant's turns stands: stored, each
// turn-stream worker done with it or not, searchable, summarized
// (memory.Service.TurnStatus). A turn not stored yet is found with ?seq=, the
// sequence its POST answered: a whole number from 1, which a uint64 holds
// whole, so its text is judged here, after the id.
func (s *Server) getTurn(w http.ResponseWriter, r *http.Request, tenant string) {
	id := r.PathValue("id")
	if err := s.mem.IDError("id", id); err != nil {
		s.answer(w, r, 0, nil, err)
		return
	}
	var seq uint64
	if v := r.URL.Query().Get("seq"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil || n == 0 {
			writeError(w, http.StatusBadRequest, "invalid_request", "invalid parameter",
				[]events.FieldError{{Field: "seq", Message: "want the turn's stream sequence from POST /v1/turns (a whole number from 1)"}})
			return
		}
		seq = n
	}
	out, err := s.mem.TurnStatus(r.Context(), tenant, id, seq)
	s.answer(w, r, http.StatusOK, out, err)
}
