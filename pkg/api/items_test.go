package api_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/recallhq/recall/pkg/queue"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/workers/seen"
)

type (
	selectionBody struct {
		SessionID string          `json:"session_id"`
		N         int             `json:"n"`
		Item      json.RawMessage `json:"item"`
		List      struct {
			EventID    string    `json:"event_id"`
			OccurredAt time.Time `json:"occurred_at"`
			Count      int       `json:"count"`
		} `json:"list"`
	}
	itemBody struct {
		Ref   string         `json:"ref"`
		Title string         `json:"title"`
		Attrs map[string]any `json:"attrs"`
	}
	unseenBody struct {
		UserID string   `json:"user_id"`
		Unseen []string `json:"unseen"`
		Marked int      `json:"marked"`
	}
	seenBody struct {
		UserID string `json:"user_id"`
		Items  []struct {
			Ref           string         `json:"ref"`
			Title         string         `json:"title"`
			Attrs         map[string]any `json:"attrs"`
			TimesShown    int64          `json:"times_shown"`
			FirstSeenAt   time.Time      `json:"first_seen_at"`
			LastSeenAt    time.Time      `json:"last_seen_at"`
			LastEventID   string         `json:"last_event_id"`
			LastSessionID string         `json:"last_session_id"`
		} `json:"items"`
	}
)

func selectionPath(session string, n string) string {
	return sessionPath(session, "selection", n)
}

func userItemsPath(user, rest string) string {
	return "/v1/users/" + url.PathEscape(user) + "/items/" + rest
}

// selectOK resolves position n of the session's current list and returns it
// with the item decoded.
func (b *bundle) selectOK(t *testing.T, tenant, session string, n int) (selectionBody, itemBody) {
	t.Helper()
	res := b.get(t, tenant, selectionPath(session, fmt.Sprint(n)))
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	sel := decode[selectionBody](t, res)
	require.Equal(t, session, sel.SessionID)
	require.Equal(t, n, sel.N)
	var it itemBody
	require.NoError(t, json.Unmarshal(sel.Item, &it))
	return sel, it
}

func films(refs ...string) []any {
	out := make([]any, len(refs))
	for i, r := range refs {
		out[i] = map[string]any{"ref": r, "title": "film " + r, "attrs": map[string]any{"rating": 7 + float64(i)/10, "tag": "sf"}}
	}
	return out
}

