package api

import (
	"net/http"
	"net/url"

	"github.com/recallhq/recall/pkg/memory"
)

// MaxQueryBytes bounds the query of a context or a search: a chat message,
// not a document (the same bound as a turn's content).
const MaxQueryBytes = memory.MaxQueryBytes

// contextParams are the parameters a context takes: GET's query, POST's
// body (numbers for counts, strings for the rest).
var contextParams = []param{{"user_id", kindText}, {"session_id", kindText}, {"query", kindText},
	{"max_messages", kindNumber}, {"max_chars", kindNumber}, {"ttl", kindText}, {"max_facts", kindNumber},
	{"max_summaries", kindNumber}, {"max_recalled", kindNumber}, {"budget", kindNumber}, {"lang", kindText}, {"at", kindText}}

// getContext assembles what the backend puts into its next prompt (the
// parameters in the URL).
func (s *Server) getContext(w http.ResponseWriter, r *http.Request, tenant string) {
	s.context(w, r, tenant, r.URL.Query())
}

// postContext is getContext with the parameters in a JSON body, for a query
// too long for a URL.
func (s *Server) postContext(w http.ResponseWriter, r *http.Request, tenant string) {
	if qv, ok := s.bodyParams(w, r, contextParams); ok {
		s.context(w, r, tenant, qv)
	}
}

func (s *Server) context(w http.ResponseWriter, r *http.Request, tenant string, qv url.Values) {
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	out, err := s.mem.Context(ctx, tenant, qv)
	s.answer(w, r, http.StatusOK, out, err)
}
