package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/eval/datasets"
)

func TestReportStated(t *testing.T) {
	t.Parallel()
	rep := statedReport{Turns: map[string]int{"locomo": 3, "longmemeval": 5}, Values: []statedValue{
		{Dataset: "locomo", TurnID: "a", Key: "diet", Value: "vegetarian", Turn: "I'm vegetarian."},
		{Dataset: "longmemeval", TurnID: "b", Key: "location", Value: "Tokyo", Turn: "I just moved to Tokyo."},
		{Dataset: "longmemeval", TurnID: "c", Key: "location", Value: "Berlin", Turn: "I live in Berlin."},
	}}
	var b strings.Builder
	reportStated(&b, rep, 2)
	out := b.String()
	require.Contains(t, out, "3 values")
	require.Regexp(t, `location\s+0\s+0\s+2`, out)
	require.Regexp(t, `diet\s+0\s+1\s+0`, out)
	require.Equal(t, 2, strings.Count(out, "  ["), "two sampled values, each with its turn")
	var again strings.Builder
	reportStated(&again, rep, 2)
	require.Equal(t, out, again.String(), "the same sample every run")
}

// The reader runs over the real data's user turns only.
func TestReadStatedOnTheData(t *testing.T) {
	t.Parallel()
	dir, err := datasets.Dir(datasets.DefaultDir)
	require.NoError(t, err)
	rep, err := readStated(dir)
	require.NoError(t, err)
	require.Positive(t, rep.Turns["kdconv"])
	require.Positive(t, rep.Turns["locomo"])
	require.Positive(t, rep.Turns["longmemeval"])
	require.NotEmpty(t, rep.Values)
	for _, v := range rep.Values {
		require.NotEmpty(t, v.Value)
	}
}
