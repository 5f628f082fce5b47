package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/api"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/store"
)

const (
	enFraming = "not as a source of facts"
	zhFraming = "不作为事实来源"
)

func storedTurn(id, user, session, role, content string, age time.Duration) events.Turn {
	return events.Turn{
		ID: id, TenantID: "t1", UserID: user, SessionID: session,
		OccurredAt: testNow.Add(-age), Role: role, Content: content,
	}
}

type cut struct {
	Reason string
	Count  int64
}

func cutsOf(c contextBody) []cut {
	var out []cut
	for _, x := range c.Window.Cuts {
		out = append(out, cut{x.Reason, x.Count})
	}
	return out
}

func TestGetContext(t *testing.T) {
	t.Parallel()
	b := setup(t)
	// s1: 15 turns of 10 characters, one an hour, the newest now: c00 .. c14.
	var s1 []events.Turn
	for i := range 15 {
		role := []string{"user", "assistant"}[i%2]
		s1 = append(s1, storedTurn(fmt.Sprintf("c%02d", i), "u1", "s1", role, fmt.Sprintf("message %02d", i), time.Duration(14-i)*time.Hour))
	}
	b.insert(t, s1...)
	b.insert(t,
		storedTurn("sys1", "u1", "s-sys", "system", "You are a librarian.", 3*time.Hour),
		storedTurn("sys2", "u1", "s-sys", "user", "hi", 2*time.Hour),
		storedTurn("sys3", "u1", "s-sys", "assistant", "hello", time.Hour),

		storedTurn("old1", "u1", "s-old", "user", "older", 30*time.Hour),
		storedTurn("old2", "u1", "s-old", "user", "old", 25*time.Hour),
		storedTurn("old3", "u1", "s-old", "user", "recent", time.Hour),

		storedTurn("zh1", "u1", "s-zh", "user", "我想看点科幻小说，最好是经典的", 2*time.Minute),
		storedTurn("zh2", "u1", "s-zh", "assistant", "推荐《三体》和《沙丘》。", time.Minute),

		storedTurn("long1", "u1", "s-long", "assistant", strings.Repeat("长", 50), time.Minute),

		storedTurn("u2a", "u2", "s-u2", "user", "someone else's", time.Minute),
	)
	last := func(n int) []string {
		var out []string
		for i := 15 - n; i < 15; i++ {
			out = append(out, fmt.Sprintf("c%02d", i))
		}
		return out
	}

	cases := []struct {
		name     string
		path     string
		ids      []string
		cuts     []cut
		lang     string
		chars    int
		maxMsgs  int
		maxChars int
		ttl      string
		prompt   []string // substrings the prompt must contain
	}{
		{
			name: "defaults: 10 messages, 4000 characters, 24 hours", path: contextPath("u1", "s1"),
			ids: last(10), cuts: []cut{{"count", 5}}, lang: "en", chars: 100, maxMsgs: 10, maxChars: 4000, ttl: "24h0m0s",
			prompt: []string{enFraming, "Assistant: message 13\nUser: message 14"},
		},
		{
			name: "max_messages", path: contextPath("u1", "s1", "max_messages", "3"),
			ids: last(3), cuts: []cut{{"count", 12}}, lang: "en", chars: 30, maxMsgs: 3, maxChars: 4000, ttl: "24h0m0s",
		},
		{
			name: "max_chars keeps the newest whole messages that fit", path: contextPath("u1", "s1", "max_chars", "25"),
			ids: last(2), cuts: []cut{{"count", 5}, {"chars", 8}}, lang: "en", chars: 20, maxMsgs: 10, maxChars: 25, ttl: "24h0m0s",
		},
		{
			name: "ttl", path: contextPath("u1", "s1", "ttl", "2h30m"),
			ids: last(3), cuts: []cut{{"count", 5}, {"ttl", 7}}, lang: "en", chars: 30, maxMsgs: 10, maxChars: 4000, ttl: "2h30m0s",
		},
		{
			name: "ttl boundary is inclusive", path: contextPath("u1", "s1", "ttl", "2h"),
			ids: last(3), cuts: []cut{{"count", 5}, {"ttl", 7}}, lang: "en", chars: 30, maxMsgs: 10, maxChars: 4000, ttl: "2h0m0s",
		},
		{
			name: "every override at its maximum", path: contextPath("u1", "s1", "max_messages", "200", "max_chars", "200000", "ttl", "8760h"),
			ids: last(15), lang: "en", chars: 150, maxMsgs: 200, maxChars: 200000, ttl: "8760h0m0s",
		},
		{
			name: "lang=zh renders the zh framing for English content", path: contextPath("u1", "s1", "lang", "zh", "max_messages", "2"),
			ids: last(2), cuts: []cut{{"count", 13}}, lang: "zh", chars: 20, maxMsgs: 2, maxChars: 4000, ttl: "24h0m0s",
			prompt: []string{zhFraming, "助手：message 13\n用户：message 14"},
		},
		{
			name: "auto picks zh for Chinese content", path: contextPath("u1", "s-zh"),
			ids: []string{"zh1", "zh2"}, lang: "zh", chars: 27, maxMsgs: 10, maxChars: 4000, ttl: "24h0m0s",
			prompt: []string{zhFraming, "用户：我想看点科幻小说，最好是经典的\n助手：推荐《三体》和《沙丘》。"},
		},
		{
			name: "lang=en wins over Chinese content", path: contextPath("u1", "s-zh", "lang", "en"),
			ids: []string{"zh1", "zh2"}, lang: "en", chars: 27, maxMsgs: 10, maxChars: 4000, ttl: "24h0m0s",
			prompt: []string{enFraming, "User: 我想看点科幻小说"},
		},
		{
			name: "system messages are not replayed", path: contextPath("u1", "s-sys"),
			ids: []string{"sys2", "sys3"}, cuts: []cut{{"role", 1}}, lang: "en", chars: 7, maxMsgs: 10, maxChars: 4000, ttl: "24h0m0s",
			prompt: []string{"User: hi\nAssistant: hello"},
		},
		{
			name: "the default TTL drops day-old messages", path: contextPath("u1", "s-old"),
			ids: []string{"old3"}, cuts: []cut{{"ttl", 2}}, lang: "en", chars: 6, maxMsgs: 10, maxChars: 4000, ttl: "24h0m0s",
		},
		{
			name: "a newest message over the budget is truncated", path: contextPath("u1", "s-long", "max_chars", "10"),
			ids: []string{"long1"}, lang: "zh", chars: 10, maxMsgs: 10, maxChars: 10, ttl: "24h0m0s",
			prompt: []string{"助手：" + strings.Repeat("长", 9) + "…"},
		},
		{
			name: "unknown session: empty window, empty prompt", path: contextPath("u1", "never"),
			ids: []string{}, lang: "en", maxMsgs: 10, maxChars: 4000, ttl: "24h0m0s",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := b.get(t, "t1", tc.path)
			require.Equal(t, http.StatusOK, res.Status, string(res.Body))
			require.NotContains(t, string(res.Body), `"messages":null`, "an empty window is an empty array")
			c := decode[contextBody](t, res)
			require.Equal(t, "u1", c.UserID)
			require.Equal(t, tc.ids, ids(c.Window.Messages))
			require.Equal(t, tc.cuts, cutsOf(c))
			require.Equal(t, tc.lang, c.Lang)
			require.Equal(t, tc.chars, c.Window.Chars)
			require.Equal(t, tc.maxMsgs, c.Limits.MaxMessages)
			require.Equal(t, tc.maxChars, c.Limits.MaxChars)
			require.Equal(t, tc.ttl, c.TTL)
			if len(tc.ids) == 0 {
				require.Empty(t, c.Prompt)
				return
			}
			lines := strings.Split(c.Prompt, "\n")
			require.Len(t, lines, 3+len(tc.ids), "framing, blank line, heading, one line per message:\n%s", c.Prompt)
			for _, m := range c.Window.Messages {
				require.Contains(t, c.Prompt, strings.Join(strings.Fields(m.Content), " "))
			}
			for _, p := range tc.prompt {
				require.Contains(t, c.Prompt, p)
			}
			framing := map[string]string{"en": enFraming, "zh": zhFraming}[tc.lang]
			require.Contains(t, lines[0], framing)
		})
	}

	t.Run("the newest message may be truncated", func(t *testing.T) {
		t.Parallel()
		res := b.get(t, "t1", contextPath("u1", "s-long", "max_chars", "10"))
		require.Equal(t, http.StatusOK, res.Status, string(res.Body))
		c := decode[contextBody](t, res)
		require.True(t, c.Window.Truncated)
		require.Equal(t, strings.Repeat("长", 9)+"…", c.Window.Messages[0].Content)
	})

	t.Run("a session of another user is a conflict", func(t *testing.T) {
		t.Parallel()
		requireCode(t, b.get(t, "t1", contextPath("u1", "s-u2")), http.StatusConflict, "session_owned")
		requireCode(t, b.get(t, "t1", contextPath("u2", "s1")), http.StatusConflict, "session_owned")
		res := b.get(t, "t1", contextPath("u2", "s-u2"))
		require.Equal(t, http.StatusOK, res.Status, string(res.Body))
		require.Equal(t, []string{"u2a"}, ids(decode[contextBody](t, res).Window.Messages))
	})
}

