package api

import (
	"net/http"
)

// interestsParams are what GET .../interests (and .../profile, its former
// path) reads from its URL.
var interestsParams = []param{{"limit", kindNumber}, {"vector", kindBool}}

// getInterests returns the user's interest facts by weight now and the
// interest vector's metadata.
func (s *Server) getInterests(w http.ResponseWriter, r *http.Request, tenant string) {
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	a := args(r.URL.Query())
	out, err := s.mem.Interests(ctx, tenant, r.PathValue("user_id"), a.count("limit"), a.flag("vector"))
	s.answer(w, r, http.StatusOK, out, err)
}

// postInterestsRefresh queues a recompute of the user's interest vector.
func (s *Server) postInterestsRefresh(w http.ResponseWriter, r *http.Request, tenant string) {
	out, err := s.mem.RefreshInterests(r.Context(), tenant, r.PathValue("user_id"))
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