// A search shows a numbered list; the user answers "3"; the assistant asks
// Recall which item that is and gets the real ref, not one rebuilt from text.
func TestSelectionAfterSearch(t *testing.T) {
	t.Parallel()
	b := setup(t, withIngest)
	at := testNow.Add(-10 * time.Minute)
	results := []any{
		map[string]any{"ref": "/mv/1A2B", "title": "沙丘", "attrs": map[string]any{"year": 2021, "rating": 8.0}},
		map[string]any{"ref": "/mv/77Q", "title": "Arrival", "attrs": map[string]any{"year": 2016, "rating": 7.9}},
		map[string]any{"ref": "/mv/823D", "title": "星际穿越", "attrs": map[string]any{"year": 2014, "rating": 9.4, "tags": []any{"科幻", "太空"}}},
		map[string]any{"ref": "/mv/9", "title": "Solaris", "attrs": map[string]any{"year": 1972}},
	}
	b.postOK(t, "acme",
		newTurn("q1", "u-42", "s1", "推荐几部科幻电影", at),
		newTurn("a1", "u-42", "s1", "为你找到这些科幻电影：1. 沙丘 2. Arrival 3. 星际穿越 4. Solaris", at.Add(2*time.Second)).with(
			"role", "assistant",
			"tool_calls", []any{map[string]any{"id": "call_1", "name": "search_films", "arguments": map[string]any{"q": "科幻", "limit": 4},
				"result": map[string]any{"hits": results, "total": 4}, "status": "ok", "duration_ms": 184}},
			"items", results),
		newTurn("q2", "u-42", "s1", "3", at.Add(30*time.Second)),
	)
	b.waitIngested(t)

	sel, it := b.selectOK(t, "acme", "s1", 3)
	require.Equal(t, "/mv/823D", it.Ref)
	require.Equal(t, "星际穿越", it.Title)
	require.Equal(t, map[string]any{"year": 2014.0, "rating": 9.4, "tags": []any{"科幻", "太空"}}, it.Attrs)
	require.Equal(t, "a1", sel.List.EventID)
	require.True(t, at.Add(2*time.Second).Equal(sel.List.OccurredAt))
	require.Equal(t, 4, sel.List.Count)
	require.JSONEq(t, string(mustJSON(t, results[2])), string(sel.Item), "the item exactly as sent")

	_, it = b.selectOK(t, "acme", "s1", 1)
	require.Equal(t, "/mv/1A2B", it.Ref)
	_, it = b.selectOK(t, "acme", "s1", 4)
	require.Equal(t, "/mv/9", it.Ref)

	// Out of range, and not a position at all.
	res := b.get(t, "acme", selectionPath("s1", "5"))
	require.Equal(t, []string{"n"}, requireFields(t, res, http.StatusNotFound))
	requireCode(t, res, http.StatusNotFound, "out_of_range")
	require.Contains(t, decode[errorBody](t, res).Error.Message, "has 4 items")
	for _, bad := range []string{"0", "-1", "+3", "abc", "3.0", "1e2", "%203", "３", "1234567890", "99999999999999999999"} {
		res := b.get(t, "acme", selectionPath("s1", "")+bad)
		require.Equal(t, []string{"n"}, requireFields(t, res, http.StatusBadRequest), "n=%s", bad)
	}
	_, it = b.selectOK(t, "acme", "s1", 3)
	res = b.get(t, "acme", selectionPath("s1", "003"))
	require.Equal(t, http.StatusOK, res.Status, "leading zeros are the same number")
	require.Equal(t, 3, decode[selectionBody](t, res).N)
}

// A "latest releases" tool call shows a list; "3" resolves to its third item.
// The seen registry then knows the user has been shown these, so a notifier
// pushes only the releases that are new to them.
func TestSelectionAfterLatestReleases(t *testing.T) {
	t.Parallel()
	b := setup(t, withIngest)
	b.startSeen(t, seen.Config{})
	at := testNow.Add(-time.Hour)
	releases := []any{
		map[string]any{"ref": "/album/A1", "title": "Midnights", "attrs": map[string]any{"artist": "Taylor Swift", "released": "2026-11-20"}},
		map[string]any{"ref": "/album/B7", "title": "范特西", "attrs": map[string]any{"artist": "周杰伦", "released": "2026-11-19"}},
		map[string]any{"ref": "/album/C3", "title": "Random Access Memories", "attrs": map[string]any{"artist": "Daft Punk", "released": "2026-11-18", "rating": 4.5}},
	}
	b.postOK(t, "acme",
		newTurn("r0", "u-7", "music-1", "what came out this week?", at),
		newTurn("r1", "u-7", "music-1", "", at.Add(time.Second)).with(
			"role", "tool",
			"tool_calls", []any{map[string]any{"name": "latest_releases", "arguments": map[string]any{"days": 7}, "result": map[string]any{"releases": releases}}},
		),
		newTurn("r2", "u-7", "music-1", "This week's releases: 1. Midnights 2. 范特西 3. Random Access Memories", at.Add(2*time.Second)).with(
			"role", "assistant", "items", releases),
		newTurn("r3", "u-7", "music-1", "3", at.Add(20*time.Second)),
	)
	b.waitStored(t)

	sel, it := b.selectOK(t, "acme", "music-1", 3)
	require.Equal(t, "/album/C3", it.Ref)
	require.Equal(t, "Daft Punk", it.Attrs["artist"])
	require.Equal(t, "r2", sel.List.EventID, "a tool result is not the presented list; the items are")

	res := b.do(t, http.MethodPost, userItemsPath("u-7", "unseen"), "acme",
		[]byte(`{"refs":["/album/D9","/album/C3","/album/A1","/album/E2"],"mark_notified":true,"notification_id":"weekly-2026-48"}`))
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	u := decode[unseenBody](t, res)
	require.Equal(t, unseenBody{UserID: "u-7", Unseen: []string{"/album/D9", "/album/E2"}, Marked: 2}, u)
}

