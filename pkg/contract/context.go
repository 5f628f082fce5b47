package contract

import (
	"bytes"
	"encoding/json"
	"time"
)

// ContextParams ask for a context. UserID and SessionID are required; zero
// values leave the server's defaults (CONTEXT_*), except where a pointer
// makes 0 sayable. MaxMessages, MaxChars and TTL need no 0: the window
// holds at least one message and character and some age, and /v1 refuses
// max_messages=0, max_chars=0 and ttl=0 as out of range (the memory
// service judges what the API reads, and a Go caller's 0 is the default).
type ContextParams struct {
	UserID    string `json:"user_id"`
	SessionID string `json:"session_id"`
	// Query is the user's current message: the user's history is searched
	// for it.
	Query       string `json:"query,omitempty"`
	MaxMessages int    `json:"max_messages,omitempty"`
	MaxChars    int    `json:"max_chars,omitempty"`
	// TTL is the oldest message the window keeps (on the wire a duration
	// such as "24h", written by Body).
	TTL          time.Duration `json:"-"`
	MaxFacts     *int          `json:"max_facts,omitempty"`
	MaxSummaries *int          `json:"max_summaries,omitempty"`
	MaxRecalled  *int          `json:"max_recalled,omitempty"`
	// Budget is the total characters; a pointer to 0 asks for none.
	Budget *int `json:"budget,omitempty"`
	// Lang is en, zh or auto.
	Lang string `json:"lang,omitempty"`
	// At asks for the context as it would have been assembled then (RFC
	// 3339 with its offset, such as "2023-05-30T23:42:00Z"): its time rules
	// count from At, and nothing that happened at or after At is in it.
	// Empty: now.
	At string `json:"at,omitempty"`
}

// Body is the parameters as POST /v1/context's body (and, written as
// text, GET's query): numbers stay whole (1000000, not 1e+06) and TTL is a
// duration such as "24h".
func (p ContextParams) Body() map[string]any {
	m := body(p)
	if p.TTL > 0 {
		m["ttl"] = p.TTL.String()
	}
	return m
}

// body is v's JSON object as a map, its numbers kept whole (json.Number).
func body(v any) map[string]any {
	b, _ := json.Marshal(v)
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	_ = dec.Decode(&m)
	return m
}

// Context is what the backend puts into its next prompt: Prompt, and the
// parts it was rendered from.
type Context struct {
	UserID    string       `json:"user_id"`
	SessionID string       `json:"session_id"`
	Lang      string       `json:"lang"`
	Limits    WindowLimits `json:"limits"`
	TTL       string       `json:"ttl"`
	Budget    Budget       `json:"budget"`
	// Attributes are who the user is and what they asked for: their
	// attributes' current values; nil when none are known.
	Attributes *ContextAttributes `json:"attributes,omitempty"`
	// Profile is Attributes under its old name, the same value, kept on
	// the wire for one release.
	//
	// Deprecated: read Attributes; profile goes in the next minor release.
	Profile *ContextAttributes `json:"profile,omitempty"`
	// List is the session's current list, nil when it has presented none.
	List      *List     `json:"list"`
	Window    Window    `json:"window"`
	Facts     Facts     `json:"facts"`
	Summaries Summaries `json:"summaries"`
	// Recalled is what a search of the user's whole history found for the
	// query (the current message); nil without one.
	Recalled *Recalled `json:"recalled,omitempty"`
	// Prompt is the rendered block.
	Prompt string `json:"prompt"`
}

// WindowLimits are the recent window's limits as applied.
type WindowLimits struct {
	Messages int `json:"max_messages"`
	Chars    int `json:"max_chars"`
}

// Cut counts what a part left out and why: "count", "ttl", "chars", "role";
// for the window "conversation" (the caller's request holds it: the chat
// gateway);
// for facts "count", "expired", "decayed"; "budget" for any part.
type Cut struct {
	Reason string `json:"reason"`
	Count  int64  `json:"count"`
}

// Budget is what the prompt spent of its characters.
type Budget struct {
	Limit int `json:"limit"`
	Used  int `json:"used"`
	// Parts is what each part spent of Used.
	Parts PartSpend `json:"parts"`
}

// PartSpend is the characters each part of the prompt spent.
type PartSpend struct {
	// Framing is the framing line that opens the prompt.
	Framing    int `json:"framing"`
	Attributes int `json:"attributes"`
	// Profile is Attributes under its old name, the same count, kept on
	// the wire for one release.
	//
	// Deprecated: read Attributes; profile goes in the next minor release.
	Profile   int `json:"profile"`
	List      int `json:"list"`
	Window    int `json:"window"`
	Recalled  int `json:"recalled"`
	Summaries int `json:"summaries"`
	Facts     int `json:"facts"`
}

// ContextAttributes are the attributes part of a context: who the user is
// (About) and what they asked the assistant to do (Requests), one entry per
// key.
type ContextAttributes struct {
	About    []AttributeEntry `json:"about"`
	Requests []AttributeEntry `json:"requests"`
	// Statements are the user's own standing statements the prompt shows:
	// those that bear on the current message first, then the strongest.
	Statements []AttributeStatement `json:"statements,omitempty"`
	Cuts       []Cut                `json:"cuts,omitempty"`
}

