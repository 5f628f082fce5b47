package api

import (
	"net/http"

	"github.com/recallhq/recall/pkg/contract"
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
	s.context(w, r, tenant, args(r.URL.Query()))
}

// postContext is getContext with the parameters in a JSON body, for a query
// too long for a URL.
func (s *Server) postContext(w http.ResponseWriter, r *http.Request, tenant string) {
	if a, ok := s.bodyParams(w, r, contextParams); ok {
		s.context(w, r, tenant, a)
	}
}

func (s *Server) context(w http.ResponseWriter, r *http.Request, tenant string, a args) {
	p := readContext(a)
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	out, err := s.mem.Context(ctx, tenant, p)
	s.answer(w, r, http.StatusOK, out, err)
}

// readContext reads a context's parameters. max_messages, max_chars and
// ttl are counts and a duration whose 0 contract.ContextParams reads as the
// default: a stated 0, which /v1 refuses, is passed as one the service
// refuses (args.count, args.duration); max_facts, max_summaries,
// max_recalled and budget may be 0, and are pointers.
func readContext(a args) contract.ContextParams {
	return contract.ContextParams{UserID: a.text("user_id"), SessionID: a.text("session_id"), Query: a.text("query"),
		MaxMessages: a.count("max_messages"), MaxChars: a.count("max_chars"), TTL: a.duration("ttl"),
		MaxFacts: a.number("max_facts"), MaxSummaries: a.number("max_summaries"), MaxRecalled: a.number("max_recalled"),
		Budget: a.number("budget"), Lang: a.text("lang"), At: a.text("at")}
}
