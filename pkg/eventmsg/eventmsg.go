// Package eventmsg builds the NATS messages Recall's events are published
// as: each event's subject, its JSON body and its Nats-Msg-Id (the dedupe
// id JetStream keeps one message of), from the event types of pkg/events,
// which need no NATS client. What producers publish with (the Go client,
// pkg/queue).
package eventmsg

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/recallhq/recall/pkg/events"
)

// Turn encodes a turn as the NATS message a producer sends.
func Turn(t *events.Turn) (*nats.Msg, error) {
	data, err := json.Marshal(t)
	if err != nil {
		return nil, fmt.Errorf("encode turn %s: %w", t.ID, err)
	}
	m := nats.NewMsg(events.TurnSubject(t.TenantID, t.UserID, t.SessionID))
	m.Data = data
	m.Header.Set(jetstream.MsgIDHeader, events.MsgID(t.TenantID, t.ID))
	return m, nil
}

// CatalogItem encodes a catalog item as the NATS message a producer sends,
// deduplicated by Nats-Msg-Id = tenant:id like turns. Ids are unique within the
// tenant across catalog and shelf events, which share a stream.
func CatalogItem(it *events.CatalogItem) (*nats.Msg, error) {
	if it.V == 0 {
		it.V = events.Version
	}
	return signalMsg(events.CatalogSubject(it.TenantID), events.MsgID(it.TenantID, it.ID), it)
}

// ShelfEntry encodes a shelf entry as the NATS message a producer sends.
func ShelfEntry(e *events.ShelfEntry) (*nats.Msg, error) {
	if e.V == 0 {
		e.V = events.Version
	}
	return signalMsg(events.ShelfSubject(e.TenantID, e.UserID), events.MsgID(e.TenantID, e.ID), e)
}

// AttributeEdit is the message an attribute edit is published as: on
// its user's subject, deduplicated by its id.
func AttributeEdit(e *events.AttributeEdit) (*nats.Msg, error) {
	return signalMsg(events.AttributeSubject(e.TenantID, e.UserID), events.MsgID(e.TenantID, e.ID), e)
}

func signalMsg(subject, msgID string, v any) (*nats.Msg, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", msgID, err)
	}
	m := nats.NewMsg(subject)
	m.Data = data
	m.Header.Set(jetstream.MsgIDHeader, msgID)
	return m, nil
}

// ProfileTask encodes a task as a NATS message, debounced per user: its
// Nats-Msg-Id names the bucket of publish time (now) it falls in, so JetStream
// stores the first task of a user per bucket and drops the others inside the
// stream's duplicate window.
//
// The bucket is taken from publish time, not from RequestedAt, on purpose. A
// dropped task's change must still reach the profile; that holds when the
// profiler reads its inputs after the last moment a task could be folded into
// the stored one, which with publish-time buckets is the bucket's end (carried in
// events.HeaderDebounceUntil). With event-time buckets a replayed or late event could
// be folded in at any time within the duplicate window, after the profile was
// already computed. With bucket <= 0 there is no debouncing: only a repeat of
// the same task (same requested_at) is dropped.
func ProfileTask(t *events.ProfileTask, now time.Time, bucket time.Duration) (*nats.Msg, error) {
	if t.V == 0 {
		t.V = events.Version
	}
	if bucket <= 0 {
		id := events.EncodeToken(t.TenantID) + ":" + events.EncodeToken(t.UserID) + ":at:" + strconv.FormatInt(t.RequestedAt.UnixNano(), 10)
		return signalMsg(events.ProfileTaskSubject(t.TenantID, t.UserID), id, t)
	}
	ms, width := now.UnixMilli(), max(bucket.Milliseconds(), 1)
	start := ms - ms%width
	if ms < 0 && ms%width != 0 {
		start -= width
	}
	m, err := signalMsg(events.ProfileTaskSubject(t.TenantID, t.UserID), events.ProfileTaskMsgID(t.TenantID, t.UserID, time.UnixMilli(start)), t)
	if err != nil {
		return nil, err
	}
	m.Header.Set(events.HeaderDebounceUntil, time.UnixMilli(start+width).UTC().Format(time.RFC3339Nano))
	return m, nil
}

// DebounceUntil reads events.HeaderDebounceUntil; ok is false when the task carries
// none (it was not debounced) or it does not parse.
func DebounceUntil(h nats.Header) (time.Time, bool) {
	v := h.Get(events.HeaderDebounceUntil)
	if v == "" {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	return t, err == nil
}

// Summarize encodes a request as a NATS message with its dedupe id.
func Summarize(r *events.SummarizeRequest) (*nats.Msg, error) {
	if r.V == 0 {
		r.V = events.Version
	}
	return signalMsg(events.SummarizeTaskSubject(r.TenantID, r.UserID, r.SessionID),
		events.SummarizeMsgID(r.TenantID, r.SessionID, r.FromCount, r.ThroughCount), r)
}
