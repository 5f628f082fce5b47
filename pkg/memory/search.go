package memory

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/recallhq/recall/pkg/attribute"
	"github.com/recallhq/recall/pkg/contract"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/search"
	"github.com/recallhq/recall/pkg/store"
	"github.com/recallhq/recall/pkg/when"
)

// Search searches one user's history for sp.Q and answers the raw hits,
// most relevant first. sp's zero values leave the defaults (K,
// MaxPerSession: a stated 0 is refused, as /v1 refuses k=0, when the HTTP
// API passes it as NotANumber); Role, Kind are comma-separated lists, and
// Since, Until and At times as the contract writes them, judged here.
func (s *Service) Search(ctx context.Context, tenant, userID string, sp contract.SearchParams) (*contract.SearchResult, error) {
	var fe []contract.FieldError
	if !s.ValidID(userID) {
		fe = append(fe, contract.FieldError{Field: "user_id", Message: fmt.Sprintf("valid UTF-8 without control characters, at most %d bytes", s.limits.MaxIDBytes)})
	} else if events.IsDotID(userID) {
		fe = append(fe, contract.FieldError{Field: "user_id", Message: events.DotIDMessage(userID)})
	}
	q := sp.Q
	checkQuery(q, "q", true, &fe)
	p := search.Params{UserID: userID, Now: s.now(), Large: s.cfg.Large()}
	p.K = Count("k", sp.K, search.DefaultK, search.MaxK, &fe)
	p.MaxPerSession = Count("max_per_session", sp.MaxPerSession, search.DefaultMaxPerSession, search.MaxK, &fe)
	for _, f := range []struct {
		name string
		v    string
		dst  *string
	}{{"session_id", sp.SessionID, &p.SessionID}, {"agent_id", sp.AgentID, &p.AgentID}} {
		if v := f.v; v != "" {
			if !s.ValidID(v) {
				fe = append(fe, contract.FieldError{Field: f.name, Message: fmt.Sprintf("valid UTF-8 without control characters, at most %d bytes", s.limits.MaxIDBytes)})
			} else if f.name == "session_id" && events.IsDotID(v) {
				fe = append(fe, contract.FieldError{Field: f.name, Message: events.DotIDMessage(v)})
			}
			*f.dst = v
		}
	}
	if v := sp.Role; v != "" {
		for _, role := range strings.Split(v, ",") {
			if role != events.RoleUser && role != events.RoleAssistant {
				fe = append(fe, contract.FieldError{Field: "role", Message: fmt.Sprintf("%q: one of user, assistant (comma-separated); other turns are not indexed", role)})
				continue
			}
			p.Roles = append(p.Roles, role)
		}
	}
	if v := sp.Kind; v != "" {
		for _, kind := range strings.Split(v, ",") {
			if !slices.Contains([]string{store.SearchMessage, store.SearchSummary, store.SearchFact}, kind) {
				fe = append(fe, contract.FieldError{Field: "kind", Message: fmt.Sprintf("%q: one of message, summary, fact (comma-separated)", kind)})
				continue
			}
			p.Kinds = append(p.Kinds, kind)
		}
	}
	p.Since = timeParam(sp.Since, "since", &fe)
	p.Until = timeParam(sp.Until, "until", &fe)
	if !p.Since.IsZero() && !p.Until.IsZero() && !p.Until.After(p.Since) {
		fe = append(fe, contract.FieldError{Field: "until", Message: "must be after since"})
	}
	// As of at: the history as it stood then, its recency counted from
	// then (search.Params.At).
	if p.At = s.atParam(sp.At, &fe); !p.At.IsZero() {
		p.Now, p.Decay = p.At, s.policy
	}
	// NeighborTurns, the turns on each side, wins over Neighbors (one).
	switch n := sp.NeighborTurns; {
	case n < 0 || n > search.MaxNeighborTurns:
		fe = append(fe, contract.FieldError{Field: "neighbors", Message: fmt.Sprintf("true or false, or the turns on each side, 0 to %d", search.MaxNeighborTurns)})
	case n > 0:
		p.Neighbors, p.NeighborTurns = true, n
	default:
		p.Neighbors = sp.Neighbors
	}
	if err := invalid("invalid search", fe); err != nil {
		return nil, err
	}
	query := search.Query{TenantID: tenant, Text: q, Params: p}
	if query.Asked = s.cfg.Config.Asked(q); query.Asked != search.AskedNothing {
		query.AskedWeight = s.cfg.Config.ContextRecallAskedWeight
	}
	if err := s.searchTimes(ctx, &query); err != nil {
		return nil, err
	}
	res, err := s.searcher.Search(ctx, query)
	if err != nil {
		return nil, err
	}
	out := &contract.SearchResult{UserID: userID, Query: q, Terms: res.Terms, Search: res.How(), Hits: mapSlice(res.Hits, toSearchHit),
		During: toSpans(query.During)}
	if out.Terms == nil {
		out.Terms = []string{}
	}
	if out.Hits == nil {
		out.Hits = []contract.SearchHit{}
	}
	if res.EmbedErr != nil {
		out.Notes = append(out.Notes, contract.Note{Reason: "embedder", Detail: search.EmbedFailure(res.EmbedErr)})
	}
	return out, nil
}

