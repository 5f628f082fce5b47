package api_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/openaitest"
	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/api"
	"github.com/recallhq/recall/pkg/contract"
	"github.com/recallhq/recall/pkg/queue"
	"github.com/recallhq/recall/pkg/workers/indexer"
)

type recalledContext struct {
	Window   contract.Window    `json:"window"`
	Recalled *contract.Recalled `json:"recalled"`
	Prompt   string             `json:"prompt"`
}

type searchBody struct {
	Terms  []string             `json:"terms"`
	Search string               `json:"search"`
	Notes  []json.RawMessage    `json:"notes"`
	Hits   []contract.SearchHit `json:"hits"`
}

// history posts a user's past sessions through ingest and the indexer (the
// real workers) and waits until both have settled.
func history(t *testing.T, b *bundle) {
	t.Helper()
	testenv.StartWorker(t, b.nats, b.db, indexer.Def, nil)
	day := func(d int) time.Time { return time.Date(2026, 3, d, 9, 0, 0, 0, time.UTC) }
	b.postOK(t, "t",
		newTurn("h1", "u", "old-1", "We camped by Lake Tahoe last weekend and the water was freezing.", day(1)),
		newTurn("h2", "u", "old-1", "My sister Anna is training for the Boston marathon in April.", day(1).Add(time.Minute)),
		newTurn("h3", "u", "old-2", "我最近在读刘慈欣的《三体》，尤其喜欢黑暗森林那一部。", day(5)),
		newTurn("h4", "u", "old-2", "周末打算去杭州西湖边上的茶馆喝龙井。", day(5).Add(time.Minute)),
		newTurn("h5", "u", "old-3", "I adopted a grey cat called Pixel from the shelter.", day(9)),
		// Another user of the tenant, and the same user id in another tenant.
		newTurn("o1", "other", "x-1", "I also camped by Lake Tahoe, with my brother.", day(2)),
	)
	b.postOK(t, "t2", newTurn("z1", "u", "t2-1", "Lake Tahoe trip with colleagues.", day(3)))
	b.waitIngested(t)
	b.nats.WaitSettled(t, queue.TurnsStream, indexer.Def.Binding.Durable)
}

