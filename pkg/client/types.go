package client

import (
	"encoding/json"
	"time"

	"github.com/recallhq/recall/pkg/assemble"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/queue"
	"github.com/recallhq/recall/pkg/search"
	"github.com/recallhq/recall/pkg/store"
)

// The API's wire format. pkg/api encodes these very types, so what a Go
// backend decodes is what the server wrote, field for field; the OpenAPI
// document (GET /openapi.json) describes the same shapes for other languages.
// Parts that the server builds elsewhere (stored messages, the context's
// parts) are those packages' own types.

// Accepted is the outcome of one turn: stored in the stream at Sequence, or
// Duplicate of a turn stored before (nothing changed).
type Accepted = queue.PublishResult

// Message is a stored turn with its full structure.
type Message = store.Message

// Summary is a session's summary.
type Summary = store.Summary

// FieldError names a parameter, header or body field and what is wrong with it.
type FieldError = events.FieldError

// Note says why a search ran short of what it was asked without failing:
// {"reason": "embedder", "detail": "timeout"}.
type Note = assemble.RecalledNote

// Session is a session's counts, its newest messages (oldest first) and its
// current summary.
type Session struct {
	store.Session
	Recent []Message `json:"recent_messages"`
	// Summary is the session's current summary, nil until it has one.
	Summary *Summary `json:"summary"`
}

// MessagePage is one page of a session's messages in event-time order.
type MessagePage struct {
	Messages []Message `json:"messages"`
	// NextCursor asks for the next page; empty on the last.
	NextCursor string `json:"next_cursor,omitempty"`
	// Summary is the session's current summary, nil until it has one.
	Summary *Summary `json:"summary"`
}

// Context is what the backend puts into its next prompt: Prompt, and the
// parts it was rendered from.
type Context struct {
	UserID    string                `json:"user_id"`
	SessionID string                `json:"session_id"`
	Lang      string                `json:"lang"`
	Limits    assemble.WindowLimits `json:"limits"`
	TTL       string                `json:"ttl"`
	Budget    assemble.Budget       `json:"budget"`
	// List is the session's current list, nil when it has presented none.
	List      *assemble.List     `json:"list"`
	Window    assemble.Window    `json:"window"`
	Facts     assemble.Facts     `json:"facts"`
	Summaries assemble.Summaries `json:"summaries"`
	// Recalled is what a search of the user's whole history found for the
	// query (the current message); nil without one.
	Recalled *assemble.Recalled `json:"recalled,omitempty"`
	// Prompt is the rendered block.
	Prompt string `json:"prompt"`
}

// ContextParams ask for a context. UserID and SessionID are required; zero
// values leave the server's defaults (CONTEXT_*), except where a pointer
// makes 0 sayable.
type ContextParams struct {
	UserID    string `json:"user_id"`
	SessionID string `json:"session_id"`
	// Query is the user's current message: the user's history is searched
	// for it.
	Query       string `json:"query,omitempty"`
	MaxMessages int    `json:"max_messages,omitempty"`
	MaxChars    int    `json:"max_chars,omitempty"`
	// TTL is the oldest message the window keeps.
	TTL          time.Duration `json:"-"`
	MaxFacts     *int          `json:"max_facts,omitempty"`
	MaxSummaries *int          `json:"max_summaries,omitempty"`
	MaxRecalled  *int          `json:"max_recalled,omitempty"`
	// Budget is the total characters; a pointer to 0 asks for none.
	Budget *int `json:"budget,omitempty"`
	// Lang is en, zh or auto.
	Lang string `json:"lang,omitempty"`
}

// SearchParams ask for a search of one user's history; Q is required.
type SearchParams struct {
	Q         string `json:"q"`
	K         int    `json:"k,omitempty"`
	SessionID string `json:"session_id,omitempty"`
	AgentID   string `json:"agent_id,omitempty"`
	Role      string `json:"role,omitempty"`
	Kind      string `json:"kind,omitempty"`
	Since     string `json:"since,omitempty"`
	Until     string `json:"until,omitempty"`
	// Neighbors asks for each turn found with the turn before and after it
	// in its session; NeighborTurns for up to that many on each side (1 to
	// 3; it wins over Neighbors).
	Neighbors     bool `json:"-"`
	NeighborTurns int  `json:"-"`
	MaxPerSession int  `json:"max_per_session,omitempty"`
}

// MarshalJSON writes the parameters as the search route reads them: its
// neighbors is true or a number of turns.
func (p SearchParams) MarshalJSON() ([]byte, error) {
	type plain SearchParams
	out := struct {
		plain
		Neighbors any `json:"neighbors,omitempty"`
	}{plain: plain(p)}
	switch {
	case p.NeighborTurns > 0:
		out.Neighbors = p.NeighborTurns
	case p.Neighbors:
		out.Neighbors = true
	}
	return json.Marshal(out)
}

// SearchResult is the raw hits of a search, most relevant first.
type SearchResult struct {
	UserID string `json:"user_id"`
	Query  string `json:"query"`
	// Terms are the query's terms as the analyzer made them.
	Terms []string `json:"terms"`
	// Search is "hybrid" (terms and vectors) or "lexical" (terms only).
	Search string       `json:"search"`
	Notes  []Note       `json:"notes,omitempty"`
	Hits   []search.Hit `json:"hits"`
}

