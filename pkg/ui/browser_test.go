package ui_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/contract"
	"github.com/recallhq/recall/pkg/eventmsg"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/habits"
	"github.com/recallhq/recall/pkg/queue"
	"github.com/recallhq/recall/pkg/workers/decayer"
)

const (
	tenantA = "tenantA"
	keyA    = "key-of-tenant-A-0123456789"
	tenantB = "tenantB"
	keyB    = "key-of-tenant-B-9876543210"
	// tenantC has a key and no data at all: a tenant id typed by mistake
	// looks like it.
	tenantC = "tenantC"
	keyC    = "key-of-tenant-C-1357924680"
	// heavyMessages are the messages of a user with a long history, in
	// sessions of 1000.
	heavyMessages = 3000
	// userA needs encoding in paths, subjects and the page's address.
	userA = "林伟"
)

// client calls a live Recall's /v1 as one tenant.
type client struct {
	t            *testing.T
	base, tenant string
	key          string
}

func (c client) do(method, path string, body any) (int, []byte) {
	c.t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		require.NoError(c.t, err)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(c.t.Context(), method, c.base+path, rd)
	require.NoError(c.t, err)
	req.Header.Set("X-Tenant-ID", c.tenant)
	req.Header.Set("Authorization", "Bearer "+c.key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(c.t, err)
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	require.NoError(c.t, err)
	return res.StatusCode, data
}

type turn = map[string]any

// TestInspectorInBrowser drives the inspector in headless Chromium against a
// whole Recall (`recall run`) with seeded turns in Chinese and English, tool
// calls and a presented list, a dead letter and a decayer run: every page
// renders them, the weight chart is drawn, a re-drive and a forget work, and
// tenant B's key sees none of tenant A's data. Screenshots of every page at
// desktop and phone width are written to .data/ui-screenshots/ (or
// $INSPECTOR_SCREENSHOTS).
func TestInspectorInBrowser(t *testing.T) {
	t.Parallel()
	script, err := filepath.Abs("browsertest/inspector.mjs")
	require.NoError(t, err)
	for _, need := range []string{"/usr/bin/chromium", "browsertest/node_modules/playwright-core"} {
		_, err := os.Stat(need)
		require.NoError(t, err, "the browser test needs %s: run `make test-deps` (scripts/ensure-browser.sh)", need)
	}
	shots := os.Getenv("INSPECTOR_SCREENSHOTS")
	if shots == "" {
		shots, err = filepath.Abs("../../.data/ui-screenshots")
		require.NoError(t, err)
	}
	require.NoError(t, os.MkdirAll(shots, 0o755))

	// A duplicate window longer than the test, so the seeded duplicate is
	// still refused when the page re-drives it.
	// Webhook deliveries get one attempt each, so that they fail at once
	// while the receiver refuses them, to a receiver on this machine.
	l := testenv.StartRecall(t, "API_KEYS="+tenantA+":"+keyA+","+tenantB+":"+keyB+","+tenantC+":"+keyC, "STREAM_DUPLICATE_WINDOW=10m",
		"WEBHOOK_ALLOW_PRIVATE=true", "WEBHOOK_MAX_ATTEMPTS=1", "WEBHOOK_POLL_INTERVAL=100ms")
	a := client{t: t, base: l.URL, tenant: tenantA, key: keyA}
	b := client{t: t, base: l.URL, tenant: tenantB, key: keyB}

	// A webhook endpoint of tenant A for its attribute changes, answering
	// 503 for the seeded user's until the deliveries have failed; the page
	// re-drives one, and forgetting the user takes the others' dead letters
	// with it. Every other user's changes (the heavy user's habits, which
	// the feed may be told of before or after the seeded user's) are taken
	// at once: their deliveries never fail, so no dead letter of theirs
	// outlives the page.
	var hookStatus atomic.Int32
	hookStatus.Store(http.StatusServiceUnavailable)
	var hookDelivered atomic.Int32
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var change struct {
			UserID string `json:"user_id"`
		}
		if err := json.NewDecoder(r.Body).Decode(&change); err != nil || change.UserID != userA {
			w.WriteHeader(http.StatusOK)
			return
		}
		code := int(hookStatus.Load())
		if code == http.StatusOK {
			hookDelivered.Add(1)
		}
		w.WriteHeader(code)
	}))
	t.Cleanup(receiver.Close)
	status, body := a.do(http.MethodPost, "/v1/webhooks", contract.WebhookCreate{URL: receiver.URL + "/recall", Types: []string{"attribute.*"}})
	require.Equal(t, http.StatusCreated, status, string(body))
	var hook contract.Webhook
	require.NoError(t, json.Unmarshal(body, &hook))

	now := time.Now().UTC().Truncate(time.Second)
	at := func(d time.Duration) string { return now.Add(-d).Format(time.RFC3339) }
	day := 24 * time.Hour
	post := func(c client, turns ...turn) {
		status, body := c.do(http.MethodPost, "/v1/turns", turns)
		require.Equal(t, http.StatusAccepted, status, string(body))
	}
	// Three sessions: two months ago, five weeks ago and this hour, so the
	// facts have decayed, been mentioned again and expire in the future.
	post(a,
		turn{"id": "old-1", "user_id": userA, "session_id": "s-old", "occurred_at": at(75 * day), "role": "user",
			"content": "我最近在读《三体》，很喜欢刘慈欣的小说。"},
		turn{"id": "old-2", "user_id": userA, "session_id": "s-old", "occurred_at": at(75*day - time.Minute), "role": "assistant",
			"content": "《三体》是很好的选择！你还可以试试《球状闪电》。"},
		turn{"id": "old-3", "user_id": userA, "session_id": "s-old", "occurred_at": at(75*day - 2*time.Minute), "role": "user",
			"content": "I also loved the novel 《Dune》 by Frank Herbert."},
		turn{"id": "old-4", "user_id": userA, "session_id": "s-old", "occurred_at": at(75*day - 3*time.Minute), "role": "user",
			"content": "I'm terrified of flying, so we always take the train."},
		turn{"id": "mid-1", "user_id": userA, "session_id": "s-mid", "occurred_at": at(40 * day), "role": "user",
			"content": "又把《三体》重读了一遍，还想看看《流浪地球》。"},
		turn{"id": "now-1", "user_id": userA, "session_id": "s-now", "occurred_at": at(time.Hour), "role": "user",
			"content": "推荐几本科幻小说"},
		turn{"id": "now-2", "user_id": userA, "session_id": "s-now", "occurred_at": at(time.Hour - time.Minute), "role": "assistant",
			"content": "Here are three science-fiction novels you might like:",
			"tool_calls": []any{map[string]any{"id": "call_1", "name": "search_books", "arguments": map[string]any{"q": "科幻", "limit": 3},
				"result": map[string]any{"total": 3}, "status": "ok", "duration_ms": 184}},
			"items": []any{
				map[string]any{"ref": "/book/823D", "title": "三体", "attrs": map[string]any{"author": "刘慈欣", "rating": 9.3}},
				map[string]any{"ref": "/book/77A1", "title": "球状闪电", "attrs": map[string]any{"author": "刘慈欣"}},
				map[string]any{"ref": "/book/19F0", "title": "Dune", "attrs": map[string]any{"author": "Frank Herbert"}},
			}},
		turn{"id": "now-3", "user_id": userA, "session_id": "s-now", "occurred_at": at(time.Hour - 2*time.Minute), "role": "user",
			"content": "第三个怎么样？Tell me more about the third one."},
	)
	// A user with thousands of messages: the pages read them a page at a time.
	heavy := make([]turn, 0, heavyMessages)
	for i := range heavyMessages {
		role, content := "user", fmt.Sprintf("第%d条：我又在读《三体》了，第%d章。", i, i%40+1)
		if i%2 == 1 {
			role, content = "assistant", fmt.Sprintf("Message %d: noted, chapter %d of the book.", i, i%40+1)
		}
		heavy = append(heavy, turn{"id": fmt.Sprintf("h-%d", i), "user_id": "heavy", "session_id": fmt.Sprintf("h-s%d", i/1000),
			"occurred_at": at(30*day - time.Duration(i)*time.Minute), "role": role, "content": content})
	}
	for i := 0; i < len(heavy); i += 500 {
		post(a, heavy[i:min(i+500, len(heavy))]...)
	}
	post(b, turn{"id": "b-1", "user_id": "bob", "session_id": "b-s1", "occurred_at": at(time.Hour), "role": "user", "content": "I like 《Neuromancer》."})

	// Stored, and the extractor has found the facts.
	require.Eventually(t, func() bool {
		status, body := a.do(http.MethodGet, "/v1/users/"+url.PathEscape(userA)+"/facts", nil)
		return status == http.StatusOK && strings.Contains(string(body), "三体") &&
			strings.Contains(string(body), "流浪地球")
	}, 30*time.Second, 100*time.Millisecond, "the extractor records the facts")
	require.Eventually(t, func() bool {
		_, body := a.do(http.MethodGet, "/v1/users/heavy/sessions", nil)
		return strings.Count(string(body), `"message_count":1000`) == heavyMessages/1000
	}, 60*time.Second, 100*time.Millisecond, "ingest stores the heavy user's messages")
	for _, s := range []string{"s-old", "s-now"} {
		status, body := a.do(http.MethodPost, "/v1/sessions/"+s+"/summarize?wait=20s", nil)
		require.Equal(t, http.StatusOK, status, string(body))
	}
	// Who the user is and what they asked for, set explicitly: the user page
	// shows them, removes one and sets another.
	status, body = a.do(http.MethodPatch, "/v1/users/"+url.PathEscape(userA)+"/attributes", map[string]any{"id": "seed-attrs",
		"edits": []map[string]any{{"key": "allergies", "op": "put", "value": "花生"}, {"key": "location", "op": "put", "value": "杭州"},
			{"key": "reply_language", "op": "put", "value": "中文"}}})
	require.Equal(t, http.StatusAccepted, status, string(body))
	require.Eventually(t, func() bool {
		_, body := a.do(http.MethodGet, "/v1/users/"+url.PathEscape(userA)+"/attributes", nil)
		return strings.Count(string(body), `"source":"explicit"`) == 3
	}, 30*time.Second, 100*time.Millisecond, "the catalog worker stores the edits")

	// A catalog and a shelf, published to JetStream as a catalog service
	// would: the profiler ranks the catalog by the user's interests.
	js := l.ConnectNATS(t)
	pub := queue.NewPublisher(js)
	var items []events.CatalogItem
	for i, it := range [][3]string{
		{"/book/823D", "三体", `{"author":"刘慈欣","genre":"科幻"}`},
		{"/book/77A1", "球状闪电", `{"author":"刘慈欣","genre":"科幻"}`},
		{"/book/19F0", "Dune", `{"author":"Frank Herbert","genre":"science fiction"}`},
		{"/book/5E21", "流浪地球", `{"author":"刘慈欣","genre":"科幻"}`},
		{"/book/A0B3", "Foundation", `{"author":"Isaac Asimov","genre":"science fiction"}`},
		{"/book/C9D8", "红楼梦", `{"author":"曹雪芹","genre":"古典"}`},
	} {
		items = append(items, events.CatalogItem{V: events.Version, ID: fmt.Sprintf("cat-%d", i), TenantID: tenantA,
			OccurredAt: now.Add(-80 * day), Ref: it[0], Type: "book", Title: it[1], Attrs: json.RawMessage(it[2])})
	}
	_, err = pub.PublishCatalogItems(t.Context(), items)
	require.NoError(t, err)
	_, err = pub.PublishShelfEntries(t.Context(), []events.ShelfEntry{
		{V: events.Version, ID: "shelf-1", TenantID: tenantA, UserID: userA, OccurredAt: now.Add(-70 * day), Ref: "/book/823D", Status: events.ShelfRead},
		{V: events.Version, ID: "shelf-2", TenantID: tenantA, UserID: userA, OccurredAt: now.Add(-2 * day), Ref: "/book/19F0", Status: events.ShelfReading},
	})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		status, body := a.do(http.MethodGet, "/v1/users/"+url.PathEscape(userA)+"/recommendations", nil)
		return status == http.StatusOK && strings.Contains(string(body), "Foundation")
	}, 30*time.Second, 100*time.Millisecond, "the profiler ranks the catalog for the user")

	// A turn three workers gave up on (written by the runner's own
	// dead-letter writer): the database refused it five times for ingest,
	// the extractor and the indexer gave up sooner. The page shows it once
	// with its three consumers; re-driven, it is stored.
	late := events.Turn{V: events.Version, ID: "late-1", TenantID: tenantA, UserID: userA, SessionID: "s-now",
		OccurredAt: now.Add(-50 * time.Minute), Role: events.RoleUser, Content: "这条消息曾被退回 — this turn came back from the dead letters."}
	msg, err := eventmsg.Turn(&late)
	require.NoError(t, err)
	for _, dl := range []struct {
		consumer   string
		deliveries uint64
		reason     string
	}{
		{"ingest", 5, "gave up after 5 deliveries: store messages: the database refused the batch"},
		{"extractor", 1, "permanent: extract facts: the model answered no JSON"},
		{"indexer", 3, "gave up after 3 deliveries: embed: the embedder timed out"},
	} {
		require.NoError(t, queue.DeadLetter(t.Context(), js, dl.consumer, queue.TurnsStream,
			queue.Message{Subject: msg.Subject, Data: msg.Data, Header: msg.Header, Seq: 9999, Deliveries: dl.deliveries}, dl.reason))
	}
	// A turn the stream stored a moment ago and a worker gave up on: its
	// message id is inside the stream's duplicate window, so a re-drive is
	// refused until the window has passed since the stored copy.
	dup := events.Turn{V: events.Version, ID: "dup-1", TenantID: tenantA, UserID: userA, SessionID: "s-now",
		OccurredAt: now.Add(-40 * time.Minute), Role: events.RoleUser, Content: "这条消息刚刚存过 — stored a moment ago."}
	dmsg, err := eventmsg.Turn(&dup)
	require.NoError(t, err)
	ack, err := js.PublishMsg(t.Context(), dmsg)
	require.NoError(t, err)
	require.NoError(t, queue.DeadLetter(t.Context(), js, "seen", queue.TurnsStream,
		queue.Message{Subject: dmsg.Subject, Data: dmsg.Data, Header: dmsg.Header, Seq: ack.Sequence, Deliveries: 2}, "gave up after 2 deliveries: seen: the database refused the batch"))
	turns, err := js.Stream(t.Context(), queue.TurnsStream)
	require.NoError(t, err)
	stored, err := turns.GetMsg(t.Context(), ack.Sequence)
	require.NoError(t, err)
	dupUntil := stored.Time.Add(turns.CachedInfo().Config.Duplicates).UTC()
	// The decayer ran at start.
	require.Eventually(t, func() bool {
		_, body := a.do(http.MethodGet, "/v1/ops/decayer", nil)
		return strings.Contains(string(body), `"last_run":{`)
	}, 20*time.Second, 100*time.Millisecond)
	// A run now, as the next scheduled one would, derives the users' habits
	// from the turns above (the seeded user has written six), once ingest
	// has stored them all: the facts and the heavy user's sessions waited
	// for above are other workers' and other turns.
	require.Eventually(t, func() bool {
		_, body := a.do(http.MethodGet, "/v1/users/"+url.PathEscape(userA)+"/sessions", nil)
		var got contract.UserSessions
		if json.Unmarshal(body, &got) != nil {
			return false
		}
		n := map[string]int64{}
		for _, s := range got.Sessions {
			n[s.SessionID] = s.MessageCount
		}
		return n["s-old"] == 4 && n["s-mid"] == 1 && n["s-now"] >= 3
	}, 60*time.Second, 100*time.Millisecond, "ingest stores the seeded user's turns")
	dc, err := decayer.New(decayer.Options{Config: decayer.Config{Habits: habits.Config{Derive: true, MinMessages: 3}}, Store: l.DB.Store})
	require.NoError(t, err)
	rep, err := dc.RunOnce(t.Context())
	require.NoError(t, err)
	require.Positive(t, rep.Count(decayer.StepHabits, decayer.OutcomeAttributesDerived))

	// The seeded user's attribute changes' deliveries failed: the webhook
	// worker has taken every change of the stream so far, and none of the
	// endpoint's deliveries is pending. From now on the receiver takes them
	// (a change of the habits run told the feed later is delivered).
	changes, err := js.Stream(t.Context(), queue.ChangesStream)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		c, err := changes.Consumer(t.Context(), "webhooks")
		if err != nil {
			return false
		}
		info, err := c.Info(t.Context())
		if err != nil || info.NumPending > 0 || info.NumAckPending > 0 {
			return false
		}
		_, body := a.do(http.MethodGet, "/v1/webhooks/"+hook.ID+"/deliveries", nil)
		var d contract.WebhookDeliveries
		return json.Unmarshal(body, &d) == nil && d.Counts.Failed >= 3 && d.Counts.Pending == 0
	}, 30*time.Second, 100*time.Millisecond, "the webhook's deliveries fail, all of them")
	hookStatus.Store(http.StatusOK)

	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", script)
	cmd.Dir = filepath.Dir(script)
	cmd.Env = append(os.Environ(),
		"INSPECTOR_URL="+l.InspectorURL, "TENANT_A="+tenantA, "KEY_A="+keyA, "TENANT_B="+tenantB, "KEY_B="+keyB,
		"TENANT_C="+tenantC, "KEY_C="+keyC, "USER_A="+userA, "SESSION_A=s-now", "HEAVY_USER=heavy", "HEAVY_SESSION=h-s0",
		"LATE_ID="+late.ID, "DUP_ID="+dup.ID, "WEBHOOK_ID="+hook.ID, "DUP_UNTIL="+dupUntil.Format(time.DateTime), "SCREENSHOTS="+shots)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "the browser script failed:\n%s", out)
	t.Logf("browser script (%s):\n%s", time.Since(start).Round(time.Millisecond), out)

	// What the pages did, seen from the API: the re-driven turn was stored,
	// and the forgotten user is gone.
	status, body = a.do(http.MethodGet, "/v1/users/"+url.PathEscape(userA), nil)
	require.Equal(t, http.StatusNotFound, status, "forgotten through the page: %s", body)
	_, body = a.do(http.MethodGet, "/v1/ops/dead-letters", nil)
	require.JSONEq(t, `{"dead_letters":[]}`, string(body), "re-driven through the page")
	require.Positive(t, hookDelivered.Load(), "the delivery re-driven through the page reached the receiver")
	status, _ = b.do(http.MethodGet, "/v1/users/bob", nil)
	require.Equal(t, http.StatusOK, status, "tenant B's user is untouched")

	entries, err := os.ReadDir(shots)
	require.NoError(t, err)
	var pngs []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".png") {
			pngs = append(pngs, filepath.Join(shots, e.Name()))
		}
	}
	require.GreaterOrEqual(t, len(pngs), 8, "desktop and phone screenshots of every page")
	t.Logf("screenshots (see %s):\n%s", filepath.Join(shots, "index.txt"), strings.Join(pngs, "\n"))
}
