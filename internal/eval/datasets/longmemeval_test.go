package datasets

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestBuildLongMemEval(t *testing.T) {
	t.Parallel()
	// Three sessions, not in date order; "s1" recurs; the answer sits in
	// "s1" and in the assistant's turn of "s2".
	raw := `{
	  "question_id": "q7_abs", "question_type": "multi-session",
	  "question": "How many plants did I buy?", "question_date": "2023/06/01 (Thu) 10:00",
	  "answer": 3, "answer_session_ids": ["s1", "s2"],
	  "haystack_dates": ["2023/05/20 (Sat) 09:00", "2023/05/10 (Wed) 12:00", "2023/05/21 (Sun) 09:00"],
	  "haystack_session_ids": ["s1", "s2", "s1"],
	  "haystack_sessions": [
	    [{"role": "user", "content": "I bought two ferns.", "has_answer": true}, {"role": "assistant", "content": "Nice."}],
	    [{"role": "user", "content": "Any cactus tips?"}, {"role": "assistant", "content": "You said you have a cactus.", "has_answer": true}],
	    [{"role": "user", "content": "I bought two ferns.", "has_answer": true}]
	  ]
	}`
	var r rawLongMemEval
	require.NoError(t, json.Unmarshal([]byte(raw), &r))
	in, err := buildLongMemEval(r)
	require.NoError(t, err)

	require.Equal(t, "lme-q7_abs", in.SampleID)
	require.Equal(t, []Session{{ID: "lme-q7_abs-0-s1", Turns: 2, Source: "s1"}, {ID: "lme-q7_abs-1-s2", Turns: 2, Source: "s2"}, {ID: "lme-q7_abs-2-s1", Turns: 1, Source: "s1"}}, in.Sessions, "the history's order, each with the data's id")
	ids := make([]string, len(in.Turns))
	for i, tr := range in.Turns {
		ids[i] = tr.ID
	}
	require.Equal(t, []string{"lme-q7_abs-1-s2-0", "lme-q7_abs-1-s2-1", "lme-q7_abs-0-s1-0", "lme-q7_abs-0-s1-1", "lme-q7_abs-2-s1-0"}, ids, "turns in event-time order")
	require.Equal(t, Turn{
		ID: "lme-q7_abs-1-s2-1", SessionID: "lme-q7_abs-1-s2", Role: "assistant", Content: "You said you have a cactus.", Text: "You said you have a cactus.",
		OccurredAt: time.Date(2023, 5, 10, 12, 0, 30, 0, time.UTC),
	}, in.Turns[1])

	q := in.Question
	require.Equal(t, "q7_abs", q.ID)
	require.Equal(t, "multi-session", q.Type)
	require.Equal(t, "How many plants did I buy?", q.Text)
	require.Equal(t, time.Date(2023, 6, 1, 10, 0, 0, 0, time.UTC), q.Date)
	require.Equal(t, "3", q.Answer, "number answers are stringified")
	require.True(t, q.Abstention, "the id ends in _abs")
	require.Equal(t, []string{"lme-q7_abs-1-s2-1", "lme-q7_abs-0-s1-0", "lme-q7_abs-2-s1-0"}, q.Evidence, "every has_answer turn, in event-time order")
	require.Equal(t, [][]string{{"lme-q7_abs-0-s1", "lme-q7_abs-2-s1"}, {"lme-q7_abs-1-s2"}}, q.AnswerSessions, "a recurring session by every place it holds")

	r.AnswerSessionIDs = []string{"s9"}
	_, err = buildLongMemEval(r)
	require.ErrorContains(t, err, "answer session s9 is not in the history")
	r.HaystackDates = r.HaystackDates[:2]
	_, err = buildLongMemEval(r)
	require.ErrorContains(t, err, "2 dates and 3 ids for 3 sessions")
}

// TestLoadLongMemEval reads the real data, which always sits beside the
// repository: a missing file fails the test rather than skipping it.
func TestLoadLongMemEval(t *testing.T) {
	t.Parallel()
	dir, err := Dir(DefaultDir)
	require.NoError(t, err)
	_, err = os.Stat(filepath.Join(dir, longMemEvalFile))
	require.NoError(t, err, "evaluation data is missing; it must be present beside the repository")

	insts, err := LoadLongMemEvalInstances(dir)
	require.NoError(t, err)
	require.Len(t, insts, 256)
	turns, evidence, abstentions := 0, 0, 0
	types := map[string]int{}
	for _, in := range insts {
		turns += len(in.Turns)
		evidence += len(in.Question.Evidence)
		types[in.Question.Type]++
		if in.Question.Abstention {
			abstentions++
		}
		require.NotEmpty(t, in.Question.AnswerSessions, in.Question.ID)
		require.False(t, in.Question.Date.IsZero(), in.Question.ID)
		for i := 1; i < len(in.Turns); i++ {
			require.False(t, in.Turns[i].OccurredAt.Before(in.Turns[i-1].OccurredAt), "turns in event-time order")
		}
	}
	require.Equal(t, 126289, turns)
	require.Equal(t, 453, evidence)
	require.Equal(t, 15, abstentions)
	require.Equal(t, map[string]int{"temporal-reasoning": 64, "multi-session": 61, "knowledge-update": 44,
		"single-session-user": 40, "single-session-assistant": 30, "single-session-preference": 17}, types)

	convs, err := LoadLongMemEval(dir)
	require.NoError(t, err)
	require.Len(t, convs, len(insts))
	require.Equal(t, insts[0].Conversation, convs[0])
}
