package api_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/recallhq/recall/pkg/queue"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/api"
	"github.com/recallhq/recall/pkg/events"
)

func TestPostTurnsOneAndArray(t *testing.T) {
	t.Parallel()
	b := setup(t)
	at := testNow.Add(-time.Hour)

	res := b.post(t, "t1", newTurn("e1", "u1", "s1", "hello", at))
	require.Equal(t, http.StatusAccepted, res.Status, string(res.Body))
	require.Equal(t, []acceptedTurn{{ID: "e1", Sequence: 1}}, decode[acceptedBody](t, res).Accepted)

	res = b.post(t, "t1", newTurn("e2", "u1", "s1", "a", at), newTurn("e3", "u1", "s1", "b", at))
	require.Equal(t, http.StatusAccepted, res.Status, string(res.Body))
	require.Equal(t, []acceptedTurn{{ID: "e2", Sequence: 2}, {ID: "e3", Sequence: 3}}, decode[acceptedBody](t, res).Accepted)

	// An array of one is an array: the answer is the same shape.
	acc := b.postOK(t, "t1", newTurn("e4", "u1", "s1", "c", at))
	require.Equal(t, uint64(4), acc[0].Sequence)
	require.Equal(t, uint64(4), b.streamMsgs(t))

	// What was published: the tenant comes from X-Tenant-ID, the subject carries
	// tenant, user and session, and the dedupe id is per tenant.
	s, err := b.js.Stream(t.Context(), queue.TurnsStream)
	require.NoError(t, err)
	m, err := s.GetMsg(t.Context(), 1)
	require.NoError(t, err)
	require.Equal(t, events.TurnSubject("t1", "u1", "s1"), m.Subject)
	require.Equal(t, events.MsgID("t1", "e1"), m.Header.Get(jetstream.MsgIDHeader))
	got, err := events.DecodeTurn(m.Data, events.ValidateOptions{Limits: events.DefaultLimits})
	require.NoError(t, err)
	require.Equal(t, "t1", got.TenantID)
	require.Equal(t, "hello", got.Content)
	require.True(t, at.Equal(got.OccurredAt))
}

func TestPostTurnsSameRequestTwice(t *testing.T) {
	t.Parallel()
	b := setup(t, withIngest)
	at := testNow.Add(-time.Hour)
	batch := []turn{
		newTurn("e1", "u1", "s1", "one", at),
		newTurn("e2", "u1", "s1", "two", at.Add(time.Second)),
		newTurn("e3", "u1", "s1", "three", at.Add(2*time.Second)),
	}
	first := b.postOK(t, "t1", batch...)

	res := b.post(t, "t1", batch...)
	require.Equal(t, http.StatusAccepted, res.Status, string(res.Body))
	again := decode[acceptedBody](t, res).Accepted
	require.Len(t, again, 3)
	for i, a := range again {
		require.Equal(t, first[i].ID, a.ID)
		require.True(t, a.Duplicate, a.ID)
		require.Equal(t, first[i].Sequence, a.Sequence, "a duplicate reports where the original is stored")
	}

	// One object alone, resent, and an array mixing an old and a new turn.
	res = b.post(t, "t1", batch[0])
	require.Equal(t, http.StatusAccepted, res.Status, string(res.Body))
	require.Equal(t, []acceptedTurn{{ID: "e1", Sequence: first[0].Sequence, Duplicate: true}}, decode[acceptedBody](t, res).Accepted)
	res = b.post(t, "t1", batch[2], newTurn("e4", "u1", "s1", "four", at.Add(3*time.Second)))
	require.Equal(t, http.StatusAccepted, res.Status, string(res.Body))
	require.Equal(t, []acceptedTurn{{ID: "e3", Sequence: first[2].Sequence, Duplicate: true}, {ID: "e4", Sequence: 4}}, decode[acceptedBody](t, res).Accepted)
	require.Equal(t, uint64(4), b.streamMsgs(t))

	b.waitIngested(t)
	res = b.get(t, "t1", sessionPath("s1", "messages"))
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	msgs := decode[messagesBody](t, res).Messages
	require.Equal(t, []string{"e1", "e2", "e3", "e4"}, ids(msgs))
	require.Equal(t, []string{"one", "two", "three", "four"}, contents(msgs))
	require.Equal(t, 4, b.dbCount(t, "messages", "t1", ""))
	res = b.get(t, "t1", sessionPath("s1"))
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	require.Equal(t, int64(4), decode[sessionBody](t, res).MessageCount)
}