func TestGetContextInvalid(t *testing.T) {
	t.Parallel()
	b := setup(t)
	long := strings.Repeat("u", 129)
	cases := []struct {
		name   string
		path   string
		fields []string
	}{
		{"missing user_id", contextPath("", "s1"), []string{"user_id"}},
		{"missing session_id", contextPath("u1", ""), []string{"session_id"}},
		{"missing both", "/v1/context", []string{"user_id", "session_id"}},
		{"over-long user_id", contextPath(long, "s1"), []string{"user_id"}},
		{"invalid UTF-8 session_id", "/v1/context?user_id=u1&session_id=%ff", []string{"session_id"}},
		{"max_messages zero", contextPath("u1", "s1", "max_messages", "0"), []string{"max_messages"}},
		{"max_messages not a number", contextPath("u1", "s1", "max_messages", "ten"), []string{"max_messages"}},
		{"max_messages over 200", contextPath("u1", "s1", "max_messages", "201"), []string{"max_messages"}},
		{"max_chars negative", contextPath("u1", "s1", "max_chars", "-5"), []string{"max_chars"}},
		{"max_chars over 200000", contextPath("u1", "s1", "max_chars", "200001"), []string{"max_chars"}},
		{"ttl not a duration", contextPath("u1", "s1", "ttl", "1 day"), []string{"ttl"}},
		{"ttl without unit", contextPath("u1", "s1", "ttl", "3600"), []string{"ttl"}},
		{"ttl negative", contextPath("u1", "s1", "ttl", "-1h"), []string{"ttl"}},
		{"ttl zero", contextPath("u1", "s1", "ttl", "0s"), []string{"ttl"}},
		{"lang unknown", contextPath("u1", "s1", "lang", "fr"), []string{"lang"}},
		{"everything at once, in a stable order", "/v1/context?max_messages=0&max_chars=x&ttl=y&lang=de", []string{"user_id", "session_id", "max_messages", "max_chars", "ttl", "lang"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// Repeat: field order must not depend on map iteration.
			for range 5 {
				require.Equal(t, tc.fields, requireFields(t, b.get(t, "t1", tc.path), http.StatusBadRequest))
			}
		})
	}
}

