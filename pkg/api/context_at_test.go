package api_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/api"
	"github.com/recallhq/recall/pkg/contract"
	"github.com/recallhq/recall/pkg/queue"
	"github.com/recallhq/recall/pkg/store"
	"github.com/recallhq/recall/pkg/workers/indexer"
	"github.com/recallhq/recall/pkg/workers/signals"
)

// months posts a user's turns over half a year through the real workers
// (ingest, indexer, catalog for the attribute edits) in two rounds, with the
// summaries the summarizer would write after each, and records the facts
// the extractor would: what a context as of early October may and may not
// hold.
//
//	Jun  2  jun:  "I started cello lessons…" (and the assistant's reply);
//	              its summary JUN-SUMMARY
//	Jun  3  jun2: "cello practice tonight"
//	Jun  5        the user lives in Paris (explicit edit)
//	Sep  1        fact: the book Dune
//	Sep 30  sep:  "cello practice tonight"
//	Oct  1  cur:  two turns at 09:00 and 10:00; the session's summary CUR-V1
//	Oct 15        the user lives in Berlin
//	Nov 15  nov:  "I switched from the cello to the violin…"; NOV-SUMMARY;
//	              facts: Dune again, the film Arrival
//	Nov 21  nov2: "cello practice tonight"
//	Nov 22  cur:  08:00 a third turn; the session's summary CUR-V2
func months(t *testing.T, b *bundle) {
	t.Helper()
	testenv.StartWorker(t, b.nats, b.db, indexer.Def, nil)
	testenv.StartWorker(t, b.nats, b.db, signals.Def, nil)
	day := func(m time.Month, d, h int) time.Time { return time.Date(2026, m, d, h, 0, 0, 0, time.UTC) }
	settle := func() {
		t.Helper()
		b.waitIngested(t)
		b.nats.WaitSettled(t, queue.TurnsStream, indexer.Def.Binding.Durable)
	}
	edit := func(id string, at time.Time, city string) {
		t.Helper()
		res := b.do(t, http.MethodPut, "/v1/users/u/attributes/location", "t", mustJSON(t, map[string]any{
			"value": city, "id": id, "occurred_at": at.Format(time.RFC3339)}))
		require.Equal(t, http.StatusAccepted, res.Status, string(res.Body))
	}
	mention := func(event, typ, value string, at time.Time) store.Mention {
		return store.Mention{TenantID: "t", EventID: event, UserID: "u", SessionID: "s-" + event, Type: typ, Value: value,
			Display: value, OccurredAt: at, ExpiresAt: at.Add(90 * 24 * time.Hour), Source: "rules"}
	}

	b.postOK(t, "t",
		newTurn("jun-1", "u", "jun", "I started cello lessons and practice every evening.", day(6, 2, 9)),
		newTurn("jun-2", "u", "jun", "The cello is a lovely instrument to learn.", day(6, 2, 9).Add(time.Minute)).with("role", "assistant"),
		newTurn("jun2-1", "u", "jun2", "cello practice tonight", day(6, 3, 20)),
		newTurn("sep-1", "u", "sep", "cello practice tonight", day(9, 30, 20)),
		newTurn("cur-1", "u", "cur", "Morning! Planning my week.", day(10, 1, 9)),
		newTurn("cur-2", "u", "cur", "Happy to help you plan the week.", day(10, 1, 10)).with("role", "assistant"),
	)
	edit("loc-1", day(6, 5, 10), "Paris")
	settle()
	b.storedSummary(t, "t", "jun", "JUN-SUMMARY")
	b.storedSummary(t, "t", "cur", "CUR-V1")

	b.postOK(t, "t",
		newTurn("nov-1", "u", "nov", "I switched from the cello to the violin last week.", day(11, 15, 10)),
		newTurn("nov2-1", "u", "nov2", "cello practice tonight", day(11, 21, 20)),
		newTurn("cur-3", "u", "cur", "Which instrument should I practice today?", day(11, 22, 8)),
	)
	edit("loc-2", day(10, 15, 10), "Berlin")
	settle()
	b.storedSummary(t, "t", "nov", "NOV-SUMMARY")
	b.storedSummary(t, "t", "cur", "CUR-V2")
	_, err := b.db.Store.RecordMentions(t.Context(), []store.Mention{
		mention("f1", "book_title", "dune", day(9, 1, 9)),
		mention("f2", "book_title", "dune", day(11, 15, 10)),
		mention("f3", "film", "arrival", day(11, 15, 10)),
	})
	require.NoError(t, err)
	waitOneValue(t, b, "u", "Berlin")
}