func TestSelectionNoListAndUnknownSession(t *testing.T) {
	t.Parallel()
	b := setup(t, withIngest)
	b.postOK(t, "t1", newTurn("e1", "u1", "s1", "hello", testNow.Add(-time.Minute)))
	b.waitIngested(t)
	requireCode(t, b.get(t, "t1", selectionPath("s1", "1")), http.StatusNotFound, "no_list")
	requireCode(t, b.get(t, "t1", selectionPath("nope", "1")), http.StatusNotFound, "not_found")
	requireCode(t, b.get(t, "t2", selectionPath("s1", "1")), http.StatusNotFound, "not_found")
	require.Equal(t, []string{"session_id"}, requireFields(t, b.get(t, "t1", "/v1/sessions/%01/selection/1"), http.StatusBadRequest))
}

func TestSelectionNewerListReplacesOlder(t *testing.T) {
	t.Parallel()
	b := setup(t, withIngest)
	at := testNow.Add(-time.Hour)
	list := func(id string, when time.Time, refs ...string) turn {
		return newTurn(id, "u1", "s1", "", when).with("role", "assistant", "items", films(refs...))
	}
	b.postOK(t, "t1", list("L1", at, "/a/1", "/a/2", "/a/3"))
	b.waitIngested(t)
	_, it := b.selectOK(t, "t1", "s1", 3)
	require.Equal(t, "/a/3", it.Ref)

	b.postOK(t, "t1", list("L2", at.Add(time.Minute), "/b/1", "/b/2", "/b/3", "/b/4"))
	b.waitIngested(t)
	sel, it := b.selectOK(t, "t1", "s1", 3)
	require.Equal(t, "/b/3", it.Ref)
	require.Equal(t, "L2", sel.List.EventID)

	// A list older than the current one, arriving late (a replay, a slow
	// producer), does not replace it.
	b.postOK(t, "t1", list("L0", at.Add(-time.Minute), "/z/1", "/z/2", "/z/3"))
	b.waitIngested(t)
	_, it = b.selectOK(t, "t1", "s1", 3)
	require.Equal(t, "/b/3", it.Ref)

	// A shorter list replaces it: 4 is now out of range.
	b.postOK(t, "t1", list("L3", at.Add(2*time.Minute), "/c/1", "/c/2"))
	b.waitIngested(t)
	requireCode(t, b.get(t, "t1", selectionPath("s1", "4")), http.StatusNotFound, "out_of_range")
	_, it = b.selectOK(t, "t1", "s1", 2)
	require.Equal(t, "/c/2", it.Ref)

	// "Nothing found" shown as an empty list replaces it too: "1" has no answer.
	b.postOK(t, "t1", newTurn("L4", "u1", "s1", "nothing found", at.Add(3*time.Minute)).with("role", "assistant", "items", []any{}))
	b.waitIngested(t)
	res := b.get(t, "t1", selectionPath("s1", "1"))
	requireCode(t, res, http.StatusNotFound, "out_of_range")
	require.Contains(t, decode[errorBody](t, res).Error.Message, "is empty")
}

