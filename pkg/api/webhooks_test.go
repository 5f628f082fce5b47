package api_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/api"
	"github.com/recallhq/recall/pkg/changefeed"
	"github.com/recallhq/recall/pkg/contract"
	"github.com/recallhq/recall/pkg/queue"
	"github.com/recallhq/recall/pkg/webhooks"
	webhooksworker "github.com/recallhq/recall/pkg/workers/webhooks"
)

// The webhook routes: register (the secret answered once, or made by the
// server), list without secrets, refusals naming the field, an address on
// the server's own network refused, remove.
func TestWebhookRoutes(t *testing.T) {
	t.Parallel()
	b := setup(t)
	res := b.do(t, http.MethodPost, "/v1/webhooks", "acme", []byte(`{"url":"https://hooks.example.com/recall","types":["user.forgotten","attribute.*"],"secret":"0123456789abcdef-given"}`))
	require.Equal(t, http.StatusCreated, res.Status, string(res.Body))
	given := decode[contract.Webhook](t, res)
	require.Equal(t, "0123456789abcdef-given", given.Secret)
	require.Equal(t, []string{"attribute.*", "user.forgotten"}, given.Types)
	require.True(t, strings.HasPrefix(given.ID, "wh_"), given.ID)

	res = b.do(t, http.MethodPost, "/v1/webhooks", "acme", []byte(`{"url":"http://93.184.216.34/x","types":["*"]}`))
	require.Equal(t, http.StatusCreated, res.Status, string(res.Body))
	made := decode[contract.Webhook](t, res)
	require.True(t, strings.HasPrefix(made.Secret, "whsec_"), made.Secret)
	require.Len(t, made.Secret, len("whsec_")+48)

	res = b.get(t, "acme", "/v1/webhooks")
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	require.NotContains(t, string(res.Body), "secret")
	require.NotContains(t, string(res.Body), "whsec_")
	list := decode[contract.Webhooks](t, res).Webhooks
	require.Len(t, list, 2)
	require.Equal(t, []string{given.ID, made.ID}, []string{list[0].ID, list[1].ID})

	for _, tc := range []struct{ body, field string }{
		{`{"url":"http://127.0.0.1:8080/","types":["*"]}`, "url"},
		{`{"url":"http://169.254.169.254/latest","types":["*"]}`, "url"},
		{`{"url":"http://[fe80::1]/","types":["*"]}`, "url"},
		{`{"url":"http://0.0.0.0/","types":["*"]}`, "url"},
		{`{"url":"http://localhost/","types":["*"]}`, "url"},
		{`{"url":"file:///etc/passwd","types":["*"]}`, "url"},
		{`{"url":"https://hooks.example.com/","types":[]}`, "types"},
		{`{"url":"https://hooks.example.com/","types":["attribute.*.x"]}`, "types[0]"},
		{`{"url":"https://hooks.example.com/","types":["*"],"secret":"short"}`, "secret"},
	} {
		res := b.do(t, http.MethodPost, "/v1/webhooks", "acme", []byte(tc.body))
		requireCode(t, res, http.StatusBadRequest, "invalid_request")
		e := decode[contract.ErrorBody](t, res).Error
		_, ok := e.Field(tc.field)
		require.True(t, ok, "%s: %s", tc.body, res.Body)
	}
	res = b.do(t, http.MethodPost, "/v1/webhooks", "acme", []byte(`{"url":"http://127.0.0.1/","types":["*"]}`))
	require.Contains(t, string(res.Body), "refused (WEBHOOK_ALLOW_PRIVATE)")

	res = b.get(t, "acme", "/v1/webhooks/"+given.ID+"/deliveries?status=failed&limit=5")
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	d := decode[contract.WebhookDeliveries](t, res)
	require.Equal(t, given.ID, d.WebhookID)
	require.Empty(t, d.Deliveries)
	requireCode(t, b.get(t, "acme", "/v1/webhooks/"+given.ID+"/deliveries?status=lost"), http.StatusBadRequest, "invalid_request")
	requireCode(t, b.get(t, "acme", "/v1/webhooks/wh_nope/deliveries"), http.StatusNotFound, "not_found")
	requireCode(t, b.do(t, http.MethodPost, "/v1/webhooks/"+given.ID+"/deliveries/chg-x/redrive", "acme", nil), http.StatusNotFound, "not_found")

	res = b.do(t, http.MethodDelete, "/v1/webhooks/"+given.ID, "acme", nil)
	require.Equal(t, http.StatusNoContent, res.Status, string(res.Body))
	requireCode(t, b.do(t, http.MethodDelete, "/v1/webhooks/"+given.ID, "acme", nil), http.StatusNotFound, "not_found")
	res = b.get(t, "acme", "/v1/webhooks")
	require.Len(t, decode[contract.Webhooks](t, res).Webhooks, 1)
}

