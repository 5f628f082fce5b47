package api

import (
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/recallhq/recall/pkg/decay"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/forget"
	"github.com/recallhq/recall/pkg/store"
)

// The routes the inspector (/ui/) reads, beside the ones any client uses:
// what Recall holds about a user, and why.

type usersResponse struct {
	Users      []store.UserActivity `json:"users"`
	NextCursor string               `json:"next_cursor,omitempty"`
}

// getUsers lists the tenant's users who have sessions, latest activity first,
// a page at a time; ?prefix= keeps the ids that start with it.
func (s *Server) getUsers(w http.ResponseWriter, r *http.Request, t *store.Tenant) {
	qv := r.URL.Query()
	var fe []events.FieldError
	limit := queryInt(qv, "limit", 50, 500, &fe)
	after := queryCursor(qv, func(c store.ActivityCursor) bool { return c.ID != "" && !c.At.IsZero() }, &fe)
	prefix := qv.Get("prefix")
	if prefix != "" && !s.validID(prefix) {
		fe = append(fe, events.FieldError{Field: "prefix", Message: "valid UTF-8 without control characters, at most an id's length"})
	}
	if len(fe) > 0 {
		writeError(w, http.StatusBadRequest, "invalid_request", "invalid parameter", fe)
		return
	}
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	users, next, err := t.Users(ctx, prefix, after, limit)
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	out := usersResponse{Users: nonNil(users)}
	if next != nil {
		out.NextCursor = encodeCursor(*next)
	}
	writeJSON(w, http.StatusOK, out)
}

// getUser answers what is stored about a user, table by table and stream by
// stream: what DELETE /v1/users/{user_id} would remove now (the same shape
// as its answer). A user with nothing stored is not found.
func (s *Server) getUser(w http.ResponseWriter, r *http.Request, t *store.Tenant) {
	userID, ok := s.userID(w, r)
	if !ok {
		return
	}
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	rep, err := forget.Count(ctx, s.store, s.js, t.ID(), userID)
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	var n uint64
	for _, c := range rep.Rows {
		n += uint64(c)
	}
	for _, c := range rep.StreamMessages {
		n += c
	}
	if n == 0 {
		writeError(w, http.StatusNotFound, "not_found", "nothing is stored about this user", nil)
		return
	}
	writeJSON(w, http.StatusOK, rep)
}

// decayRule is a fact type's decay policy as the API serves it.
type decayRule struct {
	PeriodSeconds float64 `json:"period_seconds"`
	Factor        float64 `json:"factor"`
	Floor         float64 `json:"floor"`
	TTLSeconds    float64 `json:"ttl_seconds"`
	// ArchivedAfter is how many full periods after its last mention a fact
	// is archived; 0: never.
	ArchivedAfter int `json:"archived_after_periods"`
}

func ruleOf(r decay.Rule) decayRule {
	return decayRule{PeriodSeconds: r.Period.Seconds(), Factor: r.Factor, Floor: r.Floor, TTLSeconds: r.TTL.Seconds(), ArchivedAfter: r.ArchivedAfter()}
}

// factView is a fact with its weight and status now, the times of its
// newest mentions and its weight over time, all by the server's policy.
type factView struct {
	store.FactHistory
	// Weight is the weight now (base_weight decayed to the response's at).
	Weight float64 `json:"weight"`
	// StatusNow is the status as of now; Status is the one the decayer
	// last wrote, which lags until its next run.
	StatusNow string             `json:"status_now"`
	Curve     []decay.CurvePoint `json:"curve"`
}

type factsResponse struct {
	UserID string `json:"user_id"`
	// At is the time weights and statuses are computed for: the request's.
	At time.Time `json:"at"`
	// Policy is the decay rule of each fact type on the page.
	Policy     map[string]decayRule `json:"policy"`
	Facts      []factView           `json:"facts"`
	NextCursor string               `json:"next_cursor,omitempty"`
}

var factStatuses = []string{store.FactActive, store.FactArchived, store.FactExpired}