func TestSelectionSessionsInterleaved(t *testing.T) {
	t.Parallel()
	b := setup(t, withIngest)
	at := testNow.Add(-time.Hour)
	// Two sessions of one user and one of another, lists interleaved in time and
	// published in one batch in an order unrelated to it.
	var batch []turn
	for i := range 6 {
		for _, s := range []struct{ user, session string }{{"u1", "sA"}, {"u1", "sB"}, {"u2", "sC"}} {
			id := fmt.Sprintf("%s-%d", s.session, i)
			refs := []string{fmt.Sprintf("/%s/%d/1", s.session, i), fmt.Sprintf("/%s/%d/2", s.session, i), fmt.Sprintf("/%s/%d/3", s.session, i)}
			when := at.Add(time.Duration(i)*time.Minute + time.Duration(len(batch))*time.Second)
			batch = append(batch, newTurn(id, s.user, s.session, "", when).with("role", "assistant", "items", films(refs...)))
		}
	}
	for i, j := 0, len(batch)-1; i < j; i, j = i+2, j-2 {
		batch[i], batch[j] = batch[j], batch[i]
	}
	b.postOK(t, "t1", batch...)
	b.waitIngested(t)
	for _, s := range []string{"sA", "sB", "sC"} {
		sel, it := b.selectOK(t, "t1", s, 3)
		require.Equal(t, fmt.Sprintf("/%s/5/3", s), it.Ref)
		require.Equal(t, s+"-5", sel.List.EventID)
	}
	// The same session id in another tenant is another session.
	requireCode(t, b.get(t, "t2", selectionPath("sA", "1")), http.StatusNotFound, "not_found")
}

func TestUnseenRequests(t *testing.T) {
	t.Parallel()
	b := setup(t, withIngest)
	b.startSeen(t, seen.Config{})
	b.postOK(t, "t1", newTurn("L1", "u1", "s1", "", testNow.Add(-time.Hour)).with("role", "assistant", "items", films("/m/1", "/m/2")))
	b.waitStored(t)
	post := func(tenant, user, body string) response {
		return b.do(t, http.MethodPost, userItemsPath(user, "unseen"), tenant, []byte(body))
	}

	res := post("t1", "u1", `{"refs":["/m/3","/m/1","/m/3","/m/4","/m/2"]}`)
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	require.Equal(t, unseenBody{UserID: "u1", Unseen: []string{"/m/3", "/m/4"}}, decode[unseenBody](t, res), "in order, each once")

	res = post("t1", "u1", `{"refs":["/m/3","/m/4","/m/5"],"mark_notified":true}`)
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	require.Equal(t, unseenBody{UserID: "u1", Unseen: []string{"/m/3", "/m/4", "/m/5"}, Marked: 3}, decode[unseenBody](t, res))
	res = post("t1", "u1", `{"refs":["/m/3","/m/4","/m/5","/m/6"],"mark_notified":true}`)
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	require.Equal(t, unseenBody{UserID: "u1", Unseen: []string{"/m/6"}, Marked: 1}, decode[unseenBody](t, res), "notified once is enough")

	// A retried notification (same id) gets the same answer.
	body := `{"refs":["/m/7","/m/1","/m/8"],"mark_notified":true,"notification_id":"daily-1"}`
	for range 2 {
		res = post("t1", "u1", body)
		require.Equal(t, http.StatusOK, res.Status, string(res.Body))
		require.Equal(t, []string{"/m/7", "/m/8"}, decode[unseenBody](t, res).Unseen)
	}
	res = post("t1", "u1", `{"refs":["/m/7","/m/8","/m/9"],"mark_notified":true,"notification_id":"daily-2"}`)
	require.Equal(t, []string{"/m/9"}, decode[unseenBody](t, res).Unseen)

	// Other users and tenants have seen nothing.
	res = post("t1", "u2", `{"refs":["/m/1","/m/3"]}`)
	require.Equal(t, []string{"/m/1", "/m/3"}, decode[unseenBody](t, res).Unseen)
	res = post("t2", "u1", `{"refs":["/m/1","/m/3"]}`)
	require.Equal(t, []string{"/m/1", "/m/3"}, decode[unseenBody](t, res).Unseen)

	many := make([]string, 1001)
	for i := range many {
		many[i] = fmt.Sprintf("/r/%d", i)
	}
	cases := []struct {
		name, body string
		fields     []string
	}{
		{"no refs", `{}`, []string{"refs"}},
		{"empty refs", `{"refs":[]}`, []string{"refs"}},
		{"too many refs", string(mustJSON(t, map[string]any{"refs": many})), []string{"refs"}},
		{"empty ref", `{"refs":["/a",""]}`, []string{"refs[1]"}},
		{"long ref", `{"refs":["/` + strings.Repeat("x", events.MaxRefBytes) + `"]}`, []string{"refs[0]"}},
		{"nul in ref", `{"refs":["a\u0000b"]}`, []string{"refs[0]"}},
		{"half a surrogate pair", `{"refs":["/a","/b\ud83d","/b\ud83e"],"notification_id":"n\udc00"}`, []string{"refs[1]", "refs[2]", "notification_id"}},
		{"ref not a string", `{"refs":["/a",5]}`, []string{"refs"}},
		{"refs not an array", `{"refs":"/a"}`, []string{"refs"}},
		{"mark not a bool", `{"refs":["/a"],"mark_notified":"yes"}`, []string{"mark_notified"}},
		{"bad notification id", `{"refs":["/a"],"mark_notified":true,"notification_id":"a\nb"}`, []string{"notification_id"}},
		{"misspelled field", `{"refs":["/a"],"mark_notify":true}`, []string{"mark_notify"}},
		{"not an object", `["/a"]`, []string{"(body)"}},
		{"malformed", `{"refs":`, []string{"(body)"}},
		{"two objects", `{"refs":["/a"]}{"refs":["/b"]}`, []string{"(body)"}},
		{"every problem at once", `{"refs":["","/a",""],"notification_id":"` + strings.Repeat("n", 129) + `"}`, []string{"refs[0]", "refs[2]", "notification_id"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.fields, requireFields(t, post("t1", "u1", tc.body), http.StatusBadRequest))
		})
	}
	t.Run("bad user id", func(t *testing.T) {
		t.Parallel()
		require.Equal(t, []string{"user_id"}, requireFields(t, post("t1", strings.Repeat("u", 129), `{"refs":["/a"]}`), http.StatusBadRequest))
	})
	t.Run("nothing was marked by rejected requests", func(t *testing.T) {
		t.Parallel()
		res := post("t1", "u1", `{"refs":["/a"]}`)
		require.Equal(t, []string{"/a"}, decode[unseenBody](t, res).Unseen)
	})
}