func TestPostTurnsRejected(t *testing.T) {
	t.Parallel()
	b := setup(t, withLimits(func(l *events.Limits) {
		l.MaxContentBytes = 64
		l.MaxEventBytes = 2048
	}))
	at := testNow.Add(-time.Hour)
	valid := func(id string) turn { return newTurn(id, "u1", "s1", "hello", at) }
	js := func(v any) string { return string(mustJSON(t, v)) }
	long := strings.Repeat("x", 129)

	cases := []struct {
		name   string
		body   string
		fields []string
	}{
		{"malformed JSON", `{"id":"e1",`, []string{"(body)"}},
		{"malformed array", `[{"id":"e1"},`, []string{"(body)"}},
		{"trailing data after the object", js(valid("e1")) + ` {}`, []string{"(body)"}},
		{"empty body", ``, []string{"(body)"}},
		{"blank body", " \n\t", []string{"(body)"}},
		{"empty array", `[]`, []string{"(body)"}},
		{"array of non-objects", `[1, 2]`, []string{"(body)"}},
		{"array with null", `[null]`, []string{"(body)"}},
		{"a string", `"hello"`, []string{"(body)"}},
		{"invalid UTF-8", `{"id":"e1","user_id":"u1","session_id":"s1","occurred_at":"2026-11-22T11:00:00Z","role":"user","content":"caf` + "\xe9" + `"}`, []string{"(body)"}},
		{"missing id", js(valid("e1").with("id", nil)), []string{"id"}},
		{"missing user_id and session_id", js(valid("e1").with("user_id", nil, "session_id", nil)), []string{"user_id", "session_id"}},
		{"missing everything", `{}`, []string{"id", "user_id", "session_id", "occurred_at", "role", "content"}},
		{"over-long id", js(valid(long)), []string{"id"}},
		{"over-long user_id", js(valid("e1").with("user_id", long)), []string{"user_id"}},
		{"over-long session_id in Chinese (43 characters, 129 bytes)", js(valid("e1").with("session_id", strings.Repeat("会", 43))), []string{"session_id"}},
		{"over-long agent_id", js(valid("e1").with("agent_id", long)), []string{"agent_id"}},
		{"control character in id", js(valid("e\n1")), []string{"id"}},
		{"unknown role", js(valid("e1").with("role", "bot")), []string{"role"}},
		{"missing role", js(valid("e1").with("role", nil)), []string{"role"}},
		{"content over the limit", js(valid("e1").with("content", strings.Repeat("a", 65))), []string{"content"}},
		{"content over the limit in bytes, not characters", js(valid("e1").with("content", strings.Repeat("字", 22))), []string{"content"}},
		{"content of the wrong type", js(valid("e1").with("content", 5)), []string{"content"}},
		{"empty content without structure", js(valid("e1").with("content", "")), []string{"content"}},
		{"NUL in content", js(valid("e1").with("content", "a\x00b")), []string{"content"}},
		{"occurred_at not a time", js(valid("e1").with("occurred_at", "x")), []string{"occurred_at"}},
		{"occurred_at a number", js(valid("e1").with("occurred_at", 1700000000)), []string{"occurred_at"}},
		{"occurred_at missing", js(valid("e1").with("occurred_at", nil)), []string{"occurred_at"}},
		{"occurred_at far in the future", js(valid("e1").with("occurred_at", testNow.Add(48*time.Hour).Format(time.RFC3339))), []string{"occurred_at"}},
		{"occurred_at just past the allowed skew", js(valid("e1").with("occurred_at", testNow.Add(24*time.Hour+time.Second).Format(time.RFC3339))), []string{"occurred_at"}},
		{"occurred_at before 2000", js(valid("e1").with("occurred_at", "1999-12-31T23:59:59Z")), []string{"occurred_at"}},
		{"unsupported version", js(valid("e1").with("v", 2)), []string{"v"}},
		{"tool call without name", js(valid("e1").with("tool_calls", []any{map[string]any{"name": "ok"}, map[string]any{"arguments": map[string]any{"q": "x"}}})), []string{"tool_calls[1].name"}},
		{"NUL in a tool result", js(valid("e1").with("tool_calls", []any{map[string]any{"name": "search", "result": map[string]any{"a": "\x00"}}})), []string{"tool_calls[0].result"}},
		{"item without ref", js(valid("e1").with("items", []any{map[string]any{"ref": "/b/1"}, map[string]any{"title": "Dune"}})), []string{"items[1].ref"}},
		{"item attrs not an object", js(valid("e1").with("items", []any{map[string]any{"ref": "/b/1", "attrs": []int{1}}})), []string{"items[0].attrs"}},
		{"metadata not an object", js(valid("e1").with("metadata", "web")), []string{"metadata"}},
		{"metadata an array", js(valid("e1").with("metadata", []int{1})), []string{"metadata"}},
		{"event over the size limit", js(valid("e1").with("metadata", map[string]string{"pad": strings.Repeat("p", 2100)})), []string{"(event)"}},
		{"tenant_id in the body differs from X-Tenant-ID", js(valid("e1").with("tenant_id", "t2")), []string{"tenant_id"}},
		{"several problems in one turn, all reported", js(valid("e1").with("user_id", nil, "role", "bot", "metadata", 1)), []string{"user_id", "role", "metadata"}},
		{"array: fields are prefixed with the index", js([]turn{valid("e1"), valid("e2").with("role", "bot")}), []string{"[1].role"}},
		{"array: every bad turn is reported", js([]turn{valid("e1").with("user_id", nil), valid("e2"), valid("e3").with("content", strings.Repeat("a", 65))}), []string{"[0].user_id", "[2].content"}},
		{"array: nested fields are prefixed too", js([]turn{valid("e1"), valid("e2").with("items", []any{map[string]any{}})}), []string{"[1].items[0].ref"}},
		{"array: over-size event", js([]turn{valid("e1").with("metadata", map[string]string{"pad": strings.Repeat("p", 2100)})}), []string{"[0].(event)"}},
		{"array: duplicate ids", js([]turn{valid("e1"), valid("e1")}), []string{"[1].id"}},
		{"array: the same id three times", js([]turn{valid("e1"), valid("e2"), valid("e1"), valid("e1")}), []string{"[2].id", "[3].id"}},
		{"array: tenant_id differs from X-Tenant-ID", js([]turn{valid("e1").with("tenant_id", "t1"), valid("e2").with("tenant_id", "t2")}), []string{"[1].tenant_id"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := b.do(t, http.MethodPost, "/v1/turns", "t1", []byte(tc.body))
			require.Equal(t, tc.fields, requireFields(t, res, http.StatusBadRequest))
			require.Equal(t, "invalid_request", decode[errorBody](t, res).Error.Code)
			// Nothing of a rejected request is published, not even its valid turns.
			require.Zero(t, b.streamMsgs(t))
		})
	}

	t.Run("duplicate ids name the first occurrence", func(t *testing.T) {
		t.Parallel()
		res := b.post(t, "t1", valid("e1"), valid("e2"), valid("e1"), valid("e1"))
		e := decode[errorBody](t, res)
		require.Len(t, e.Error.Fields, 2)
		for _, f := range e.Error.Fields {
			require.Contains(t, f.Message, "[0]")
		}
	})
}