// Over the API with the worker running: an endpoint registered by POST
// gets a change of the feed, and the deliveries route shows it; one that
// failed is re-driven by the route.
func TestWebhookDeliveredAndRedrivenOverTheAPI(t *testing.T) {
	t.Parallel()
	b := setup(t, withConfig(func(c *api.Config) { c.Webhooks.AllowPrivate = true }))
	testenv.StartWorker(t, b.nats, b.db, webhooksworker.Def, func(c *webhooksworker.Config) {
		c.Network.AllowPrivate = true
		c.MaxAttempts, c.RetryInitial, c.RetryMax, c.PollInterval = 2, 10*time.Millisecond, 20*time.Millisecond, 20*time.Millisecond
	})
	var mu sync.Mutex
	status, bodies := http.StatusBadGateway, []string{}
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		bodies = append(bodies, r.Header.Get(webhooks.HeaderID)+" "+string(body))
		w.WriteHeader(status)
	}))
	t.Cleanup(recv.Close)
	res := b.do(t, http.MethodPost, "/v1/webhooks", "acme", mustJSON(t, contract.WebhookCreate{URL: recv.URL + "/in", Types: []string{"user.*"}}))
	require.Equal(t, http.StatusCreated, res.Status, string(res.Body))
	hook := decode[contract.Webhook](t, res)

	c := changefeed.Forgotten("acme", "ada", testNow, &contract.UserData{TenantID: "acme", UserID: "ada", Rows: map[string]int64{"messages": 3}})
	require.NoError(t, changefeed.NewPublisher(b.js).Publish(context.Background(), []contract.Change{c}))
	b.nats.WaitSettled(t, queue.ChangesStream, "webhooks")
	path := "/v1/webhooks/" + hook.ID + "/deliveries"
	var d contract.WebhookDeliveries
	require.Eventually(t, func() bool {
		res := b.get(t, "acme", path+"?status=failed")
		d = decode[contract.WebhookDeliveries](t, res)
		return len(d.Deliveries) == 1
	}, 10*time.Second, 10*time.Millisecond)
	require.Equal(t, c.ID, d.Deliveries[0].ChangeID)
	require.Equal(t, contract.ChangeUserForgotten, d.Deliveries[0].Type)
	require.Equal(t, 2, d.Deliveries[0].Attempts)
	require.Equal(t, http.StatusBadGateway, d.Deliveries[0].LastStatusCode)
	require.Equal(t, contract.WebhookCounts{Failed: 1}, d.Counts)

	mu.Lock()
	status = http.StatusOK
	mu.Unlock()
	res = b.do(t, http.MethodPost, path+"/"+c.ID+"/redrive", "acme", nil)
	require.Equal(t, http.StatusAccepted, res.Status, string(res.Body))
	require.Equal(t, contract.WebhookPending, decode[contract.WebhookDelivery](t, res).Status)
	require.Eventually(t, func() bool {
		d = decode[contract.WebhookDeliveries](t, b.get(t, "acme", path))
		return d.Counts.Delivered == 1
	}, 10*time.Second, 10*time.Millisecond)
	requireCode(t, b.do(t, http.MethodPost, path+"/"+c.ID+"/redrive", "acme", nil), http.StatusConflict, "not_failed")

	mu.Lock()
	defer mu.Unlock()
	require.Len(t, bodies, 3)
	for _, got := range bodies {
		id, body, _ := strings.Cut(got, " ")
		require.Equal(t, c.ID, id)
		var back contract.Change
		require.NoError(t, json.Unmarshal([]byte(body), &back))
		require.Equal(t, c.ID, back.ID)
		require.EqualValues(t, 3, back.Forgotten.Rows["messages"])
	}
}
