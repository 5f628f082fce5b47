package api_test

import (
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/api"
	"github.com/recallhq/recall/pkg/contract"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/habits"
	"github.com/recallhq/recall/pkg/store"
	"github.com/recallhq/recall/pkg/workers/decayer"
	"github.com/recallhq/recall/pkg/workers/signals"
)

// Habits derived from a user's messages show in the attributes route, with
// their source and history, and in every context in the prompt's language,
// like any other value when the context is configured to show them
// (CONTEXT_ATTRIBUTES_DERIVED): after the user set their time zone, the hours are
// theirs.
func TestAttributesDerivedFromUsage(t *testing.T) {
	t.Parallel()
	b := setup(t, withConfig(func(c *api.Config) { c.ContextAttributesDerived = true }))
	testenv.StartWorker(t, b.nats, b.db, signals.Def, nil)
	path := "/v1/users/u1/attributes"

	// Two weeks of evenings in Shanghai (12:00–15:00 UTC), a third in Chinese.
	var turns []store.StoredTurn
	start := testNow.AddDate(0, 0, -15).Truncate(24 * time.Hour)
	for d := range 14 {
		for i, h := range []int{12, 13, 14} {
			text := "Could you recommend a few novels about the history of the sea?"
			if i == 1 {
				text = "推荐几本科幻小说"
			}
			turns = append(turns, store.StoredTurn{Turn: events.Turn{V: events.Version, ID: fmt.Sprintf("m-%02d-%d", d, h), TenantID: "t1",
				UserID: "u1", SessionID: fmt.Sprintf("s%d", d/7), SiteID: "shop", AgentID: "librarian",
				OccurredAt: start.AddDate(0, 0, d).Add(time.Duration(h)*time.Hour + 5*time.Minute), Role: events.RoleUser, Content: text}})
		}
	}
	_, err := b.db.Store.InsertTurns(t.Context(), turns)
	require.NoError(t, err)
	res := b.do(t, http.MethodPut, path+"/timezone", "t1", []byte(`{"value": "Asia/Shanghai", "id": "tz-1"}`))
	require.Equal(t, http.StatusAccepted, res.Status, string(res.Body))
	current := func() map[string][]contract.AttributeValue {
		out := map[string][]contract.AttributeValue{}
		for _, v := range decode[contract.Attributes](t, b.get(t, "t1", path+"?history=true")).Current {
			out[v.Key] = append(out[v.Key], v)
		}
		return out
	}
	require.Eventually(t, func() bool { return len(current()["timezone"]) == 1 }, 10*time.Second, 20*time.Millisecond)

	d, err := decayer.New(decayer.Options{Config: decayer.Config{Habits: habits.Config{Derive: true}}, Store: b.db.Store})
	require.NoError(t, err)
	rep, err := d.RunOnce(t.Context())
	require.NoError(t, err)
	require.EqualValues(t, 1, rep.Count(decayer.StepHabits, decayer.OutcomeUsersDerived))

	got := decode[contract.Attributes](t, b.get(t, "t1", path+"?history=true"))
	byKey := map[string][]string{}
	for _, v := range got.Current {
		byKey[v.Key] = append(byKey[v.Key], v.Value+" ("+v.Source+")")
		if v.Source == "derived" {
			require.Equal(t, "about", v.Group)
			require.Empty(t, v.SessionID)
			require.Positive(t, v.Confidence)
			want := turns[len(turns)-1].Turn.OccurredAt // as of the newest message
			if v.Key == "active_hours" {
				want = testNow // or of the newer word on the time zone
			}
			require.Equal(t, want, v.ValidFrom, v.Key)
		}
	}
	require.Equal(t, map[string][]string{
		"timezone":       {"Asia/Shanghai (explicit)"},
		"active_hours":   {"20:00–23:00 (Asia/Shanghai) (derived)"},
		"message_length": {"medium (median 60 characters) (derived)"},
		"channels":       {"shop/librarian (derived)"},
		"languages":      {"Chinese (derived)", "English (derived)"},
	}, byKey)
	require.True(t, slices.ContainsFunc(got.History, func(v contract.AttributeValue) bool {
		return v.Key == "languages" && v.Status == "current" && v.EventID == "derived:languages:"+turns[len(turns)-1].Turn.ID
	}), "the history has them, with their event")

	context := func(lang string) contract.Context {
		return decode[contract.Context](t, b.get(t, "t1", "/v1/context?user_id=u1&session_id=fresh&lang="+lang))
	}
	en := context("en")
	require.Contains(t, en.Prompt, "About the user: time zone: Asia/Shanghai; speaks: Chinese, English; usually active: 20:00–23:00 (Asia/Shanghai); "+
		"message length: medium (median 60 characters); talks to: shop/librarian")
	require.Empty(t, en.Attributes.Cuts)
	zh := context("zh")
	require.Contains(t, zh.Prompt, "关于用户：时区：Asia/Shanghai；会说：Chinese、English；常在线时段：20:00–23:00 (Asia/Shanghai)；"+
		"消息长度：medium (median 60 characters)；常用渠道：shop/librarian")
	require.LessOrEqual(t, zh.Budget.Parts.Attributes, 800, "within CONTEXT_ATTRIBUTES_CHARS")
}
