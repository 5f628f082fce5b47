package memory

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/recallhq/recall/pkg/assemble"
	"github.com/recallhq/recall/pkg/attribute"
	"github.com/recallhq/recall/pkg/contract"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/habits"
	"github.com/recallhq/recall/pkg/record"
	"github.com/recallhq/recall/pkg/search"
	"github.com/recallhq/recall/pkg/store"
)

// MaxQueryBytes bounds the query of a context or a search: a chat message,
// not a document (the same bound as a turn's content).
const MaxQueryBytes = 64 << 10

// Context assembles what the backend puts into its next prompt, from p.
// The session, if it exists, must belong to p.UserID; another user's
// session is a conflict (contract.CodeSessionOwned). With a query, the
// user's whole history is searched for it and what is found becomes the
// recalled part.
//
// With p.At, the context is the one that would have been assembled then:
// every time rule (the window's TTL, the facts' decay and expiry, the
// search's recency) counts from at instead of the clock, and nothing that
// happened at or after at is read (store.Tenant.Context, search.Params.At):
// not a message, a list, a mention, an assertion, nor a summary version
// that read a later message (the version before it stands in, or none).
//
// p's zero values leave the defaults (CONTEXT_*), as contract.ContextParams
// says; MaxMessages, MaxChars and TTL cannot be stated as 0 that way, and
// need not be: /v1 has always refused max_messages=0, max_chars=0 and
// ttl=0 (each counts from 1, or must be above 0), while leaving them out
// takes the default. The HTTP API passes such a stated 0 as NotANumber or
// NotADuration, which are refused here with the same words as any value
// out of range; a negative one is refused as it is. So the wire keeps its
// answers, and a Go caller's zero still means the default.
func (s *Service) Context(ctx context.Context, tenant string, p contract.ContextParams) (*contract.Context, error) {
	return s.ContextWith(ctx, tenant, p, ContextOptions{})
}

// ContextOptions change how a context is rendered for a front door whose
// caller holds the conversation itself.
type ContextOptions struct {
	// Conversation, when not nil, is the texts of the conversation the
	// caller sends with its request (the chat gateway's messages): the
	// session's window is then not rendered, since the prompt holds it
	// already, though it still keeps what it holds out of the recalled
	// part; and these texts, not the window, decide the language when it
	// is auto.
	Conversation []string
}

// ContextWith is Context with options: the request checked, the memory
// recalled for it, rendered.
func (s *Service) ContextWith(ctx context.Context, tenant string, p contract.ContextParams, o ContextOptions) (*contract.Context, error) {
	req, err := s.contextRequest(p)
	if err != nil {
		return nil, err
	}
	m, err := s.recall(ctx, tenant, req)
	if err != nil {
		return nil, err
	}
	return s.render(tenant, req, m, o), nil
}

// contextRequest is a context's request, its parameters checked, with the
// service's defaults for those not given.
type contextRequest struct {
	userID, sessionID string
	lim               assemble.WindowLimits
	maxFacts          int
	maxSummaries      int
	maxRecalled       int
	query             string
	budget            int
	lang              string
	// at is the time asked for (zero: now); now the time every time rule
	// counts from (at, or the clock's).
	at, now time.Time
}

// contextRequest checks a context's parameters, with the defaults for
// those not given; a field that is wrong is named in the error.
func (s *Service) contextRequest(p contract.ContextParams) (contextRequest, error) {
	var fe []contract.FieldError
	r := contextRequest{userID: p.UserID, sessionID: p.SessionID}
	for _, id := range [...]struct{ name, v string }{{"user_id", r.userID}, {"session_id", r.sessionID}} {
		if !s.ValidID(id.v) {
			fe = append(fe, contract.FieldError{Field: id.name, Message: fmt.Sprintf("required, valid UTF-8, at most %d bytes", s.limits.MaxIDBytes)})
		} else if events.IsDotID(id.v) {
			fe = append(fe, contract.FieldError{Field: id.name, Message: events.DotIDMessage(id.v)})
		}
	}
	r.lim = assemble.WindowLimits{
		Messages: Count("max_messages", p.MaxMessages, s.cfg.ContextMaxMessages, 200, &fe),
		Chars:    Count("max_chars", p.MaxChars, s.cfg.ContextMaxChars, 200000, &fe),
		TTL:      s.cfg.ContextTTL,
	}
	switch {
	case p.TTL < 0:
		fe = append(fe, contract.FieldError{Field: "ttl", Message: "want a positive duration such as 30m or 24h"})
	case p.TTL > 0:
		r.lim.TTL = p.TTL
	}
	r.maxFacts = optional("max_facts", p.MaxFacts, max(s.cfg.ContextMaxFacts, 0), 0, 100, &fe)
	r.maxSummaries = optional("max_summaries", p.MaxSummaries, max(s.cfg.ContextMaxSummaries, 0), 0, 20, &fe)
	r.maxRecalled = optional("max_recalled", p.MaxRecalled, max(s.cfg.ContextMaxRecalled, 0), 0, search.MaxK, &fe)
	r.query = p.Query
	checkQuery(r.query, "query", false, &fe)
	r.budget = optional("budget", p.Budget, max(s.cfg.ContextBudget, 0), 0, 1000000, &fe)
	r.lang = s.cfg.ContextLang
	if p.Lang != "" {
		r.lang = p.Lang
	}
	if !validLang(r.lang) {
		fe = append(fe, contract.FieldError{Field: "lang", Message: "one of en, zh, auto"})
	}
	r.at = s.atParam(p.At, &fe)
	if err := invalid("invalid parameter", fe); err != nil {
		return r, err
	}
	r.now = r.at
	if r.at.IsZero() {
		r.now = s.now()
	}
	return r, nil
}

