package assemble

import (
	"time"

	"github.com/recallhq/recall/pkg/record"
)

// SessionSummary is a session summary as the context shows it.
type SessionSummary struct {
	SessionID string
	Summary   string
	KeyTopics []string
	Version   int
	// MessageCount is how many of the session's non-system messages the
	// summary accounts for.
	MessageCount int64
	// CoversFrom and CoversTo are the event-time range the summary covers:
	// its oldest and newest message. LastMessageAt is CoversTo, under the
	// name it had before the range was given.
	CoversFrom    time.Time
	CoversTo      time.Time
	LastMessageAt time.Time
	Model         string
}

// Summaries is the summary part of the context: what the user talked about in
// earlier sessions, and what this session said before the window begins.
type Summaries struct {
	// Previous are the current summaries of the user's other sessions,
	// latest first.
	Previous []SessionSummary
	// Current is this session's summary, given only when the window no longer
	// holds the session's first message.
	Current *SessionSummary
	Cuts    []Cut
}

// PickSummaries builds the summary part from the summaries read: the other
// sessions' as they come (latest first), and the session's own when the
// window w misses some of the session's non-system messages (c counts them).
func PickSummaries(previous []record.Summary, current *record.Summary, w Window, c Counts) Summaries {
	out := Summaries{Previous: make([]SessionSummary, len(previous))}
	for i, s := range previous {
		out.Previous[i] = sessionSummary(s)
	}
	if current != nil && int64(len(w.Messages)) < c.Messages-c.System {
		cs := sessionSummary(*current)
		out.Current = &cs
	}
	return out
}

func sessionSummary(s record.Summary) SessionSummary {
	topics := s.KeyTopics
	if topics == nil {
		topics = []string{}
	}
	return SessionSummary{SessionID: s.SessionID, Summary: s.Text, KeyTopics: topics, Version: s.Version,
		MessageCount: s.ThroughCount, CoversFrom: s.CoversFrom, CoversTo: s.CoversTo, LastMessageAt: s.CoversTo, Model: s.Model}
}