// A question in a new session recalls the turn of an earlier session that
// answers it, dated, from this user and tenant only; in Chinese by segmented
// terms, not whole strings; by GET and by POST alike.
func TestContextRecallsWhatTheQuestionNeeds(t *testing.T) {
	t.Parallel()
	b := setup(t, withIngest)
	history(t, b)

	ask := func(q string) recalledContext {
		t.Helper()
		res := b.do(t, http.MethodGet, "/v1/context?user_id=u&session_id=new&budget=8000&query="+url.QueryEscape(q), "t", nil)
		require.Equal(t, http.StatusOK, res.Status, string(res.Body))
		return decode[recalledContext](t, res)
	}
	c := ask("where did we go camping?")
	require.NotNil(t, c.Recalled)
	require.NotEmpty(t, c.Recalled.Hits)
	require.Equal(t, "h1", c.Recalled.Hits[0].EventID)
	require.Equal(t, "hybrid", c.Recalled.Search, "the offline embedder searches by vectors too")
	require.Regexp(t, `\[Sun 1 March 2026, [^\]]+ ago\] User: We camped by Lake Tahoe last weekend`, c.Prompt, "dated, and how long ago")
	for _, h := range c.Recalled.Hits {
		require.NotContains(t, h.Text, "brother", "another user's turn")
		require.NotContains(t, h.Text, "colleagues", "another tenant's turn")
	}

	// Chinese: 西湖 and 茶 are found inside the segmented turn.
	c = ask("西湖边有什么好的茶馆吗？")
	require.NotEmpty(t, c.Recalled.Hits)
	require.Equal(t, "h4", c.Recalled.Hits[0].EventID)
	c = ask("你还记得我在读哪本科幻小说吗，三体？")
	require.Equal(t, "h3", c.Recalled.Hits[0].EventID)

	// POST takes the same fields in a body.
	body, _ := json.Marshal(map[string]any{"user_id": "u", "session_id": "new", "query": "what is my cat called?", "budget": 8000})
	res := b.do(t, http.MethodPost, "/v1/context", "t", body)
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	c = decode[recalledContext](t, res)
	require.Equal(t, "h5", c.Recalled.Hits[0].EventID)

	// Without a query the context is what it was.
	res = b.do(t, http.MethodGet, "/v1/context?user_id=u&session_id=new", "t", nil)
	require.Equal(t, http.StatusOK, res.Status)
	require.Nil(t, decode[recalledContext](t, res).Recalled)

	// What the window shows is not recalled again.
	res = b.do(t, http.MethodGet, "/v1/context?user_id=u&session_id=old-1&ttl=100000h&query="+url.QueryEscape("camping at the lake"), "t", nil)
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	c = decode[recalledContext](t, res)
	require.NotEmpty(t, c.Window.Messages)
	for _, h := range c.Recalled.Hits {
		require.NotEqual(t, "h1", h.EventID, "h1 is in the window")
		require.NotEqual(t, "h2", h.EventID, "h2, its neighbour, too")
	}
	require.Contains(t, c.Recalled.Cuts, contract.Cut{Reason: "window", Count: 2})

	// Bad input names the field.
	require.Equal(t, []string{"max_recalled"}, requireFields(t, b.do(t, http.MethodGet, "/v1/context?user_id=u&session_id=s&query=x&max_recalled=1000", "t", nil), http.StatusBadRequest))
	require.Equal(t, []string{"nope"}, requireFields(t, b.do(t, http.MethodPost, "/v1/context", "t", []byte(`{"user_id":"u","session_id":"s","nope":1}`)), http.StatusBadRequest))
	require.Equal(t, []string{"budget"}, requireFields(t, b.do(t, http.MethodPost, "/v1/context", "t", []byte(`{"user_id":"u","session_id":"s","budget":[1]}`)), http.StatusBadRequest))
	require.Equal(t, []string{"query"}, requireFields(t, b.do(t, http.MethodPost, "/v1/context", "t", []byte(`{"user_id":"u","session_id":"s","query":"a\u0000b"}`)), http.StatusBadRequest))
}

