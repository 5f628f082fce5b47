package queue

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
)

// Floor is how far one durable consumer has got through its stream, as the
// server counts it: what a front door compares a message's stream sequence
// with to tell whether that consumer's worker has finished with it.
type Floor struct {
	// AckFloor is the stream sequence below which (and at which) every
	// message the consumer was given has been acknowledged or terminated.
	AckFloor uint64
	// Delivered is the stream sequence of the newest message handed to it.
	Delivered uint64
	// AckPending counts the messages handed out and not yet settled (those
	// waiting for a retry included).
	AckPending int
}

// Done reports whether the consumer has finished with the message at
// stream sequence seq: acknowledged it after its effect was committed, or
// terminated it. The runner terminates what it dead-letters, so a message a
// worker gave up on is done too; DeadLettersOf tells those apart. Past the
// ack floor, a consumer with nothing awaiting an ack has finished with all
// it was handed, which the floor alone reports a moment later.
func (f Floor) Done(seq uint64) bool {
	return seq > 0 && (f.AckFloor >= seq || (f.AckPending == 0 && f.Delivered >= seq))
}

// Floors reads the floor of every durable consumer of a stream, by name, in
// one listing of its consumers. Ephemeral consumers (replays, one-off
// readers) are left out.
func Floors(ctx context.Context, js jetstream.JetStream, stream string) (map[string]Floor, error) {
	st, err := js.Stream(ctx, stream)
	if err != nil {
		return nil, fmt.Errorf("stream %s: %w", stream, err)
	}
	out := map[string]Floor{}
	cons := st.ListConsumers(ctx)
	for ci := range cons.Info() {
		if ci.Config.Durable == "" {
			continue
		}
		out[ci.Name] = Floor{AckFloor: ci.AckFloor.Stream, Delivered: ci.Delivered.Stream, AckPending: ci.NumAckPending}
	}
	if err := cons.Err(); err != nil {
		return nil, fmt.Errorf("list consumers of %s: %w", stream, err)
	}
	return out, nil
}

// maxDeadLettersPerSubject bounds how many dead letters of one subject and
// consumer SubjectDeadLetters reads: of a session whose turns a worker
// keeps giving up on, the oldest that many are reported.
const maxDeadLettersPerSubject = 200

// DeadLettersOf finds the dead letters of the message at sequence seq of
// stream, published on subject, among those of each of consumers: by
// consumer, the dead letter's sequence in the dead-letter stream.
func DeadLettersOf(ctx context.Context, js jetstream.JetStream, stream string, seq uint64, subject string, consumers []string) (map[string]uint64, error) {
	out := map[string]uint64{}
	err := SubjectDeadLetters(ctx, js, stream, subject, consumers, func(consumer string, streamSeq, dlqSeq uint64) {
		if streamSeq == seq {
			out[consumer] = dlqSeq
		}
	})
	return out, err
}

// SubjectDeadLetters calls fn for each dead letter that any of consumers
// left of the messages of stream published on subject (one session's
// turns): the consumer, the original's stream sequence and the dead
// letter's. Each consumer's dead letters of the subject are read where
// they are kept (DLQSubject: one subject per consumer and original
// subject), so a subject with none costs one request per consumer.
func SubjectDeadLetters(ctx context.Context, js jetstream.JetStream, stream, subject string, consumers []string, fn func(consumer string, streamSeq, dlqSeq uint64)) error {
	if len(consumers) == 0 {
		return nil
	}
	s, err := js.Stream(ctx, DLQStream)
	if err != nil {
		return fmt.Errorf("dead-letter stream: %w", err)
	}
	for _, c := range consumers {
		filter := DLQSubject(c, subject)
		from := uint64(1)
		for range maxDeadLettersPerSubject {
			raw, err := s.GetMsg(ctx, from, jetstream.WithGetMsgSubject(filter))
			if errors.Is(err, jetstream.ErrMsgNotFound) {
				break
			}
			if err != nil {
				return fmt.Errorf("dead letters of %s: %w", filter, err)
			}
			if e := parseDeadLetter(raw); e.Stream == stream {
				fn(c, e.StreamSeq, e.Seq)
			}
			from = raw.Sequence + 1
		}
	}
	return nil
}
