package api

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"

	"github.com/recallhq/recall/pkg/queue"

	"github.com/recallhq/recall/pkg/client"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/store"
)

// getSession returns a session's aggregates and its newest messages (oldest first).
func (s *Server) getSession(w http.ResponseWriter, r *http.Request, t *store.Tenant) {
	id, ok := s.sessionID(w, r)
	if !ok {
		return
	}
	var fe []events.FieldError
	n := queryInt(r.URL.Query(), "recent", 10, 200, &fe)
	if len(fe) > 0 {
		writeError(w, http.StatusBadRequest, "invalid_request", "invalid parameter", fe)
		return
	}
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	sess, msgs, sum, err := t.SessionWithSummary(ctx, id, n)
	if err != nil {
		s.readError(w, r, err)
		return
	}
	reverse(msgs)
	writeJSON(w, http.StatusOK, client.Session{Session: sess, Recent: nonNil(msgs), Summary: sum})
}

func reverse[T any](s []T) {
	for i, j := 0, len(s)-1; i < j; i, j = i+1, j-1 {
		s[i], s[j] = s[j], s[i]
	}
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// getMessages pages through a session in event-time order. The cursor is opaque
// to clients.
func (s *Server) getMessages(w http.ResponseWriter, r *http.Request, t *store.Tenant) {
	id, ok := s.sessionID(w, r)
	if !ok {
		return
	}
	var fe []events.FieldError
	qv := r.URL.Query()
	limit := queryInt(qv, "limit", 50, 500, &fe)
	after := queryCursor(qv, func(c store.Cursor) bool { return c.EventID != "" && !c.OccurredAt.IsZero() }, &fe)
	if len(fe) > 0 {
		writeError(w, http.StatusBadRequest, "invalid_request", "invalid parameter", fe)
		return
	}
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	msgs, next, err := t.Messages(ctx, id, after, limit)
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	if len(msgs) == 0 && after.EventID == "" {
		if _, err := t.Session(ctx, id); err != nil {
			s.readError(w, r, err)
			return
		}
	}
	resp := client.MessagePage{Messages: nonNil(msgs)}
	if sum, err := t.CurrentSummary(ctx, id); err == nil {
		resp.Summary = &sum
	} else if !errors.Is(err, store.ErrNotFound) {
		s.internalError(w, r, err)
		return
	}
	if next != nil {
		resp.NextCursor = encodeCursor(*next)
	}
	writeJSON(w, http.StatusOK, resp)
}

// encodeCursor makes a page's position (a store cursor) opaque to clients.
func encodeCursor(c any) string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

// queryCursor reads the optional "cursor" parameter: a position this API
// returned (encodeCursor), which complete accepts. Absent: the zero value,
// the first page.
func queryCursor[T any](qv url.Values, complete func(T) bool, fe *[]events.FieldError) T {
	var c T
	s := qv.Get("cursor")
	if s == "" {
		return c
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err == nil {
		err = json.Unmarshal(b, &c)
	}
	if err != nil || !complete(c) {
		*fe = append(*fe, events.FieldError{Field: "cursor", Message: "not a cursor returned by this API"})
		var zero T
		return zero
	}
	return c
}

// deleteSession erases the session's messages from the streams (turns,
// summary requests, their dead letters: store.DeleteSession's counterpart
// in JetStream), so neither a redelivery nor a replay brings it back, then
// deletes its rows and what was derived from it alone (store.DeleteSession
// says what it keeps). When facts changed, the user's profile is asked to
// be computed again.
func (s *Server) deleteSession(w http.ResponseWriter, r *http.Request, t *store.Tenant) {
	id, ok := s.sessionID(w, r)
	if !ok {
		return
	}
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	sess, err := t.Session(ctx, id)
	if err != nil {
		s.readError(w, r, err)
		return
	}
	if _, err := queue.PurgeSession(ctx, s.js, t.ID(), sess.UserID, id); err != nil {
		s.internalError(w, r, err)
		return
	}
	d, err := t.DeleteSession(ctx, id)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		s.internalError(w, r, err)
		return
	}
	if d.Rows["fact_mentions"] > 0 {
		// The profile is derived from the facts; a lost refresh is made up
		// by the next one, so its failure does not fail the delete.
		task := events.ProfileTask{TenantID: t.ID(), UserID: d.UserID, RequestedAt: s.now().UTC()}
		if _, err := queue.NewRefresher(s.js, queue.DefaultRefreshBucket).Publish(ctx, []events.ProfileTask{task}); err != nil {
			s.log.Warn("delete session: profile refresh not queued", "session_id", id, "err", err)
		}
	}
	w.WriteHeader(http.StatusNoContent)
}