func TestGetContextConfiguredDefaults(t *testing.T) {
	t.Parallel()
	b := setup(t, withConfig(func(c *api.Config) {
		c.ContextMaxMessages = 4
		c.ContextMaxChars = 35
		c.ContextTTL = 3 * time.Hour
		c.ContextLang = "zh"
	}))
	var turns []events.Turn
	for i := range 6 {
		turns = append(turns, storedTurn(fmt.Sprintf("c%d", i), "u1", "s1", "user", fmt.Sprintf("message %02d", i), time.Duration(5-i)*time.Hour))
	}
	b.insert(t, turns...)

	res := b.get(t, "t1", contextPath("u1", "s1"))
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	c := decode[contextBody](t, res)
	require.Equal(t, []string{"c3", "c4", "c5"}, ids(c.Window.Messages), "4 fetched, the one 3h old is kept at the boundary but the 35-char budget fits 3")
	require.Equal(t, []cut{{"count", 2}, {"chars", 1}}, cutsOf(c))
	require.Equal(t, "zh", c.Lang)
	require.Equal(t, 4, c.Limits.MaxMessages)
	require.Equal(t, 35, c.Limits.MaxChars)
	require.Equal(t, "3h0m0s", c.TTL)
	require.Contains(t, c.Prompt, zhFraming)

	// Per-request parameters still win over the configured defaults.
	res = b.get(t, "t1", contextPath("u1", "s1", "max_messages", "6", "max_chars", "1000", "ttl", "90m", "lang", "en"))
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	c = decode[contextBody](t, res)
	require.Equal(t, []string{"c4", "c5"}, ids(c.Window.Messages))
	require.Equal(t, []cut{{"ttl", 4}}, cutsOf(c))
	require.Contains(t, c.Prompt, enFraming)
}

