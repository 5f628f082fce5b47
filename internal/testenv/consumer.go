package testenv

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// WaitSettled waits until a durable consumer has settled every message of its
// stream that it filters: nothing left to deliver, nothing awaiting an ack.
// Retries count as unsettled, so it waits for them too.
func (n *NATS) WaitSettled(t testing.TB, stream, consumer string) {
	t.Helper()
	ctx := context.Background()
	require.Eventually(t, func() bool {
		c, err := n.JS.Consumer(ctx, stream, consumer)
		if err != nil {
			return false
		}
		info, err := c.Info(ctx)
		return err == nil && info.NumPending == 0 && info.NumAckPending == 0 && info.NumRedelivered == 0
	}, 20*time.Second, 10*time.Millisecond, "consumer %s on %s did not settle", consumer, stream)
}