// ProfileFact is an interest fact as the profile shows it: its stored base
// weight and its weight now, by which the list is ordered.
type ProfileFact struct {
	Type            string    `json:"type"`
	Value           string    `json:"value"`
	Display         string    `json:"display"`
	BaseWeight      float64   `json:"base_weight"`
	Weight          float64   `json:"weight"`
	MentionCount    int64     `json:"mention_count"`
	LastMentionedAt time.Time `json:"last_mentioned_at"`
	ExpiresAt       time.Time `json:"expires_at"`
	Status          string    `json:"status"`
}

// ProfileVector describes the interest vector; Values only when asked for.
type ProfileVector struct {
	Present      bool           `json:"present"`
	Dims         int            `json:"dims,omitempty"`
	Model        string         `json:"model,omitempty"`
	Sources      map[string]int `json:"sources,omitempty"`
	ComputedFrom *time.Time     `json:"computed_from,omitempty"`
	UpdatedAt    *time.Time     `json:"updated_at,omitempty"`
	Revision     int64          `json:"revision,omitempty"`
	Values       []float32      `json:"values,omitempty"`
}

// Profile is what Recall holds about a user's interests.
type Profile struct {
	UserID string `json:"user_id"`
	// At is the time the facts' weights are computed for: the request's.
	At     time.Time      `json:"at"`
	Facts  []ProfileFact  `json:"facts"`
	Cuts   []assemble.Cut `json:"cuts,omitempty"`
	Vector ProfileVector  `json:"vector"`
}

// ProfileRefresh is a queued recompute of a user's interest vector.
type ProfileRefresh struct {
	UserID      string    `json:"user_id"`
	RequestedAt time.Time `json:"requested_at"`
	// Duplicate: folded into a refresh already queued.
	Duplicate bool `json:"duplicate"`
}

// Recommendations are the tenant's catalog items nearest to the user's
// interest vector.
type Recommendations struct {
	UserID string                 `json:"user_id"`
	K      int                    `json:"k"`
	Model  string                 `json:"model"`
	Items  []store.Recommendation `json:"items"`
}

// ListInfo identifies the list an item was taken from.
type ListInfo struct {
	EventID    string    `json:"event_id"`
	OccurredAt time.Time `json:"occurred_at"`
	Count      int       `json:"count"`
}

// Selection is item N of a session's current list.
type Selection struct {
	SessionID string `json:"session_id"`
	N         int    `json:"n"`
	// Item is the item as it was sent (ref, title, attrs, and any other
	// field); Ref reads its ref.
	Item json.RawMessage `json:"item"`
	List ListInfo        `json:"list"`
}

// Ref is the selected item's ref, the one the assistant must quote.
func (s *Selection) Ref() string {
	var it events.Item
	_ = json.Unmarshal(s.Item, &it)
	return it.Ref
}

// UnseenRequest asks which candidate refs a user was never shown nor
// notified of; MarkNotified records them as notified.
type UnseenRequest struct {
	Refs         []string `json:"refs"`
	MarkNotified bool     `json:"mark_notified"`
	// NotificationID makes a retry answer the same.
	NotificationID string `json:"notification_id"`
}

// Unseen is the answer to an UnseenRequest, in the order asked.
type Unseen struct {
	UserID string   `json:"user_id"`
	Unseen []string `json:"unseen"`
	// Marked is how many of them this request recorded as notified.
	Marked int `json:"marked"`
}

// Seen is a user's seen-item registry, most recently shown first.
type Seen struct {
	UserID string           `json:"user_id"`
	Items  []store.SeenItem `json:"items"`
}

// Statuses of a SummarizeResult.
const (
	// SummaryCurrent: no message since the current summary; nothing was asked.
	SummaryCurrent = "current"
	// SummarySummarized: asked, and the summary reached the session's newest
	// message within the wait.
	SummarySummarized = "summarized"
	// SummaryQueued: asked; the summarizer has not written it yet.
	SummaryQueued = "queued"
)

// SummarizeResult is the answer to a summary asked for now.
type SummarizeResult struct {
	SessionID string `json:"session_id"`
	Status    string `json:"status"`
	// Summary is the session's current summary (the new one when status is
	// summarized), nil while it has none.
	Summary *Summary          `json:"summary"`
	Request *SummarizeRequest `json:"request,omitempty"`
}

// SummarizeRequest is the range of messages a queued summary covers.
type SummarizeRequest struct {
	FromCount    int64 `json:"from_count"`
	ThroughCount int64 `json:"through_count"`
	// Duplicate: the same request (same session and range) was already
	// queued, by this route or by a trigger.
	Duplicate bool `json:"duplicate"`
}

// TurnsResult is the answer to a POST of turns; Failed lists what was not
// stored when the answer is 503.
type TurnsResult struct {
	Error    *Error     `json:"error,omitempty"`
	Accepted []Accepted `json:"accepted"`
	Failed   []string   `json:"failed,omitempty"`
}

// ErrorBody is how every error is answered.
type ErrorBody struct {
	Error *Error `json:"error"`
}