// searchTimes has a search lift what happened when its text says ("what
// did I do last Saturday?", "in March", 上周五), as a context's recall does
// (search.Config.Query, CONTEXT_RECALL_TIME_WEIGHT): the times read at the
// search's time in the user's zone, and the text searched for without
// them. The zone is read only for a text that names a time.
func (s *Service) searchTimes(ctx context.Context, q *search.Query) error {
	w := s.cfg.Config.ContextRecallTimeWeight
	if w <= 0 {
		return nil
	}
	during, untimed := when.MessageTimes(q.Text, q.Now)
	if during == nil {
		return nil
	}
	var as []attribute.Assertion
	err := s.read(ctx, q.TenantID, func(t *store.Tenant) (err error) {
		as, err = t.Assertions(ctx, q.UserID)
		return err
	})
	if err != nil {
		return err
	}
	if zone := s.userZone(q.TenantID, as); zone != nil {
		during, untimed = when.MessageTimes(q.Text, q.Now.In(zone))
	}
	q.During, q.DuringWeight, q.Untimed = during, w, untimed
	return nil
}

// checkQuery checks a query's text: valid UTF-8 without NUL, at most
// MaxQueryBytes; required says it may not be blank.
func checkQuery(q, field string, required bool, fe *[]contract.FieldError) {
	switch {
	case required && strings.TrimSpace(q) == "":
		*fe = append(*fe, contract.FieldError{Field: field, Message: "required: the text to search for"})
	case len(q) > MaxQueryBytes:
		*fe = append(*fe, contract.FieldError{Field: field, Message: fmt.Sprintf("%d bytes, limit is %d", len(q), MaxQueryBytes)})
	case !utf8.ValidString(q):
		*fe = append(*fe, contract.FieldError{Field: field, Message: "not valid UTF-8"})
	case strings.IndexByte(q, 0) >= 0:
		*fe = append(*fe, contract.FieldError{Field: field, Message: "contains a NUL character"})
	}
}

// atParam reads the optional `at` of a context or a search: the moment it
// is asked as of (zero when empty: now). It is the time of a turn, and is
// judged as a turn's occurred_at is: RFC 3339 with its offset (a date alone
// says neither the hour nor the zone, and the window's TTL counts in
// hours), not before 2000 and at most EVENT_MAX_FUTURE_SKEW ahead of the
// clock (events.Limits.TimeProblem), which also keeps it within what
// PostgreSQL's timestamptz holds.
func (s *Service) atParam(v string, fe *[]contract.FieldError) time.Time {
	if v == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		*fe = append(*fe, contract.FieldError{Field: "at", Message: "want an RFC 3339 time with its offset, such as 2023-05-30T23:42:00Z or 2023-05-31T07:42:00+08:00"})
		return time.Time{}
	}
	if p := s.limits.TimeProblem(t, s.now); p != "" {
		*fe = append(*fe, contract.FieldError{Field: "at", Message: p})
		return time.Time{}
	}
	return t.UTC()
}

// timeParam reads an optional time, the parameter name: RFC 3339, or a
// date (2026-01-01, UTC).
func timeParam(v, name string, fe *[]contract.FieldError) time.Time {
	if v == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		t, err = time.Parse(time.DateOnly, v)
	}
	if err != nil {
		*fe = append(*fe, contract.FieldError{Field: name, Message: "want an RFC 3339 time (2026-01-01T08:00:00Z) or a date (2026-01-01)"})
	}
	return t
}
