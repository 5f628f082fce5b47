package api

import (
	"net/http"
	"strconv"

	"github.com/recallhq/recall/pkg/contract"
	"github.com/recallhq/recall/pkg/memory"
)

// searchParams are the parameters a search takes: GET's query, POST's body.
var searchParams = []param{{"q", kindText}, {"k", kindNumber}, {"session_id", kindText}, {"agent_id", kindText},
	{"role", kindText}, {"kind", kindText}, {"since", kindText}, {"until", kindText}, {"neighbors", kindNumberOrBool},
	{"max_per_session", kindNumber}, {"at", kindText}}

// getSearch searches one user's history (the parameters in the URL).
func (s *Server) getSearch(w http.ResponseWriter, r *http.Request, tenant string) {
	s.searchUser(w, r, tenant, args(r.URL.Query()))
}

// postSearch is getSearch with the parameters in a JSON body, for a text
// too long for a URL.
func (s *Server) postSearch(w http.ResponseWriter, r *http.Request, tenant string) {
	if a, ok := s.bodyParams(w, r, searchParams); ok {
		s.searchUser(w, r, tenant, a)
	}
}

func (s *Server) searchUser(w http.ResponseWriter, r *http.Request, tenant string, a args) {
	p := readSearch(a)
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	out, err := s.mem.Search(ctx, tenant, r.PathValue("user_id"), p)
	s.answer(w, r, http.StatusOK, out, err)
}

// readSearch reads a search's parameters: k and max_per_session are
// counts; neighbors is true or false, or the turns on each side.
func readSearch(a args) contract.SearchParams {
	p := contract.SearchParams{Q: a.text("q"), K: a.count("k"), SessionID: a.text("session_id"), AgentID: a.text("agent_id"),
		Role: a.text("role"), Kind: a.text("kind"), Since: a.text("since"), Until: a.text("until"),
		MaxPerSession: a.count("max_per_session"), At: a.text("at")}
	if v := a.text("neighbors"); v != "" {
		if n, err := strconv.Atoi(v); err == nil {
			p.NeighborTurns = n
		} else if b, err := strconv.ParseBool(v); err == nil {
			p.Neighbors = b
		} else {
			p.NeighborTurns = memory.NotANumber
		}
	}
	return p
}
