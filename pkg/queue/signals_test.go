package queue_test

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/eventmsg"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/queue"
)

func TestSignalsStreamDeclared(t *testing.T) {
	t.Parallel()
	n := testenv.NewNATS(t)
	s, err := n.JS.Stream(context.Background(), queue.SignalsStream)
	require.NoError(t, err)
	info, err := s.Info(context.Background())
	require.NoError(t, err)
	require.Equal(t, jetstream.FileStorage, info.Config.Storage)
	require.Equal(t, jetstream.LimitsPolicy, info.Config.Retention)
	require.ElementsMatch(t, []string{events.CatalogSubjects, events.ShelfSubjects, events.AttributeSubjects}, info.Config.Subjects)

	ts, err := n.JS.Stream(context.Background(), queue.TasksStream)
	require.NoError(t, err)
	tinfo, err := ts.Info(context.Background())
	require.NoError(t, err)
	require.Equal(t, []string{events.TasksSubjects}, tinfo.Config.Subjects)
	require.Equal(t, int64(1), tinfo.Config.MaxMsgsPerSubject, "only the newest task per user or session is kept")
	require.Equal(t, queue.DefaultStreamConfig.TasksMaxAge, tinfo.Config.MaxAge)
	require.NoError(t, queue.EnsureStreams(context.Background(), n.JS, queue.DefaultStreamConfig), "idempotent")
}

// A server whose signal stream still carries the task subjects (as before the
// task stream existed) is moved over by EnsureStreams.
func TestEnsureStreamsMovesTasksOffSignals(t *testing.T) {
	t.Parallel()
	n := testenv.NewNATS(t)
	ctx := context.Background()
	require.NoError(t, n.JS.DeleteStream(ctx, queue.TasksStream))
	old := queue.SignalsStreamConfig(queue.DefaultStreamConfig)
	old.Subjects = append(old.Subjects, events.TasksSubjects)
	_, err := n.JS.UpdateStream(ctx, old)
	require.NoError(t, err)
	require.NoError(t, queue.EnsureStreams(ctx, n.JS, queue.DefaultStreamConfig))
	_, err = n.JS.Stream(ctx, queue.TasksStream)
	require.NoError(t, err)
}

func TestPublishSignals(t *testing.T) {
	t.Parallel()
	n := testenv.NewNATS(t)
	ctx := context.Background()
	p := queue.NewPublisher(n.JS)
	at := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)
	items := []events.CatalogItem{{ID: "c1", TenantID: "t", OccurredAt: at, Ref: "/b/1", Type: "book", Title: "Dune"}}
	res, err := p.PublishCatalogItems(ctx, items)
	require.NoError(t, err)
	require.False(t, res[0].Duplicate)
	res, err = p.PublishCatalogItems(ctx, items)
	require.NoError(t, err)
	require.True(t, res[0].Duplicate, "Nats-Msg-Id is tenant:id")
	res, err = p.PublishShelfEntries(ctx, []events.ShelfEntry{{ID: "s1", TenantID: "t", UserID: "u", OccurredAt: at, Ref: "/b/1", Status: events.ShelfRead}})
	require.NoError(t, err)
	require.False(t, res[0].Duplicate)

	s, err := n.JS.Stream(ctx, queue.SignalsStream)
	require.NoError(t, err)
	m, err := s.GetLastMsgForSubject(ctx, events.ShelfSubject("t", "u"))
	require.NoError(t, err)
	require.Equal(t, "t:s1", m.Header.Get(jetstream.MsgIDHeader))
	e, err := events.DecodeShelfEntry(m.Data, events.ValidateOptions{Limits: events.DefaultLimits})
	require.NoError(t, err)
	require.Equal(t, events.ShelfRead, e.Status)
}

func TestRefresherDebounces(t *testing.T) {
	t.Parallel()
	n := testenv.NewNATS(t)
	ctx := context.Background()
	// An hour's bucket: the publishes below cannot straddle two.
	r := queue.NewRefresher(n.JS, time.Hour)
	at := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)
	var tasks []events.ProfileTask
	for i := range 20 {
		tasks = append(tasks, events.ProfileTask{TenantID: "t", UserID: "u1", RequestedAt: at.Add(time.Duration(i) * time.Second)})
	}
	tasks = append(tasks, events.ProfileTask{TenantID: "t", UserID: "u2", RequestedAt: at}, events.ProfileTask{TenantID: "other", UserID: "u1", RequestedAt: at})
	res, err := r.Publish(ctx, tasks)
	require.NoError(t, err)
	dups := 0
	for _, x := range res {
		if x.Duplicate {
			dups++
		}
	}
	require.Equal(t, 19, dups, "one stored task for u1; u2 and the other tenant's u1 are their own")

	s, err := n.JS.Stream(ctx, queue.TasksStream)
	require.NoError(t, err)
	info, err := s.Info(ctx, jetstream.WithSubjectFilter(events.ProfileTaskSubjects))
	require.NoError(t, err)
	require.EqualValues(t, 3, info.State.Msgs)

	require.NoError(t, queue.PublishProfileRefresh(ctx, n.JS, "t", "u3", at))
	m, err := s.GetLastMsgForSubject(ctx, events.ProfileTaskSubject("t", "u3"))
	require.NoError(t, err)
	task, err := events.DecodeProfileTask(m.Data, events.ValidateOptions{Limits: events.DefaultLimits})
	require.NoError(t, err)
	require.Equal(t, at, task.RequestedAt.UTC())
	until, ok := eventmsg.DebounceUntil(m.Header)
	require.True(t, ok)
	require.WithinDuration(t, m.Time, until, queue.DefaultRefreshBucket+time.Second, "the hold ends with the bucket")

	_, err = r.Publish(ctx, []events.ProfileTask{{TenantID: "t", RequestedAt: at}})
	require.Error(t, err, "a task without a user is refused before publishing")
}