// waitOneValue waits until the user's attributes hold one current value,
// value: the catalog worker has stored the edits.
func waitOneValue(t *testing.T, b *bundle, user, value string) {
	t.Helper()
	require.Eventually(t, func() bool {
		res, err := b.send(t.Context(), http.MethodGet, "/v1/users/"+user+"/attributes", "t", nil)
		if err != nil || res.Status != http.StatusOK {
			return false
		}
		cur := decode[contract.Attributes](t, res).Current
		return len(cur) == 1 && cur[0].Value == value
	}, 10*time.Second, 20*time.Millisecond, "the attribute edits never arrived")
}

// A context asked with `at` is the one that would have been assembled
// then: its window, recall, attributes, facts and summaries hold only what
// came before at, and its time rules count from at. Without at it is
// today's.
func TestContextAt(t *testing.T) {
	t.Parallel()
	b := setup(t, withIngest, withConfig(func(c *api.Config) { c.ContextRecallDates = true }))
	months(t, b)
	ask := func(params ...string) contract.Context {
		t.Helper()
		res := b.get(t, "t", contextPath("u", "cur", params...))
		require.Equal(t, http.StatusOK, res.Status, string(res.Body))
		return decode[contract.Context](t, res)
	}
	windowIDs := func(c contract.Context) []string {
		var out []string
		for _, m := range c.Window.Messages {
			out = append(out, m.EventID)
		}
		return out
	}
	recalled := func(c contract.Context) []string {
		var out []string
		for _, h := range c.Recalled.Hits {
			out = append(out, h.EventID)
		}
		return out
	}
	const query = "which instrument am I learning, the cello?"

	// Today (2026-11-22 12:00): the newest turn; the October ones are past
	// the 24-hour TTL. The violin, Berlin and November's facts are known.
	c := ask("query", query)
	require.Equal(t, []string{"cur-3"}, windowIDs(c))
	require.Contains(t, c.Window.Cuts, contract.Cut{Reason: "ttl", Count: 2})
	require.Contains(t, recalled(c), "nov-1")
	require.Contains(t, c.Prompt, "I switched from the cello to the violin last week. [last week: the week before Sun 15 November 2026]",
		"a recalled turn's relative dates, as of the day it was said")
	require.Contains(t, c.Prompt, "Berlin")
	require.Contains(t, c.Prompt, "violin")
	require.Len(t, c.Facts.Facts, 2)

	// As of October 1st, noon.
	c = ask("query", query, "at", "2026-10-01T12:00:00Z")
	require.Equal(t, []string{"cur-1", "cur-2"}, windowIDs(c), "the turns before at, within 24 hours of it")
	require.Empty(t, c.Window.Cuts, "the November turn is not counted either")
	got := recalled(c)
	require.Contains(t, got, "jun-1")
	require.Contains(t, c.Prompt, "[Tue 2 June 2026, 4 months ago] User: I started cello lessons", "how long before at, not before now")
	for _, id := range []string{"nov-1", "nov2-1", "cur-3"} {
		require.NotContains(t, got, id, "said after at")
	}
	for _, later := range []string{"violin", "Berlin", "NOV-SUMMARY", "CUR-V2", "arrival", "Which instrument"} {
		require.NotContains(t, c.Prompt, later)
	}
	require.NotNil(t, c.Attributes)
	require.Equal(t, []string{"Paris"}, c.Attributes.About[0].Values, "the value before the edit of October 15th")
	require.Len(t, c.Facts.Facts, 1)
	require.Equal(t, "dune", c.Facts.Facts[0].Value)
	require.EqualValues(t, 1, c.Facts.Facts[0].MentionCount, "November's mention had not happened")
	require.InDelta(t, 0.9, c.Facts.Facts[0].Weight, 1e-9, "one full 30-day period from September 1st to at")
	require.Len(t, c.Summaries.Previous, 1)
	require.Equal(t, "JUN-SUMMARY", c.Summaries.Previous[0].Summary)
	require.Nil(t, c.Summaries.Current, "the window holds the session's start")

	// The window's TTL counts from at: 24.5 hours after the first October
	// turn it is cut, the second is kept; the session's summary stands in
	// as it was then, not as the version written in November.
	c = ask("at", "2026-10-02T09:30:00Z")
	require.Equal(t, []string{"cur-2"}, windowIDs(c))
	require.Equal(t, []contract.Cut{{Reason: "ttl", Count: 1}}, c.Window.Cuts)
	require.NotNil(t, c.Summaries.Current)
	require.Equal(t, "CUR-V1", c.Summaries.Current.Summary)
	require.Contains(t, c.Prompt, "CUR-V1")

	// An offset is taken as the moment it names; POST takes at in its body.
	res := b.do(t, http.MethodPost, "/v1/context", "t", mustJSON(t, map[string]any{
		"user_id": "u", "session_id": "cur", "query": query, "at": "2026-10-01T20:00:00+08:00"}))
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	c = decode[contract.Context](t, res)
	require.Equal(t, []string{"cur-1", "cur-2"}, windowIDs(c))
	require.NotContains(t, recalled(c), "nov-1")

	// Before the session began: nothing of it, and the attributes then.
	c = ask("at", "2026-06-04T00:00:00Z")
	require.Empty(t, c.Window.Messages)
	require.Nil(t, c.Attributes, "Paris was set on June 5th")
	require.Empty(t, c.Facts.Facts)
}

