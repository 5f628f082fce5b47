package events_test

import (
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/eventmsg"
	"github.com/recallhq/recall/pkg/events"
)

const validSummarize = `{"v":1,"tenant_id":"t1","user_id":"u1","session_id":"s1","reason":"threshold","from_count":10,"through_count":21,"requested_at":"2026-11-22T08:00:00Z"}`

func TestDecodeSummarizeRequest(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		raw    string
		fields []string
	}{
		{"valid", validSummarize, nil},
		{"missing everything", `{}`, []string{"tenant_id", "user_id", "session_id", "reason", "through_count", "requested_at"}},
		{"unknown reason", strings.Replace(validSummarize, `"threshold"`, `"whim"`, 1), []string{"reason"}},
		{"empty range", strings.Replace(validSummarize, `"through_count":21`, `"through_count":10`, 1), []string{"through_count"}},
		{"negative start", strings.Replace(validSummarize, `"from_count":10`, `"from_count":-1`, 1), []string{"from_count"}},
		{"malformed", `{"tenant_id":`, []string{"(event)"}},
	}
	for _, c := range cases {
		r, err := events.DecodeSummarizeRequest([]byte(c.raw), events.ValidateOptions{Limits: events.DefaultLimits})
		if c.fields == nil {
			require.NoError(t, err, c.name)
			require.Equal(t, events.SummarizeRequest{V: 1, TenantID: "t1", UserID: "u1", SessionID: "s1", Reason: "threshold",
				FromCount: 10, ThroughCount: 21, RequestedAt: time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)}, r)
			continue
		}
		var ve *events.ValidationError
		require.ErrorAs(t, err, &ve, c.name)
		var got []string
		for _, f := range ve.Fields {
			got = append(got, f.Field)
		}
		require.Equal(t, c.fields, got, c.name)
	}
}

func TestSummarizeSubjectAndID(t *testing.T) {
	t.Parallel()
	subj := events.SummarizeTaskSubject("t.1", "用户", "s 1")
	require.Equal(t, "recall.tasks.summarize.~dC4x.~55So5oi3.~cyAx", subj)
	ids, err := events.ParseSignalSubject(subj)
	require.NoError(t, err)
	require.Equal(t, events.SubjectIDs{Kind: events.KindSummarizeTask, TenantID: "t.1", UserID: "用户", SessionID: "s 1"}, ids)
	_, err = events.ParseSignalSubject("recall.tasks.summarize.t.u")
	require.Error(t, err)

	r := events.SummarizeRequest{TenantID: "t.1", UserID: "用户", SessionID: "s 1", Reason: "idle", FromCount: 0, ThroughCount: 3, RequestedAt: time.Now()}
	require.NoError(t, events.CheckSummarizeSubject(subj, &r))
	require.Error(t, events.CheckSummarizeSubject(events.SummarizeTaskSubject("t.2", "用户", "s 1"), &r))
	require.Error(t, events.CheckSummarizeSubject(events.ProfileTaskSubject("t.1", "用户"), &r))

	// The id names the session and the range, not the trigger; ids with ':'
	// cannot collide.
	require.Equal(t, events.SummarizeMsgID("a", "s", 0, 3), "a:summarize:s:0-3")
	require.NotEqual(t, events.SummarizeMsgID("a:b", "c", 0, 3), events.SummarizeMsgID("a", "b:c", 0, 3))
	m, err := eventmsg.Summarize(&r)
	require.NoError(t, err)
	require.Equal(t, events.SummarizeMsgID("t.1", "s 1", 0, 3), m.Header.Get(jetstream.MsgIDHeader))
}
