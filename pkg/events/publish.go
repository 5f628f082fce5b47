package events

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Publisher publishes turns to JetStream with the dedupe id set, and waits for the
// server's acknowledgement: a turn counts as accepted only once it is stored.
type Publisher struct {
	js jetstream.JetStream
}

// NewPublisher returns a Publisher on js.
func NewPublisher(js jetstream.JetStream) *Publisher { return &Publisher{js: js} }

// PublishResult is the outcome for one turn.
type PublishResult struct {
	ID        string `json:"id"`
	Sequence  uint64 `json:"sequence,omitempty"`
	Duplicate bool   `json:"duplicate,omitempty"`
	Err       error  `json:"-"`
}

// TurnMsg encodes a turn as the NATS message a producer sends.
func TurnMsg(t *Turn) (*nats.Msg, error) {
	data, err := json.Marshal(t)
	if err != nil {
		return nil, fmt.Errorf("encode turn %s: %w", t.ID, err)
	}
	m := nats.NewMsg(TurnSubject(t.TenantID, t.UserID, t.SessionID))
	m.Data = data
	m.Header.Set(jetstream.MsgIDHeader, MsgID(t.TenantID, t.ID))
	return m, nil
}

// PublishTurns publishes every turn concurrently (async publish) and waits for all
// acknowledgements. Turns must already be validated. The result has one entry per
// turn, in order; the error is non-nil when any turn was not stored, and retrying
// the whole call is safe because of the dedupe id.
func (p *Publisher) PublishTurns(ctx context.Context, turns []Turn) ([]PublishResult, error) {
	results := make([]PublishResult, len(turns))
	futures := make([]jetstream.PubAckFuture, len(turns))
	for i := range turns {
		results[i].ID = turns[i].ID
		m, err := TurnMsg(&turns[i])
		if err != nil {
			results[i].Err = err
			continue
		}
		f, err := p.js.PublishMsgAsync(m)
		if err != nil {
			results[i].Err = fmt.Errorf("publish turn %s: %w", turns[i].ID, err)
			continue
		}
		futures[i] = f
	}
	var errs []error
	for i, f := range futures {
		if f == nil {
			errs = append(errs, results[i].Err)
			continue
		}
		select {
		case ack := <-f.Ok():
			results[i].Sequence = ack.Sequence
			results[i].Duplicate = ack.Duplicate
		case err := <-f.Err():
			results[i].Err = fmt.Errorf("publish turn %s: %w", turns[i].ID, err)
			errs = append(errs, results[i].Err)
		case <-ctx.Done():
			results[i].Err = fmt.Errorf("publish turn %s: %w", turns[i].ID, ctx.Err())
			errs = append(errs, results[i].Err)
		}
	}
	return results, errors.Join(errs...)
}
