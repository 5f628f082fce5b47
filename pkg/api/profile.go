package api

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/recallhq/recall/pkg/queue"

	"github.com/recallhq/recall/pkg/assemble"
	"github.com/recallhq/recall/pkg/client"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/store"
)

// getProfile shows what Recall holds about a user's interests: the facts that
// count now, strongest first, and the interest vector's metadata. A user with
// neither is not found.
func (s *Server) getProfile(w http.ResponseWriter, r *http.Request, t *store.Tenant) {
	userID, ok := s.userID(w, r)
	if !ok {
		return
	}
	qv := r.URL.Query()
	var fe []events.FieldError
	limit := queryInt(qv, "limit", 50, 500, &fe)
	withValues := false
	if v := qv.Get("vector"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			fe = append(fe, events.FieldError{Field: "vector", Message: "want true or false"})
		}
		withValues = b
	}
	if len(fe) > 0 {
		writeError(w, http.StatusBadRequest, "invalid_request", "invalid parameter", fe)
		return
	}
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	// Facts come newest mention first; ranking by weight now needs more of them
	// than are shown.
	facts, err := t.Facts(ctx, userID, []string{store.FactActive}, min(max(4*limit, 200), 2000))
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	prof, err := t.Profile(ctx, userID)
	found := err == nil
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		s.internalError(w, r, err)
		return
	}
	if !found && len(facts) == 0 {
		writeError(w, http.StatusNotFound, "not_found", "no interest profile for this user", nil)
		return
	}
	now := s.now()
	top := assemble.TopFacts(s.policy, facts, now, limit)
	stored := make(map[[2]string]store.Fact, len(facts))
	for _, f := range facts {
		stored[[2]string{f.Type, f.Value}] = f
	}
	out := client.Profile{UserID: userID, At: now.UTC(), Facts: make([]client.ProfileFact, len(top.Facts)), Cuts: top.Cuts}
	for i, wf := range top.Facts {
		f := stored[[2]string{wf.Type, wf.Value}]
		out.Facts[i] = client.ProfileFact{
			Type: f.Type, Value: f.Value, Display: f.Display, BaseWeight: f.Weight, Weight: wf.Weight,
			MentionCount: f.MentionCount, LastMentionedAt: f.LastMentionedAt, ExpiresAt: f.ExpiresAt, Status: f.Status,
		}
	}
	if found {
		out.Vector = client.ProfileVector{
			Present: prof.Vector != nil, Dims: prof.Dims, Model: prof.Model, Sources: prof.Sources,
			ComputedFrom: &prof.ComputedFrom, UpdatedAt: &prof.UpdatedAt, Revision: prof.Revision,
		}
		if withValues {
			out.Vector.Values = prof.Vector
		}
	}
	writeJSON(w, http.StatusOK, out)
}

// postProfileRefresh asks the profiler to recompute the user's vector as of
// now. Refreshes are debounced per user, so calling it often is cheap; the
// answer says whether this one was folded into a refresh already queued.
func (s *Server) postProfileRefresh(w http.ResponseWriter, r *http.Request, t *store.Tenant) {
	userID, ok := s.userID(w, r)
	if !ok {
		return
	}
	at := s.now().UTC()
	res, err := queue.NewRefresher(s.js, queue.DefaultRefreshBucket).Publish(r.Context(), []events.ProfileTask{{TenantID: t.ID(), UserID: userID, RequestedAt: at}})
	if err != nil {
		s.log.Error("publish profile refresh", "tenant_id", t.ID(), "error", err.Error())
		writeError(w, http.StatusServiceUnavailable, "unavailable", "the refresh could not be queued; retry", nil)
		return
	}
	writeJSON(w, http.StatusAccepted, client.ProfileRefresh{UserID: userID, RequestedAt: at, Duplicate: res[0].Duplicate})
}

// getRecommendations returns the tenant's catalog items nearest to the user's
// interest vector, leaving out deleted items and items already on the user's
// shelf. A user without a vector yet gets 409 no_profile: nothing is wrong with
// the request, but there is nothing to rank by until the profiler has run.
func (s *Server) getRecommendations(w http.ResponseWriter, r *http.Request, t *store.Tenant) {
	userID, ok := s.userID(w, r)
	if !ok {
		return
	}
	var fe []events.FieldError
	k := queryInt(r.URL.Query(), "k", 10, 100, &fe)
	if len(fe) > 0 {
		writeError(w, http.StatusBadRequest, "invalid_request", "invalid parameter", fe)
		return
	}
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	prof, err := t.Profile(ctx, userID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		writeError(w, http.StatusConflict, "no_profile", "this user has no interest vector yet (no shelf items or interest facts processed); POST .../profile/refresh or add shelf entries", nil)
		return
	case err != nil:
		s.internalError(w, r, err)
		return
	case prof.Vector == nil:
		writeError(w, http.StatusConflict, "no_profile", "this user's interest vector has no direction yet (nothing liked so far)", nil)
		return
	}
	items, err := t.Recommend(ctx, userID, prof.Vector, prof.Model, k)
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, client.Recommendations{UserID: userID, K: k, Model: prof.Model, Items: nonNil(items)})
}

// userID reads and checks the path's user id.
func (s *Server) userID(w http.ResponseWriter, r *http.Request) (string, bool) {
	return s.pathID(w, r, "user_id")
}