// recalled is what a context read of the user's memory: the store's
// batch, the search's hits, and the user's time zone (nil: UTC).
type recalled struct {
	data store.ContextData
	sr   search.Result
	zone *time.Location
	// attributes are the current values of the user's attributes
	// (attribute.Resolve of data.Assertions by the tenant's schema).
	attributes []attribute.Value
}

// recall reads what a context needs, in one line: the query is planned
// first (its terms, vector and the times it names); its scan is read in
// the same batch as the context's own reads (one connection, one round
// trip); the rows are ranked once the batch has returned, with the
// message's times in the user's zone, which the batch told. A session of
// another user is a conflict.
func (s *Service) recall(ctx context.Context, tenant string, req contextRequest) (recalled, error) {
	var (
		m    recalled
		plan *search.Plan
	)
	if req.query != "" && req.maxRecalled > 0 {
		q := s.cfg.Config.Query(tenant, req.userID, req.query, req.maxRecalled, req.now)
		q.At, q.Decay = req.at, s.policy
		var err error
		// A count or a total ranks the rows again with the best terms of
		// the user's turns found first (search.Feedback), from the same rows.
		if plan, m.sr, err = s.searcher.Plan(ctx, q, s.cfg.Config.Feedback(req.query)); err != nil {
			return m, err
		}
		defer plan.Release()
	}
	// What is kept of the user's attributes is read again only if it
	// moved; a context as of a past moment reads them as they were then.
	var kept *attributesEntry
	var known int64
	if req.at.IsZero() {
		if kept = s.attrCache.get(tenant, req.userID); kept != nil {
			known = kept.revision
		}
	}
	// Facts are read newest-mention first; several times the number shown is
	// enough to rank by current weight, which only falls with age.
	err := s.read(ctx, tenant, func(t *store.Tenant) (err error) {
		m.data, err = t.Context(ctx, store.ContextRead{SessionID: req.sessionID, UserID: req.userID, Messages: req.lim.Messages,
			Facts: req.maxFacts * 4, Summaries: req.maxSummaries, Statements: true, At: req.at, Search: plan.Scan(),
			KnownAttributes: known})
		return err
	})
	if err == nil {
		m.attributes = s.resolveAttributes(tenant, req.userID, &m.data, kept)
	}
	m.zone = s.userZone(tenant, m.data.Assertions)
	if err == nil && plan != nil {
		m.sr.During = plan.During()
		if m.zone != nil {
			// The times the message names are the user's days.
			m.sr.During = s.cfg.Config.During(req.query, req.now.In(m.zone))
		}
		m.sr.Hits, err = plan.Rank(m.sr.During)
	}
	switch {
	case err != nil:
		return m, err
	case m.data.Found && m.data.Session.UserID != req.userID:
		return m, contract.SessionOwned("the session belongs to another user", contract.FieldError{Field: "session_id",
			Message: fmt.Sprintf("session %q belongs to another user: a context is read for the session's own user only", req.sessionID)})
	case !m.data.Found:
		// Not stored yet (or never): no window, not an error, so a backend can
		// ask on the first turn of a session.
		m.data.Newest, m.data.Summary, m.data.List = nil, nil, nil
	}
	return m, nil
}

