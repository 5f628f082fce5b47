package api

import (
	"net/http"
	"net/url"
)

// searchParams are the parameters a search takes: GET's query, POST's body.
var searchParams = []param{{"q", kindText}, {"k", kindNumber}, {"session_id", kindText}, {"agent_id", kindText},
	{"role", kindText}, {"kind", kindText}, {"since", kindText}, {"until", kindText}, {"neighbors", kindNumberOrBool},
	{"max_per_session", kindNumber}, {"at", kindText}}

// getSearch searches one user's history (the parameters in the URL).
func (s *Server) getSearch(w http.ResponseWriter, r *http.Request, tenant string) {
	s.searchUser(w, r, tenant, r.URL.Query())
}

// postSearch is getSearch with the parameters in a JSON body, for a text
// too long for a URL.
func (s *Server) postSearch(w http.ResponseWriter, r *http.Request, tenant string) {
	if qv, ok := s.bodyParams(w, r, searchParams); ok {
		s.searchUser(w, r, tenant, qv)
	}
}

func (s *Server) searchUser(w http.ResponseWriter, r *http.Request, tenant string, qv url.Values) {
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	out, err := s.mem.Search(ctx, tenant, r.PathValue("user_id"), qv)
	s.answer(w, r, http.StatusOK, out, err)
}