func TestPostTurnsAcceptedAtTheLimits(t *testing.T) {
	t.Parallel()
	b := setup(t, withLimits(func(l *events.Limits) { l.MaxContentBytes = 64 }))
	at := testNow.Add(-time.Hour)
	id128 := strings.Repeat("i", 128)
	cases := []struct {
		name string
		turn turn
	}{
		{"id of exactly 128 bytes", newTurn(id128, "u1", "s1", "hi", at)},
		{"Chinese ids with dots, spaces and slashes", newTurn("事件.1", "用户 1", "会话/1.x", "你好", at)},
		{"content of exactly the limit", newTurn("c64", "u1", "s1", strings.Repeat("a", 64), at)},
		{"occurred_at exactly at the allowed skew", newTurn("skew", "u1", "s1", "hi", testNow.Add(24*time.Hour))},
		{"offset time", newTurn("tz", "u1", "s1", "hi", at).with("occurred_at", "2026-11-22T19:00:00.123456+08:00")},
		{"tenant_id equal to X-Tenant-ID", newTurn("tn", "u1", "s1", "hi", at).with("tenant_id", "t1")},
		{"no content but items", newTurn("items", "u1", "s1", "", at).with("role", "assistant", "items", []any{map[string]any{"ref": "/b/1"}})},
		{"no content but tool calls", newTurn("tools", "u1", "s1", "", at).with("role", "tool", "tool_calls", []any{map[string]any{"name": "search"}})},
		{"metadata null", newTurn("mdnull", "u1", "s1", "hi", at).with("metadata", json.RawMessage("null"))},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := b.post(t, "t1", tc.turn)
			require.Equal(t, http.StatusAccepted, res.Status, string(res.Body))
			acc := decode[acceptedBody](t, res).Accepted
			require.Len(t, acc, 1)
			require.Equal(t, tc.turn["id"], acc[0].ID)
			require.False(t, acc[0].Duplicate)
		})
	}
}

