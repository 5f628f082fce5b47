package testenv

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"
)

// WaitSettled waits until a durable consumer has settled every message of its
// stream that it filters: it has been handed the newest such message, and
// nothing awaits an ack or a retry. It does not trust the consumer's pending
// count alone, which the server updates a moment after a publish.
func (n *NATS) WaitSettled(t testing.TB, stream, consumer string) {
	t.Helper()
	ctx := context.Background()
	require.Eventually(t, func() bool {
		s, err := n.JS.Stream(ctx, stream)
		if err != nil {
			return false
		}
		c, err := s.Consumer(ctx, consumer)
		if err != nil {
			return false
		}
		info, err := c.Info(ctx)
		if err != nil || info.NumPending != 0 || info.NumAckPending != 0 || info.NumRedelivered != 0 {
			return false
		}
		filters := info.Config.FilterSubjects
		if info.Config.FilterSubject != "" {
			filters = append(filters, info.Config.FilterSubject)
		}
		if len(filters) == 0 {
			filters = []string{">"}
		}
		for _, f := range filters {
			last, err := s.GetLastMsgForSubject(ctx, f)
			if errors.Is(err, jetstream.ErrMsgNotFound) {
				continue
			}
			if err != nil || info.Delivered.Stream < last.Sequence {
				return false
			}
		}
		return true
	}, time.Minute, 10*time.Millisecond, "consumer %s on %s did not settle", consumer, stream)
}
