package api_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/contract"
)

func TestTenantIsolation(t *testing.T) {
	t.Parallel()
	b := setup(t, withIngest)
	at := testNow.Add(-time.Hour)
	// Both tenants use the same session, user and event ids: ids are unique per
	// tenant only, so none of these may dedupe or overwrite the other tenant's.
	b.postOK(t, "A",
		newTurn("e1", "u1", "s1", "A says one", at),
		newTurn("e2", "u1", "s1", "A says two", at.Add(time.Second)),
		newTurn("a-only", "u1", "sA", "A alone", at),
	)
	b.postOK(t, "B",
		newTurn("e1", "u1", "s1", "B says one", at),
		newTurn("e2", "u1", "s1", "B says two", at.Add(time.Second)),
		newTurn("e3", "u1", "s1", "B says three", at.Add(2*time.Second)),
	)
	b.waitIngested(t)

	onlyFrom := func(t *testing.T, tenant string, contents []string) {
		t.Helper()
		require.NotEmpty(t, contents)
		for _, c := range contents {
			require.True(t, strings.HasPrefix(c, tenant+" "), "tenant %s sees %q", tenant, c)
		}
	}
	for _, tc := range []struct {
		tenant string
		count  int64
		ids    []string
	}{{"A", 2, []string{"e1", "e2"}}, {"B", 3, []string{"e1", "e2", "e3"}}} {
		res := b.get(t, tc.tenant, sessionPath("s1"))
		require.Equal(t, http.StatusOK, res.Status, string(res.Body))
		s := decode[sessionBody](t, res)
		require.Equal(t, tc.count, s.MessageCount, tc.tenant)
		onlyFrom(t, tc.tenant, contents(s.Recent))

		res = b.get(t, tc.tenant, sessionPath("s1", "messages"))
		require.Equal(t, http.StatusOK, res.Status, string(res.Body))
		msgs := decode[messagesBody](t, res).Messages
		require.Equal(t, tc.ids, ids(msgs), tc.tenant)
		onlyFrom(t, tc.tenant, contents(msgs))

		res = b.get(t, tc.tenant, contextPath("u1", "s1"))
		require.Equal(t, http.StatusOK, res.Status, string(res.Body))
		c := decode[contextBody](t, res)
		onlyFrom(t, tc.tenant, contents(c.Window.Messages))
		other := map[string]string{"A": "B says", "B": "A says"}[tc.tenant]
		require.Contains(t, c.Prompt, tc.tenant+" says one")
		require.NotContains(t, c.Prompt, other)
	}

	// A session only A has does not exist for B, on any route.
	requireCode(t, b.get(t, "B", sessionPath("sA")), http.StatusNotFound, "not_found")
	requireCode(t, b.get(t, "B", sessionPath("sA", "messages")), http.StatusNotFound, "not_found")
	res := b.get(t, "B", contextPath("u1", "sA"))
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	require.Empty(t, decode[contextBody](t, res).Window.Messages)
	requireCode(t, b.do(t, http.MethodDelete, sessionPath("sA"), "B", nil), http.StatusNotFound, "not_found")
	requireCode(t, b.do(t, http.MethodDelete, sessionPath("s1"), "C", nil), http.StatusNotFound, "not_found")
	require.Equal(t, 1, b.dbCount(t, "messages", "A", "sA"))

	// B deletes its s1: A's s1 stays, in the database and in the stream.
	res = b.do(t, http.MethodDelete, sessionPath("s1"), "B", nil)
	require.Equal(t, http.StatusNoContent, res.Status, string(res.Body))
	requireCode(t, b.get(t, "B", sessionPath("s1")), http.StatusNotFound, "not_found")
	require.Zero(t, b.dbCount(t, "messages", "B", ""))
	require.Zero(t, b.dbCount(t, "sessions", "B", ""))
	require.Zero(t, b.subjectMsgs(t, "B", "u1", "s1"))

	require.Equal(t, 2, b.dbCount(t, "messages", "A", "s1"))
	require.Equal(t, 1, b.dbCount(t, "sessions", "A", "s1"))
	require.Equal(t, uint64(2), b.subjectMsgs(t, "A", "u1", "s1"))
	res = b.get(t, "A", sessionPath("s1", "messages"))
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	require.Equal(t, []string{"A says one", "A says two"}, contents(decode[messagesBody](t, res).Messages))

	// A's webhook does not exist for B: not listed, not removed, its
	// deliveries not read nor re-driven.
	res = b.do(t, http.MethodPost, "/v1/webhooks", "A", []byte(`{"url":"https://hooks.example.com/a","types":["*"],"secret":"0123456789abcdef"}`))
	require.Equal(t, http.StatusCreated, res.Status, string(res.Body))
	hook := decode[contract.Webhook](t, res)
	res = b.get(t, "B", "/v1/webhooks")
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	require.Empty(t, decode[contract.Webhooks](t, res).Webhooks)
	requireCode(t, b.get(t, "B", "/v1/webhooks/"+hook.ID+"/deliveries"), http.StatusNotFound, "not_found")
	requireCode(t, b.do(t, http.MethodPost, "/v1/webhooks/"+hook.ID+"/deliveries/chg-x/redrive", "B", nil), http.StatusNotFound, "not_found")
	requireCode(t, b.do(t, http.MethodDelete, "/v1/webhooks/"+hook.ID, "B", nil), http.StatusNotFound, "not_found")
	res = b.get(t, "A", "/v1/webhooks")
	require.Len(t, decode[contract.Webhooks](t, res).Webhooks, 1)
}
