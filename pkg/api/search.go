package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/recallhq/recall/pkg/client"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/search"
	"github.com/recallhq/recall/pkg/store"
)

// searchFields are the parameters of a search, as the fields of
// POST /v1/users/{user_id}/search's body.
var searchFields = []string{"q", "k", "session_id", "agent_id", "role", "kind", "since", "until", "neighbors", "max_per_session"}

// getSearch answers the raw hits of a search of one user's history, for
// tools and debugging (the context carries them as its recalled part).
func (s *Server) getSearch(w http.ResponseWriter, r *http.Request, t *store.Tenant) {
	s.searchUser(w, r, t, r.URL.Query())
}

// postSearch is getSearch with the parameters in a JSON body.
func (s *Server) postSearch(w http.ResponseWriter, r *http.Request, t *store.Tenant) {
	qv, ok := s.bodyParams(w, r, searchFields)
	if !ok {
		return
	}
	s.searchUser(w, r, t, qv)
}

func (s *Server) searchUser(w http.ResponseWriter, r *http.Request, t *store.Tenant, qv url.Values) {
	var fe []events.FieldError
	userID := r.PathValue("user_id")
	if !s.validID(userID) {
		fe = append(fe, events.FieldError{Field: "user_id", Message: fmt.Sprintf("valid UTF-8 without control characters, at most %d bytes", s.limits.MaxIDBytes)})
	}
	q := qv.Get("q")
	s.checkQuery(q, "q", true, &fe)
	p := store.SearchParams{UserID: userID, Now: s.now()}
	p.K = queryIntIn(qv, "k", store.DefaultSearchK, 1, store.MaxSearchK, &fe)
	p.MaxPerSession = queryIntIn(qv, "max_per_session", store.DefaultMaxPerSession, 1, store.MaxSearchK, &fe)
	for _, f := range []struct {
		name string
		dst  *string
	}{{"session_id", &p.SessionID}, {"agent_id", &p.AgentID}} {
		if v := qv.Get(f.name); v != "" {
			if !s.validID(v) {
				fe = append(fe, events.FieldError{Field: f.name, Message: fmt.Sprintf("valid UTF-8 without control characters, at most %d bytes", s.limits.MaxIDBytes)})
			}
			*f.dst = v
		}
	}
	if v := qv.Get("role"); v != "" {
		for _, role := range strings.Split(v, ",") {
			if role != events.RoleUser && role != events.RoleAssistant {
				fe = append(fe, events.FieldError{Field: "role", Message: fmt.Sprintf("%q: one of user, assistant (comma-separated); other turns are not indexed", role)})
				continue
			}
			p.Roles = append(p.Roles, role)
		}
	}
	if v := qv.Get("kind"); v != "" {
		for _, kind := range strings.Split(v, ",") {
			if !slices.Contains([]string{store.SearchMessage, store.SearchSummary, store.SearchFact}, kind) {
				fe = append(fe, events.FieldError{Field: "kind", Message: fmt.Sprintf("%q: one of message, summary, fact (comma-separated)", kind)})
				continue
			}
			p.Kinds = append(p.Kinds, kind)
		}
	}
	p.Since = queryTime(qv, "since", &fe)
	p.Until = queryTime(qv, "until", &fe)
	if !p.Since.IsZero() && !p.Until.IsZero() && !p.Until.After(p.Since) {
		fe = append(fe, events.FieldError{Field: "until", Message: "must be after since"})
	}
	if v := qv.Get("neighbors"); v != "" {
		// true or false, or how many turns on each side.
		if n, err := strconv.Atoi(v); err == nil && n >= 0 && n <= store.MaxNeighborTurns {
			p.Neighbors, p.NeighborTurns = n > 0, n
		} else if b, err := strconv.ParseBool(v); err == nil {
			p.Neighbors = b
		} else {
			fe = append(fe, events.FieldError{Field: "neighbors", Message: fmt.Sprintf("true or false, or the turns on each side, 0 to %d", store.MaxNeighborTurns)})
		}
	}
	if len(fe) > 0 {
		writeError(w, http.StatusBadRequest, "invalid_request", "invalid search", fe)
		return
	}
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	res, err := s.searcher.Search(ctx, search.Query{TenantID: t.ID(), Text: q, SearchParams: p})
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	out := client.SearchResult{UserID: userID, Query: q, Terms: res.Terms, Search: "lexical", Hits: res.Hits}
	if res.Vector {
		out.Search = "hybrid"
	}
	if out.Terms == nil {
		out.Terms = []string{}
	}
	if out.Hits == nil {
		out.Hits = []store.SearchHit{}
	}
	if res.EmbedErr != nil {
		out.Notes = append(out.Notes, client.Note{Reason: "embedder", Detail: embedFailure(res.EmbedErr)})
	}
	writeJSON(w, http.StatusOK, out)
}

