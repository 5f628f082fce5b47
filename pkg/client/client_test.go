package client_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/client"
	"github.com/recallhq/recall/pkg/events"
)

const (
	tenant = "acme"
	key    = "acme-key-0123456789"
)

// startLive runs a Recall (recall run) with keys on.
func startLive(t *testing.T) *testenv.Live {
	t.Helper()
	return testenv.StartRecall(t, "API_KEYS="+tenant+":"+key+",other:other-key-0123456789")
}

func newClient(t *testing.T, l *testenv.Live, opts ...client.Option) *client.Client {
	t.Helper()
	c, err := client.New(l.URL, append([]client.Option{client.WithTenant(tenant), client.WithKey(key)}, opts...)...)
	require.NoError(t, err)
	return c
}

// presented is an assistant turn that shows a three-item list, after a tool call.
func presented(user, session string, at time.Time) *events.Turn {
	return &events.Turn{
		UserID: user, SessionID: session, OccurredAt: at, Role: events.RoleAssistant,
		Content: "Here are three science-fiction novels:",
		ToolCalls: []events.ToolCall{{Name: "search_books", Arguments: json.RawMessage(`{"q":"science fiction"}`),
			Result: json.RawMessage(`{"total":3}`), Status: "ok", DurationMS: 12}},
		Items: []events.Item{
			{Ref: "/book/823D", Title: "The Three-Body Problem", Attrs: json.RawMessage(`{"author":"Liu Cixin"}`)},
			{Ref: "/book/77A1", Title: "Ball Lightning", Attrs: json.RawMessage(`{"author":"Liu Cixin"}`)},
			{Ref: "/book/19F0", Title: "Dune", Attrs: json.RawMessage(`{"author":"Frank Herbert"}`)},
		},
	}
}

// TestClient drives every call of the client against a live Recall: over
// HTTP, straight to JetStream, and through failures.
func TestClient(t *testing.T) {
	t.Parallel()
	l := startLive(t)
	t.Run("http", func(t *testing.T) { clientHTTP(t, l) })
	t.Run("jetstream", func(t *testing.T) { clientJetStream(t, l) })
	t.Run("retries", func(t *testing.T) { clientRetries(t, l) })
	t.Run("odd ids", func(t *testing.T) { clientOddIDs(t, l) })
	t.Run("webhooks", func(t *testing.T) { clientWebhooks(t, l) })
}

// clientWebhooks: an endpoint registered (its secret answered once),
// listed, its deliveries read, a re-drive of none refused, removed.
func clientWebhooks(t *testing.T, l *testenv.Live) {
	c := newClient(t, l)
	ctx := t.Context()
	w, err := c.CreateWebhook(ctx, client.WebhookCreate{URL: "https://hooks.example.com/recall", Types: []string{"attribute.*"}})
	require.NoError(t, err)
	require.NotEmpty(t, w.Secret)
	list, err := c.Webhooks(ctx)
	require.NoError(t, err)
	require.Len(t, list.Webhooks, 1)
	require.Equal(t, w.ID, list.Webhooks[0].ID)
	require.Empty(t, list.Webhooks[0].Secret)
	d, err := c.WebhookDeliveries(ctx, w.ID, "failed", 10)
	require.NoError(t, err)
	require.Empty(t, d.Deliveries)
	_, err = c.RedriveWebhookDelivery(ctx, w.ID, "chg-none")
	require.True(t, client.IsNotFound(err), "%v", err)
	_, err = c.CreateWebhook(ctx, client.WebhookCreate{URL: "http://127.0.0.1:9/x", Types: []string{"*"}})
	require.ErrorContains(t, err, "refused (WEBHOOK_ALLOW_PRIVATE)")
	require.NoError(t, c.DeleteWebhook(ctx, w.ID))
	require.True(t, client.IsNotFound(c.DeleteWebhook(ctx, w.ID)))
}