// A search asked with `at` reads the history as it stood then: later
// entries are not found, and recency counts from at.
func TestSearchAt(t *testing.T) {
	t.Parallel()
	b := setup(t, withIngest)
	months(t, b)
	search := func(method string, params map[string]any) []string {
		t.Helper()
		var res response
		if method == http.MethodGet {
			q := url.Values{}
			for k, v := range params {
				q.Set(k, v.(string))
			}
			res = b.get(t, "t", "/v1/users/u/search?"+q.Encode())
		} else {
			res = b.do(t, http.MethodPost, "/v1/users/u/search", "t", mustJSON(t, params))
		}
		require.Equal(t, http.StatusOK, res.Status, string(res.Body))
		var out []string
		for _, h := range decode[searchBody](t, res).Hits {
			// The three sessions that said the same words, in order.
			if slices.Contains([]string{"jun2-1", "sep-1", "nov2-1"}, h.SourceID) {
				out = append(out, h.SourceID)
			}
		}
		return out
	}
	q := "cello practice tonight"
	require.Equal(t, []string{"nov2-1", "sep-1", "jun2-1"}, search(http.MethodGet, map[string]any{"q": q}), "the newest first")
	require.Equal(t, []string{"sep-1", "jun2-1"}, search(http.MethodGet, map[string]any{"q": q, "at": "2026-10-01T12:00:00Z"}),
		"as of October: November's not there, September's the newest")
	require.Equal(t, []string{"jun2-1"}, search(http.MethodPost, map[string]any{"q": q, "at": "2026-07-01T00:00:00Z"}))

	// With neighbours: the turn after a hit is not shown before it was said.
	res := b.get(t, "t", "/v1/users/u/search?"+url.Values{"q": {"started cello lessons"}, "neighbors": {"true"}, "at": {"2026-06-02T09:00:30Z"}}.Encode())
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	hits := decode[searchBody](t, res).Hits
	require.NotEmpty(t, hits)
	require.Equal(t, "jun-1", hits[0].SourceID)
	require.Nil(t, hits[0].Next, "the assistant answered at 09:01")
}

