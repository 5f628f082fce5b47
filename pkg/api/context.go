package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/recallhq/recall/pkg/assemble"
	"github.com/recallhq/recall/pkg/client"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/search"
	"github.com/recallhq/recall/pkg/store"
)

// MaxQueryBytes bounds the query of a context or a search: a chat message,
// not a document (the same bound as a turn's content).
const MaxQueryBytes = 64 << 10

// getContext assembles what the backend puts into its next prompt (the
// parameters in the URL).
func (s *Server) getContext(w http.ResponseWriter, r *http.Request, t *store.Tenant) {
	s.context(w, r, t, r.URL.Query())
}

// contextParams are the parameters a context takes: GET's query, POST's
// body (numbers for counts, strings for the rest).
var contextParams = []param{{"user_id", kindText}, {"session_id", kindText}, {"query", kindText},
	{"max_messages", kindNumber}, {"max_chars", kindNumber}, {"ttl", kindText}, {"max_facts", kindNumber},
	{"max_summaries", kindNumber}, {"max_recalled", kindNumber}, {"budget", kindNumber}, {"lang", kindText}}

// postContext is getContext with the parameters in a JSON body, for a query
// too long for a URL.
func (s *Server) postContext(w http.ResponseWriter, r *http.Request, t *store.Tenant) {
	qv, ok := s.bodyParams(w, r, contextParams)
	if !ok {
		return
	}
	s.context(w, r, t, qv)
}

// context assembles what the backend puts into its next prompt. The session,
// if it exists, must belong to user_id; another user's session reads as not
// found. With a query, the user's whole history is searched for it and what
// is found becomes the recalled part.
func (s *Server) context(w http.ResponseWriter, r *http.Request, t *store.Tenant, qv url.Values) {
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
	maxRecalled := queryIntIn(qv, "max_recalled", max(s.cfg.ContextMaxRecalled, 0), 0, search.MaxK, &fe)
	query := qv.Get("query")
	s.checkQuery(query, "query", false, &fe)
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
	// The query is analyzed and embedded first; the history search then runs
	// in the same batch as the context's own reads: one connection, one
	// round trip.
	var (
		sr search.Result
		sp *search.Params
	)
	if query != "" && maxRecalled > 0 {
		p, res, ok := s.searcher.Prepare(ctx, searchQuery(t.ID(), userID, query, maxRecalled, s.now(), s.cfg))
		if ok {
			sp = &p
		}
		sr = res
	}
	// Facts are read newest-mention first; several times the number shown is
	// enough to rank by current weight, which only falls with age.
	var data store.ContextData
	hits, err := search.InBatch(sp, func(scan *store.SearchScan) (err error) {
		data, err = t.Context(ctx, sessionID, userID, lim.Messages, maxFacts*4, maxSummaries, scan)
		return err
	})
	sr.Hits = hits
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
	if query != "" {
		parts.Recalled = recalled(query, sr, parts.Window, s.cfg.ContextRecallSnippet, s.cfg.ContextRecallNeighbors, s.cfg.ContextRecallWide)
	}
	resolved := assemble.ResolveLang(lang, parts)
	spent, prompt := assemble.Assemble(resolved, &parts, budget)
	writeJSON(w, http.StatusOK, client.Context{
		UserID: userID, SessionID: sessionID, Lang: resolved, Limits: lim, TTL: lim.TTL.String(),
		Budget: spent, List: parts.List, Window: parts.Window, Facts: parts.Facts, Summaries: parts.Summaries,
		Recalled: parts.Recalled, Prompt: prompt,
	})
}

// searchQuery is the history search of a context: the user's k best
// matches for the current message, with the turns around the first ones.
func searchQuery(tenant, userID, query string, k int, now time.Time, cfg Config) search.Query {
	turns := 1
	if cfg.ContextRecallWide > 0 {
		turns = 2
	}
	// recalled gives neighbours to its first ContextRecallNeighbors hits
	// that no earlier hit showed as a neighbour: those come within the
	// first ContextRecallNeighbors plus as many hits as there are turns
	// shown as neighbours.
	n := max(cfg.ContextRecallNeighbors, 0)
	return search.Query{TenantID: tenant, Text: query, Params: search.Params{UserID: userID, K: k, Now: now,
		MaxPerSession: cfg.ContextRecallPerSession, Neighbors: n > 0, NeighborTurns: turns,
		NeighborHits: n + shownNeighbors(n, cfg.ContextRecallWide), Kinds: cfg.ContextRecallKinds}}
}

// shownNeighbors is the most turns recalled shows as neighbours: four for
// each of the first wide hits, two for each of the next ones up to
// neighbors.
func shownNeighbors(neighbors, wide int) int {
	neighbors = max(neighbors, 0)
	return 2*neighbors + 2*max(min(wide, neighbors), 0)
}

// recalled turns what the history search found into the context's recalled
// part, saying how it searched and why it fell back to terms only: the hits
// in order, each of the first neighbors hits (not already shown) between
// the turns just before and after it, and each of the first wide hits
// between two turns on each side.
func recalled(query string, res search.Result, w assemble.Window, snippet, neighbors, wide int) *assemble.Recalled {
	most := len(res.Hits) + shownNeighbors(neighbors, wide)
	hits := make([]assemble.RecalledHit, 0, most)
	seen := make(map[string]bool, most)
	neighbor := func(n *search.Neighbor, h search.Hit) {
		if n != nil && !seen[n.EventID] {
			seen[n.EventID] = true
			hits = append(hits, assemble.RecalledHit{Kind: store.SearchMessage, EventID: n.EventID, SessionID: h.SessionID,
				Role: n.Role, OccurredAt: n.OccurredAt, Text: n.Content, Score: h.Score})
		}
	}
	rank := 0
	for _, h := range res.Hits {
		if h.Kind == store.SearchMessage && seen[h.SourceID] {
			continue
		}
		around := 0 // turns on each side
		switch {
		case rank < min(wide, neighbors):
			around = 2
		case rank < neighbors:
			around = 1
		}
		rank++
		if around > 0 {
			for k := min(around-1, len(h.Earlier)) - 1; k >= 0; k-- {
				neighbor(&h.Earlier[k], h)
			}
			neighbor(h.Previous, h)
		}
		hit := assemble.RecalledHit{Kind: h.Kind, SessionID: h.SessionID, Role: h.Role, OccurredAt: h.OccurredAt, Text: h.Text, Score: h.Score}
		if h.Kind == store.SearchMessage {
			hit.EventID = h.SourceID
			seen[h.SourceID] = true
		}
		hits = append(hits, hit)
		if around > 0 {
			neighbor(h.Next, h)
			for k := range min(around-1, len(h.Later)) {
				neighbor(&h.Later[k], h)
			}
		}
	}
	how := "lexical"
	if res.Vector {
		how = "hybrid"
	}
	out := assemble.Recall(query, how, hits, w, snippet)
	if res.EmbedErr != nil {
		out.Notes = append(out.Notes, assemble.RecalledNote{Reason: "embedder", Detail: embedFailure(res.EmbedErr)})
	}
	return out
}

// embedFailure says in a word why the query was not embedded.
func embedFailure(err error) string {
	if errors.Is(err, context.DeadlineExceeded) {
		return "timeout"
	}
	return "error"
}
