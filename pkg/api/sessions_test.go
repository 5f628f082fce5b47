package api_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestGetSession(t *testing.T) {
	t.Parallel()
	b := setup(t, withIngest)
	base := testNow.Add(-time.Hour)
	// Published newest first: the API orders by event time, not by arrival.
	var batch []turn
	for i := 12; i >= 1; i-- {
		batch = append(batch, newTurn(fmt.Sprintf("e%02d", i), "u1", "s1", fmt.Sprintf("message %d", i), base.Add(time.Duration(i)*time.Minute)).with("site_id", "web"))
	}
	b.postOK(t, "t1", batch...)
	b.waitIngested(t)

	res := b.get(t, "t1", sessionPath("s1"))
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	s := decode[sessionBody](t, res)
	require.Equal(t, "s1", s.SessionID)
	require.Equal(t, "u1", s.UserID)
	require.Equal(t, "web", s.SiteID)
	require.Equal(t, int64(12), s.MessageCount)
	require.True(t, base.Add(time.Minute).Equal(s.FirstMessageAt), s.FirstMessageAt)
	require.True(t, base.Add(12*time.Minute).Equal(s.LastMessageAt), s.LastMessageAt)
	require.Equal(t, []string{"e03", "e04", "e05", "e06", "e07", "e08", "e09", "e10", "e11", "e12"}, ids(s.Recent), "the 10 newest, oldest first")
	require.Equal(t, "message 12", s.Recent[9].Content)

	res = b.get(t, "t1", sessionPath("s1")+"?recent=3")
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	require.Equal(t, []string{"e10", "e11", "e12"}, ids(decode[sessionBody](t, res).Recent))
	res = b.get(t, "t1", sessionPath("s1")+"?recent=200")
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	require.Len(t, decode[sessionBody](t, res).Recent, 12)

	for _, bad := range []string{"0", "-1", "abc", "1.5", "201"} {
		res := b.get(t, "t1", sessionPath("s1")+"?recent="+bad)
		require.Equal(t, []string{"recent"}, requireFields(t, res, http.StatusBadRequest), "recent=%s", bad)
	}
	requireCode(t, b.get(t, "t1", sessionPath("nope")), http.StatusNotFound, "not_found")
	requireCode(t, b.get(t, "t1", sessionPath("s1")+"x"), http.StatusNotFound, "not_found")
}

func TestGetSessionIDsThatNeedEscaping(t *testing.T) {
	t.Parallel()
	b := setup(t, withIngest)
	weird := []string{"会话 1", "a.b.c", "a/b", "*", "~x", "100%"}
	for i, id := range weird {
		b.postOK(t, "t1", newTurn(fmt.Sprintf("e%d", i), "用户.1", id, "hi "+id, testNow.Add(-time.Minute)))
	}
	b.waitIngested(t)
	for _, id := range weird {
		res := b.get(t, "t1", sessionPath(id))
		require.Equal(t, http.StatusOK, res.Status, "%s: %s", id, res.Body)
		s := decode[sessionBody](t, res)
		require.Equal(t, id, s.SessionID)
		require.Equal(t, "用户.1", s.UserID)
		require.Equal(t, []string{"hi " + id}, contents(s.Recent))
	}
}

// sentTurn is what the pagination test sent for one turn, to compare with what
// comes back.
type sentTurn struct {
	id, role, content          string
	at                         time.Time
	toolCalls, items, metadata any
}