// getUserFacts pages through a user's interest facts, newest mention first,
// whatever their status (?status= narrows it), each with its weight now and
// its weight curve: mentions, decay steps, the archive floor and the expiry,
// computed by the decay policy the decayer and the context apply.
func (s *Server) getUserFacts(w http.ResponseWriter, r *http.Request, t *store.Tenant) {
	userID, ok := s.userID(w, r)
	if !ok {
		return
	}
	qv := r.URL.Query()
	var fe []events.FieldError
	limit := queryInt(qv, "limit", 50, 200, &fe)
	mentions := queryInt(qv, "mentions", 50, 500, &fe)
	after := queryCursor(qv, func(c store.FactCursor) bool { return c.Type != "" && !c.LastMentionedAt.IsZero() }, &fe)
	statuses := factStatuses
	if v := qv.Get("status"); v != "" {
		statuses = strings.Split(v, ",")
		for _, st := range statuses {
			if !slices.Contains(factStatuses, st) {
				fe = append(fe, events.FieldError{Field: "status", Message: "comma-separated, each one of active, archived, expired"})
				break
			}
		}
	}
	if len(fe) > 0 {
		writeError(w, http.StatusBadRequest, "invalid_request", "invalid parameter", fe)
		return
	}
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	facts, next, err := t.FactPage(ctx, userID, statuses, after, limit, mentions)
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	now := s.now()
	out := factsResponse{UserID: userID, At: now.UTC(), Policy: map[string]decayRule{}, Facts: make([]factView, len(facts))}
	for i, f := range facts {
		weight, status := s.policy.Assess(f.Type, f.Weight, f.LastMentionedAt, f.ExpiresAt, now)
		out.Facts[i] = factView{FactHistory: f, Weight: weight, StatusNow: status,
			Curve: nonNil(s.policy.Curve(f.Type, f.Weight, f.Mentions, f.ExpiresAt))}
		out.Policy[f.Type] = ruleOf(s.policy.Rule(f.Type))
	}
	if next != nil {
		out.NextCursor = encodeCursor(*next)
	}
	writeJSON(w, http.StatusOK, out)
}

type userSessionsResponse struct {
	UserID     string              `json:"user_id"`
	Sessions   []store.UserSession `json:"sessions"`
	NextCursor string              `json:"next_cursor,omitempty"`
}

// getUserSessions pages through a user's sessions, latest activity first,
// each with its current summary and the event-time range it covers.
func (s *Server) getUserSessions(w http.ResponseWriter, r *http.Request, t *store.Tenant) {
	userID, ok := s.userID(w, r)
	if !ok {
		return
	}
	qv := r.URL.Query()
	var fe []events.FieldError
	limit := queryInt(qv, "limit", 20, 200, &fe)
	after := queryCursor(qv, func(c store.ActivityCursor) bool { return c.ID != "" && !c.At.IsZero() }, &fe)
	if len(fe) > 0 {
		writeError(w, http.StatusBadRequest, "invalid_request", "invalid parameter", fe)
		return
	}
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	sessions, next, err := t.UserSessions(ctx, userID, after, limit)
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	out := userSessionsResponse{UserID: userID, Sessions: nonNil(sessions)}
	if next != nil {
		out.NextCursor = encodeCursor(*next)
	}
	writeJSON(w, http.StatusOK, out)
}

// shelfItem is an item on a user's shelf.
type shelfItem struct {
	Ref        string    `json:"ref"`
	Status     string    `json:"status"`
	OccurredAt time.Time `json:"occurred_at"`
	Title      string    `json:"title,omitempty"`
	Type       string    `json:"type,omitempty"`
	// Embedded says whether the catalog has an embedding of the item, which
	// the interest vector needs.
	Embedded bool `json:"embedded"`
}

// getShelf lists a user's shelf (removed items left out) with the catalog's
// title of each item.
func (s *Server) getShelf(w http.ResponseWriter, r *http.Request, t *store.Tenant) {
	userID, ok := s.userID(w, r)
	if !ok {
		return
	}
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	shelf, err := t.Shelf(ctx, userID)
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	items := make([]shelfItem, len(shelf))
	for i, sv := range shelf {
		items[i] = shelfItem{Ref: sv.Ref, Status: sv.Status, OccurredAt: sv.OccurredAt, Title: sv.Title, Type: sv.Type, Embedded: sv.Embedding != nil}
	}
	writeJSON(w, http.StatusOK, map[string]any{"user_id": userID, "items": items})
}

// getSummaries lists every version of a session's summary, newest first,
// with the messages each read and the event-time range it covers.
func (s *Server) getSummaries(w http.ResponseWriter, r *http.Request, t *store.Tenant) {
	id, ok := s.sessionID(w, r)
	if !ok {
		return
	}
	var fe []events.FieldError
	limit := queryInt(r.URL.Query(), "limit", 20, 200, &fe)
	if len(fe) > 0 {
		writeError(w, http.StatusBadRequest, "invalid_request", "invalid parameter", fe)
		return
	}
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	sums, err := t.SummaryVersions(ctx, id, limit)
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	if len(sums) == 0 {
		if _, err := t.Session(ctx, id); err != nil {
			s.readError(w, r, err)
			return
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"session_id": id, "summaries": nonNil(sums)})
}
