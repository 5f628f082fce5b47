package api

import (
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
	Budget    assemble.Budget       `json:"budget"`
	List      *assemble.List        `json:"list"`
	Window    assemble.Window       `json:"window"`
	Facts     assemble.Facts        `json:"facts"`
	Summaries assemble.Summaries    `json:"summaries"`
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
	maxFacts := queryIntIn(qv, "max_facts", max(s.cfg.ContextMaxFacts, 0), 0, 100, &fe)
	maxSummaries := queryIntIn(qv, "max_summaries", max(s.cfg.ContextMaxSummaries, 0), 0, 20, &fe)
	budget := queryIntIn(qv, "budget", max(s.cfg.ContextBudget, 0), 0, 1000000, &fe)
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
	// Facts are read newest-mention first; several times the number shown is
	// enough to rank by current weight, which only falls with age.
	data, err := t.Context(ctx, sessionID, userID, lim.Messages, maxFacts*4, maxSummaries)
	switch {
	case err != nil:
		s.internalError(w, r, err)
		return
	case data.Found && data.Session.UserID != userID:
		writeError(w, http.StatusNotFound, "not_found", "no such session for this user", nil)
		return
	case !data.Found:
		// Not stored yet (or never): no window, not an error, so a backend can
		// ask on the first turn of a session.
		data.Newest, data.Summary, data.List = nil, nil, nil
	}
	now := s.now()
	counts := assemble.Counts{Messages: data.Session.MessageCount, System: data.Session.SystemCount}
	parts := assemble.Parts{
		Window: assemble.TrimWindow(data.Newest, counts, lim, now),
		Facts:  assemble.TopFacts(s.policy, data.Facts, now, maxFacts),
	}
	parts.Window.Messages = nonNil(parts.Window.Messages)
	parts.Summaries = assemble.PickSummaries(data.Summaries, data.Summary, parts.Window, counts)
	parts.List = assemble.CurrentList(data.List)
	resolved := assemble.ResolveLang(lang, parts)
	spent, prompt := assemble.Assemble(resolved, &parts, budget)
	writeJSON(w, http.StatusOK, contextResponse{
		UserID: userID, SessionID: sessionID, Lang: resolved, Limits: lim, TTL: lim.TTL.String(),
		Budget: spent, List: parts.List, Window: parts.Window, Facts: parts.Facts, Summaries: parts.Summaries, Prompt: prompt,
	})
}