// The search route answers the raw hits with their session, role, time and
// score, with filters; bad parameters are a 400 naming the field.
func TestSearchRoute(t *testing.T) {
	t.Parallel()
	b := setup(t, withIngest)
	history(t, b)
	get := func(q string) searchBody {
		t.Helper()
		res := b.do(t, http.MethodGet, "/v1/users/u/search?"+q, "t", nil)
		require.Equal(t, http.StatusOK, res.Status, string(res.Body))
		return decode[searchBody](t, res)
	}
	r := get("q=" + url.QueryEscape("marathon training") + "&k=3")
	require.NotEmpty(t, r.Hits)
	h := r.Hits[0]
	require.Equal(t, "h2", h.SourceID)
	require.Equal(t, "old-1", h.SessionID)
	require.Equal(t, "user", h.Role)
	require.Equal(t, time.Date(2026, 3, 1, 9, 1, 0, 0, time.UTC), h.OccurredAt.UTC())
	require.Positive(t, h.Score)
	require.LessOrEqual(t, len(r.Hits), 3)
	require.Contains(t, r.Terms, "marathon")

	r = get("q=" + url.QueryEscape("Lake Tahoe") + "&session_id=old-3")
	for _, h := range r.Hits {
		require.Equal(t, "old-3", h.SessionID)
	}
	r = get("q=" + url.QueryEscape("Lake Tahoe") + "&until=2026-03-02")
	require.Equal(t, "h1", r.Hits[0].SourceID)
	r = get("q=" + url.QueryEscape("Lake Tahoe") + "&since=2026-03-02")
	for _, h := range r.Hits {
		require.NotEqual(t, "h1", h.SourceID)
	}
	r = get("q=" + url.QueryEscape("Lake Tahoe") + "&neighbors=true&k=1")
	require.NotNil(t, r.Hits[0].Next, "the turn after the hit")
	require.Equal(t, "h2", r.Hits[0].Next.EventID)
	r = get("q=" + url.QueryEscape("Lake Tahoe") + "&neighbors=2&k=1")
	require.Equal(t, "h2", r.Hits[0].Next.EventID, "a number of turns on each side")
	require.Empty(t, r.Hits[0].Later, "the session has no more")
	r = get("q=" + url.QueryEscape("Lake Tahoe") + "&neighbors=0&k=1")
	require.Nil(t, r.Hits[0].Next)

	body, _ := json.Marshal(map[string]any{"q": "grey cat", "k": 2, "role": "user"})
	res := b.do(t, http.MethodPost, "/v1/users/u/search", "t", body)
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	require.Equal(t, "h5", decode[searchBody](t, res).Hits[0].SourceID)

	for _, tc := range []struct {
		query string
		field string
	}{
		{"k=1", "q"},
		{"q=x&k=0", "k"},
		{"q=x&k=101", "k"},
		{"q=x&role=bot", "role"},
		{"q=x&kind=everything", "kind"},
		{"q=x&since=yesterday", "since"},
		{"q=x&since=2026-03-02&until=2026-03-01", "until"},
		{"q=x&neighbors=maybe", "neighbors"},
		{"q=x&neighbors=4", "neighbors"},
		{"q=x&neighbors=-1", "neighbors"},
		{"q=" + url.QueryEscape(strings.Repeat("x", api.MaxQueryBytes+1)), "q"},
	} {
		require.Equal(t, []string{tc.field}, requireFields(t, b.do(t, http.MethodGet, "/v1/users/u/search?"+tc.query, "t", nil), http.StatusBadRequest), tc.query)
	}
	require.Equal(t, []string{"kk"}, requireFields(t, b.do(t, http.MethodPost, "/v1/users/u/search", "t", []byte(`{"q":"x","kk":1}`)), http.StatusBadRequest))
}

// A failing embedder degrades the history search to terms, with the reason
// in the response; the context is never failed by it.
func TestRecallDegradesToTermsWhenTheEmbedderFails(t *testing.T) {
	t.Parallel()
	fake := openaitest.New(t)
	fake.EnqueueEmbeddings(openaitest.Reply{Status: http.StatusInternalServerError}, openaitest.Reply{Status: http.StatusInternalServerError},
		openaitest.Reply{Status: http.StatusInternalServerError}, openaitest.Reply{Status: http.StatusInternalServerError})
	b := setup(t, withIngest, withConfig(func(c *api.Config) {
		c.Embed.BaseURL, c.Embed.Model, c.Embed.Dimensions = fake.URL()+"/v1", "text-embedding-3-small", 8
		c.Embed.Timeout, c.Embed.MaxRetries = time.Second, 0
		c.Embed.Batch, c.Embed.RetryInitial, c.Embed.RetryMax = 16, time.Millisecond, time.Millisecond
	}))
	history(t, b)
	res := b.do(t, http.MethodGet, "/v1/context?user_id=u&session_id=new&query="+url.QueryEscape("where did we go camping?"), "t", nil)
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	c := decode[recalledContext](t, res)
	require.Equal(t, "lexical", c.Recalled.Search)
	require.Equal(t, []contract.Note{{Reason: "embedder", Detail: "error"}}, c.Recalled.Notes)
	require.Equal(t, "h1", c.Recalled.Hits[0].EventID, "found by its terms")
	res = b.do(t, http.MethodGet, "/v1/users/u/search?q="+url.QueryEscape("grey cat"), "t", nil)
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	sb := decode[searchBody](t, res)
	require.Equal(t, "lexical", sb.Search)
	require.Len(t, sb.Notes, 1)
}
