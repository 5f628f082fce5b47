package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/recallhq/recall/pkg/contract"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/memory"
)

// MaxUnseenRefs bounds the refs of one unseen request.
const MaxUnseenRefs = memory.MaxUnseenRefs

// maxSelectionDigits bounds n in a selection path: far beyond any list
// (EVENT_MAX_ITEMS), short of overflowing an int.
const maxSelectionDigits = 9

// getSelection resolves "the user answered 3": item n (1-based) of the list the
// session presented last, as it was sent, so that the assistant quotes its real
// ref instead of reconstructing one.
func (s *Server) getSelection(w http.ResponseWriter, r *http.Request, tenant string) {
	id := r.PathValue("session_id")
	if err := s.mem.IDError("session_id", id); err != nil {
		s.answer(w, r, 0, nil, err)
		return
	}
	n, ok := selectionIndex(r.PathValue("n"))
	if !ok {
		writeError(w, http.StatusBadRequest, "invalid_request", "invalid position",
			[]events.FieldError{{Field: "n", Message: "want a whole number from 1: the position in the list as shown to the user"}})
		return
	}
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	out, err := s.mem.Selection(ctx, tenant, id, n)
	s.answer(w, r, http.StatusOK, out, err)
}

// selectionIndex reads a position: decimal digits only (no sign, no spaces), at
// least 1.
func selectionIndex(v string) (int, bool) {
	if v == "" || len(v) > maxSelectionDigits {
		return 0, false
	}
	n := 0
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, n >= 1
}

// postUnseen answers which of the candidate refs the user has never been shown
// (nor notified of), in the order given, and with mark_notified records them as
// notified: what a "new releases" notifier asks before pushing.
func (s *Server) postUnseen(w http.ResponseWriter, r *http.Request, tenant string) {
	userID := r.PathValue("user_id")
	if err := s.mem.IDError("user_id", userID); err != nil {
		s.answer(w, r, 0, nil, err)
		return
	}
	body, ok := s.readBody(w, r)
	if !ok {
		return
	}
	req, fe := decodeUnseen(body)
	if len(fe) > 0 {
		writeError(w, http.StatusBadRequest, "invalid_request", "invalid unseen request", fe)
		return
	}
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	out, err := s.mem.Unseen(ctx, tenant, userID, req)
	s.answer(w, r, http.StatusOK, out, err)
}

func decodeUnseen(body []byte) (contract.UnseenRequest, []events.FieldError) {
	var req contract.UnseenRequest
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return req, []events.FieldError{bodyError(err)}
	}
	if dec.More() {
		return req, []events.FieldError{{Field: "(body)", Message: "want one JSON object"}}
	}
	var fe []events.FieldError
	if events.HasLoneSurrogate(body) {
		// Decoded, half a surrogate pair is U+FFFD: two different refs would
		// read as one. Name the strings that hold one.
		var raw struct {
			Refs           []json.RawMessage `json:"refs"`
			NotificationID json.RawMessage   `json:"notification_id"`
		}
		_ = json.Unmarshal(body, &raw)
		for i, r := range raw.Refs {
			if events.HasLoneSurrogate(r) {
				fe = append(fe, events.FieldError{Field: fmt.Sprintf("refs[%d]", i), Message: "contains a \\u escape of half a UTF-16 surrogate pair, which is not a character"})
			}
		}
		if events.HasLoneSurrogate(raw.NotificationID) {
			fe = append(fe, events.FieldError{Field: "notification_id", Message: "contains a \\u escape of half a UTF-16 surrogate pair, which is not a character"})
		}
		if len(fe) > 0 {
			return req, fe
		}
	}
	return req, fe
}

// bodyError names the field a JSON decoding error is about.
func bodyError(err error) events.FieldError {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te) && te.Field != "":
		return events.FieldError{Field: events.FieldPath(te.Field), Message: fmt.Sprintf("want %s, got a JSON %s", events.JSONKind(te.Type.Kind().String()), te.Value)}
	case errors.As(err, &te):
		return events.FieldError{Field: "(body)", Message: "want a JSON object, got a JSON " + te.Value}
	case errors.As(err, &se), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return events.FieldError{Field: "(body)", Message: "malformed JSON: " + err.Error()}
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return events.FieldError{Field: strings.Trim(name, `"`), Message: "unknown field"}
	}
	return events.FieldError{Field: "(body)", Message: err.Error()}
}

// getSeen lists the items a user has been shown, most recently shown first.
func (s *Server) getSeen(w http.ResponseWriter, r *http.Request, tenant string) {
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	out, err := s.mem.Seen(ctx, tenant, r.PathValue("user_id"), args(r.URL.Query()).count("limit"))
	s.answer(w, r, http.StatusOK, out, err)
}
