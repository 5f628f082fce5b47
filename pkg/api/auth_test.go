package api_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/api"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/memory"
)

// routes is one request per tenant-scoped route.
var routes = []struct {
	method, path string
	body         bool
}{
	{http.MethodPost, "/v1/turns", true},
	{http.MethodGet, "/v1/sessions/s1", false},
	{http.MethodGet, "/v1/sessions/s1/messages", false},
	{http.MethodDelete, "/v1/sessions/s1", false},
	{http.MethodGet, "/v1/context?user_id=u1&session_id=s1", false},
}

func TestTenantHeader(t *testing.T) {
	t.Parallel()
	b := setup(t)
	body := mustJSON(t, newTurn("e1", "u1", "s1", "hi", testNow.Add(-time.Minute)))
	for _, rt := range routes {
		var payload []byte
		if rt.body {
			payload = body
		}
		for _, tenant := range []string{"", strings.Repeat("t", 129), "a\tb"} {
			res := b.do(t, rt.method, rt.path, tenant, payload)
			require.Equal(t, []string{"X-Tenant-ID"}, requireFields(t, res, http.StatusBadRequest), "%s %s tenant %q", rt.method, rt.path, tenant)
		}
	}
	require.Zero(t, b.streamMsgs(t))
}

func TestAPIKeys(t *testing.T) {
	t.Parallel()
	const (
		keyT1 = "t1-secret-key-0001"
		keyT2 = "t2-secret-key-0002"
	)
	b := setup(t, withConfig(func(c *api.Config) { c.Keys = "t1:" + keyT1 + ", t2:" + keyT2 }))
	body := mustJSON(t, newTurn("e1", "u1", "s1", "hi", testNow.Add(-time.Minute)))

	cases := []struct {
		name   string
		tenant string
		auth   string
		status int
	}{
		{"no bearer", "t1", "", http.StatusUnauthorized},
		{"empty bearer", "t1", "Bearer ", http.StatusUnauthorized},
		{"another scheme", "t1", "Basic " + keyT1, http.StatusUnauthorized},
		{"key without scheme", "t1", keyT1, http.StatusUnauthorized},
		{"unknown key", "t1", "Bearer not-a-key-of-anyone", http.StatusUnauthorized},
		{"prefix of a key", "t1", "Bearer " + keyT1[:16], http.StatusUnauthorized},
		{"key of another tenant", "t1", "Bearer " + keyT2, http.StatusForbidden},
		{"key of another tenant, the other way", "t2", "Bearer " + keyT1, http.StatusForbidden},
		{"missing tenant is checked first", "", "Bearer " + keyT1, http.StatusBadRequest},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for _, rt := range routes {
				var payload []byte
				var hdr []string
				if rt.body {
					payload = body
				}
				if tc.auth != "" {
					hdr = []string{"Authorization", tc.auth}
				}
				res := b.do(t, rt.method, rt.path, tc.tenant, payload, hdr...)
				require.Equal(t, tc.status, res.Status, "%s %s: %s", rt.method, rt.path, res.Body)
				if tc.status == http.StatusUnauthorized {
					require.True(t, strings.HasPrefix(res.Header.Get("WWW-Authenticate"), `Bearer realm="recall"`), "a 401 says how to authenticate")
				}
				require.Zero(t, b.streamMsgs(t), "a rejected request publishes nothing")
			}
		})
	}

	t.Run("the right key", func(t *testing.T) {
		t.Parallel()
		for _, tc := range []struct{ tenant, auth string }{
			{"t1", "Bearer " + keyT1},
			{"t2", "bearer " + keyT2},
		} {
			res := b.do(t, http.MethodGet, "/v1/sessions/s1", tc.tenant, nil, "Authorization", tc.auth)
			requireCode(t, res, http.StatusNotFound, "not_found") // past auth: the session just does not exist
			res = b.do(t, http.MethodGet, contextPath("u1", "s1"), tc.tenant, nil, "Authorization", tc.auth)
			require.Equal(t, http.StatusOK, res.Status, string(res.Body))
		}
	})
}

func TestAPIKeysPost(t *testing.T) {
	t.Parallel()
	const key = "t1-secret-key-0001"
	b := setup(t, withConfig(func(c *api.Config) { c.Keys = "t1:" + key }))
	tn := newTurn("e1", "u1", "s1", "hi", testNow.Add(-time.Minute))
	res := b.do(t, http.MethodPost, "/v1/turns", "t1", mustJSON(t, tn))
	require.Equal(t, http.StatusUnauthorized, res.Status, string(res.Body))
	require.Zero(t, b.streamMsgs(t))
	res = b.do(t, http.MethodPost, "/v1/turns", "t1", mustJSON(t, tn), "Authorization", "Bearer "+key)
	require.Equal(t, http.StatusAccepted, res.Status, string(res.Body))
	require.Equal(t, uint64(1), b.streamMsgs(t))
}

func TestNewRejectsBadConfig(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		cfg  api.Config
	}{
		{"key shorter than 16 characters", api.Config{Keys: "t1:short"}},
		{"pair without a colon", api.Config{Keys: "t1-0123456789abcdef"}},
		{"pair without a tenant", api.Config{Keys: ":0123456789abcdef"}},
		{"one bad pair among good ones", api.Config{Keys: "t1:0123456789abcdef,t2:"}},
		{"unknown context language", api.Config{Config: memory.Config{ContextLang: "fr"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := api.New(api.Options{Config: tc.cfg})
			require.Error(t, err)
		})
	}
	t.Run("valid", func(t *testing.T) {
		t.Parallel()
		_, err := api.New(api.Options{Config: api.Config{Keys: " t1:0123456789abcdef , t2:fedcba9876543210,", Config: memory.Config{ContextLang: "zh"}}})
		require.NoError(t, err)
	})
}

// A Config and Limits left at zero behave like the env defaults instead of
// rejecting every request.
func TestZeroConfigUsesDefaults(t *testing.T) {
	t.Parallel()
	b := setup(t, withConfig(func(c *api.Config) { *c = api.Config{} }), withLimits(func(l *events.Limits) { *l = events.Limits{} }))
	at := testNow.Add(-time.Minute)
	b.postOK(t, "t1", newTurn("e1", "u1", "s1", "hi", at), newTurn("e2", "u1", "s1", "there", at))
	res := b.post(t, "t1", newTurn(strings.Repeat("i", 129), "u1", "s1", "hi", at))
	require.Equal(t, []string{"id"}, requireFields(t, res, http.StatusBadRequest), "events.DefaultLimits apply")
	res = b.get(t, "t1", contextPath("u1", "s1"))
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	c := decode[contextBody](t, res)
	require.Equal(t, 10, c.Limits.MaxMessages)
	require.Equal(t, "en", c.Lang)
}
