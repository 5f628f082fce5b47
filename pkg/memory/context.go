package memory

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"github.com/recallhq/recall/pkg/assemble"
	"github.com/recallhq/recall/pkg/contract"
	"github.com/recallhq/recall/pkg/search"
	"github.com/recallhq/recall/pkg/store"
)

// MaxQueryBytes bounds the query of a context or a search: a chat message,
// not a document (the same bound as a turn's content).
const MaxQueryBytes = 64 << 10

// Context assembles what the backend puts into its next prompt, from the
// parameters of contract.ContextParams. The session, if it exists, must
// belong to user_id; another user's session reads as not found. With a
// query, the user's whole history is searched for it and what is found
// becomes the recalled part.
func (s *Service) Context(ctx context.Context, tenant string, qv url.Values) (*contract.Context, error) {
	var fe []contract.FieldError
	userID, sessionID := qv.Get("user_id"), qv.Get("session_id")
	for _, p := range [...]struct{ name, v string }{{"user_id", userID}, {"session_id", sessionID}} {
		if !s.ValidID(p.v) {
			fe = append(fe, contract.FieldError{Field: p.name, Message: fmt.Sprintf("required, valid UTF-8, at most %d bytes", s.limits.MaxIDBytes)})
		}
	}
	lim := assemble.WindowLimits{
		Messages: countParam(qv, "max_messages", s.cfg.ContextMaxMessages, 200, &fe),
		Chars:    countParam(qv, "max_chars", s.cfg.ContextMaxChars, 200000, &fe),
		TTL:      s.cfg.ContextTTL,
	}
	if v := qv.Get("ttl"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			fe = append(fe, contract.FieldError{Field: "ttl", Message: "want a positive duration such as 30m or 24h"})
		} else {
			lim.TTL = d
		}
	}
	maxFacts := intParam(qv, "max_facts", max(s.cfg.ContextMaxFacts, 0), 0, 100, &fe)
	maxSummaries := intParam(qv, "max_summaries", max(s.cfg.ContextMaxSummaries, 0), 0, 20, &fe)
	maxRecalled := intParam(qv, "max_recalled", max(s.cfg.ContextMaxRecalled, 0), 0, store.MaxSearchK, &fe)
	query := qv.Get("query")
	checkQuery(query, "query", false, &fe)
	budget := intParam(qv, "budget", max(s.cfg.ContextBudget, 0), 0, 1000000, &fe)
	lang := s.cfg.ContextLang
	if v := qv.Get("lang"); v != "" {
		lang = v
	}
	if !validLang(lang) {
		fe = append(fe, contract.FieldError{Field: "lang", Message: "one of en, zh, auto"})
	}
	if err := invalid("invalid parameter", fe); err != nil {
		return nil, err
	}

	t := s.store.Tenant(tenant)
	// The query is analyzed and embedded first; the history search then runs
	// in the same batch as the context's own reads: one connection, one
	// round trip.
	var (
		sr search.Result
		sp *store.SearchParams
	)
	if query != "" && maxRecalled > 0 {
		p, res, ok := s.searcher.Prepare(ctx, searchQuery(tenant, userID, query, maxRecalled, s.now(), s.cfg))
		if ok {
			sp = &p
		}
		sr = res
	}
	// Facts are read newest-mention first; several times the number shown is
	// enough to rank by current weight, which only falls with age.
	data, err := t.Context(ctx, sessionID, userID, lim.Messages, maxFacts*4, maxSummaries, sp)
	sr.Hits = data.Hits
	switch {
	case err != nil:
		return nil, err
	case data.Found && data.Session.UserID != userID:
		return nil, contract.Errorf(contract.CodeNotFound, "no such session for this user")
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
	out := &contract.Context{
		UserID: userID, SessionID: sessionID, Lang: resolved, TTL: lim.TTL.String(), Prompt: prompt,
		Limits: contract.WindowLimits{Messages: lim.Messages, Chars: lim.Chars},
		Budget: contract.Budget{Limit: spent.Limit, Used: spent.Used, Parts: contract.PartSpend(spent.Parts)},
	}
	out.List, out.Window, out.Facts, out.Summaries, out.Recalled = toContext(&parts)
	return out, nil
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
	return search.Query{TenantID: tenant, Text: query, SearchParams: store.SearchParams{UserID: userID, K: k, Now: now,
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
	neighbor := func(n *store.Neighbor, h store.SearchHit) {
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
