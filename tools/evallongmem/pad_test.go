package main

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/eval/datasets"
)

// sourced is instance(id) with the data's session ids: the answer session
// (evidence, in two places) and a session of its own the question is not
// about.
func sourced(id string) datasets.LongMemEvalInstance {
	in := instance(id)
	for i := range in.Sessions {
		in.Sessions[i].Source = "answer_1"
		if strings.HasSuffix(in.Sessions[i].ID, "-other") {
			in.Sessions[i].Source = "other_" + id
		}
	}
	return in
}

// A padded history holds its own sessions and sessions of other histories
// that hold no evidence anywhere, under ids of its own, dated before the
// question, in event-time order; the same seed pads the same way, and a
// data set too small to pad says so.
func TestPad(t *testing.T) {
	t.Parallel()
	all := []datasets.LongMemEvalInstance{sourced("q1"), sourced("q2"), sourced("q3")}
	pool := padPool(all)
	var sources []string
	for _, p := range pool {
		sources = append(sources, p.source)
	}
	require.Equal(t, []string{"other_q1", "other_q2", "other_q3"}, sources, "no answer session, each once")

	got, err := pad(all[:1], pool, 5, 7)
	require.NoError(t, err)
	in := got[0]
	require.Len(t, in.Sessions, 5)
	require.Equal(t, all[0].Question, in.Question, "the question and its evidence as they were")
	require.Len(t, in.Turns, len(all[0].Turns)+4)
	asked := askedAt(all[0])
	padded := 0
	for i, tr := range in.Turns {
		if i > 0 {
			require.False(t, tr.OccurredAt.Before(in.Turns[i-1].OccurredAt), "event-time order")
		}
		if strings.HasPrefix(tr.ID, "lme-q1-p") {
			padded++
			require.True(t, tr.OccurredAt.Before(asked), "before the question")
			require.True(t, strings.HasPrefix(tr.SessionID, "lme-q1-p"))
		}
	}
	require.Equal(t, 4, padded)
	for _, s := range in.Sessions[3:] {
		require.NotEqual(t, "other_q1", s.Source, "a session the history holds is not added again")
	}
	again, err := pad(all[:1], pool, 5, 7)
	require.NoError(t, err)
	require.Equal(t, in.Turns, again[0].Turns, "the same seed, the same history")
	same, err := pad(all[:1], pool, 3, 7)
	require.NoError(t, err)
	require.Equal(t, all[0].Turns, same[0].Turns, "a history as long as asked is left as it is")
	_, err = pad(all[:1], pool, 6, 7)
	require.ErrorContains(t, err, "sessions to pad")
}

// A history of seven months padded from 45 sessions to 500 spreads over
// eleven times its span, not a negative one: own × n overflowed a Duration
// past about 290 years, every pool session then had no room, and such an
// instance could not be padded at all.
func TestPadSpan(t *testing.T) {
	t.Parallel()
	day := 24 * time.Hour
	require.InDelta(t, float64(215*day)*500/45, float64(padSpan(215*day, 45, 500)), float64(time.Second))
	require.Equal(t, minPadSpan*10, padSpan(time.Hour, 50, 500), "at least minPadSpan of its own")
	require.Equal(t, maxPadSpan, padSpan(20*365*day, 5, 500), "at most maxPadSpan")
}
