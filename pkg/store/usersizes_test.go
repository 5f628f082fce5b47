package store

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A user found small is trusted to be for SmallUserTTL, forgotten when
// found large, and the memory holds two generations of maxSmallUsers.
func TestSmallUsers(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := smallUsers{now: func() time.Time { return now }}
	require.False(t, c.small("t", "u"), "unknown")
	c.set("t", "u", true)
	require.True(t, c.small("t", "u"))
	require.False(t, c.small("t2", "u"), "per tenant")
	now = now.Add(SmallUserTTL)
	require.False(t, c.small("t", "u"), "too old")
	c.set("t", "u", true)
	require.True(t, c.small("t", "u"))
	c.set("t", "u", false)
	require.False(t, c.small("t", "u"), "found large")

	c.set("t", "first", true)
	for i := range maxSmallUsers {
		c.set("t", fmt.Sprint(i), true)
	}
	require.True(t, c.small("t", "first"), "in the older generation")
	for i := range maxSmallUsers {
		c.set("t", fmt.Sprint("x", i), true)
	}
	require.False(t, c.small("t", "first"), "two generations later")
	require.LessOrEqual(t, len(c.cur)+len(c.older), 2*maxSmallUsers)
}

// Rescoring a large user's rows for a query its feedback extended keeps
// the history's counts of the terms the query had, and marks a new term's
// unknown.
func TestRescoreKeepsTheHistorysCounts(t *testing.T) {
	sc, err := NewSearchScan("u", []string{"tomato", "garden"}, nil, "")
	require.NoError(t, err)
	sc.KeepTerms()
	sc.buf = new([]SearchRow)
	sc.stats = &SearchStats{Entries: 5000, Terms: 400000, DF: []float64{12, 340}}
	require.NoError(t, sc.Rescore([]string{"garden", "saplings", "tomato"}))
	require.Equal(t, []float64{340, -1, 12}, sc.stats.DF)
}
