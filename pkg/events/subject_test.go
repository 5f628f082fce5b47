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

func TestMsgIDKeepsTenantsApart(t *testing.T) {
	t.Parallel()
	require.Equal(t, "acme:turn-1", events.MsgID("acme", "turn-1"), "plain tenants read as they are")
	require.NotEqual(t, events.MsgID("a:b", "c"), events.MsgID("a", "b:c"))
	require.NotContains(t, strings.SplitN(events.MsgID("租户:1", "x"), ":", 2)[0], "租")
}