// clientOddIDs: every id a turn may have reaches every call that puts one
// in a path, escaped ("/" and "%2F" too, which a router takes for a slash
// unless escaped); "." and "..", which no URL path can carry, are refused
// by the API naming the field.
func clientOddIDs(t *testing.T, l *testenv.Live) {
	c := newClient(t, l)
	ctx := t.Context()
	at := time.Now().UTC().Add(-time.Minute)
	for _, id := range []string{"/", "a/b", "%2F", "..x", "x..", "a b", "?", "#", "名字"} {
		tn := presented(id, id, at)
		tn.ID = id
		res, err := c.AddTurnsWait(ctx, client.Wait{For: client.WaitSearchable, Timeout: 10 * time.Second}, tn)
		require.NoError(t, err, id)
		require.True(t, res.Wait.Reached, id)

		st, err := c.TurnStatus(ctx, id, 0)
		require.NoError(t, err, id)
		require.Equal(t, id, st.SessionID)
		s, err := c.Session(ctx, id, 1)
		require.NoError(t, err, id)
		require.Equal(t, id, s.UserID)
		page, err := c.Messages(ctx, id, 0, "")
		require.NoError(t, err, id)
		require.Equal(t, id, page.Messages[0].SessionID)
		sel, err := c.Selection(ctx, id, 2)
		require.NoError(t, err, id)
		require.Equal(t, "/book/77A1", sel.Ref())
		got, err := c.Context(ctx, client.ContextParams{UserID: id, SessionID: id})
		require.NoError(t, err, id)
		require.Equal(t, id, got.Window.Messages[0].EventID)
		hits, err := c.Search(ctx, id, client.SearchParams{Q: "science fiction"})
		require.NoError(t, err, id)
		require.NotEmpty(t, hits.Hits, id)
		// The seen registry is the seen worker's, which the wait does not wait for.
		require.Eventually(t, func() bool {
			un, err := c.Unseen(ctx, id, client.UnseenRequest{Refs: []string{"/book/19F0", "/book/NEW"}})
			return err == nil && slices.Equal(un.Unseen, []string{"/book/NEW"})
		}, 20*time.Second, 50*time.Millisecond, id)
		seen, err := c.Seen(ctx, id, 0)
		require.NoError(t, err, id)
		require.Equal(t, id, seen.UserID)
		attrs, err := c.Attributes(ctx, id, false)
		require.NoError(t, err, id)
		require.Equal(t, id, attrs.UserID)
		edited, err := c.EditAttributes(ctx, id, client.AttributeEdits{Edits: []client.AttributeEdit{{Key: "name", Op: "put", Value: "Ada"}}})
		require.NoError(t, err, id)
		require.Equal(t, id, edited.UserID)
		ref, err := c.RefreshInterests(ctx, id)
		require.NoError(t, err, id)
		require.Equal(t, id, ref.UserID)
		_, err = c.Summarize(ctx, id, 0)
		require.NoError(t, err, id)
		require.NoError(t, c.DeleteSession(ctx, id), id)
		_, err = c.Session(ctx, id, 0)
		require.True(t, client.IsNotFound(err), "%s: %v", id, err)
		gone, err := c.ForgetUser(ctx, id)
		require.NoError(t, err, id)
		require.Equal(t, id, gone.UserID)
	}

	for _, dots := range []string{".", ".."} {
		_, err := c.Messages(ctx, dots, 0, "")
		var e *client.Error
		require.ErrorAs(t, err, &e, dots)
		require.Equal(t, http.StatusBadRequest, e.Status, dots)
		require.Equal(t, "session_id", e.Fields[0].Field, dots)
		_, err = c.ForgetUser(ctx, dots)
		require.ErrorAs(t, err, &e, dots)
		require.Equal(t, "user_id", e.Fields[0].Field, dots)
		_, err = c.AddTurns(ctx, &events.Turn{UserID: dots, SessionID: "s", Role: events.RoleUser, Content: "x"})
		require.ErrorContains(t, err, "cannot be an id", dots)
	}
}

