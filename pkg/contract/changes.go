package contract

import "time"

// Types of a Change: what changed, and how.
const (
	// ChangeAttributeAsserted: a value of a profile key (a self-statement
	// too: key "statements", its matter the item) was put, by its source,
	// with its evidence. Its status says whether it holds now (current), a
	// newer value already took its place (superseded: it arrived late), or
	// a stronger source's value stands (ignored).
	ChangeAttributeAsserted = "attribute.asserted"
	// ChangeAttributeSuperseded: a value stopped holding because a later
	// put of the same key (or item) took its place (ended_by, valid_to).
	ChangeAttributeSuperseded = "attribute.superseded"
	// ChangeAttributeRemoved: a value stopped holding because a later
	// removal ended it (ended_by, valid_to).
	ChangeAttributeRemoved = "attribute.removed"
	// ChangeUserForgotten: everything stored about the user was erased; the
	// report counts what was removed.
	ChangeUserForgotten = "user.forgotten"
)

// ChangeVersion is the version of the change envelope.
const ChangeVersion = 1

// Change is one change to what Recall holds about a user, as the change
// feed carries it (recall.changes.<tenant>.<user>, stream RECALL_CHANGES;
// docs/events.md). ID is derived from what changed, so the same change has
// the same id however often it is derived (a redelivery, a replay), and is
// the message's Nats-Msg-Id. At is the change's event time: the time of the
// event that made it, never the time it was processed, except where no
// event has a time (a forget).
type Change struct {
	V        int       `json:"v"`
	ID       string    `json:"id"`
	Type     string    `json:"type"`
	TenantID string    `json:"tenant_id"`
	UserID   string    `json:"user_id"`
	At       time.Time `json:"at"`
	// Attribute is the value an attribute.* change is about, as it stands
	// in its key's history after the change.
	Attribute *AttributeValue `json:"attribute,omitempty"`
	// Forgotten is a user.forgotten change's report: what was removed.
	Forgotten *UserData `json:"forgotten,omitempty"`
}
