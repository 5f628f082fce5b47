package api

import (
	"net/http"
)

// getProfile returns the user's interest facts by weight now and the
// interest vector's metadata.
func (s *Server) getProfile(w http.ResponseWriter, r *http.Request, tenant string) {
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	a := args(r.URL.Query())
	out, err := s.mem.Profile(ctx, tenant, r.PathValue("user_id"), a.count("limit"), a.flag("vector"))
	s.answer(w, r, http.StatusOK, out, err)
}

// postProfileRefresh queues a recompute of the user's interest vector.
func (s *Server) postProfileRefresh(w http.ResponseWriter, r *http.Request, tenant string) {
	out, err := s.mem.RefreshProfile(r.Context(), tenant, r.PathValue("user_id"))
	s.answer(w, r, http.StatusAccepted, out, err)
}

// getRecommendations returns the catalog items nearest to the user's
// interest vector.
func (s *Server) getRecommendations(w http.ResponseWriter, r *http.Request, tenant string) {
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	out, err := s.mem.Recommendations(ctx, tenant, r.PathValue("user_id"), args(r.URL.Query()).count("k"))
	s.answer(w, r, http.StatusOK, out, err)
}