// clientHTTP: every call over HTTP.
func clientHTTP(t *testing.T, l *testenv.Live) {
	c := newClient(t, l)
	ctx := t.Context()
	const user, session = "u-42", "s-1"
	at := time.Now().UTC().Add(-time.Minute).Truncate(time.Millisecond)

	ask := &events.Turn{UserID: user, SessionID: session, OccurredAt: at, Role: events.RoleUser,
		Content: "Recommend some science fiction like 《三体》 please"}
	show := presented(user, session, at.Add(time.Second))
	acc, err := c.AddTurns(ctx, ask, show)
	require.NoError(t, err)
	require.Len(t, acc, 2)
	require.NotEmpty(t, ask.ID, "the client assigns ids")
	require.Equal(t, ask.ID, acc[0].ID)
	require.Equal(t, show.ID, acc[1].ID)
	require.NotZero(t, acc[1].Sequence)
	require.Equal(t, tenant, ask.TenantID)

	// Sending the same turns again stores nothing new.
	again, err := c.AddTurns(ctx, ask, show)
	require.NoError(t, err)
	require.True(t, again[0].Duplicate && again[1].Duplicate)

	require.Eventually(t, func() bool {
		s, err := c.Session(ctx, session, 0)
		return err == nil && s.MessageCount == 2
	}, 20*time.Second, 50*time.Millisecond)

	t.Run("session and messages", func(t *testing.T) {
		s, err := c.Session(ctx, session, 1)
		require.NoError(t, err)
		require.Equal(t, user, s.UserID)
		require.Len(t, s.Recent, 1)
		require.Equal(t, show.ID, s.Recent[0].EventID)

		page, err := c.Messages(ctx, session, 1, "")
		require.NoError(t, err)
		require.Len(t, page.Messages, 1)
		require.NotEmpty(t, page.NextCursor)
		var ids []string
		for m, err := range c.AllMessages(ctx, session, 1) {
			require.NoError(t, err)
			ids = append(ids, m.EventID)
		}
		require.Equal(t, []string{ask.ID, show.ID}, ids)
		last, err := c.Messages(ctx, session, 1, page.NextCursor)
		require.NoError(t, err)
		require.Empty(t, last.NextCursor)
		require.JSONEq(t, `[{"ref":"/book/823D","title":"The Three-Body Problem","attrs":{"author":"Liu Cixin"}},{"ref":"/book/77A1","title":"Ball Lightning","attrs":{"author":"Liu Cixin"}},{"ref":"/book/19F0","title":"Dune","attrs":{"author":"Frank Herbert"}}]`,
			string(last.Messages[0].Items), "the list as sent")
		require.JSONEq(t, `[{"name":"search_books","arguments":{"q":"science fiction"},"result":{"total":3},"status":"ok","duration_ms":12}]`,
			string(last.Messages[0].ToolCalls))
	})

	t.Run("context", func(t *testing.T) {
		got, err := c.Context(ctx, client.ContextParams{UserID: user, SessionID: session})
		require.NoError(t, err)
		require.Len(t, got.Window.Messages, 2)
		require.NotNil(t, got.List)
		require.Equal(t, "/book/77A1", got.List.Items[1].Ref)
		require.Contains(t, got.Prompt, "ref: /book/77A1")
		require.Nil(t, got.Recalled)

		// As of a moment before the session: none of it yet.
		got, err = c.Context(ctx, client.ContextParams{UserID: user, SessionID: session, At: "2020-01-01T00:00:00Z"})
		require.NoError(t, err)
		require.Empty(t, got.Window.Messages)
		require.Nil(t, got.List)
		_, err = c.Context(ctx, client.ContextParams{UserID: user, SessionID: session, At: "2020-01-01"})
		var e *client.Error
		require.ErrorAs(t, err, &e)
		_, ok := e.Field("at")
		require.True(t, ok, "%v", err)

		// With the current message, by POST: the history is searched for it.
		zero := 0
		got, err = c.Context(ctx, client.ContextParams{UserID: user, SessionID: "s-2", Query: "which science fiction books?",
			MaxFacts: &zero, TTL: time.Hour, Lang: "en"})
		require.NoError(t, err)
		require.NotNil(t, got.Recalled)
		require.Equal(t, "1h0m0s", got.TTL)
		require.Empty(t, got.Facts.Facts)
	})

	t.Run("search", func(t *testing.T) {
		require.Eventually(t, func() bool {
			res, err := c.Search(ctx, user, client.SearchParams{Q: "science fiction", K: 5})
			return err == nil && len(res.Hits) > 0
		}, 20*time.Second, 50*time.Millisecond, "the indexer makes the turns searchable")
		// The indexer may store the assistant's turn a batch after the user's.
		var res *client.SearchResult
		require.Eventually(t, func() bool {
			var err error
			res, err = c.Search(ctx, user, client.SearchParams{Q: "science fiction", Role: "assistant"})
			return err == nil && len(res.Hits) > 0
		}, 20*time.Second, 50*time.Millisecond, "the assistant's turn is indexed")
		require.Equal(t, show.ID, res.Hits[0].SourceID)
		require.Nil(t, res.Hits[0].Previous)

		// The turn before it, asked for as a number of turns and as a
		// yes; a number the route does not take is an error naming it. A
		// neighbour is read from the stored messages, which the ingest
		// worker may write after the indexer made the hit searchable.
		for _, p := range []client.SearchParams{{Neighbors: true}, {NeighborTurns: 2}} {
			p.Q, p.Role = "science fiction", "assistant"
			require.Eventually(t, func() bool {
				var err error
				res, err = c.Search(ctx, user, p)
				require.NoError(t, err)
				return len(res.Hits) > 0 && res.Hits[0].Previous != nil
			}, 20*time.Second, 50*time.Millisecond, "the turn before the hit is stored: %+v", p)
			require.Equal(t, show.ID, res.Hits[0].SourceID)
			require.Equal(t, ask.ID, res.Hits[0].Previous.EventID)
		}
		_, err = c.Search(ctx, user, client.SearchParams{Q: "science fiction", NeighborTurns: 4})
		var e *client.Error
		require.ErrorAs(t, err, &e)
		_, ok := e.Field("neighbors")
		require.True(t, ok, "%v", err)
	})

	t.Run("wait and turn status", func(t *testing.T) {
		tn := &events.Turn{UserID: user, SessionID: "s-wait", Role: events.RoleUser, Content: "I keep bees on the roof of the old observatory"}
		res, err := c.AddTurnsWait(ctx, client.Wait{For: client.WaitSearchable, Timeout: 10 * time.Second}, tn)
		require.NoError(t, err)
		require.Len(t, res.Accepted, 1)
		require.NotNil(t, res.Wait)
		require.True(t, res.Wait.Reached, "%+v", res.Wait)
		require.Equal(t, client.WaitSearchable, res.Wait.For)
		// Searchable as soon as the answer came: no polling.
		found, err := c.Search(ctx, user, client.SearchParams{Q: "bees observatory"})
		require.NoError(t, err)
		require.NotEmpty(t, found.Hits)
		require.Equal(t, tn.ID, found.Hits[0].SourceID)

		st, err := c.TurnStatus(ctx, tn.ID, 0)
		require.NoError(t, err)
		require.True(t, st.Stored && st.Searchable, "%+v", st)
		require.Equal(t, res.Accepted[0].Sequence, st.Sequence)
		require.Equal(t, "s-wait", st.SessionID)
		require.Equal(t, client.WorkerProgress{Done: true}, st.Workers["ingest"])
		require.Equal(t, client.WorkerProgress{Done: true}, st.Workers["indexer"])

		_, err = c.TurnStatus(ctx, "no-such-turn", 0)
		var e *client.Error
		require.ErrorAs(t, err, &e)
		require.Equal(t, http.StatusNotFound, e.Status)
		_, err = c.AddTurnsWait(ctx, client.Wait{For: "soon"}, &events.Turn{UserID: user, SessionID: "s-wait", Role: events.RoleUser, Content: "x"})
		require.ErrorAs(t, err, &e)
		_, ok := e.Field("wait")
		require.True(t, ok, "%v", err)
	})

	t.Run("selection", func(t *testing.T) {
		sel, err := c.Selection(ctx, session, 2)
		require.NoError(t, err)
		require.Equal(t, "/book/77A1", sel.Ref())
		require.Equal(t, show.ID, sel.List.EventID)
		require.Equal(t, 3, sel.List.Count)

		_, err = c.Selection(ctx, session, 4)
		var e *client.Error
		require.ErrorAs(t, err, &e)
		require.Equal(t, http.StatusNotFound, e.Status)
		require.Equal(t, "out_of_range", e.Code)
		msg, ok := e.Field("n")
		require.True(t, ok)
		require.Equal(t, "want 1 to 3", msg)
		require.True(t, client.IsNotFound(err))
	})

	t.Run("seen and unseen", func(t *testing.T) {
		require.Eventually(t, func() bool {
			s, err := c.Seen(ctx, user, 10)
			return err == nil && len(s.Items) == 3
		}, 20*time.Second, 50*time.Millisecond, "the seen worker records the list")
		u, err := c.Unseen(ctx, user, client.UnseenRequest{Refs: []string{"/book/19F0", "/book/NEW1", "/book/NEW2"}, MarkNotified: true})
		require.NoError(t, err)
		require.Equal(t, []string{"/book/NEW1", "/book/NEW2"}, u.Unseen)
		require.Equal(t, 2, u.Marked)
		u, err = c.Unseen(ctx, user, client.UnseenRequest{Refs: []string{"/book/NEW1", "/book/NEW3"}})
		require.NoError(t, err)
		require.Equal(t, []string{"/book/NEW3"}, u.Unseen, "notified refs are left out")
	})

	t.Run("interests and recommendations", func(t *testing.T) {
		var p *client.Interests
		require.Eventually(t, func() bool {
			var err error
			p, err = c.Interests(ctx, user, 0, false)
			return err == nil && len(p.Facts) > 0
		}, 20*time.Second, 50*time.Millisecond, "the extractor records the user's interests")
		require.Equal(t, user, p.UserID)
		ref, err := c.RefreshInterests(ctx, user)
		require.NoError(t, err)
		require.Equal(t, user, ref.UserID)
		// The deprecated names answer alike.
		again, err := c.RefreshProfile(ctx, user)
		require.NoError(t, err)
		require.Equal(t, user, again.UserID)
		require.Eventually(t, func() bool {
			p, err := c.Interests(ctx, user, 0, true)
			return err == nil && p.Vector.Present && len(p.Vector.Values) == p.Vector.Dims
		}, 20*time.Second, 50*time.Millisecond, "the profiler computes the interest vector")
		old, err := c.Profile(ctx, user, 0, false)
		require.NoError(t, err)
		require.Equal(t, user, old.UserID)
		require.NotEmpty(t, old.Facts)
		rec, err := c.Recommendations(ctx, user, 3)
		require.NoError(t, err)
		require.Equal(t, 3, rec.K)
		require.Empty(t, rec.Items, "the tenant has no catalog")

		_, err = c.Recommendations(ctx, "nobody", 3)
		var e *client.Error
		require.ErrorAs(t, err, &e)
		require.Equal(t, http.StatusConflict, e.Status)
		require.Equal(t, "no_profile", e.Code)
	})

	t.Run("summarize", func(t *testing.T) {
		res, err := c.Summarize(ctx, session, 20*time.Second)
		require.NoError(t, err)
		require.Equal(t, client.SummarySummarized, res.Status)
		require.NotNil(t, res.Summary)
		res, err = c.Summarize(ctx, session, 0)
		require.NoError(t, err)
		require.Equal(t, client.SummaryCurrent, res.Status)
	})

	t.Run("errors name their fields", func(t *testing.T) {
		_, err := c.Context(ctx, client.ContextParams{UserID: user, Lang: "fr"})
		var e *client.Error
		require.ErrorAs(t, err, &e)
		require.Equal(t, http.StatusBadRequest, e.Status)
		require.Equal(t, "invalid_request", e.Code)
		require.Equal(t, []string{"session_id", "lang"}, fieldNames(e))

		_, err = c.AddTurns(ctx, &events.Turn{UserID: user, SessionID: session, Role: "bot", Content: "x"},
			&events.Turn{UserID: user, SessionID: session, Role: events.RoleUser})
		require.ErrorAs(t, err, &e)
		require.Equal(t, []string{"[0].role", "[1].content"}, fieldNames(e))
		require.Contains(t, e.Error(), "[0].role: ")
	})

	t.Run("keys", func(t *testing.T) {
		_, err := newClient(t, l, client.WithKey("wrong-key-0123456789")).Session(ctx, session, 0)
		var e *client.Error
		require.ErrorAs(t, err, &e)
		require.Equal(t, http.StatusUnauthorized, e.Status)
		other, err := client.New(l.URL, client.WithTenant("other"), client.WithKey("other-key-0123456789"))
		require.NoError(t, err)
		_, err = other.Session(ctx, session, 0)
		require.True(t, client.IsNotFound(err), "another tenant does not see the session: %v", err)
	})

	t.Run("delete and forget", func(t *testing.T) {
		require.NoError(t, c.DeleteSession(ctx, session))
		_, err := c.Session(ctx, session, 0)
		require.True(t, client.IsNotFound(err))
		rep, err := c.ForgetUser(ctx, user)
		require.NoError(t, err)
		require.Equal(t, user, rep.UserID)
		require.Zero(t, rep.Rows["facts"], "the facts the deleted session alone mentioned went with it")
		_, err = c.Interests(ctx, user, 0, false)
		require.True(t, client.IsNotFound(err))
	})
}

