package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/recallhq/recall/pkg/client"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/store"
)

// MaxUnseenRefs bounds the refs of one unseen request.
const MaxUnseenRefs = 1000

// maxSelectionDigits bounds n in a selection path: far beyond any list
// (EVENT_MAX_ITEMS), short of overflowing an int.
const maxSelectionDigits = 9

// getSelection resolves "the user answered 3": item n (1-based) of the list the
// session presented last, as it was sent, so that the assistant quotes its real
// ref instead of reconstructing one.
func (s *Server) getSelection(w http.ResponseWriter, r *http.Request, t *store.Tenant) {
	id, ok := s.sessionID(w, r)
	if !ok {
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
	li, err := t.ListItem(ctx, id, n)
	switch {
	case errors.Is(err, store.ErrNoList):
		writeError(w, http.StatusNotFound, "no_list", "no list has been presented in this session", nil)
		return
	case err != nil:
		s.readError(w, r, err)
		return
	}
	if li.Item == nil {
		msg := fmt.Sprintf("the current list (event %s) has %d items", li.EventID, li.Count)
		want := fmt.Sprintf("want 1 to %d", li.Count)
		if li.Count == 0 {
			msg, want = fmt.Sprintf("the current list (event %s) is empty", li.EventID), "the list has no items"
		}
		writeError(w, http.StatusNotFound, "out_of_range", msg, []events.FieldError{{Field: "n", Message: want}})
		return
	}
	writeJSON(w, http.StatusOK, client.Selection{
		SessionID: id, N: n, Item: li.Item,
		List: client.ListInfo{EventID: li.EventID, OccurredAt: li.OccurredAt, Count: li.Count},
	})
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
func (s *Server) postUnseen(w http.ResponseWriter, r *http.Request, t *store.Tenant) {
	userID, ok := s.userID(w, r)
	if !ok {
		return
	}
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
	req, fe := s.decodeUnseen(body)
	if len(fe) > 0 {
		writeError(w, http.StatusBadRequest, "invalid_request", "invalid unseen request", fe)
		return
	}
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	unseen, marked, err := t.Unseen(ctx, userID, req.Refs, store.UnseenOptions{
		Mark: req.MarkNotified, At: s.now(), NotificationID: req.NotificationID,
	})
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, client.Unseen{UserID: userID, Unseen: unseen, Marked: marked})
}

// decodeUnseen reads and checks an unseen request, reporting every problem with
// its field. Refs that repeat are answered once, at their first position.
func (s *Server) decodeUnseen(body []byte) (client.UnseenRequest, []events.FieldError) {
	var req client.UnseenRequest
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
	switch {
	case len(req.Refs) == 0:
		fe = append(fe, events.FieldError{Field: "refs", Message: "required: a non-empty array of item refs"})
	case len(req.Refs) > MaxUnseenRefs:
		fe = append(fe, events.FieldError{Field: "refs", Message: fmt.Sprintf("%d refs, limit is %d per request", len(req.Refs), MaxUnseenRefs)})
	default:
		seen := make(map[string]bool, len(req.Refs))
		refs := req.Refs[:0:0]
		for i, ref := range req.Refs {
			field := fmt.Sprintf("refs[%d]", i)
			switch {
			case ref == "":
				fe = append(fe, events.FieldError{Field: field, Message: "required: the stable reference of an item"})
			case len(ref) > events.MaxRefBytes:
				fe = append(fe, events.FieldError{Field: field, Message: fmt.Sprintf("%d bytes, limit is %d", len(ref), events.MaxRefBytes)})
			case strings.IndexByte(ref, 0) >= 0:
				fe = append(fe, events.FieldError{Field: field, Message: "contains a NUL character"})
			case !seen[ref]:
				seen[ref] = true
				refs = append(refs, ref)
			}
		}
		req.Refs = refs
	}
	if req.NotificationID != "" && !s.validID(req.NotificationID) {
		fe = append(fe, events.FieldError{Field: "notification_id", Message: fmt.Sprintf("valid UTF-8 without control characters, at most %d bytes", s.limits.MaxIDBytes)})
	}
	return req, fe
}

// bodyError names the field a JSON decoding error is about.
func bodyError(err error) events.FieldError {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te) && te.Field != "":
		return events.FieldError{Field: te.Field, Message: fmt.Sprintf("want %s, got a JSON %s", events.JSONKind(te.Type.Kind().String()), te.Value)}
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
func (s *Server) getSeen(w http.ResponseWriter, r *http.Request, t *store.Tenant) {
	userID, ok := s.userID(w, r)
	if !ok {
		return
	}
	var fe []events.FieldError
	limit := queryInt(r.URL.Query(), "limit", 100, 1000, &fe)
	if len(fe) > 0 {
		writeError(w, http.StatusBadRequest, "invalid_request", "invalid parameter", fe)
		return
	}
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	items, err := t.SeenItems(ctx, userID, limit)
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, client.Seen{UserID: userID, Items: nonNil(items)})
}
