package contract

import "time"

// Users is one page of a tenant's users, most recently active first.
type Users struct {
	Users      []UserActivity `json:"users"`
	NextCursor string         `json:"next_cursor,omitempty"`
}

// UserActivity is how much a user has talked and when.
type UserActivity struct {
	UserID         string    `json:"user_id"`
	Sessions       int64     `json:"sessions"`
	Messages       int64     `json:"messages"`
	FirstMessageAt time.Time `json:"first_message_at"`
	LastMessageAt  time.Time `json:"last_message_at"`
}

// UserData counts what is stored about a user: rows per table and stream
// messages per stream. GET /v1/users/{id} answers what a forget would
// remove; DELETE answers what it removed.
type UserData struct {
	TenantID string `json:"tenant_id"`
	UserID   string `json:"user_id"`
	// Rows per table.
	Rows map[string]int64 `json:"rows"`
	// StreamMessages per stream.
	StreamMessages map[string]uint64 `json:"stream_messages"`
}

// UserFacts is one page of a user's interest facts with their decay: each
// fact's weight and status now, its mentions and its curve, and the rule of
// each type shown.
type UserFacts struct {
	UserID string `json:"user_id"`
	// At is the time weights and statuses are computed for.
	At         time.Time            `json:"at"`
	Policy     map[string]DecayRule `json:"policy"`
	Facts      []FactView           `json:"facts"`
	NextCursor string               `json:"next_cursor,omitempty"`
}

// DecayRule is the decay rule of one fact type.
type DecayRule struct {
	PeriodSeconds float64 `json:"period_seconds"`
	Factor        float64 `json:"factor"`
	Floor         float64 `json:"floor"`
	TTLSeconds    float64 `json:"ttl_seconds"`
	// ArchivedAfter is how many periods without a mention archive a fact.
	ArchivedAfter int `json:"archived_after_periods"`
}

// FactView is a stored fact, its mentions, and its weight and status now.
type FactView struct {
	Type            string    `json:"type"`
	Value           string    `json:"value"`
	Display         string    `json:"display"`
	BaseWeight      float64   `json:"base_weight"`
	MentionCount    int64     `json:"mention_count"`
	FirstSeenAt     time.Time `json:"first_seen_at"`
	LastMentionedAt time.Time `json:"last_mentioned_at"`
	ExpiresAt       time.Time `json:"expires_at"`
	// Status is as stored (the decayer's last pass); StatusNow as of At.
	Status          string `json:"status"`
	Source          string `json:"source"`
	SourceSessionID string `json:"source_session_id,omitempty"`
	// Mentions are the times it was mentioned, newest first.
	Mentions  []time.Time  `json:"mentions"`
	Weight    float64      `json:"weight"`
	StatusNow string       `json:"status_now"`
	Curve     []CurvePoint `json:"curve"`
}

// CurvePoint is a point of a fact's weight over time.
type CurvePoint struct {
	At     time.Time `json:"at"`
	Weight float64   `json:"weight"`
	// Kind is what happens there: a mention, a decay step, archive, expiry.
	Kind string `json:"kind"`
}

// UserSessions is one page of a user's sessions, most recent first.
type UserSessions struct {
	UserID     string        `json:"user_id"`
	Sessions   []UserSession `json:"sessions"`
	NextCursor string        `json:"next_cursor,omitempty"`
}

// UserSession is a session's counts with its current summary.
type UserSession struct {
	SessionInfo
	Summary *Summary `json:"summary"`
}

// Shelf is a user's shelf: the items they marked, with their status.
type Shelf struct {
	UserID string      `json:"user_id"`
	Items  []ShelfItem `json:"items"`
}

// ShelfItem is one item of a user's shelf.
type ShelfItem struct {
	Ref        string    `json:"ref"`
	Status     string    `json:"status"`
	OccurredAt time.Time `json:"occurred_at"`
	Title      string    `json:"title,omitempty"`
	Type       string    `json:"type,omitempty"`
	// Embedded: the catalog holds a vector for it, so it counts in the
	// interest vector.
	Embedded bool `json:"embedded"`
}