// clientJetStream: turns published straight to JetStream, validated as the
// API validates them, deduplicated by id, stored by the workers.
func clientJetStream(t *testing.T, l *testenv.Live) {
	js := l.ConnectNATS(t)
	c := newClient(t, l, client.WithJetStream(js))
	ctx := t.Context()

	show := presented("u-js", "s-js", time.Now().UTC().Add(-time.Minute))
	acc, err := c.AddTurns(ctx, show)
	require.NoError(t, err)
	require.Len(t, acc, 1)
	require.Equal(t, show.ID, acc[0].ID)
	require.False(t, acc[0].Duplicate)
	again, err := c.AddTurns(ctx, show)
	require.NoError(t, err)
	require.True(t, again[0].Duplicate, "JetStream drops the repeat by Nats-Msg-Id")

	require.Eventually(t, func() bool {
		sel, err := c.Selection(ctx, "s-js", 3)
		return err == nil && sel.Ref() == "/book/19F0"
	}, 20*time.Second, 50*time.Millisecond)

	// Invalid turns publish nothing and name every field, as the API would.
	bad := []*events.Turn{
		{ID: "dup", UserID: "u-js", SessionID: "s-js", Role: events.RoleUser, Content: "a"},
		{ID: "dup", UserID: "u-js", SessionID: "s-js", Role: events.RoleUser, Content: "b", Items: []events.Item{{Title: "no ref"}}},
		{ID: "t3", TenantID: "other", UserID: "u-js", SessionID: "s-js", Role: events.RoleUser, Content: "c"},
	}
	_, err = c.AddTurns(ctx, bad...)
	var e *client.Error
	require.ErrorAs(t, err, &e)
	require.Equal(t, http.StatusBadRequest, e.Status)
	require.Equal(t, []string{"[1].items[0].ref", "[2].tenant_id", "[1].id"}, fieldNames(e))
	s, err := c.Session(ctx, "s-js", 0)
	require.NoError(t, err)
	require.Equal(t, int64(1), s.MessageCount)
}

