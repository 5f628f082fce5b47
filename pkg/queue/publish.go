package queue

import (
	"context"
	"fmt"

	"github.com/recallhq/recall/pkg/events"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/recallhq/recall/pkg/eventmsg"
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
	ID        string
	Sequence  uint64
	Duplicate bool
	Err       error
}

// PublishTurns publishes every turn concurrently (async publish) and waits for all
// acknowledgements. Turns must already be validated. The result has one entry per
// turn, in order; the error is non-nil when any turn was not stored, and retrying
// the whole call is safe because of the dedupe id.
func (p *Publisher) PublishTurns(ctx context.Context, turns []events.Turn) ([]PublishResult, error) {
	msgs := make([]*nats.Msg, len(turns))
	ids := make([]string, len(turns))
	var buildErrs []error
	for i := range turns {
		ids[i] = turns[i].ID
		m, err := eventmsg.Turn(&turns[i])
		if err != nil {
			if buildErrs == nil {
				buildErrs = make([]error, len(turns))
			}
			buildErrs[i] = err
			continue
		}
		msgs[i] = m
	}
	return publishAll(ctx, p.js, TurnsStream, ids, msgs, buildErrs)
}

// PublishSummarizeRequests validates and publishes requests, and waits for the
// server's acks. A result marked Duplicate was dropped as a repeat of a request
// already stored (that is the dedupe, not an error). Retrying is safe.
func (p *Publisher) PublishSummarizeRequests(ctx context.Context, reqs []events.SummarizeRequest) ([]PublishResult, error) {
	msgs := make([]*nats.Msg, len(reqs))
	ids := make([]string, len(reqs))
	for i := range reqs {
		if err := events.ValidateSummarizeRequest(&reqs[i], events.ValidateOptions{}); err != nil {
			return nil, fmt.Errorf("summarize request for session %q: %w", reqs[i].SessionID, err)
		}
		m, err := eventmsg.Summarize(&reqs[i])
		if err != nil {
			return nil, err
		}
		msgs[i], ids[i] = m, reqs[i].TenantID+"/"+reqs[i].SessionID
	}
	return publishAll(ctx, p.js, TasksStream, ids, msgs, nil)
}
