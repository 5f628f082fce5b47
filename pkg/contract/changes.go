package contract

import "time"

// Types of a Change: what changed, and how.
const (
	// ChangeAttributeAsserted: a value of an attribute key (a self-statement
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
	// ChangeFactNew: an interest fact was mentioned for the first time (a
	// turn's mention, or a summary's key topic); at is the mention's event
	// time.
	ChangeFactNew = "fact.new"
	// ChangeFactArchived: a fact's weight fell below its type's floor, a
	// number of decay periods after its last mention; at is that moment.
	ChangeFactArchived = "fact.archived"
	// ChangeFactExpired: a fact's time to live after its last mention
	// passed; at is its expiry.
	ChangeFactExpired = "fact.expired"
	// ChangeSummaryUpdated: a session's summary has a new version; at is
	// the event time of the last turn it covers.
	ChangeSummaryUpdated = "summary.updated"
	// ChangeListPresented: an assistant's turn presented a list of items;
	// at is the turn's event time.
	ChangeListPresented = "list.presented"
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
	// Fact is the interest fact a fact.* change is about, as stored when
	// the change was published.
	Fact *ChangedFact `json:"fact,omitempty"`
	// Summary is a summary.updated change's new version.
	Summary *Summary `json:"summary,omitempty"`
	// List is a list.presented change's list.
	List *ChangedList `json:"list,omitempty"`
}

// ChangedFact is the interest fact a fact.* change is about.
type ChangedFact struct {
	Type    string `json:"type"`
	Value   string `json:"value"`
	Display string `json:"display"`
	// Status is what the change made it: active (fact.new), archived or
	// expired.
	Status string `json:"status"`
	// Source is the extractor of its newest mention (rules, llm, catalog,
	// summary).
	Source    string `json:"source"`
	SessionID string `json:"session_id,omitempty"`
	// EventID is, for fact.new, the event (a turn, a summary version) of
	// its first mention.
	EventID string `json:"event_id,omitempty"`
	// BaseWeight is the stored weight (1 at every mention); Weight its
	// decayed weight at the change's time.
	BaseWeight      float64   `json:"base_weight"`
	Weight          float64   `json:"weight"`
	MentionCount    int64     `json:"mention_count"`
	FirstSeenAt     time.Time `json:"first_seen_at"`
	LastMentionedAt time.Time `json:"last_mentioned_at"`
	ExpiresAt       time.Time `json:"expires_at"`
}

// ChangedList is the list an assistant's turn presented, numbered as the
// user saw it.
type ChangedList struct {
	SessionID string `json:"session_id"`
	// EventID is the turn that presented it.
	EventID string      `json:"event_id"`
	Count   int         `json:"count"`
	Items   []ListEntry `json:"items"`
}
