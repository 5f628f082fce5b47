package contract

import (
	"encoding/json"
	"time"
)

// InterestFact is an interest fact as the interests show it: its stored base
// weight and its weight now, by which the list is ordered.
type InterestFact struct {
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

// InterestVector describes the interest vector; Values only when asked for.
type InterestVector struct {
	Present      bool           `json:"present"`
	Dims         int            `json:"dims,omitempty"`
	Model        string         `json:"model,omitempty"`
	Sources      map[string]int `json:"sources,omitempty"`
	ComputedFrom *time.Time     `json:"computed_from,omitempty"`
	UpdatedAt    *time.Time     `json:"updated_at,omitempty"`
	Revision     int64          `json:"revision,omitempty"`
	Values       []float32      `json:"values,omitempty"`
}

// Interests is what Recall holds about a user's interests.
type Interests struct {
	UserID string `json:"user_id"`
	// At is the time the facts' weights are computed for: the request's.
	At     time.Time      `json:"at"`
	Facts  []InterestFact `json:"facts"`
	Cuts   []Cut          `json:"cuts,omitempty"`
	Vector InterestVector `json:"vector"`
}

// InterestsRefresh is a queued recompute of a user's interest vector.
type InterestsRefresh struct {
	UserID      string    `json:"user_id"`
	RequestedAt time.Time `json:"requested_at"`
	// Duplicate: folded into a refresh already queued.
	Duplicate bool `json:"duplicate"`
}

// Recommendations are the tenant's catalog items nearest to the user's
// interest vector.
type Recommendations struct {
	UserID string           `json:"user_id"`
	K      int              `json:"k"`
	Model  string           `json:"model"`
	Items  []Recommendation `json:"items"`
}

// Recommendation is a catalog item and how near it is to the user's
// interests.
type Recommendation struct {
	Ref   string          `json:"ref"`
	Type  string          `json:"type"`
	Title string          `json:"title"`
	Attrs json.RawMessage `json:"attrs,omitempty"`
	// Distance is the cosine distance to the interest vector; Score is
	// 1 - Distance.
	Distance float64 `json:"distance"`
	Score    float64 `json:"score"`
}