func TestGetMessagesPagination(t *testing.T) {
	t.Parallel()
	b := setup(t, withIngest)
	base := testNow.Add(-2 * time.Hour)
	var sent []sentTurn
	for i := range 25 {
		st := sentTurn{
			// Ids run against time, and pairs share a timestamp, so the order must
			// come from (occurred_at, id) and not from ids or arrival.
			id:      fmt.Sprintf("m%02d", 24-i),
			role:    []string{"user", "assistant"}[i%2],
			content: fmt.Sprintf("turn %d: 第%d条", i, i),
			at:      base.Add(time.Duration(i/2) * time.Second).Add(123456 * time.Microsecond),
		}
		if i%3 == 0 {
			st.toolCalls = []any{map[string]any{
				"id": fmt.Sprintf("call_%d", i), "name": "search",
				"arguments": map[string]any{"q": "科幻", "page": 1, "filters": map[string]any{"year": []int{1965, 1990}}},
				"result":    map[string]any{"hits": []any{map[string]any{"ref": "/b/1", "score": 0.5}}, "total": 1, "next": nil},
				"status":    "ok", "duration_ms": 42 + i,
			}}
		}
		if i%4 == 0 {
			st.items = []any{
				map[string]any{"ref": "/mv/823D", "title": "沙丘", "attrs": map[string]any{"year": 1965, "tags": []string{"sf", "经典"}, "rating": 8.5}},
				map[string]any{"ref": "/mv/17", "title": "Hyperion"},
				map[string]any{"ref": "/mv/99"},
			}
			st.content = ""
			st.role = "assistant"
		}
		if i%5 == 0 {
			st.metadata = map[string]any{"client": "web", "n": i, "nested": map[string]any{"ok": true}}
		}
		sent = append(sent, st)
	}
	// Publish in an order unrelated to event time.
	var batch []turn
	for _, k := range []int{7, 3, 11, 0, 19, 24, 5, 14, 1, 22, 9, 16, 2, 20, 12, 6, 23, 10, 4, 17, 8, 21, 13, 18, 15} {
		st := sent[k]
		tn := newTurn(st.id, "u1", "s1", st.content, st.at).with("role", st.role)
		for _, kv := range []struct {
			k string
			v any
		}{{"tool_calls", st.toolCalls}, {"items", st.items}, {"metadata", st.metadata}} {
			if kv.v != nil {
				tn[kv.k] = kv.v
			}
		}
		batch = append(batch, tn)
	}
	b.postOK(t, "t1", batch...)
	b.waitIngested(t)

	want := append([]sentTurn(nil), sent...)
	sort.Slice(want, func(i, j int) bool {
		if !want[i].at.Equal(want[j].at) {
			return want[i].at.Before(want[j].at)
		}
		return want[i].id < want[j].id
	})

	var got []messageBody
	var pages []int
	cursor := ""
	for range 10 {
		path := sessionPath("s1", "messages") + "?limit=10"
		if cursor != "" {
			path += "&cursor=" + cursor
		}
		res := b.get(t, "t1", path)
		require.Equal(t, http.StatusOK, res.Status, string(res.Body))
		page := decode[messagesBody](t, res)
		pages = append(pages, len(page.Messages))
		got = append(got, page.Messages...)
		cursor = page.NextCursor
		if cursor == "" {
			break
		}
	}
	require.Equal(t, []int{10, 10, 5}, pages)
	seen := map[string]bool{}
	for _, m := range got {
		require.False(t, seen[m.ID], "%s returned twice", m.ID)
		seen[m.ID] = true
	}
	require.Len(t, got, len(want))
	for i, w := range want {
		m := got[i]
		require.Equal(t, w.id, m.ID, "position %d", i)
		require.Equal(t, "s1", m.SessionID)
		require.Equal(t, "u1", m.UserID)
		require.Equal(t, w.role, m.Role, w.id)
		require.Equal(t, w.content, m.Content, w.id)
		require.True(t, w.at.Equal(m.OccurredAt), "%s: sent %s, got %s", w.id, w.at, m.OccurredAt)
		requireSameJSON(t, w.toolCalls, m.ToolCalls, w.id+" tool_calls")
		requireSameJSON(t, w.items, m.Items, w.id+" items")
		requireSameJSON(t, w.metadata, m.Metadata, w.id+" metadata")
	}

	// A page size that divides the session exactly ends without a cursor.
	res := b.get(t, "t1", sessionPath("s1", "messages")+"?limit=25")
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	all := decode[messagesBody](t, res)
	require.Len(t, all.Messages, 25)
	require.Empty(t, all.NextCursor)
	res = b.get(t, "t1", sessionPath("s1", "messages"))
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	require.Len(t, decode[messagesBody](t, res).Messages, 25, "the default page holds 50")
}

// requireSameJSON checks that a stored JSON value equals, as a JSON value, what was
// sent (nil: the field is absent).
func requireSameJSON(t *testing.T, sent any, got json.RawMessage, what string) {
	t.Helper()
	if sent == nil {
		require.Empty(t, got, what)
		return
	}
	require.NotEmpty(t, got, what)
	require.JSONEq(t, string(mustJSON(t, sent)), string(got), what)
}

