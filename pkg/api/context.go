package api

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/recallhq/recall/pkg/assemble"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/store"
)

type contextResponse struct {
	UserID    string                `json:"user_id"`
	SessionID string                `json:"session_id"`
	Lang      string                `json:"lang"`
	Limits    assemble.WindowLimits `json:"limits"`
	TTL       string                `json:"ttl"`
	Window    assemble.Window       `json:"window"`
	Prompt    string                `json:"prompt"`
}

// getContext assembles what the backend puts into its next prompt. The session,
// if it exists, must belong to user_id; another user's session reads as not found.
func (s *Server) getContext(w http.ResponseWriter, r *http.Request, t *store.Tenant) {
	qv := r.URL.Query()
	var fe []events.FieldError
	userID, sessionID := qv.Get("user_id"), qv.Get("session_id")
	for _, p := range [...]struct{ name, v string }{{"user_id", userID}, {"session_id", sessionID}} {
		if !s.validID(p.v) {
			fe = append(fe, events.FieldError{Field: p.name, Message: fmt.Sprintf("required, valid UTF-8, at most %d bytes", s.limits.MaxIDBytes)})
		}
	}
	lim := assemble.WindowLimits{
		Messages: queryInt(qv, "max_messages", s.cfg.ContextMaxMessages, 200, &fe),
		Chars:    queryInt(qv, "max_chars", s.cfg.ContextMaxChars, 200000, &fe),
		TTL:      s.cfg.ContextTTL,
	}
	if v := qv.Get("ttl"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			fe = append(fe, events.FieldError{Field: "ttl", Message: "want a positive duration such as 30m or 24h"})
		} else {
			lim.TTL = d
		}
	}
	lang := s.cfg.ContextLang
	if v := qv.Get("lang"); v != "" {
		lang = v
	}
	switch lang {
	case assemble.LangEN, assemble.LangZH, assemble.LangAuto:
	default:
		fe = append(fe, events.FieldError{Field: "lang", Message: "one of en, zh, auto"})
	}
	if len(fe) > 0 {
		writeError(w, http.StatusBadRequest, "invalid_request", "invalid parameter", fe)
		return
	}

	ctx, cancel := ctxTimeout(r)
	defer cancel()
	sess, newest, err := t.SessionWithRecent(ctx, sessionID, time.Time{}, lim.Messages, false)
	switch {
	case errors.Is(err, store.ErrNotFound):
		// Not stored yet (or never): an empty context, not an error, so a backend
		// can ask on the first turn of a session.
	case err != nil:
		s.internalError(w, r, err)
		return
	case sess.UserID != userID:
		writeError(w, http.StatusNotFound, "not_found", "no such session for this user", nil)
		return
	}
	parts := assemble.Parts{Window: assemble.TrimWindow(newest, assemble.Counts{Messages: sess.MessageCount, System: sess.SystemCount}, lim, s.now())}
	parts.Window.Messages = nonNil(parts.Window.Messages)
	resolved := assemble.ResolveLang(lang, parts)
	writeJSON(w, http.StatusOK, contextResponse{
		UserID: userID, SessionID: sessionID, Lang: resolved, Limits: lim, TTL: lim.TTL.String(),
		Window: parts.Window, Prompt: assemble.Render(resolved, parts),
	})
}
