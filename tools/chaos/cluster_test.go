package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"
)

// TestFaultScheduleCluster: the cluster mode's three server kills and the
// PostgreSQL restart are spread among the process kills, never adjacent.
func TestFaultScheduleCluster(t *testing.T) {
	t.Parallel()
	procs := []string{"api", "ingest", "extractor", "seen", "indexer", "summarizer", "profiler", "decayer", "catalog"}
	extra := []string{"ingest", "extractor", "seen", "indexer", "summarizer"}
	plan := faultSchedule(procs, extra, 1, 1, 3, 40*time.Second, 0)
	require.Len(t, plan, len(procs)+len(extra)+3+1)
	var nats, pg []int
	for i, f := range plan {
		switch f.Kind {
		case faultNATS:
			nats = append(nats, i)
		case faultPostgres:
			pg = append(pg, i)
		}
	}
	require.Len(t, nats, 3)
	require.Len(t, pg, 1)
	require.Greater(t, pg[0], nats[2], "the restart comes after the server kills")
	for i := 1; i < len(nats); i++ {
		require.GreaterOrEqual(t, nats[i]-nats[i-1], 3, "process kills between two server kills")
	}
}

// TestNATSServerArgs: a single server keeps its command line; a cluster's
// server names itself and routes to every server.
func TestNATSServerArgs(t *testing.T) {
	t.Parallel()
	single := &natsServer{name: "recall-chaos", port: 4000, dir: "/d/nats"}
	require.Equal(t, []string{"-a", "127.0.0.1", "-p", "4000", "-js", "-sd", "/d/nats", "-n", "recall-chaos"}, single.args())

	routes := []string{"nats://127.0.0.1:5001", "nats://127.0.0.1:5002", "nats://127.0.0.1:5003"}
	s := &natsServer{name: "recall-chaos-2", port: 4002, dir: "/d/nats-2", cluster: 5002, routes: routes}
	args := strings.Join(s.args(), " ")
	require.Contains(t, args, "-n recall-chaos-2")
	require.Contains(t, args, "-cluster nats://127.0.0.1:5002")
	require.Contains(t, args, "-routes "+strings.Join(routes, ","))
	require.Contains(t, args, "--cluster_name recall-chaos")

	c := &natsCluster{servers: []*natsServer{{port: 1}, {port: 2}, {port: 3}}}
	require.Equal(t, "nats://127.0.0.1:1,nats://127.0.0.1:2,nats://127.0.0.1:3", c.URL())
	require.True(t, c.Clustered())
}

func TestGroupHealth(t *testing.T) {
	t.Parallel()
	peer := func(name string, current, offline bool) *jetstream.PeerInfo {
		return &jetstream.PeerInfo{Name: name, Current: current, Offline: offline}
	}
	all := healthOf("RECALL_TURNS", 3, &jetstream.ClusterInfo{Leader: "a", Replicas: []*jetstream.PeerInfo{peer("b", true, false), peer("c", true, false)}})
	require.True(t, all.Healthy(3))
	require.False(t, all.Healthy(1), "three replicas are not one")

	behind := healthOf("RECALL_TURNS/ingest", 0, &jetstream.ClusterInfo{Leader: "a", Replicas: []*jetstream.PeerInfo{peer("b", false, false), peer("c", true, false)}})
	require.False(t, behind.Healthy(3))
	require.Contains(t, behind.String(), "b current=false")
	offline := healthOf("RECALL_TURNS", 3, &jetstream.ClusterInfo{Leader: "a", Replicas: []*jetstream.PeerInfo{peer("b", true, true), peer("c", true, false)}})
	require.False(t, offline.Healthy(3))
	require.False(t, healthOf("RECALL_TURNS", 3, &jetstream.ClusterInfo{Replicas: []*jetstream.PeerInfo{peer("b", true, false), peer("c", true, false)}}).Healthy(3), "no leader")
	require.False(t, healthOf("RECALL_TURNS", 1, nil).Healthy(3), "not clustered")
	require.Len(t, unhealthy([]groupHealth{all, behind, offline}, 3), 2)
}

// TestMarkForgotten: only the picked users' user turns carry their text,
// each user's its own.
func TestMarkForgotten(t *testing.T) {
	t.Parallel()
	w := newWorkload(2000, 30, 0.3, 3, time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC))
	plain := newWorkload(2000, 30, 0.3, 3, time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC))
	users := markForgotten(w, 2)
	require.Len(t, users, 2)
	require.NotEqual(t, users[0].Tenant, users[1].Tenant)
	require.NotEqual(t, users[0].Marker, users[1].Marker)
	marked := 0
	for i, pt := range w.Turns {
		t0 := pt.Turn
		for _, u := range users {
			has := strings.Contains(t0.Content, u.Marker)
			want := t0.TenantID == u.Tenant && t0.UserID == u.User && t0.Role == "user"
			require.Equal(t, want, has, "%s/%s %s", t0.TenantID, t0.ID, t0.Role)
			if has {
				marked++
			}
		}
		if !strings.Contains(t0.Content, "recall-chaos-forget-") {
			require.Equal(t, plain.Turns[i].Turn.Content, t0.Content)
		}
	}
	require.NotZero(t, marked)
}

func TestFilesHolding(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	raft := filepath.Join(dir, "jetstream", "$SYS", "_js_", "S-R3F-x", "msgs")
	store := filepath.Join(dir, "jetstream", "$G", "streams", "RECALL_TURNS", "msgs")
	require.NoError(t, os.MkdirAll(raft, 0o755))
	require.NoError(t, os.MkdirAll(store, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(raft, "1.blk"), []byte("..my secret-1 .."), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(store, "1.blk"), []byte("..secret-2.."), 0o644))

	got, err := filesHolding(dir, []byte("secret-1"))
	require.NoError(t, err)
	require.Equal(t, []string{filepath.Join("jetstream", "$SYS", "_js_", "S-R3F-x", "msgs", "1.blk")}, got)
	require.True(t, isRaftFile(got[0]))
	got, err = filesHolding(dir, []byte("secret-2"))
	require.NoError(t, err)
	require.Len(t, got, 1)
	require.False(t, isRaftFile(got[0]))
	got, err = filesHolding(dir, []byte("secret-3"))
	require.NoError(t, err)
	require.Empty(t, got)
}