func TestGetMessagesErrors(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.postOK(t, "t1", newTurn("e1", "u1", "s1", "hi", testNow.Add(-time.Minute)))
	enc := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	cases := []struct {
		name   string
		query  string
		fields []string
	}{
		{"cursor not base64", "cursor=%21%21%21", []string{"cursor"}},
		{"cursor not JSON", "cursor=" + enc("hello"), []string{"cursor"}},
		{"cursor without a position", "cursor=" + enc(`{}`), []string{"cursor"}},
		{"cursor without an id", "cursor=" + enc(`{"t":"2026-11-22T11:00:00Z"}`), []string{"cursor"}},
		{"cursor with a bad time", "cursor=" + enc(`{"t":"soon","id":"e1"}`), []string{"cursor"}},
		{"limit zero", "limit=0", []string{"limit"}},
		{"limit too big", "limit=501", []string{"limit"}},
		{"limit not a number", "limit=ten", []string{"limit"}},
		{"both", "limit=0&cursor=x", []string{"limit", "cursor"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := b.get(t, "t1", sessionPath("s1", "messages")+"?"+tc.query)
			require.Equal(t, tc.fields, requireFields(t, res, http.StatusBadRequest))
		})
	}
	t.Run("unknown session", func(t *testing.T) {
		t.Parallel()
		requireCode(t, b.get(t, "t1", sessionPath("nope", "messages")), http.StatusNotFound, "not_found")
	})
}

func TestDeleteSession(t *testing.T) {
	t.Parallel()
	b := setup(t, withIngest)
	const doomed = "会话.1 x" // needs encoding both in the path and in the subject
	at := testNow.Add(-time.Hour)
	b.postOK(t, "t1",
		newTurn("d1", "u1", doomed, "one", at),
		newTurn("d2", "u1", doomed, "two", at.Add(time.Second)),
		newTurn("d3", "u1", doomed, "three", at.Add(2*time.Second)),
		newTurn("k1", "u1", "s2", "keep one", at),
		newTurn("k2", "u1", "s2", "keep two", at.Add(time.Second)),
	)
	b.waitIngested(t)
	require.Equal(t, uint64(3), b.subjectMsgs(t, "t1", "u1", doomed))
	require.Equal(t, 3, b.dbCount(t, "messages", "t1", doomed))

	res := b.do(t, http.MethodDelete, sessionPath(doomed), "t1", nil)
	require.Equal(t, http.StatusNoContent, res.Status, string(res.Body))
	require.Empty(t, res.Body)

	requireCode(t, b.get(t, "t1", sessionPath(doomed)), http.StatusNotFound, "not_found")
	requireCode(t, b.get(t, "t1", sessionPath(doomed, "messages")), http.StatusNotFound, "not_found")
	require.Zero(t, b.dbCount(t, "messages", "t1", doomed))
	require.Zero(t, b.dbCount(t, "sessions", "t1", doomed))
	require.Zero(t, b.subjectMsgs(t, "t1", "u1", doomed), "the session's turns are purged from the stream")

	// The other session of the same user is untouched, in the database and the stream.
	require.Equal(t, uint64(2), b.subjectMsgs(t, "t1", "u1", "s2"))
	require.Equal(t, uint64(2), b.streamMsgs(t))
	res = b.get(t, "t1", sessionPath("s2"))
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	require.Equal(t, []string{"keep one", "keep two"}, contents(decode[sessionBody](t, res).Recent))

	// The context of the deleted session is empty, as for a session never seen.
	res = b.get(t, "t1", contextPath("u1", doomed))
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	require.Empty(t, decode[contextBody](t, res).Window.Messages)

	requireCode(t, b.do(t, http.MethodDelete, sessionPath(doomed), "t1", nil), http.StatusNotFound, "not_found")
	requireCode(t, b.do(t, http.MethodDelete, sessionPath("nope"), "t1", nil), http.StatusNotFound, "not_found")
	require.Equal(t, 2, b.dbCount(t, "messages", "t1", ""))
}