// A bad `at` is a 400 naming it, by GET and POST, on the context and the
// search: RFC 3339 with an offset, not before 2000, not further ahead than
// a turn may be.
func TestAtInvalid(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, bad := range []string{"yesterday", "2026-10-01", "2026-10-01T12:00:00", "2026-10-01 12:00:00Z",
		"1999-12-31T23:59:59Z", "0001-01-01T00:00:00Z", testNow.Add(48 * time.Hour).Format(time.RFC3339)} {
		require.Equal(t, []string{"at"}, requireFields(t, b.get(t, "t", contextPath("u", "s", "at", bad)), http.StatusBadRequest), bad)
		body, _ := json.Marshal(map[string]any{"user_id": "u", "session_id": "s", "at": bad})
		require.Equal(t, []string{"at"}, requireFields(t, b.do(t, http.MethodPost, "/v1/context", "t", body), http.StatusBadRequest), bad)
		require.Equal(t, []string{"at"}, requireFields(t, b.get(t, "t", "/v1/users/u/search?"+url.Values{"q": {"x"}, "at": {bad}}.Encode()), http.StatusBadRequest), bad)
		body, _ = json.Marshal(map[string]any{"q": "x", "at": bad})
		require.Equal(t, []string{"at"}, requireFields(t, b.do(t, http.MethodPost, "/v1/users/u/search", "t", body), http.StatusBadRequest), bad)
	}
	// Not a string in a body.
	require.Equal(t, []string{"at"}, requireFields(t, b.do(t, http.MethodPost, "/v1/context", "t", []byte(`{"user_id":"u","session_id":"s","at":1700000000}`)), http.StatusBadRequest))
	// Within the skew a turn may have, a moment ahead is taken.
	res := b.get(t, "t", contextPath("u", "s", "at", testNow.Add(time.Hour).Format(time.RFC3339)))
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
}

// A user whose attributes name their time zone has the context's days
// reckoned in it: a turn said at 07:30 in Shanghai is dated that day, its
// "yesterday" is the day before, and its age counts Shanghai's days; with
// no zone, UTC's.
func TestContextInTheUsersZone(t *testing.T) {
	t.Parallel()
	b := setup(t, withIngest, withConfig(func(c *api.Config) { c.ContextRecallDates = true }))
	testenv.StartWorker(t, b.nats, b.db, indexer.Def, nil)
	testenv.StartWorker(t, b.nats, b.db, signals.Def, nil)
	said := time.Date(2026, 5, 7, 23, 30, 0, 0, time.UTC) // Fri 8 May 07:30 in Shanghai
	for _, u := range []string{"zoned", "utc"} {
		b.postOK(t, "t", newTurn(u+"-1", u, u+"-s", "I went to the support group yesterday.", said))
	}
	b.waitIngested(t)
	b.nats.WaitSettled(t, queue.TurnsStream, indexer.Def.Binding.Durable)
	res := b.do(t, http.MethodPut, "/v1/users/zoned/attributes/timezone", "t", mustJSON(t, map[string]any{
		"value": "Asia/Shanghai", "id": "tz-1", "occurred_at": said.Add(-time.Hour).Format(time.RFC3339)}))
	require.Equal(t, http.StatusAccepted, res.Status, string(res.Body))
	waitOneValue(t, b, "zoned", "Asia/Shanghai")

	at := time.Date(2026, 5, 9, 2, 0, 0, 0, time.UTC) // Sat 9 May 10:00 in Shanghai
	ask := func(user string) string {
		t.Helper()
		res := b.do(t, http.MethodGet, "/v1/context?"+url.Values{"user_id": {user}, "session_id": {"new"},
			"query": {"when did I go to the support group?"}, "at": {at.Format(time.RFC3339)}}.Encode(), "t", nil)
		require.Equal(t, http.StatusOK, res.Status, string(res.Body))
		return decode[contract.Context](t, res).Prompt
	}
	require.Contains(t, ask("zoned"), "[Fri 8 May 2026, yesterday] User: I went to the support group yesterday. [yesterday: Thu 7 May 2026]")
	require.Contains(t, ask("utc"), "[Thu 7 May 2026, 2 days ago] User: I went to the support group yesterday. [yesterday: Wed 6 May 2026]")
}

