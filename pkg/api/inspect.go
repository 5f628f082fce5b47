package api

import (
	"net/http"
)

// The inspector's reads: what Recall holds about a tenant's users, for
// people looking at it (pkg/ui) and for tools.

// getUsers lists the tenant's users, most recently active first.
func (s *Server) getUsers(w http.ResponseWriter, r *http.Request, tenant string) {
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	a := args(r.URL.Query())
	out, err := s.mem.Users(ctx, tenant, a.text("prefix"), a.page())
	s.answer(w, r, http.StatusOK, out, err)
}

// getUser counts what is stored about a user: what forgetting them removes.
func (s *Server) getUser(w http.ResponseWriter, r *http.Request, tenant string) {
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	out, err := s.mem.User(ctx, tenant, r.PathValue("user_id"))
	s.answer(w, r, http.StatusOK, out, err)
}

// deleteUser forgets a user: every stored row and every stream message of
// theirs. It answers what was removed; forgetting twice is no error.
func (s *Server) deleteUser(w http.ResponseWriter, r *http.Request, tenant string) {
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	out, err := s.mem.ForgetUser(ctx, tenant, r.PathValue("user_id"))
	s.answer(w, r, http.StatusOK, out, err)
}

// getUserFacts lists a user's facts with their decay.
func (s *Server) getUserFacts(w http.ResponseWriter, r *http.Request, tenant string) {
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	a := args(r.URL.Query())
	out, err := s.mem.UserFacts(ctx, tenant, r.PathValue("user_id"), a.text("status"), a.count("mentions"), a.page())
	s.answer(w, r, http.StatusOK, out, err)
}

// getUserSessions lists a user's sessions, most recent first.
func (s *Server) getUserSessions(w http.ResponseWriter, r *http.Request, tenant string) {
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	out, err := s.mem.UserSessions(ctx, tenant, r.PathValue("user_id"), args(r.URL.Query()).page())
	s.answer(w, r, http.StatusOK, out, err)
}

// getShelf returns a user's shelf.
func (s *Server) getShelf(w http.ResponseWriter, r *http.Request, tenant string) {
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	out, err := s.mem.Shelf(ctx, tenant, r.PathValue("user_id"))
	s.answer(w, r, http.StatusOK, out, err)
}
