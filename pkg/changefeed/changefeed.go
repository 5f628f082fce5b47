// Package changefeed publishes the change feed: every change to what Recall
// holds about a user, as a contract.Change on recall.changes.<tenant>.<user>
// (stream RECALL_CHANGES). The components that make a change publish it,
// after its write is committed and before the message that caused it is
// acknowledged, and only when the write changed something:
//
//   - each change's id is derived from what changed (ID), and is the
//     message's Nats-Msg-Id, so the stream drops a change published again
//     within its duplicate window;
//   - a write that changed nothing (a replay, a duplicate) publishes nothing;
//   - a redelivered message (its first handling may have committed and then
//     failed to publish) derives its changes again from what is stored and
//     publishes them, which the stream's dedupe absorbs when the first
//     publish got through.
//
// So a change reaches the stream at least once, and once within the
// duplicate window (STREAM_DUPLICATE_WINDOW) of its first publish;
// docs/events.md says what readers can rely on.
package changefeed

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/recallhq/recall/pkg/contract"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/queue"
)

// ID is the id of a change of type typ to a user of a tenant, named by
// parts (the assertion's event, key, item...): the same change always
// gets the same id. It is "chg-" and 32 hex digits of a SHA-256 over its
// inputs, each length-prefixed so that no two lists of parts collide.
func ID(typ, tenantID, userID string, parts ...string) string {
	h := sha256.New()
	for _, p := range append([]string{typ, tenantID, userID}, parts...) {
		fmt.Fprintf(h, "%d:%s", len(p), p)
	}
	return "chg-" + hex.EncodeToString(h.Sum(nil)[:16])
}

// Msg is the message a change is published as: its subject, its JSON, and
// its id as the Nats-Msg-Id.
func Msg(c *contract.Change) (*nats.Msg, error) {
	data, err := json.Marshal(c)
	if err != nil {
		return nil, fmt.Errorf("encode change %s: %w", c.ID, err)
	}
	m := nats.NewMsg(events.ChangeSubject(c.TenantID, c.UserID))
	m.Data = data
	m.Header.Set(jetstream.MsgIDHeader, c.ID)
	return m, nil
}

// Publisher publishes changes to the feed.
type Publisher struct {
	js jetstream.JetStream
}

// NewPublisher returns a Publisher on js; with a nil js (a process with no
// NATS, some tests) it publishes nothing.
func NewPublisher(js jetstream.JetStream) *Publisher { return &Publisher{js: js} }

// Publish publishes the changes, in order, and waits for the server's
// acks. A change the stream has seen within its duplicate window is
// dropped by the server, which is no error. An error means some change may
// not be stored: the caller fails the message that caused them, so that its
// redelivery publishes them again.
func (p *Publisher) Publish(ctx context.Context, cs []contract.Change) error {
	if p == nil || p.js == nil || len(cs) == 0 {
		return nil
	}
	ids := make([]string, len(cs))
	msgs := make([]*nats.Msg, len(cs))
	for i := range cs {
		m, err := Msg(&cs[i])
		if err != nil {
			return err
		}
		ids[i], msgs[i] = cs[i].ID, m
	}
	if _, err := queue.PublishChanges(ctx, p.js, ids, msgs); err != nil {
		return fmt.Errorf("publish changes: %w", err)
	}
	return nil
}

// Sort orders changes by event time; at the same time a value's end comes
// before the value that took its place, then by id, so that the same
// changes are always published in the same order.
func Sort(cs []contract.Change) {
	rank := func(t string) int {
		if strings.HasPrefix(t, "attribute.") && t != contract.ChangeAttributeAsserted {
			return 0
		}
		return 1
	}
	slices.SortStableFunc(cs, func(a, b contract.Change) int {
		return cmp.Or(a.At.Compare(b.At), cmp.Compare(rank(a.Type), rank(b.Type)), cmp.Compare(a.ID, b.ID))
	})
}

// Forgotten is the change of a user forgotten, with what was removed. No
// event has its time: at is when the forget ran, and is part of the id (a
// user forgotten twice, the second time for what came after the first, is
// two changes).
func Forgotten(tenantID, userID string, at time.Time, rep *contract.UserData) contract.Change {
	at = at.UTC()
	return contract.Change{V: contract.ChangeVersion, ID: ID(contract.ChangeUserForgotten, tenantID, userID, at.Format(time.RFC3339Nano)),
		Type: contract.ChangeUserForgotten, TenantID: tenantID, UserID: userID, At: at, Forgotten: rep}
}