// checkQuery checks a query's text: valid UTF-8 without NUL, at most
// MaxQueryBytes; required says it may not be blank.
func (s *Server) checkQuery(q, field string, required bool, fe *[]events.FieldError) {
	switch {
	case required && strings.TrimSpace(q) == "":
		*fe = append(*fe, events.FieldError{Field: field, Message: "required: the text to search for"})
	case len(q) > MaxQueryBytes:
		*fe = append(*fe, events.FieldError{Field: field, Message: fmt.Sprintf("%d bytes, limit is %d", len(q), MaxQueryBytes)})
	case !utf8.ValidString(q):
		*fe = append(*fe, events.FieldError{Field: field, Message: "not valid UTF-8"})
	case strings.IndexByte(q, 0) >= 0:
		*fe = append(*fe, events.FieldError{Field: field, Message: "contains a NUL character"})
	}
}

// queryTime reads an optional time: RFC 3339, or a date (2026-01-01, UTC).
func queryTime(qv url.Values, name string, fe *[]events.FieldError) time.Time {
	v := qv.Get(name)
	if v == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		t, err = time.Parse(time.DateOnly, v)
	}
	if err != nil {
		*fe = append(*fe, events.FieldError{Field: name, Message: "want an RFC 3339 time (2026-01-01T08:00:00Z) or a date (2026-01-01)"})
	}
	return t
}

// bodyParams reads a JSON object body whose fields are the parameters a GET
// of the same route takes in its URL: strings as they are, numbers and
// booleans as written. Unknown fields, other JSON types, a body over
// API_MAX_BODY_BYTES and half surrogate pairs are a 400 or 413 naming the
// field; it reports whether it answered nothing yet.
func (s *Server) bodyParams(w http.ResponseWriter, r *http.Request, fields []string) (url.Values, bool) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes))
	if err != nil {
		writeError(w, http.StatusRequestEntityTooLarge, "too_large", fmt.Sprintf("body over %d bytes", s.cfg.MaxBodyBytes), nil)
		return nil, false
	}
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil || raw == nil {
		msg := "want a JSON object"
		if err != nil {
			msg += ": " + err.Error()
		}
		writeError(w, http.StatusBadRequest, "invalid_request", "invalid body", []events.FieldError{{Field: "(body)", Message: msg}})
		return nil, false
	}
	qv := url.Values{}
	var fe []events.FieldError
	for _, k := range slices.Sorted(maps.Keys(raw)) {
		v := raw[k]
		if !slices.Contains(fields, k) {
			fe = append(fe, events.FieldError{Field: k, Message: "unknown field; known: " + strings.Join(fields, ", ")})
			continue
		}
		if events.HasLoneSurrogate(v) {
			fe = append(fe, events.FieldError{Field: k, Message: "contains a \\u escape of half a UTF-16 surrogate pair, which is not a character"})
			continue
		}
		var x any
		d := json.NewDecoder(bytes.NewReader(v))
		d.UseNumber()
		if err := d.Decode(&x); err != nil {
			fe = append(fe, events.FieldError{Field: k, Message: err.Error()})
			continue
		}
		switch x := x.(type) {
		case nil:
		case string:
			qv.Set(k, x)
		case json.Number:
			qv.Set(k, x.String())
		case bool:
			qv.Set(k, strconv.FormatBool(x))
		default:
			fe = append(fe, events.FieldError{Field: k, Message: "want a string, a number or a boolean"})
		}
	}
	if len(fe) > 0 {
		writeError(w, http.StatusBadRequest, "invalid_request", "invalid body", fe)
		return nil, false
	}
	return qv, true
}
