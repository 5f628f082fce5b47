package testenv

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/pgcluster"
)

// Replicated is a PostgreSQL primary and a streaming replica of it, both the
// test's own (the machine's server cannot be made a primary without a
// restart): what the read-replica tests read and write.
type Replicated struct {
	Primary, Replica *pgcluster.Cluster
	// PrimaryURL and ReplicaURL are Recall's database, migrated, on each.
	PrimaryURL, ReplicaURL string
}

// replicaDirPrefix names the clusters' directories under the temp dir, so
// that a later run finds and stops what a killed test binary left running.
const replicaDirPrefix = "recall-replica-test-"

// NewReplicated builds a primary (initdb on a free port, Recall's schema
// migrated) and a replica of it (pg_basebackup -R into a directory of its
// own, another free port), and starts both; each is stopped by its
// postmaster's pid (SIGQUIT) when the test ends, failed or not, and their
// directory removed. Clusters an earlier, killed test binary left running
// are stopped first, and their directories removed. It takes a few
// seconds.
func NewReplicated(t testing.TB) *Replicated {
	t.Helper()
	ctx := context.Background()
	for _, stale := range pgcluster.ReapStale(filepath.Join(os.TempDir(), replicaDirPrefix+"*")) {
		_ = os.RemoveAll(stale)
	}
	bin, err := pgcluster.FindBin("")
	require.NoError(t, err)
	dir, err := os.MkdirTemp("", replicaDirPrefix)
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	// The clusters' directories inside belong to the postgres user, who
	// must be able to reach them.
	require.NoError(t, os.Chmod(dir, 0o755))
	require.NoError(t, pgcluster.Claim(dir))
	ports, err := pgcluster.FreePorts(2)
	require.NoError(t, err)

	primary, err := pgcluster.New(ctx, bin, filepath.Join(dir, "primary"), ports[0])
	require.NoError(t, err)
	t.Cleanup(primary.Kill)
	require.NoError(t, primary.Init(ctx, "recall"), logTail(primary))
	r := &Replicated{Primary: primary, PrimaryURL: primary.URL("recall")}
	require.NoError(t, migrateURL(ctx, r.PrimaryURL), "migrate (is pgvector installed? run scripts/ensure-pgvector.sh)")

	replica, err := pgcluster.New(ctx, bin, filepath.Join(dir, "replica"), ports[1])
	require.NoError(t, err)
	t.Cleanup(replica.Kill)
	require.NoError(t, replica.BaseBackup(ctx, primary), logTail(replica))
	require.NoError(t, replica.Start(ctx), logTail(replica))
	r.Replica, r.ReplicaURL = replica, replica.URL("recall")
	return r
}

// logTail is the end of a cluster's log, for a failure's message.
func logTail(c *pgcluster.Cluster) string {
	b, _ := os.ReadFile(c.LogPath())
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.Join(lines[max(len(lines)-20, 0):], "\n")
}
