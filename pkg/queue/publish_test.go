package queue_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/queue"
)

func TestPublishSummarizeRequests(t *testing.T) {
	t.Parallel()
	n := testenv.NewNATS(t)
	p := queue.NewPublisher(n.JS)
	r := events.SummarizeRequest{TenantID: "t", UserID: "u", SessionID: "s", Reason: "request", FromCount: 0, ThroughCount: 3, RequestedAt: time.Now()}
	idle := r
	idle.Reason = "idle"
	res, err := p.PublishSummarizeRequests(context.Background(), []events.SummarizeRequest{r, idle})
	require.NoError(t, err)
	require.False(t, res[0].Duplicate)
	require.True(t, res[1].Duplicate, "the same range asked by another trigger is one request")
	bad := r
	bad.ThroughCount = 0
	_, err = p.PublishSummarizeRequests(context.Background(), []events.SummarizeRequest{bad})
	require.Error(t, err)
}
