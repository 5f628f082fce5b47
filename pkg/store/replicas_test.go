package store_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/store"
)

// The time lag is how long the checks have seen the primary past the
// replica's position: 0 when the replica has all the primary had, also
// after a long idle time, and never shorter than the wait since the first
// check that saw WAL the replica lacks.
func TestReplicaLagSince(t *testing.T) {
	t.Parallel()
	now := time.Unix(1000, 0)
	for _, tc := range []struct {
		name    string
		samples [][2]int64 // unix seconds, primary LSN
		replay  int64
		want    time.Duration
	}{
		{"caught up", [][2]int64{{990, 100}, {995, 200}, {1000, 300}}, 300, 0},
		{"idle primary, replica caught up long ago", [][2]int64{{10, 300}, {500, 300}, {1000, 300}}, 300, 0},
		{"behind the newest check only", [][2]int64{{990, 100}, {995, 200}, {1000, 300}}, 250, 0},
		{"behind since the second check", [][2]int64{{990, 100}, {995, 200}, {1000, 300}}, 150, 5 * time.Second},
		{"stuck while the primary was idle, then wrote", [][2]int64{{900, 100}, {990, 100}, {996, 200}, {1000, 200}}, 100, 4 * time.Second},
		{"behind everything kept", [][2]int64{{900, 100}, {995, 200}, {1000, 300}}, 50, 100 * time.Second},
		{"old samples dropped, the last old one kept", [][2]int64{{100, 100}, {200, 200}, {990, 300}, {1000, 400}}, 150, 800 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, store.LagSince(tc.samples, time.Minute, tc.replay, now))
		})
	}
}

// A read is run again on the primary only when it failed for want of the
// replica, never for an error of its own.
func TestReplicaFailure(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{&pgconn.ConnectError{}, true},
		{fmt.Errorf("read: %w", io.ErrUnexpectedEOF), true},
		{pgconn.ErrConnClosed, true},
		{&pgconn.PgError{Code: "57P01"}, true}, // admin shutdown
		{&pgconn.PgError{Code: "40001"}, true}, // cancelled by a recovery conflict
		{&pgconn.PgError{Code: "08006"}, true}, // connection failure
		{&pgconn.PgError{Code: "22P02"}, false},
		{store.ErrNotFound, false},
		{context.Canceled, false},
		{errors.New("something else"), false},
	} {
		require.Equal(t, tc.want, store.ReplicaFailure(tc.err), "%v", tc.err)
	}
}

// Read replica settings that cannot work fail at start, naming the variable.
func TestOpenReplicasConfig(t *testing.T) {
	t.Parallel()
	db := testenv.NewDB(t)
	ok := store.ReadConfig{URL: "postgres://u:pw@127.0.0.1:1/x", MaxLag: time.Second, CheckInterval: time.Second}
	for _, tc := range []struct {
		change func(*store.ReadConfig)
		want   string
	}{
		{func(c *store.ReadConfig) { c.MaxLag = 0 }, "DATABASE_READ_MAX_LAG"},
		{func(c *store.ReadConfig) { c.CheckInterval = -time.Second }, "DATABASE_READ_CHECK_INTERVAL"},
		{func(c *store.ReadConfig) { c.MaxLagBytes = -1 }, "DATABASE_READ_MAX_LAG_BYTES"},
		{func(c *store.ReadConfig) { c.URL += ",postgres://h:notaport/x" }, "DATABASE_READ_URL (replica 2)"},
	} {
		c := ok
		tc.change(&c)
		err := db.Store.OpenReplicas(t.Context(), c, nil, nil)
		require.ErrorContains(t, err, tc.want)
		require.NotContains(t, err.Error(), "pw")
	}
	// Without a URL there is nothing to open, and reads go to the primary.
	require.NoError(t, db.Store.OpenReplicas(t.Context(), store.ReadConfig{}, nil, nil))
}