func TestGetContextEndToEnd(t *testing.T) {
	t.Parallel()
	b := setup(t, withIngest)
	b.postOK(t, "t1",
		newTurn("e1", "u1", "s1", "推荐几部经典科幻电影", testNow.Add(-3*time.Minute)),
		newTurn("e2", "u1", "s1", "", testNow.Add(-2*time.Minute)).with("role", "assistant",
			"items", []any{map[string]any{"ref": "/mv/823D", "title": "银翼杀手"}, map[string]any{"ref": "/mv/17", "title": "2001太空漫游"}}),
		newTurn("e3", "u1", "s1", "第二部\n讲的是  什么？", testNow.Add(-time.Minute)),
	)
	var c contextBody
	ctx := t.Context()
	require.Eventually(t, func() bool {
		res, err := b.send(ctx, http.MethodGet, contextPath("u1", "s1"), "t1", nil)
		if err != nil || res.Status != http.StatusOK {
			return false
		}
		c = contextBody{}
		return json.Unmarshal(res.Body, &c) == nil && len(c.Window.Messages) == 3
	}, 15*time.Second, 10*time.Millisecond, "the posted turns never showed up in the context")
	require.Equal(t, []string{"e1", "e2", "e3"}, ids(c.Window.Messages))
	require.Equal(t, "zh", c.Lang)
	require.Contains(t, c.Prompt, zhFraming)
	require.Contains(t, c.Prompt, "用户：第二部 讲的是 什么？")
	requireSameJSON(t, []any{map[string]any{"ref": "/mv/823D", "title": "银翼杀手"}, map[string]any{"ref": "/mv/17", "title": "2001太空漫游"}}, c.Window.Messages[1].Items, "items")
}

func TestGetContextFacts(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := t.Context()
	m := func(tenant, event, typ, value string, age time.Duration) store.Mention {
		at := testNow.Add(-age)
		return store.Mention{TenantID: tenant, EventID: event, UserID: "u1", SessionID: "s1", Type: typ, Value: value, Display: value,
			OccurredAt: at, ExpiresAt: at.Add(90 * 24 * time.Hour), Source: "rules"}
	}
	_, err := b.db.Store.RecordMentions(ctx, []store.Mention{
		m("acme", "e1", "book_title", "三体", time.Hour),
		m("acme", "e2", "genre", "科幻", 40*24*time.Hour),
		m("acme", "e3", "author", "刘慈欣", 100*24*time.Hour), // expired
		m("other-tenant", "e1", "genre", "爵士", time.Hour),
	})
	require.NoError(t, err)

	res := b.get(t, "acme", "/v1/context?user_id=u1&session_id=s1")
	require.Equal(t, http.StatusOK, res.Status)
	var body struct {
		Facts struct {
			Facts []struct {
				Type, Display string
				Weight        float64
			}
			Cuts []cut
		}
		Prompt string
	}
	require.NoError(t, json.Unmarshal(res.Body, &body))
	require.Len(t, body.Facts.Facts, 2)
	require.Equal(t, "三体", body.Facts.Facts[0].Display)
	require.Equal(t, 1.0, body.Facts.Facts[0].Weight)
	require.InDelta(t, 0.9, body.Facts.Facts[1].Weight, 1e-9, "one full 30-day period")
	require.Equal(t, []cut{{Reason: "expired", Count: 1}}, body.Facts.Cuts)
	require.Contains(t, body.Prompt, "用户曾关注：三体（书）、科幻（类型）")
	require.NotContains(t, body.Prompt, "爵士", "another tenant's facts never appear")

	res = b.get(t, "acme", "/v1/context?user_id=u1&session_id=s1&max_facts=0")
	require.NoError(t, json.Unmarshal(res.Body, &body))
	require.Empty(t, body.Facts.Facts)
	require.Empty(t, body.Prompt)

	res = b.get(t, "acme", "/v1/context?user_id=u1&session_id=s1&max_facts=101")
	require.Equal(t, http.StatusBadRequest, res.Status)
}
