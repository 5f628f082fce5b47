package api

import (
	"net/http"

	"github.com/recallhq/recall/pkg/forget"
	"github.com/recallhq/recall/pkg/store"
)

// deleteUser forgets a user: every stored row and every stream message of
// theirs. It answers what was removed; forgetting twice is no error.
func (s *Server) deleteUser(w http.ResponseWriter, r *http.Request, t *store.Tenant) {
	userID, ok := s.userID(w, r)
	if !ok {
		return
	}
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	rep, err := forget.User(ctx, s.store, s.js, t.ID(), userID)
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	s.log.Info("user forgotten", "tenant_id", t.ID(), "user_id", userID, "rows", rep.Rows, "stream_messages", rep.StreamMessages)
	writeJSON(w, http.StatusOK, rep)
}
