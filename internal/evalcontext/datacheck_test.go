package main

import (
	"bytes"
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/recallrun"
	"github.com/recallhq/recall/internal/testenv"
)

// TestDataCheckSample runs the data check on the first conversations of each
// data set (the whole of it is `make check-data`, which `make test` runs
// too): every turn the API accepts is stored and nothing is dead-lettered;
// a turn over the content limit is refused by the API with the field named,
// not lost later.
func TestDataCheckSample(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	dir, err := findDataDir(defaultDataRelToRoot)
	require.NoError(t, err)
	root, err := repoRoot()
	require.NoError(t, err)
	o := options{
		DataDir: dir, Tenant: "check", LimitConversations: 3, Concurrency: 2,
		System: recallrun.Options{AdminURL: testenv.AdminURL(), Root: root, StopTimeout: 30 * time.Second},
		Settle: recallrun.SettleOptions{Quiet: 3 * time.Second, Timeout: 3 * time.Minute, Poll: 200 * time.Millisecond},
	}
	rep, err := checkData(ctx, o, slog.New(slog.NewTextHandler(t.Output(), nil)))
	require.NoError(t, err)
	var out bytes.Buffer
	rep.print(&out)
	t.Log("\n" + out.String())

	require.Len(t, rep.Sets, 3)
	for _, s := range rep.Sets {
		require.Equal(t, 3, s.Users, s.Name)
		require.Positive(t, s.Turns, s.Name)
	}
	require.Empty(t, rep.DeadLetters)
	require.Equal(t, rep.Posted-rep.Refused, rep.Stored)
	require.True(t, rep.ok())
	require.Contains(t, out.String(), "PASS: ")
	// The third LongMemEval user has a turn of over 64 KB: the API refuses it,
	// naming the field, and takes the rest of its batch.
	require.Equal(t, 1, rep.Sets[2].Refused)
	require.Equal(t, map[string]int{"content: NNNNN bytes, limit is NNNNN": 1}, rep.Refusals)
}