// render fits what was recalled into the request's budget and renders it:
// the window trimmed, the facts weighed now, the summaries picked, the
// attributes and statements, the recalled part, in the request's language.
func (s *Service) render(tenant string, req contextRequest, m recalled, o ContextOptions) *contract.Context {
	data, now := m.data, req.now
	counts := assemble.Counts{Messages: data.Session.MessageCount, System: data.Session.SystemCount}
	parts := assemble.Parts{
		Window: assemble.TrimWindow(data.Newest, counts, req.lim, now),
		Facts:  assemble.TopFacts(s.policy, data.Facts, now, req.maxFacts),
	}
	parts.Window.Messages = nonNil(parts.Window.Messages)
	parts.Summaries = assemble.PickSummaries(data.Summaries, data.Summary, parts.Window, counts)
	parts.List = assemble.CurrentList(data.List)
	var said *statementQuery
	if s.cfg.ContextStatementChars >= 0 {
		said = &statementQuery{text: req.query, similarity: data.StatementSimilarity}
	}
	parts.Attributes = contextAttributes(s.schemas.For(tenant), m.attributes, s.cfg.ContextAttributesDerived, said)
	parts.AttributesLimit = max(s.cfg.ContextAttributesChars, 0)
	parts.StatementLimit, parts.StatementsLast = statementLimit(s.cfg.ContextStatementChars, req.query)
	parts.RecalledShare = s.cfg.ContextRecalledShare
	parts.Now = now
	parts.Zone = m.zone
	if req.query != "" {
		parts.Recalled = s.cfg.Config.Recalled(req.query, m.sr, parts.Window)
		if parts.Attributes != nil {
			parts.Attributes.Statements = withoutRecalled(parts.Attributes.Statements, parts.Recalled)
		}
	}
	var resolved string
	if o.Conversation != nil {
		conv := parts
		conv.Window = assemble.Window{Messages: make([]record.Message, len(o.Conversation))}
		for i, text := range o.Conversation {
			conv.Window.Messages[i].Content = text
		}
		resolved = assemble.ResolveLang(req.lang, conv)
		w := assemble.Window{Messages: []record.Message{}}
		if n := len(parts.Window.Messages); n > 0 {
			w.Cuts = []assemble.Cut{{Reason: "conversation", Count: int64(n)}}
		}
		parts.Window = w
	} else {
		resolved = assemble.ResolveLang(req.lang, parts)
	}
	spent, prompt := assemble.Assemble(resolved, &parts, req.budget)
	out := &contract.Context{
		UserID: req.userID, SessionID: req.sessionID, Lang: resolved, TTL: req.lim.TTL.String(), Prompt: prompt,
		Limits: contract.WindowLimits{Messages: req.lim.Messages, Chars: req.lim.Chars},
		Budget: contract.Budget{Limit: spent.Limit, Used: spent.Used, Parts: toPartSpend(spent.Parts)},
	}
	out.List, out.Window, out.Facts, out.Summaries, out.Recalled = toContext(&parts)
	out.Attributes = toContextAttributes(parts.Attributes, resolved)
	out.Profile = out.Attributes
	return out
}

// userZone is the time zone the user's days are reckoned in, when their
// attributes say it; nil (UTC) otherwise. Only then are the assertions
// resolved a second time, past contextAttributes.
func (s *Service) userZone(tenant string, as []attribute.Assertion) *time.Location {
	if !slices.ContainsFunc(as, func(a attribute.Assertion) bool { return a.Key == habits.KeyTimezone }) {
		return nil
	}
	return habits.UserZone(s.schemas.For(tenant), as).Location
}

// resolveAttributes is the current values of the user's attributes as the
// context read them into d: what was kept of the user when the store
// found it current (d.Assertions is then set to the kept assertions),
// resolved and kept otherwise (a read as of a past moment is not kept).
func (s *Service) resolveAttributes(tenant, user string, d *store.ContextData, kept *attributesEntry) []attribute.Value {
	schema := s.schemas.For(tenant)
	if d.AttributesKept && kept != nil {
		d.Assertions = kept.assertions
		if kept.schema == schema {
			return kept.current
		}
	}
	if len(d.Assertions) == 0 {
		return nil
	}
	current := attribute.Resolve(schema, d.Assertions).Current
	if d.AttributesRevision != 0 {
		s.attrCache.put(tenant, user, d.AttributesRevision, d.Assertions, schema, current)
	}
	return current
}

// contextAttributes is the attributes part of a context: the current
// values of the user's attributes, a key's items together, in the schema's
// order; and their own statements chosen for the message (pickStatements),
// unless said is nil.
func contextAttributes(schema *attribute.Schema, current []attribute.Value, derived bool, said *statementQuery) *assemble.Attributes {
	if len(current) == 0 {
		return nil
	}
	var p assemble.Attributes
	var stmts []attribute.Value
	filled := map[string]bool{}
	for _, v := range current {
		if v.Source == attribute.Derived && !derived {
			continue
		}
		if v.Key == attribute.KeyStatements {
			stmts = append(stmts, v)
			continue
		}
		filled[v.Key] = true
		k, _ := schema.Key(v.Key)
		group := &p.About
		if k.Group == attribute.Preference {
			group = &p.Requests
		}
		if n := len(*group); n > 0 && (*group)[n-1].Key == v.Key {
			(*group)[n-1].Values = append((*group)[n-1].Values, v.Value)
			continue
		}
		*group = append(*group, assemble.AttributeEntry{Key: v.Key, Label: k.Label, Values: []string{v.Value}})
	}
	if said != nil {
		p.Statements = pickStatements(stmts, *said, filled)
	}
	if p.Empty() {
		return nil
	}
	return &p
}