// Every presented item lands in the user's registry once per turn, however often
// the turn is delivered, published or replayed.
func TestSeenRegistryThroughTheAPI(t *testing.T) {
	t.Parallel()
	b := setup(t, withIngest)
	b.startSeen(t, seen.Config{})
	at := testNow.Add(-2 * time.Hour)
	first := newTurn("L1", "u1", "s1", "", at).with("role", "assistant", "items", films("/m/1", "/m/2"))
	b.postOK(t, "t1", first)
	res := b.post(t, "t1", first)
	require.Equal(t, http.StatusAccepted, res.Status, string(res.Body))
	require.True(t, decode[acceptedBody](t, res).Accepted[0].Duplicate)
	// Past the stream's dedupe (another message id): the database drops it.
	raw := mustJSON(t, first.with("tenant_id", "t1"))
	_, err := b.js.PublishMsg(t.Context(), &nats.Msg{Subject: events.TurnSubject("t1", "u1", "s1"), Data: raw,
		Header: nats.Header{jetstream.MsgIDHeader: []string{"replay-of-L1"}}})
	require.NoError(t, err)
	b.postOK(t, "t1", newTurn("L2", "u1", "s2", "", at.Add(time.Hour)).with("role", "assistant", "items", []any{
		map[string]any{"ref": "/m/2", "title": "film /m/2 (director's cut)", "attrs": map[string]any{"rating": 9.1, "tag": "classic"}},
	}))
	b.waitStored(t)

	res = b.get(t, "t1", userItemsPath("u1", "seen"))
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	seen := decode[seenBody](t, res)
	require.Equal(t, "u1", seen.UserID)
	require.Len(t, seen.Items, 2)
	m2, m1 := seen.Items[0], seen.Items[1]
	require.Equal(t, "/m/2", m2.Ref, "most recently shown first")
	require.EqualValues(t, 2, m2.TimesShown)
	require.True(t, at.Equal(m2.FirstSeenAt))
	require.True(t, at.Add(time.Hour).Equal(m2.LastSeenAt))
	require.Equal(t, "film /m/2 (director's cut)", m2.Title)
	require.Equal(t, map[string]any{"rating": 9.1, "tag": "classic"}, m2.Attrs)
	require.Equal(t, "s2", m2.LastSessionID)
	require.Equal(t, "L2", m2.LastEventID)
	require.Equal(t, "/m/1", m1.Ref)
	require.EqualValues(t, 1, m1.TimesShown, "a duplicate publish and a replay count nothing")

	res = b.get(t, "t1", userItemsPath("u1", "seen")+"?limit=1")
	require.Len(t, decode[seenBody](t, res).Items, 1)
	require.Equal(t, []string{"limit"}, requireFields(t, b.get(t, "t1", userItemsPath("u1", "seen")+"?limit=0"), http.StatusBadRequest))
	res = b.get(t, "t2", userItemsPath("u1", "seen"))
	require.Equal(t, http.StatusOK, res.Status)
	require.Empty(t, decode[seenBody](t, res).Items, "another tenant's user of the same id has seen nothing")
}

