package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/openapitest"
	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/api"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/memory"
	"github.com/recallhq/recall/pkg/store"
)

// TestReadReplica runs the API on a primary with a real streaming replica
// (DATABASE_READ_URL): its reads are served by the replica while it keeps
// up, by the primary while the replica's replay is paused past the lag
// bound, and by the primary without an error once the replica is killed.
func TestReadReplica(t *testing.T) {
	t.Parallel()
	rep := testenv.NewReplicated(t)
	ctx := t.Context()
	st, err := store.Open(ctx, store.Config{URL: rep.PrimaryURL, MaxConns: 4})
	require.NoError(t, err)
	t.Cleanup(st.Close)
	reg := prometheus.NewRegistry()
	const maxLag = time.Second
	require.NoError(t, st.OpenReplicas(ctx, store.ReadConfig{URL: rep.ReplicaURL, MaxLag: maxLag, CheckInterval: 100 * time.Millisecond}, reg, testenv.Logger(t)))
	replica := fmt.Sprintf("127.0.0.1:%d/recall", rep.Replica.Port())
	// The first check ran in OpenReplicas: a replica that keeps up serves
	// from the start.
	require.Equal(t, 1.0, metric(t, reg, "recall_db_replica_usable", "replica", replica))

	// The same replica, given as a replica of another server (the
	// machine's): never read, whatever its lag.
	other := testenv.NewDB(t)
	otherReg := prometheus.NewRegistry()
	require.NoError(t, other.Store.OpenReplicas(ctx, store.ReadConfig{URL: rep.ReplicaURL, MaxLag: time.Hour, CheckInterval: time.Hour}, otherReg, testenv.Logger(t)))
	require.Equal(t, 0.0, metric(t, otherReg, "recall_db_replica_usable", "replica", replica), "a standby of another primary")
	require.NoError(t, other.Store.Read(ctx, func(r *store.Store) error {
		require.Same(t, other.Store, r, "its reads go to its own primary")
		return nil
	}))

	nt := testenv.NewNATS(t)
	srv, err := api.New(api.Options{
		Config: api.Config{Config: memory.Config{ContextMaxMessages: 10, ContextLang: "auto"}},
		Limits: events.DefaultLimits,
		Store:  st, JS: nt.JS, Log: testenv.Logger(t), Registry: reg, Now: func() time.Time { return testNow },
	})
	require.NoError(t, err)
	hs := httptest.NewServer(openapitest.Handler(t, openAPIDoc(t), srv.Handler(reg)))
	t.Cleanup(hs.Close)
	b := &bundle{srv: hs, api: srv, reg: reg, nats: nt, js: nt.JS}
	reads := func(target string) float64 { return metric(t, reg, "recall_db_reads_total", "target", target) }
	insert := func(session, id string) {
		t.Helper()
		_, err := st.InsertTurns(ctx, []store.StoredTurn{{Turn: events.Turn{ID: id, TenantID: "t1", UserID: "u1", SessionID: session,
			OccurredAt: testNow.Add(-time.Minute), Role: events.RoleUser, Content: "a book about tea, " + id}}})
		require.NoError(t, err)
	}

	// Written on the primary, read from the replica once it has replayed.
	insert("s1", "m1")
	require.Eventually(t, func() bool {
		res, err := b.send(ctx, http.MethodGet, "/v1/sessions/s1", "t1", nil)
		return err == nil && res.Status == http.StatusOK
	}, 10*time.Second, 20*time.Millisecond)
	res := b.get(t, "t1", "/v1/context?user_id=u1&session_id=s1&query=tea")
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	require.Contains(t, string(res.Body), "a book about tea, m1")
	require.Zero(t, reads("primary"), "every read went to the replica")
	require.GreaterOrEqual(t, reads(replica), 2.0)

	// Replay paused: a row the primary has is not read until the replica is
	// skipped, MaxLag after the primary first had WAL it lacks.
	conn, err := pgx.Connect(ctx, rep.ReplicaURL)
	require.NoError(t, err)
	_, err = conn.Exec(ctx, `SELECT pg_wal_replay_pause()`)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		var state string
		return conn.QueryRow(ctx, `SELECT pg_get_wal_replay_pause_state()`).Scan(&state) == nil && state == "paused"
	}, 10*time.Second, 10*time.Millisecond)
	conn.Close(ctx)
	insert("s2", "m2")
	paused := time.Now()
	require.Equal(t, http.StatusNotFound, b.get(t, "t1", "/v1/sessions/s2").Status, "read from the paused replica, within the bound")
	require.Eventually(t, func() bool {
		return metric(t, reg, "recall_db_replica_usable", "replica", replica) == 0
	}, 10*time.Second, 20*time.Millisecond)
	require.GreaterOrEqual(t, time.Since(paused), maxLag-100*time.Millisecond, "skipped only past the bound")
	require.Greater(t, metric(t, reg, "recall_db_replica_lag_seconds", "replica", replica), maxLag.Seconds()-0.1)
	require.Positive(t, metric(t, reg, "recall_db_replica_lag_bytes", "replica", replica))
	res = b.get(t, "t1", "/v1/sessions/s2")
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	require.Equal(t, 1.0, reads("primary"))

	// Replay resumed: the replica catches up and serves again.
	conn, err = pgx.Connect(ctx, rep.ReplicaURL)
	require.NoError(t, err)
	_, err = conn.Exec(ctx, `SELECT pg_wal_replay_resume()`)
	require.NoError(t, err)
	conn.Close(ctx)
	require.Eventually(t, func() bool {
		return metric(t, reg, "recall_db_replica_usable", "replica", replica) == 1
	}, 10*time.Second, 20*time.Millisecond)
	before := reads(replica)
	require.Equal(t, http.StatusOK, b.get(t, "t1", "/v1/sessions/s2").Status)
	require.Equal(t, before+1, reads(replica))

	// A store that checks rarely still counts the replica usable when it is
	// killed: its next read fails on the replica and runs again on the
	// primary, and the replica is skipped from then on.
	slowReg := prometheus.NewRegistry()
	slow, err := store.Open(ctx, store.Config{URL: rep.PrimaryURL, MaxConns: 2})
	require.NoError(t, err)
	t.Cleanup(slow.Close)
	require.NoError(t, slow.OpenReplicas(ctx, store.ReadConfig{URL: rep.ReplicaURL, MaxLag: time.Minute, CheckInterval: time.Hour}, slowReg, testenv.Logger(t)))
	require.Equal(t, 1.0, metric(t, slowReg, "recall_db_replica_usable", "replica", replica))

	rep.Replica.Kill()
	var sess store.Session
	require.NoError(t, slow.Read(ctx, func(r *store.Store) (err error) {
		sess, err = r.Tenant("t1").Session(ctx, "s2")
		return err
	}))
	require.Equal(t, "u1", sess.UserID)
	require.Equal(t, 1.0, metric(t, slowReg, "recall_db_reads_total", "target", replica), "tried on the replica")
	require.Equal(t, 1.0, metric(t, slowReg, "recall_db_reads_total", "target", "primary"), "then on the primary")
	require.Equal(t, 0.0, metric(t, slowReg, "recall_db_replica_usable", "replica", replica))

	// The API's store finds the replica gone at its next check; reads go to
	// the primary with no error.
	require.Eventually(t, func() bool {
		return metric(t, reg, "recall_db_replica_usable", "replica", replica) == 0
	}, 10*time.Second, 20*time.Millisecond)
	before = reads("primary")
	for _, path := range []string{"/v1/sessions/s1", "/v1/sessions/s2/messages", "/v1/context?user_id=u1&session_id=s2&query=tea", "/v1/users/u1/sessions"} {
		res := b.get(t, "t1", path)
		require.Equal(t, http.StatusOK, res.Status, "%s: %s", path, res.Body)
		require.True(t, json.Valid(res.Body))
	}
	require.Equal(t, before+4, reads("primary"))
}

// metric is the value of a gauge or counter in reg with the label given
// (0 when there is none such).
func metric(t *testing.T, reg *prometheus.Registry, name, label, value string) float64 {
	t.Helper()
	families, err := reg.Gather()
	require.NoError(t, err)
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			if hasLabel(m, label, value) {
				if m.GetGauge() != nil {
					return m.GetGauge().GetValue()
				}
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

func hasLabel(m *dto.Metric, name, value string) bool {
	for _, l := range m.GetLabel() {
		if l.GetName() == name && l.GetValue() == value {
			return true
		}
	}
	return false
}
