package events_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/events"
)

func TestTokenRoundTrip(t *testing.T) {
	t.Parallel()
	for _, id := range []string{
		"abc", "A-b_9", "with.dot", "with space", "*", ">", "~tilde", "用户一", "a\tb",
		strings.Repeat("é", 64), strings.Repeat("z", 128),
	} {
		tok := events.EncodeToken(id)
		require.NotContains(t, tok, ".", id)
		require.NotContains(t, tok, " ", id)
		require.NotContains(t, tok, "*", id)
		require.NotContains(t, tok, ">", id)
		back, err := events.DecodeToken(tok)
		require.NoError(t, err)
		require.Equal(t, id, back)
	}
	require.Equal(t, "plain-id_1", events.EncodeToken("plain-id_1"), "plain ids stay readable")
	require.NotEqual(t, events.EncodeToken("~YQ"), "~YQ", "an id that looks encoded is itself encoded")
	_, err := events.DecodeToken("~!!")
	require.Error(t, err)
	_, err = events.DecodeToken("")
	require.Error(t, err)
}

func FuzzTokenRoundTrip(f *testing.F) {
	f.Add("a.b")
	f.Add("用户")
	f.Fuzz(func(t *testing.T, id string) {
		if id == "" {
			return
		}
		back, err := events.DecodeToken(events.EncodeToken(id))
		require.NoError(t, err)
		require.Equal(t, id, back)
	})
}

func TestParseSubject(t *testing.T) {
	t.Parallel()
	subj := events.TurnSubject("t.1", "用户", "s 1")
	ids, err := events.ParseSubject(subj)
	require.NoError(t, err)
	require.Equal(t, events.SubjectIDs{Kind: "turns", TenantID: "t.1", UserID: "用户", SessionID: "s 1"}, ids)
	require.True(t, strings.HasPrefix(subj, strings.TrimSuffix(events.UserTurnsFilter("t.1", "用户"), ">")))

	for _, bad := range []string{"recall.turns.a.b", "other.turns.a.b.c", "recall.turns.a.b.c.d", "recall.turns.a.~%%.c"} {
		_, err := events.ParseSubject(bad)
		require.Error(t, err, bad)
	}
}

func TestCheckSubject(t *testing.T) {
	t.Parallel()
	turn := &events.Turn{TenantID: "t1", UserID: "u1", SessionID: "s1"}
	require.NoError(t, events.CheckSubject(events.TurnSubject("t1", "u1", "s1"), turn))
	err := events.CheckSubject(events.TurnSubject("t2", "u1", "s1"), turn)
	require.Equal(t, []string{"tenant_id"}, fields(err))
	err = events.CheckSubject("recall.turns.x", turn)
	require.Equal(t, []string{"(subject)"}, fields(err))
}

func TestDLQSubject(t *testing.T) {
	t.Parallel()
	require.Equal(t, "recall.dlq.ingest.turns.t1.u1.s1", events.DLQSubject("ingest", "recall.turns.t1.u1.s1"))
	require.Equal(t, "recall.dlq.ingest.other."+events.EncodeToken("foo.bar"), events.DLQSubject("ingest", "foo.bar"))
}

func TestRetryDelayGrowsAndCaps(t *testing.T) {
	t.Parallel()
	prev := 0.0
	for n := uint64(1); n <= 4; n++ {
		d := events.RetryDelay(n, 100_000_000, 10_000_000_000).Seconds()
		// ±20% jitter around 0.1·2^(n-1).
		want := 0.1 * float64(uint(1)<<(n-1))
		require.InDelta(t, want, d, want*0.21, "delivery %d", n)
		require.Greater(t, d, prev*1.2)
		prev = d
	}
	require.LessOrEqual(t, events.RetryDelay(30, 100_000_000, 1_000_000_000).Seconds(), 1.2)
}

func TestMsgIDKeepsTenantsApart(t *testing.T) {
	t.Parallel()
	require.Equal(t, "acme:turn-1", events.MsgID("acme", "turn-1"), "plain tenants read as they are")
	require.NotEqual(t, events.MsgID("a:b", "c"), events.MsgID("a", "b:c"))
	require.NotContains(t, strings.SplitN(events.MsgID("租户:1", "x"), ":", 2)[0], "租")
}