// The registry keeps ITEMS_SEEN_CAP items per user, as the seen worker is
// configured.
func TestSeenRegistryCap(t *testing.T) {
	t.Parallel()
	b := setup(t, withIngest)
	b.startSeen(t, seen.Config{Cap: 4})
	at := testNow.Add(-time.Hour)
	for i := range 3 {
		refs := []string{fmt.Sprintf("/m/%d-a", i), fmt.Sprintf("/m/%d-b", i)}
		b.postOK(t, "t1", newTurn(fmt.Sprintf("L%d", i), "u1", "s1", "", at.Add(time.Duration(i)*time.Minute)).with("role", "assistant", "items", films(refs...)))
		b.waitStored(t)
	}
	res := b.get(t, "t1", userItemsPath("u1", "seen"))
	var refs []string
	for _, it := range decode[seenBody](t, res).Items {
		refs = append(refs, it.Ref)
	}
	require.ElementsMatch(t, []string{"/m/1-a", "/m/1-b", "/m/2-a", "/m/2-b"}, refs, "the first list, first seen longest ago, is evicted")
	res = b.do(t, http.MethodPost, userItemsPath("u1", "unseen"), "t1", []byte(`{"refs":["/m/0-a","/m/2-a"]}`))
	require.Equal(t, []string{"/m/0-a"}, decode[unseenBody](t, res).Unseen, "an evicted item counts as never shown")
}

