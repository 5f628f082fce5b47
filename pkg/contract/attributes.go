package contract

import "time"

// Attributes are who a user is and what they asked for: the current values
// of their attributes' keys (pkg/attribute's schema), and, when asked for,
// every value's history.
type Attributes struct {
	UserID  string           `json:"user_id"`
	Current []AttributeValue `json:"current"`
	// History is every assertion, newest first, each with its status
	// (current, superseded, retracted, removal, ignored); only with
	// history=true.
	History []AttributeValue `json:"history,omitempty"`
}

// AttributeValue is one value of an attribute key, with where it came from
// and when it held.
type AttributeValue struct {
	Key string `json:"key"`
	// Group is about (who the user is) or preference (what they asked the
	// assistant to do).
	Group string `json:"group"`
	// Item is a set's item (its normalized value); absent for a single key.
	Item  string `json:"item,omitempty"`
	Value string `json:"value"`
	// Op is put or remove.
	Op string `json:"op"`
	// Source is explicit, stated, inferred or derived.
	Source string `json:"source"`
	// Status is the value's place in its key's history.
	Status string `json:"status"`
	// EventID is the event that made it; Evidence the turns it was read
	// from, and SessionID their session.
	EventID    string   `json:"event_id"`
	Evidence   []string `json:"evidence,omitempty"`
	SessionID  string   `json:"session_id,omitempty"`
	Confidence float64  `json:"confidence"`
	// ValidFrom is its event time; ValidTo when a later value or a removal
	// (EndedBy, an event id) ended it.
	ValidFrom time.Time  `json:"valid_from"`
	ValidTo   *time.Time `json:"valid_to,omitempty"`
	EndedBy   string     `json:"ended_by,omitempty"`
}

// AttributeEdits change a user's attributes explicitly (PATCH
// /v1/users/{user_id}/attributes): each edit puts or removes a value of one
// key. ID makes a retry store nothing twice (each edit's event id is ID and
// its place); OccurredAt is the edits' event time (now when absent).
type AttributeEdits struct {
	ID         string          `json:"id,omitempty"`
	OccurredAt *time.Time      `json:"occurred_at,omitempty"`
	Edits      []AttributeEdit `json:"edits"`
}

// AttributeEdit is one edit: op put sets a single key's value or adds an
// item to a set; op remove clears a single key, or takes the item Value out
// of a set (every item without a Value).
type AttributeEdit struct {
	Key   string `json:"key"`
	Op    string `json:"op"`
	Value string `json:"value,omitempty"`
}

// AttributesAccepted is the answer to an edit: the events published, which
// the worker of the signal stream stores.
type AttributesAccepted struct {
	UserID   string     `json:"user_id"`
	Accepted []Accepted `json:"accepted"`
}
