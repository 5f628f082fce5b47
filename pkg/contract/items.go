package contract

import (
	"encoding/json"
	"time"

	"github.com/recallhq/recall/pkg/events"
)

// ListInfo identifies the list an item was taken from.
type ListInfo struct {
	EventID    string    `json:"event_id"`
	OccurredAt time.Time `json:"occurred_at"`
	Count      int       `json:"count"`
}

// Selection is item N of a session's current list.
type Selection struct {
	SessionID string `json:"session_id"`
	N         int    `json:"n"`
	// Item is the item as it was sent (ref, title, attrs, and any other
	// field); Ref reads its ref.
	Item json.RawMessage `json:"item"`
	List ListInfo        `json:"list"`
}

// Ref is the selected item's ref, the one the assistant must quote.
func (s *Selection) Ref() string {
	var it events.Item
	_ = json.Unmarshal(s.Item, &it)
	return it.Ref
}

// UnseenRequest asks which candidate refs a user was never shown nor
// notified of; MarkNotified records them as notified.
type UnseenRequest struct {
	Refs         []string `json:"refs"`
	MarkNotified bool     `json:"mark_notified"`
	// NotificationID makes a retry answer the same.
	NotificationID string `json:"notification_id"`
}

// Unseen is the answer to an UnseenRequest, in the order asked.
type Unseen struct {
	UserID string   `json:"user_id"`
	Unseen []string `json:"unseen"`
	// Marked is how many of them this request recorded as notified.
	Marked int `json:"marked"`
}

// Seen is a user's seen-item registry, most recently shown first.
type Seen struct {
	UserID string     `json:"user_id"`
	Items  []SeenItem `json:"items"`
}

// SeenItem is an item a user was shown: how often, when first and last.
type SeenItem struct {
	Ref           string          `json:"ref"`
	Title         string          `json:"title,omitempty"`
	Attrs         json.RawMessage `json:"attrs,omitempty"`
	TimesShown    int64           `json:"times_shown"`
	FirstSeenAt   time.Time       `json:"first_seen_at"`
	LastSeenAt    time.Time       `json:"last_seen_at"`
	LastEventID   string          `json:"last_event_id"`
	LastSessionID string          `json:"last_session_id"`
}