// Tool calls and items come back from GET …/messages with the values that were
// posted: numbers exactly (big integers, decimals, exponents), unicode in any
// spelling, nested attrs, zero values, and null apart from absent; and, from a
// turn published straight to the stream, fields Recall does not know (the API
// refuses them: TestPostTurnsUnknownFields).
func TestMessagesKeepStructureAsSent(t *testing.T) {
	t.Parallel()
	b := setup(t, withIngest)
	const toolCalls = `[{"id":"call_1","name":"search","arguments":{"q":"\u79d1\u5e7b","page":1,"filters":{"year":[1965,1990],"lang":null}},` +
		`"result":{"hits":[{"ref":"/b/1","score":0.5}],"total":12345678901234567890,"ratio":1.0,"tiny":1.5e-7,"huge":1E+400,"neg":-0.25,"html":"<b>&amp;</b>","next":null},` +
		`"status":"","duration_ms":0},` +
		`{"name":"noop"}]`
	const items = `[{"ref":"/mv/823D","title":"三体 \ud83d\ude00 \u00e9","attrs":{"rating":9.30,"tags":["科幻","经典"],"nested":{"a":[1,{"b":null}],"empty":{}},"votes":100000000000000000001}},` +
		`{"ref":"/mv/17","title":"","attrs":null},` +
		`{"ref":"/mv/99"}]`
	const metadata = `{"channel":"web","score":2.50,"flags":[true,false,null]}`
	body := `{"id":"rt1","user_id":"u1","session_id":"s1","occurred_at":"2026-11-22T11:00:00.123456Z","role":"assistant","content":"",` +
		`"tool_calls":` + toolCalls + `,"items":` + items + `,"metadata":` + metadata + `}`
	res := b.do(t, http.MethodPost, "/v1/turns", "t1", []byte(body))
	require.Equal(t, http.StatusAccepted, res.Status, string(res.Body))
	b.postOK(t, "t1", newTurn("rt2", "u1", "s1", "plain", testNow.Add(-time.Minute)).with("metadata", nil))
	b.postOK(t, "t1", turn{"id": "rt3", "user_id": "u1", "session_id": "s1", "occurred_at": testNow.Add(-30 * time.Second).Format(time.RFC3339), "role": "user", "content": "x", "metadata": nil})
	// The same turn published straight to the stream by a producer, in
	// session s2, with fields Recall does not know in a tool call and an
	// item: the stream's decode keeps them as sent.
	unknown := strings.NewReplacer(`"duration_ms":0}`, `"duration_ms":0,"trace":{"span":"ab12"}}`,
		`"votes":100000000000000000001}}`, `"votes":100000000000000000001},"url":"https://example.com/mv/823D"}`)
	directCalls, directItems := unknown.Replace(toolCalls), unknown.Replace(items)
	require.NotEqual(t, toolCalls, directCalls)
	require.NotEqual(t, items, directItems)
	direct := strings.NewReplacer(`"id":"rt1"`, `"id":"rt1-direct","tenant_id":"t1"`, `"session_id":"s1"`, `"session_id":"s2"`).Replace(unknown.Replace(body))
	_, err := b.js.PublishMsg(t.Context(), &nats.Msg{Subject: events.TurnSubject("t1", "u1", "s2"), Data: []byte(direct),
		Header: nats.Header{jetstream.MsgIDHeader: []string{events.MsgID("t1", "rt1-direct")}}})
	require.NoError(t, err)
	b.waitIngested(t)

	res = b.get(t, "t1", sessionPath("s1", "messages"))
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	var page struct {
		Messages []map[string]json.RawMessage `json:"messages"`
	}
	require.NoError(t, json.Unmarshal(res.Body, &page))
	require.Len(t, page.Messages, 3)
	got := page.Messages[0]
	requireSameValue(t, toolCalls, got["tool_calls"], "tool_calls")
	requireSameValue(t, items, got["items"], "items")
	requireSameValue(t, metadata, got["metadata"], "metadata")
	require.NotContains(t, page.Messages[1], "items", "absent stays absent")
	require.NotContains(t, page.Messages[1], "tool_calls")
	require.NotContains(t, page.Messages[1], "metadata")
	require.Equal(t, "null", string(page.Messages[2]["metadata"]), "null stays null")

	res = b.get(t, "t1", sessionPath("s2", "messages"))
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	require.NoError(t, json.Unmarshal(res.Body, &page))
	require.Len(t, page.Messages, 1)
	requireSameValue(t, directCalls, page.Messages[0]["tool_calls"], "published tool_calls")
	requireSameValue(t, directItems, page.Messages[0]["items"], "published items")
	requireSameValue(t, metadata, page.Messages[0]["metadata"], "published metadata")

	// The selection answers with the same values.
	var sent []json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(items), &sent))
	for n := 1; n <= 3; n++ {
		sel, _ := b.selectOK(t, "t1", "s1", n)
		requireSameValue(t, string(sent[n-1]), sel.Item, fmt.Sprintf("item %d", n))
	}
}