// clientRetries: answers of 503 and refused connections are retried with the
// same request, so the turn is stored once; other errors are not retried.
func clientRetries(t *testing.T, l *testenv.Live) {
	target, err := url.Parse(l.URL)
	require.NoError(t, err)
	proxy := httputil.NewSingleHostReverseProxy(target)
	var mu sync.Mutex
	var bodies []string
	fail := 2
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(body))
		failing := fail > 0
		fail--
		mu.Unlock()
		if failing {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = io.WriteString(w, `{"error":{"code":"unavailable","message":"a dependency is unavailable; retry"}}`)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	c, err := client.New(front.URL, client.WithTenant(tenant), client.WithKey(key),
		client.WithRetry(client.Retry{Initial: 10 * time.Millisecond, Max: 50 * time.Millisecond, Elapsed: 5 * time.Second}))
	require.NoError(t, err)
	ctx := t.Context()

	turn := &events.Turn{UserID: "u-r", SessionID: "s-r", Role: events.RoleUser, Content: "hello"}
	acc, err := c.AddTurns(ctx, turn)
	require.NoError(t, err)
	require.False(t, acc[0].Duplicate)
	require.Len(t, bodies, 3, "two 503s, then through")
	require.Equal(t, bodies[0], bodies[2], "the same turn, the same id, every time")

	// A 400 is an answer, not retried.
	bodies = nil
	_, err = c.Context(ctx, client.ContextParams{UserID: "u-r"})
	require.Error(t, err)
	require.Len(t, bodies, 1)

	// 503s beyond the policy's time end the call with the API's error.
	mu.Lock()
	fail = 1000
	mu.Unlock()
	short, err := client.New(front.URL, client.WithTenant(tenant), client.WithKey(key),
		client.WithRetry(client.Retry{Initial: 10 * time.Millisecond, Max: 20 * time.Millisecond, Elapsed: 200 * time.Millisecond}))
	require.NoError(t, err)
	_, err = short.Session(ctx, "s-r", 0)
	var e *client.Error
	require.ErrorAs(t, err, &e)
	require.Equal(t, http.StatusServiceUnavailable, e.Status)
	require.True(t, e.Temporary())

	// A refused connection is retried until the API is there.
	ln := httptest.NewUnstartedServer(http.NotFoundHandler())
	addr := ln.Listener.Addr().String()
	ln.Close()
	down, err := client.New("http://"+addr, client.WithTenant(tenant),
		client.WithRetry(client.Retry{Initial: 10 * time.Millisecond, Max: 20 * time.Millisecond, Elapsed: 200 * time.Millisecond}))
	require.NoError(t, err)
	start := time.Now()
	_, err = down.Session(ctx, "s-r", 0)
	require.Error(t, err)
	require.False(t, errors.As(err, &e), "no answer, no *Error: %v", err)
	require.GreaterOrEqual(t, time.Since(start), 150*time.Millisecond, "retried for the policy's time")
	// The error says where the API was looked for, and keeps the cause.
	var unreachable *client.UnreachableError
	require.ErrorAs(t, err, &unreachable)
	require.Equal(t, "http://"+addr, unreachable.URL)
	require.EqualError(t, err, "Recall at http://"+addr+" is not reachable: connection refused")
	require.ErrorIs(t, err, syscall.ECONNREFUSED)

	// A webhook's registration lost after it was sent is not sent again
	// (the endpoint may be registered already); a 503 before it is.
	var creates int
	var dropMu sync.Mutex
	drop := true
	hooks := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		dropMu.Lock()
		creates++
		dropping := drop
		dropMu.Unlock()
		if dropping {
			conn, _, err := w.(http.Hijacker).Hijack()
			require.NoError(t, err)
			_ = conn.Close()
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, `{"error":{"code":"unavailable","message":"a dependency is unavailable; retry"}}`)
	}))
	t.Cleanup(hooks.Close)
	hc, err := client.New(hooks.URL, client.WithTenant(tenant),
		client.WithRetry(client.Retry{Initial: 10 * time.Millisecond, Max: 20 * time.Millisecond, Elapsed: 200 * time.Millisecond}))
	require.NoError(t, err)
	_, err = hc.CreateWebhook(ctx, client.WebhookCreate{URL: "https://hooks.example.com/r", Types: []string{"*"}})
	require.Error(t, err)
	require.Equal(t, 1, creates, "a registration the server may have taken is not sent again")
	dropMu.Lock()
	drop, creates = false, 0
	dropMu.Unlock()
	_, err = hc.CreateWebhook(ctx, client.WebhookCreate{URL: "https://hooks.example.com/r", Types: []string{"*"}})
	require.ErrorAs(t, err, &e)
	require.Greater(t, creates, 1, "a 503 registered nothing: sent again")
}

func fieldNames(e *client.Error) []string {
	out := make([]string, len(e.Fields))
	for i, f := range e.Fields {
		out[i] = f.Field
	}
	return out
}