// AttributeStatement is a self-statement of the user's as the prompt shows
// it: their words, when and in which session they said it, and whether it
// was chosen for bearing on the current message.
type AttributeStatement struct {
	Text      string    `json:"text"`
	At        time.Time `json:"at"`
	SessionID string    `json:"session_id,omitempty"`
	Matched   bool      `json:"matched"`
}

// AttributeEntry is one key's current values as the prompt states them.
type AttributeEntry struct {
	Key string `json:"key"`
	// Label is how the prompt named the key, in its language.
	Label  string   `json:"label"`
	Values []string `json:"values"`
}

// List is the session's current list: what the assistant last presented,
// numbered as the user saw it.
type List struct {
	EventID    string      `json:"event_id"`
	OccurredAt time.Time   `json:"occurred_at"`
	Count      int         `json:"count"`
	Items      []ListEntry `json:"items"`
	Cuts       []Cut       `json:"cuts,omitempty"`
}

// ListEntry is one item of the current list.
type ListEntry struct {
	N     int             `json:"n"`
	Ref   string          `json:"ref"`
	Title string          `json:"title,omitempty"`
	Attrs json.RawMessage `json:"attrs,omitempty"`
}

// Window is the session's recent messages, oldest first.
type Window struct {
	Messages []Message `json:"messages"`
	Chars    int       `json:"chars"`
	// Truncated is set when the newest message alone was over the character
	// budget and was cut short.
	Truncated bool  `json:"truncated,omitempty"`
	Cuts      []Cut `json:"cuts,omitempty"`
}

// Facts are the user's interest facts by weight now.
type Facts struct {
	Facts []WeightedFact `json:"facts"`
	Cuts  []Cut          `json:"cuts,omitempty"`
}

// WeightedFact is an interest fact with its weight now.
type WeightedFact struct {
	Type            string    `json:"type"`
	Value           string    `json:"value"`
	Display         string    `json:"display"`
	Weight          float64   `json:"weight"`
	MentionCount    int64     `json:"mention_count"`
	LastMentionedAt time.Time `json:"last_mentioned_at"`
}

// Summaries are the summaries the context gives.
type Summaries struct {
	// Previous are the current summaries of the user's other sessions,
	// latest first.
	Previous []SessionSummary `json:"previous"`
	// Current is this session's summary, given only when the window no
	// longer holds the session's first message.
	Current *SessionSummary `json:"current,omitempty"`
	Cuts    []Cut           `json:"cuts,omitempty"`
}

// SessionSummary is a session's summary as the context gives it.
type SessionSummary struct {
	SessionID string   `json:"session_id"`
	Summary   string   `json:"summary"`
	KeyTopics []string `json:"key_topics"`
	Version   int      `json:"version"`
	// MessageCount is how many of the session's non-system messages the
	// summary accounts for.
	MessageCount int64 `json:"message_count"`
	// CoversFrom and CoversTo are the event-time range the summary covers:
	// its oldest and newest message. LastMessageAt is CoversTo, under the
	// name it had before the range was given.
	CoversFrom    time.Time `json:"covers_from"`
	CoversTo      time.Time `json:"covers_to"`
	LastMessageAt time.Time `json:"last_message_at"`
	Model         string    `json:"model"`
}

// Recalled is what a search of the user's whole history found for the
// current message.
type Recalled struct {
	// Query is the current message the history was searched for.
	Query string `json:"query"`
	// Search says how it was searched: "hybrid" (terms and vectors) or
	// "lexical" (terms only: no embedder, or it failed; see Notes).
	Search string        `json:"search"`
	Hits   []RecalledHit `json:"hits"`
	Cuts   []Cut         `json:"cuts,omitempty"`
	Notes  []Note        `json:"notes,omitempty"`
	// During are the times the message names ("last Saturday", "four weeks
	// ago", "in the past month"), as the search read them, in the user's
	// time zone: what happened then was recalled first. Absent when it
	// names none.
	During []Span `json:"during,omitempty"`
}

// Span is a stretch of time, [From, To).
type Span struct {
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
}

// Note says why a search ran short of what it was asked without failing:
// {"reason": "embedder", "detail": "timeout"}.
type Note struct {
	Reason string `json:"reason"`
	Detail string `json:"detail,omitempty"`
}

// RecalledHit is one turn, summary or fact the search found, or a turn
// around one.
type RecalledHit struct {
	// Kind is message, summary or fact.
	Kind      string `json:"kind"`
	EventID   string `json:"event_id,omitempty"`
	SessionID string `json:"session_id,omitempty"`
	// Role is the speaker of a message.
	Role       string    `json:"role,omitempty"`
	OccurredAt time.Time `json:"occurred_at"`
	// Text is the snippet as the prompt shows it.
	Text      string  `json:"text"`
	Truncated bool    `json:"truncated,omitempty"`
	Score     float64 `json:"score"`
}

// The attributes part's names before it was called attributes, kept for one
// release.
type (
	// Deprecated: use ContextAttributes; goes in the next minor release.
	ContextProfile = ContextAttributes
	// Deprecated: use AttributeEntry; goes in the next minor release.
	ProfileEntry = AttributeEntry
	// Deprecated: use AttributeStatement; goes in the next minor release.
	ProfileStatement = AttributeStatement
)
