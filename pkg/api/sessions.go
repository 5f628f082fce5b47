package api

import (
	"net/http"
	"time"

	"github.com/recallhq/recall/pkg/contract"
)

// getSession returns a session's aggregates and its newest messages (oldest first).
func (s *Server) getSession(w http.ResponseWriter, r *http.Request, tenant string) {
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	out, err := s.mem.Session(ctx, tenant, r.PathValue("session_id"), args(r.URL.Query()).count("recent"))
	s.answer(w, r, http.StatusOK, out, err)
}

// getMessages pages through a session in event-time order. The cursor is opaque
// to clients.
func (s *Server) getMessages(w http.ResponseWriter, r *http.Request, tenant string) {
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	out, err := s.mem.Messages(ctx, tenant, r.PathValue("session_id"), args(r.URL.Query()).page())
	s.answer(w, r, http.StatusOK, out, err)
}

// getSummaries returns a session's summary versions, newest first.
func (s *Server) getSummaries(w http.ResponseWriter, r *http.Request, tenant string) {
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	out, err := s.mem.Summaries(ctx, tenant, r.PathValue("session_id"), args(r.URL.Query()).count("limit"))
	s.answer(w, r, http.StatusOK, out, err)
}

// deleteSession erases a session from the streams and the store
// (memory.Service.DeleteSession).
func (s *Server) deleteSession(w http.ResponseWriter, r *http.Request, tenant string) {
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	if err := s.mem.DeleteSession(ctx, tenant, r.PathValue("session_id")); err != nil {
		s.answer(w, r, 0, nil, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// postSummarize asks for the session's summary now: 200 when it is current
// or was written within wait, 202 when it is queued.
func (s *Server) postSummarize(w http.ResponseWriter, r *http.Request, tenant string) {
	// wait, seconds or a duration, is no wait when not given; a stated 0
	// is no wait either.
	var wait time.Duration
	if d := args(r.URL.Query()).seconds("wait"); d != nil {
		wait = *d
	}
	// The service bounds its reads itself: the wait may be most of the
	// request.
	out, err := s.mem.Summarize(r.Context(), tenant, r.PathValue("session_id"), wait)
	status := http.StatusOK
	if out != nil && out.Status == contract.SummaryQueued {
		status = http.StatusAccepted
	}
	s.answer(w, r, status, out, err)
}