// startSeen runs the seen-item worker with cfg's Cap until the test ends.
func (b *bundle) startSeen(t *testing.T, cfg seen.Config) {
	t.Helper()
	testenv.StartWorker(t, b.nats, b.db, seen.Def, func(c *seen.Config) { c.Cap = cfg.Cap })
}

// waitStored waits until both ingest and the seen worker have settled the turn
// stream (waitIngested also requires that nothing was dead-lettered).
func (b *bundle) waitStored(t *testing.T) {
	t.Helper()
	b.nats.WaitSettled(t, queue.TurnsStream, seen.Def.Binding.Durable)
	b.waitIngested(t)
}

// requireSameValue checks that two JSON texts hold the same value: the same
// keys (null is not absent), the same strings, and numbers equal as exact
// decimals (1.0 = 1, 1E+2 = 100, but 12345678901234567890 ≠ 12345678901234567000).
func requireSameValue(t *testing.T, want string, got json.RawMessage, what string) {
	t.Helper()
	require.NotEmpty(t, got, what)
	require.Equal(t, exactValue(t, []byte(want)), exactValue(t, got), "%s\nsent: %s\n got: %s", what, want, got)
}

func exactValue(t *testing.T, raw []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	require.NoError(t, dec.Decode(&v))
	var walk func(any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case json.Number:
			r, ok := new(big.Rat).SetString(string(x))
			require.True(t, ok, "number %s", x)
			return "number " + r.RatString()
		case []any:
			for i := range x {
				x[i] = walk(x[i])
			}
		case map[string]any:
			for k := range x {
				x[k] = walk(x[k])
			}
		}
		return v
	}
	return walk(v)
}

// Two tenants using the same event, user and session ids have their own lists
// and registries; neither can read or mark the other's.
func TestItemsTenantIsolation(t *testing.T) {
	t.Parallel()
	b := setup(t, withIngest)
	b.startSeen(t, seen.Config{})
	at := testNow.Add(-time.Hour)
	b.postOK(t, "A", newTurn("L1", "u1", "s1", "", at).with("role", "assistant", "items", films("/a/1", "/a/2", "/a/3")))
	b.postOK(t, "B", newTurn("L1", "u1", "s1", "", at.Add(time.Minute)).with("role", "assistant", "items", films("/b/1", "/b/2")))
	b.waitStored(t)

	_, it := b.selectOK(t, "A", "s1", 3)
	require.Equal(t, "/a/3", it.Ref)
	_, it = b.selectOK(t, "B", "s1", 2)
	require.Equal(t, "/b/2", it.Ref)
	requireCode(t, b.get(t, "B", selectionPath("s1", "3")), http.StatusNotFound, "out_of_range")
	requireCode(t, b.get(t, "C", selectionPath("s1", "1")), http.StatusNotFound, "not_found")

	for tenant, want := range map[string][]string{"A": {"/b/1", "/b/2"}, "B": {"/a/1", "/a/2", "/a/3"}, "C": {"/a/1", "/a/2", "/a/3", "/b/1", "/b/2"}} {
		res := b.do(t, http.MethodPost, userItemsPath("u1", "unseen"), tenant, []byte(`{"refs":["/a/1","/a/2","/a/3","/b/1","/b/2"],"mark_notified":true}`))
		require.Equal(t, http.StatusOK, res.Status, string(res.Body))
		require.Equal(t, want, decode[unseenBody](t, res).Unseen, tenant)
	}
	for tenant, n := range map[string]int{"A": 3, "B": 2, "C": 0} {
		res := b.get(t, tenant, userItemsPath("u1", "seen"))
		require.Len(t, decode[seenBody](t, res).Items, n, tenant)
	}
	// C's notifications did not touch A's or B's.
	res := b.do(t, http.MethodPost, userItemsPath("u1", "unseen"), "A", []byte(`{"refs":["/c/1"]}`))
	require.Equal(t, []string{"/c/1"}, decode[unseenBody](t, res).Unseen)
}
