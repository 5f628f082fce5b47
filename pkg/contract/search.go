package contract

import (
	"encoding/json"
	"time"
)

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
	// At searches the history as it stood then (RFC 3339 with its offset):
	// nothing from At on is read, and recency counts from At. Empty: now.
	At string `json:"at,omitempty"`
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

// Body is the parameters as the search route's body reads them.
func (p SearchParams) Body() map[string]any { return body(p) }

// SearchResult is the raw hits of a search, most relevant first.
type SearchResult struct {
	UserID string `json:"user_id"`
	Query  string `json:"query"`
	// Terms are the query's terms as the analyzer made them.
	Terms []string `json:"terms"`
	// Search is "hybrid" (terms and vectors) or "lexical" (terms only).
	Search string `json:"search"`
	// During are the times the query names ("last Saturday", "in March",
	// 上周五), read at the search's time in the user's time zone: what
	// happened then was lifted, and the words naming them not searched
	// for. Absent when the query names none.
	During []Span      `json:"during,omitempty"`
	Notes  []Note      `json:"notes,omitempty"`
	Hits   []SearchHit `json:"hits"`
}

// SearchHit is one entry found: a turn, a summary or a fact, with how it
// ranked.
type SearchHit struct {
	// Kind is message, summary or fact.
	Kind string `json:"kind"`
	// SourceID is the turn's event id, the summary's session or the fact's
	// key.
	SourceID   string    `json:"source_id"`
	SessionID  string    `json:"session_id,omitempty"`
	AgentID    string    `json:"agent_id,omitempty"`
	Role       string    `json:"role,omitempty"`
	OccurredAt time.Time `json:"occurred_at"`
	Text       string    `json:"text"`
	// Score orders the hits: the fused rank score.
	Score        float64 `json:"score"`
	LexicalRank  int     `json:"lexical_rank,omitempty"`
	LexicalScore float64 `json:"lexical_score,omitempty"`
	VectorRank   int     `json:"vector_rank,omitempty"`
	Similarity   float64 `json:"similarity,omitempty"`
	// TimeRank is the hit's place among what happened when the query
	// says (During), 0 when it is not in those times.
	TimeRank int `json:"time_rank,omitempty"`
	// AskedRank is the hit's place among the user's turns that hold the
	// kind of answer the query asks for (the user's age: "how old will I
	// be in May?"), 0 when it is not one of them.
	AskedRank int `json:"asked_rank,omitempty"`
	// Previous and Next are the turns just before and after a message hit
	// in its session, when neighbours were asked for; Earlier and Later the
	// ones beyond them, nearest first.
	Previous *Neighbor  `json:"previous,omitempty"`
	Next     *Neighbor  `json:"next,omitempty"`
	Earlier  []Neighbor `json:"earlier,omitempty"`
	Later    []Neighbor `json:"later,omitempty"`
}

// Neighbor is a turn next to a hit in its session.
type Neighbor struct {
	EventID    string    `json:"id"`
	Role       string    `json:"role"`
	OccurredAt time.Time `json:"occurred_at"`
	Content    string    `json:"content"`
}
