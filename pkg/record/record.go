// Package record holds the records Recall keeps of a conversation, as plain
// values: a stored message, a session's summary, an interest fact, the list a
// session presented last. The store reads and writes them and the assembler
// renders them; they carry no JSON tags (the wire is pkg/contract's, mapped
// by the memory service) and depend on nothing but the standard library, so
// rendering a context needs no database driver.
package record

import (
	"encoding/json"
	"time"
)

// Fact statuses.
const (
	FactActive   = "active"
	FactArchived = "archived"
	FactExpired  = "expired"
)

// Message is a stored turn with its full structure.
type Message struct {
	EventID    string
	SessionID  string
	UserID     string
	SiteID     string
	AgentID    string
	Role       string
	Content    string
	ToolCalls  json.RawMessage
	Items      json.RawMessage
	Metadata   json.RawMessage
	OccurredAt time.Time
	StoredAt   time.Time
}

// Summary is one version of a session's summary.
type Summary struct {
	SessionID string
	UserID    string
	Version   int
	// FromCount and ThroughCount count the session's non-system messages
	// read into a summary before and with this version: it read
	// ThroughCount-FromCount messages, the oldest (by event time) that no
	// earlier version had read.
	FromCount    int64
	ThroughCount int64
	// The messages read for it: the oldest and newest by event time, and how
	// many had text.
	FirstEventID string
	FirstAt      time.Time
	LastEventID  string
	LastAt       time.Time
	// CoversFrom and CoversTo are the event-time range the summary covers,
	// with the versions it rolls forward: the oldest and newest message any
	// of them read. A version that read a late message covers from before
	// its predecessor's start.
	CoversFrom   time.Time
	CoversTo     time.Time
	MessagesRead int
	Text         string
	KeyTopics    []string
	// Model is "extractive" or the language model that wrote it.
	Model string
	// Reason is what asked for it: threshold, request or idle.
	Reason    string
	CreatedAt time.Time
}

// Fact is a stored interest fact.
type Fact struct {
	Type            string
	Value           string
	Display         string
	Weight          float64
	MentionCount    int64
	FirstSeenAt     time.Time
	LastMentionedAt time.Time
	ExpiresAt       time.Time
	Status          string
	Source          string
	SourceSessionID string
}

// PresentedList is the list a turn presented to the user, as it was sent.
type PresentedList struct {
	EventID    string
	OccurredAt time.Time
	Items      json.RawMessage
}