func TestPostTurnsTooLarge(t *testing.T) {
	t.Parallel()
	b := setup(t, withConfig(func(c *api.Config) {
		c.MaxBatch = 3
		c.MaxBodyBytes = 4096
	}))
	at := testNow.Add(-time.Hour)
	four := []turn{
		newTurn("e1", "u1", "s1", "a", at), newTurn("e2", "u1", "s1", "b", at),
		newTurn("e3", "u1", "s1", "c", at), newTurn("e4", "u1", "s1", "d", at),
	}

	requireCode(t, b.post(t, "t1", four...), http.StatusRequestEntityTooLarge, "too_large")
	requireCode(t, b.post(t, "t1", newTurn("big", "u1", "s1", strings.Repeat("x", 4096), at)), http.StatusRequestEntityTooLarge, "too_large")
	require.Zero(t, b.streamMsgs(t))

	// At the limits the request goes through.
	b.postOK(t, "t1", four[:3]...)
	body := mustJSON(t, newTurn("fits", "u1", "s1", "", at))
	pad := 4096 - len(body)
	res := b.do(t, http.MethodPost, "/v1/turns", "t1", mustJSON(t, newTurn("fits", "u1", "s1", strings.Repeat("y", pad), at)))
	require.Equal(t, http.StatusAccepted, res.Status, string(res.Body))
	require.Equal(t, uint64(4), b.streamMsgs(t))
}

// With NATS away, POST /v1/turns answers 503 with the ids that were not
// stored within API_PUBLISH_TIMEOUT, instead of hanging.
func TestPostTurnsAnswers503WhileNATSIsDown(t *testing.T) {
	t.Parallel()
	b := setup(t, withConfig(func(c *api.Config) { c.PublishTimeout = 500 * time.Millisecond }))
	b.nats.Server.Shutdown()
	b.nats.Server.WaitForShutdown()
	start := time.Now()
	res := b.post(t, "t", newTurn("1", "u", "s", "hello", testNow.Add(-time.Minute)))
	require.Less(t, time.Since(start), 5*time.Second, "answered within the publish timeout")
	require.Equal(t, http.StatusServiceUnavailable, res.Status, string(res.Body))
	var body struct {
		Failed []string `json:"failed"`
	}
	require.NoError(t, json.Unmarshal(res.Body, &body))
	require.Equal(t, []string{"1"}, body.Failed)
}
