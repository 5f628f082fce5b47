package contract

import (
	"encoding/json"
	"time"
)

// Accepted is the outcome of one turn: stored in the stream at Sequence, or
// Duplicate of a turn stored before (nothing changed).
type Accepted struct {
	ID        string `json:"id"`
	Sequence  uint64 `json:"sequence"`
	Duplicate bool   `json:"duplicate,omitempty"`
}

// TurnsResult is the answer to a POST of turns; Failed lists what was not
// stored when the answer is 503. Wait says how a wait the request asked for
// (?wait=) ended.
type TurnsResult struct {
	Error    *Error     `json:"error,omitempty"`
	Accepted []Accepted `json:"accepted"`
	Failed   []string   `json:"failed,omitempty"`
	Wait     *TurnsWait `json:"wait,omitempty"`
}

// Message is a stored turn with its full structure: tool calls and the
// items it presented are kept as they were sent.
type Message struct {
	EventID    string          `json:"id"`
	SessionID  string          `json:"session_id"`
	UserID     string          `json:"user_id"`
	SiteID     string          `json:"site_id,omitempty"`
	AgentID    string          `json:"agent_id,omitempty"`
	Role       string          `json:"role"`
	Content    string          `json:"content"`
	ToolCalls  json.RawMessage `json:"tool_calls,omitempty"`
	Items      json.RawMessage `json:"items,omitempty"`
	Metadata   json.RawMessage `json:"metadata,omitempty"`
	OccurredAt time.Time       `json:"occurred_at"`
	StoredAt   time.Time       `json:"stored_at"`
}

// Summary is one version of a session's summary and what it covers.
type Summary struct {
	SessionID string `json:"session_id"`
	UserID    string `json:"user_id"`
	Version   int    `json:"version"`
	// FromCount and ThroughCount are the range of the session's non-system
	// messages (1-based, in event-time order) the summary accounts for.
	FromCount    int64 `json:"from_count"`
	ThroughCount int64 `json:"through_count"`
	// FirstEventID/FirstAt and LastEventID/LastAt are the messages this
	// version read first and last.
	FirstEventID string    `json:"first_event_id"`
	FirstAt      time.Time `json:"first_at"`
	LastEventID  string    `json:"last_event_id"`
	LastAt       time.Time `json:"last_at"`
	// CoversFrom and CoversTo are the event-time range the summary covers,
	// its earlier versions included.
	CoversFrom   time.Time `json:"covers_from"`
	CoversTo     time.Time `json:"covers_to"`
	MessagesRead int       `json:"messages_read"`
	Text         string    `json:"summary"`
	KeyTopics    []string  `json:"key_topics"`
	Model        string    `json:"model"`
	// Reason is what asked for it: a threshold, idleness or a request.
	Reason    string    `json:"reason"`
	CreatedAt time.Time `json:"created_at"`
}

// SessionInfo is a session's counts and times.
type SessionInfo struct {
	SessionID      string    `json:"session_id"`
	UserID         string    `json:"user_id"`
	SiteID         string    `json:"site_id,omitempty"`
	AgentID        string    `json:"agent_id,omitempty"`
	MessageCount   int64     `json:"message_count"`
	SystemCount    int64     `json:"system_count"`
	FirstMessageAt time.Time `json:"first_message_at"`
	LastMessageAt  time.Time `json:"last_message_at"`
	CreatedAt      time.Time `json:"created_at"`
	UpdatedAt      time.Time `json:"updated_at"`
}

// Session is a session's counts, its newest messages (oldest first) and its
// current summary.
type Session struct {
	SessionInfo
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

// SummaryVersions are a session's summaries, newest version first.
type SummaryVersions struct {
	SessionID string    `json:"session_id"`
	Summaries []Summary `json:"summaries"`
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
