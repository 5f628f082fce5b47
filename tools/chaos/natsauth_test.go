package main

import (
	"os"
	"slices"
	"testing"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/workers"
)

// TestNATSAuth: the run's servers get the production layout's users, each
// with its allow lists, and the harness's, in Recall's account, from a file
// only its owner may read; a server started with it names it first.
func TestNATSAuth(t *testing.T) {
	t.Parallel()
	a, err := newNATSAuth(t.TempDir())
	require.NoError(t, err)
	fi, err := os.Stat(a.Conf)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	opts, err := server.ProcessConfigFile(a.Conf)
	require.NoError(t, err)
	users := map[string]*server.User{}
	for _, u := range opts.Users {
		require.Equal(t, workers.NATSAccount, u.Account.Name)
		users[u.Username] = u
	}
	for _, u := range workers.NATSUsers() {
		got := users[u.Name]
		require.NotNil(t, got, u.Name)
		require.Equal(t, a.passwords[u.Name], got.Password)
		require.Equal(t, u.Permissions.Publish, slices.Sorted(slices.Values(got.Permissions.Publish.Allow)), u.Name)
		require.Equal(t, u.Permissions.Subscribe, slices.Sorted(slices.Values(got.Permissions.Subscribe.Allow)), u.Name)
	}
	require.Nil(t, users[harnessUser].Permissions, "the harness may do anything")
	require.Len(t, users, len(workers.NATSUsers())+1)
	require.Equal(t, []string{"NATS_USER=recall-ops", "NATS_PASSWORD=" + a.passwords[opsUser]}, a.Env(opsUser))

	s := &natsServer{name: "recall-chaos", port: 4000, dir: "/d/nats", conf: a.Conf}
	require.Equal(t, []string{"-c", a.Conf, "-a", "127.0.0.1"}, s.args()[:4])
}
