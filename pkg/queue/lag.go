package queue

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/nats-io/nats.go/jetstream"
)

// ConsumerLag is one durable consumer's backlog as the server counts it.
type ConsumerLag struct {
	Stream, Name        string
	Pending, AckPending uint64
	// Acked is the consumer's acknowledgement floor: how many deliveries
	// it has finished, in order.
	Acked uint64
}

// Idle reports whether the consumer has nothing to deliver and nothing
// awaiting an ack.
func (l ConsumerLag) Idle() bool { return l.Pending == 0 && l.AckPending == 0 }

// ConsumerLags lists every durable consumer of every stream with its backlog,
// ordered by stream and name. No worker is named: one added later (its own
// durable consumer) is listed without a change. Ephemeral consumers (replays,
// one-off readers) are left out. For tools that wait for the pipeline to
// catch up (the context evaluation, the chaos runs, the benchmarks).
func ConsumerLags(ctx context.Context, js jetstream.JetStream) ([]ConsumerLag, error) {
	var out []ConsumerLag
	streams := js.ListStreams(ctx)
	var names []string
	for si := range streams.Info() {
		names = append(names, si.Config.Name)
	}
	if err := streams.Err(); err != nil {
		return nil, fmt.Errorf("list streams: %w", err)
	}
	for _, name := range names {
		st, err := js.Stream(ctx, name)
		if err != nil {
			return nil, fmt.Errorf("stream %s: %w", name, err)
		}
		cons := st.ListConsumers(ctx)
		for ci := range cons.Info() {
			if ci.Config.Durable == "" {
				continue
			}
			out = append(out, ConsumerLag{Stream: name, Name: ci.Name, Pending: ci.NumPending, AckPending: uint64(ci.NumAckPending),
				Acked: ci.AckFloor.Consumer})
		}
		if err := cons.Err(); err != nil {
			return nil, fmt.Errorf("list consumers of %s: %w", name, err)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Stream != out[j].Stream {
			return out[i].Stream < out[j].Stream
		}
		return out[i].Name < out[j].Name
	})
	return out, nil
}

// FormatLags writes lags on one line for logs and reports:
// "RECALL_TURNS/ingest=0+3 ..." (pending + awaiting an ack).
func FormatLags(lags []ConsumerLag) string {
	parts := make([]string, len(lags))
	for i, l := range lags {
		parts[i] = fmt.Sprintf("%s/%s=%d+%d", l.Stream, l.Name, l.Pending, l.AckPending)
	}
	return strings.Join(parts, " ")
}