// A message that names a time recalls what happened then first, by the
// user's days: "what did I do last Saturday?" finds the turn of that
// Saturday, which shares no word with it, before a turn of another day
// that says "Saturday". For a user whose days are UTC's, that turn fell on
// the Friday, and the usual ranking holds.
func TestContextRecallsWhenTheMessageSays(t *testing.T) {
	t.Parallel()
	b := setup(t, withIngest, withConfig(func(c *api.Config) { c.ContextRecallTimeWeight = 1 }))
	testenv.StartWorker(t, b.nats, b.db, indexer.Def, nil)
	testenv.StartWorker(t, b.nats, b.db, signals.Def, nil)
	planted := time.Date(2026, 5, 1, 17, 30, 0, 0, time.UTC) // Sat 2 May 01:30 in Shanghai, a Friday in UTC
	for _, u := range []string{"zoned", "utc"} {
		b.postOK(t, "t", newTurn(u+"-planted", u, u+"-garden", "I planted twelve tomato saplings in the back garden.", planted))
		b.postOK(t, "t", newTurn(u+"-bread", u, u+"-bread", "What did I do wrong with the sourdough on Saturday? It came out flat.",
			planted.AddDate(0, 0, -12)))
		b.postOK(t, "t", newTurn(u+"-car", u, u+"-car", "The car needs new tyres before the trip.", planted.AddDate(0, 0, -20)))
	}
	b.waitIngested(t)
	b.nats.WaitSettled(t, queue.TurnsStream, indexer.Def.Binding.Durable)
	res := b.do(t, http.MethodPut, "/v1/users/zoned/attributes/timezone", "t", mustJSON(t, map[string]any{
		"value": "Asia/Shanghai", "id": "tz-1", "occurred_at": planted.Add(-time.Hour).Format(time.RFC3339)}))
	require.Equal(t, http.StatusAccepted, res.Status, string(res.Body))
	waitOneValue(t, b, "zoned", "Asia/Shanghai")

	at := time.Date(2026, 5, 7, 2, 0, 0, 0, time.UTC) // Thu 7 May, in both zones
	first := func(user string) string {
		t.Helper()
		res := b.do(t, http.MethodGet, "/v1/context?"+url.Values{"user_id": {user}, "session_id": {"new"},
			"query": {"What did I do last Saturday?"}, "at": {at.Format(time.RFC3339)}}.Encode(), "t", nil)
		require.Equal(t, http.StatusOK, res.Status, string(res.Body))
		c := decode[contract.Context](t, res)
		require.NotNil(t, c.Recalled, c.Prompt)
		require.Equal(t, "hybrid", c.Recalled.Search)
		require.NotEmpty(t, c.Recalled.Hits, c.Prompt)
		return c.Recalled.Hits[0].Text
	}
	require.Equal(t, "I planted twelve tomato saplings in the back garden.", first("zoned"))
	require.Contains(t, first("utc"), "sourdough on Saturday")
	// The context says how it read the message's time: the user's
	// Saturday, which began on Friday at 16:00 UTC.
	res = b.do(t, http.MethodPost, "/v1/context", "t", mustJSON(t, map[string]any{"user_id": "zoned", "session_id": "new",
		"query": "What did I do last Saturday?", "at": at.Format(time.RFC3339)}))
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	during := decode[contract.Context](t, res).Recalled.During
	require.Len(t, during, 1)
	require.True(t, during[0].From.Equal(time.Date(2026, 5, 1, 16, 0, 0, 0, time.UTC)), during[0].From)
	require.True(t, during[0].To.Equal(time.Date(2026, 5, 2, 16, 0, 0, 0, time.UTC)), during[0].To)
	require.Contains(t, string(res.Body), `"from":"2026-05-02T00:00:00+08:00"`, "in the user's zone")

	// The search reads the times its query names as the context does.
	search := func(user string) contract.SearchResult {
		t.Helper()
		res := b.do(t, http.MethodGet, "/v1/users/"+user+"/search?"+url.Values{"q": {"What did I do last Saturday?"},
			"at": {at.Format(time.RFC3339)}}.Encode(), "t", nil)
		require.Equal(t, http.StatusOK, res.Status, string(res.Body))
		return decode[contract.SearchResult](t, res)
	}
	s := search("zoned")
	require.NotEmpty(t, s.Hits)
	require.Equal(t, "I planted twelve tomato saplings in the back garden.", s.Hits[0].Text)
	require.Equal(t, 1, s.Hits[0].TimeRank)
	require.Len(t, s.During, 1)
	require.True(t, s.During[0].From.Equal(during[0].From) && s.During[0].To.Equal(during[0].To), s.During)
	require.NotContains(t, s.Terms, "saturday", "the time's own words are not searched for")
	s = search("utc")
	require.Contains(t, s.Hits[0].Text, "sourdough on Saturday")
	require.Zero(t, s.Hits[0].TimeRank, "nothing happened on the UTC Saturday")
	require.Len(t, s.During, 1)
	require.True(t, s.During[0].From.Equal(time.Date(2026, 5, 2, 0, 0, 0, 0, time.UTC)), s.During)
	// A query that names no time has none.
	res = b.do(t, http.MethodGet, "/v1/users/zoned/search?q=tomato", "t", nil)
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	require.NotContains(t, string(res.Body), `"during"`)
}
