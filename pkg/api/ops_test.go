package api_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/recallhq/recall/pkg/queue"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/service"
)

func TestOps(t *testing.T) {
	t.Parallel()
	b := setup(t)
	// Serve the handler with readiness checks on the real dependencies, as cmd/api
	// wires it.
	ops := httptest.NewServer(b.api.Handler(b.reg,
		service.Check{Name: "postgres", Fn: b.db.Store.Ping},
		service.Check{Name: "nats", Fn: queue.Ready(b.nats.Conn, b.js)},
	))
	t.Cleanup(ops.Close)
	b.srv = ops

	res := b.get(t, "", "/healthz")
	require.Equal(t, http.StatusOK, res.Status)
	require.Equal(t, "ok\n", string(res.Body))

	res = b.get(t, "", "/readyz")
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	require.Equal(t, "ready\n", string(res.Body))

	// Some traffic, then the counters show it by route and status.
	b.postOK(t, "t1", newTurn("e1", "u1", "s1", "hi", testNow.Add(-time.Minute)))
	requireCode(t, b.get(t, "t1", sessionPath("nope")), http.StatusNotFound, "not_found")
	requireFields(t, b.get(t, "", sessionPath("nope")), http.StatusBadRequest)
	res = b.get(t, "", "/metrics")
	require.Equal(t, http.StatusOK, res.Status)
	body := string(res.Body)
	require.Contains(t, body, "recall_api_requests_total")
	require.Contains(t, body, `recall_api_requests_total{route="POST /v1/turns",status="202"} 1`)
	require.Contains(t, body, `recall_api_requests_total{route="GET /v1/sessions/{session_id}",status="404"} 1`)
	require.Contains(t, body, `recall_api_requests_total{route="GET /v1/sessions/{session_id}",status="400"} 1`)
	require.Contains(t, body, `recall_api_turns_total{outcome="accepted"} 1`)
	require.Contains(t, body, "recall_api_request_seconds_bucket")

	// Anything else is a JSON 404.
	requireCode(t, b.get(t, "t1", "/v2/nothing"), http.StatusNotFound, "not_found")
}

func TestReadyzFailingCheck(t *testing.T) {
	t.Parallel()
	broken := service.Check{Name: "postgres", Fn: func(context.Context) error { return errors.New("connection refused") }}
	b := setup(t, withReady(broken))
	res := b.get(t, "", "/readyz")
	require.Equal(t, http.StatusServiceUnavailable, res.Status)
	require.Contains(t, string(res.Body), "postgres: connection refused")
	// Liveness does not depend on the dependencies.
	require.Equal(t, http.StatusOK, b.get(t, "", "/healthz").Status)

	// Checks given to Handler add to those of Options.Ready; a nil registry falls
	// back to Options.Registry.
	ok := service.Check{Name: "nats", Fn: queue.Ready(b.nats.Conn, b.js)}
	srv := httptest.NewServer(b.api.Handler(nil, ok))
	t.Cleanup(srv.Close)
	res2, err := srv.Client().Get(srv.URL + "/readyz")
	require.NoError(t, err)
	data, err := io.ReadAll(res2.Body)
	require.NoError(t, err)
	require.NoError(t, res2.Body.Close())
	require.Equal(t, http.StatusServiceUnavailable, res2.StatusCode)
	require.Equal(t, "postgres: connection refused\n", string(data))

	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL+"/v1/sessions/nope", nil)
	require.NoError(t, err)
	req.Header.Set("X-Tenant-ID", "t1")
	res2, err = srv.Client().Do(req)
	require.NoError(t, err)
	require.NoError(t, res2.Body.Close())
	require.Equal(t, http.StatusNotFound, res2.StatusCode)
	res2, err = srv.Client().Get(srv.URL + "/metrics")
	require.NoError(t, err)
	data, err = io.ReadAll(res2.Body)
	require.NoError(t, err)
	require.NoError(t, res2.Body.Close())
	require.Equal(t, http.StatusOK, res2.StatusCode)
	require.Contains(t, string(data), `recall_api_requests_total{route="GET /v1/sessions/{session_id}",status="404"} 1`)

	// A check that is given only to Handler is run too.
	b2 := setup(t)
	srv2 := httptest.NewServer(b2.api.Handler(b2.reg, broken))
	t.Cleanup(srv2.Close)
	res2, err = srv2.Client().Get(srv2.URL + "/readyz")
	require.NoError(t, err)
	require.NoError(t, res2.Body.Close())
	require.Equal(t, http.StatusServiceUnavailable, res2.StatusCode)
}
