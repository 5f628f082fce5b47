package main

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/eval/contexteval"
	"github.com/recallhq/recall/internal/eval/datasets"
	"github.com/recallhq/recall/internal/eval/recallrun"
	"github.com/recallhq/recall/internal/testkit/testenv"
)

// instance is a small LongMemEval instance in the loader's shape: one
// session twice in the history (as the data has a few), its evidence turn
// an assistant's markdown answer, and a session the question is not about.
func instance(id string) datasets.LongMemEvalInstance {
	u := "lme-" + id
	at := time.Date(2023, 5, 20, 9, 0, 0, 0, time.UTC)
	turn := func(sid string, j int, role, content string, d time.Duration) datasets.Turn {
		return datasets.Turn{ID: fmt.Sprintf("%s-%d", sid, j), SessionID: sid, Role: role, Content: content, OccurredAt: at.Add(d)}
	}
	s0, s1, s2 := u+"-0-answer_1", u+"-1-other", u+"-2-answer_1"
	recipe := "Here are a few ideas:\n\n1. **Shakshuka**: eggs poached in a spiced tomato sauce.\n2. **Dal**: red lentils with cumin."
	return datasets.LongMemEvalInstance{
		Conversation: datasets.Conversation{
			SampleID: u,
			Sessions: []datasets.Session{{ID: s0, Turns: 2}, {ID: s1, Turns: 2}, {ID: s2, Turns: 2}},
			Turns: []datasets.Turn{
				turn(s0, 0, "user", "I'm vegetarian and I'd love some dinner ideas that use eggs or lentils.", 0),
				turn(s0, 1, "assistant", recipe, 30*time.Second),
				turn(s1, 0, "user", "What's a good way to learn to play the ukulele as an adult beginner?", 24*time.Hour),
				turn(s1, 1, "assistant", "continue", 24*time.Hour+30*time.Second),
				turn(s2, 0, "user", "I'm vegetarian and I'd love some dinner ideas that use eggs or lentils.", 48*time.Hour),
				turn(s2, 1, "assistant", recipe, 48*time.Hour+30*time.Second),
			},
		},
		Question: datasets.LongMemEvalQuestion{
			ID: id, Type: "single-session-assistant", Text: "Which egg dish did you suggest to me?",
			Date: at.Add(72 * time.Hour), Answer: "Shakshuka", Abstention: strings.HasSuffix(id, "_abs"),
			Evidence:       []string{s0 + "-1", s2 + "-1"},
			AnswerSessions: [][]string{{s0, s2}},
		},
	}
}

func TestQuestionEvidence(t *testing.T) {
	t.Parallel()
	in := instance("q1")
	evidence, sessions := questionEvidence(in)
	require.Equal(t, []string{in.Turns[1].Content}, evidence, "a turn that recurs with its session is one piece of evidence")
	require.Equal(t, [][]string{{in.Turns[0].Content, in.Turns[1].Content, in.Turns[4].Content, in.Turns[5].Content}}, sessions,
		"an answer session is its turns in every place it holds")
}

// An evidence turn dated at or after its question is one a context as of
// the question's date cannot hold.
func TestLateEvidence(t *testing.T) {
	t.Parallel()
	in := instance("q1")
	require.Zero(t, lateEvidence(in))
	in.Question.Date = in.Turns[5].OccurredAt
	require.Equal(t, 1, lateEvidence(in), "the second place's answer, said at the question's time")
	in.Question.Date = in.Turns[1].OccurredAt.Add(-time.Second)
	require.Equal(t, 2, lateEvidence(in))
}

// TestEvidenceInRecallsPrompt scores an evidence turn as Recall's prompt
// shows it: one line, its markdown's line breaks collapsed, cut after its
// first 60 characters.
func TestEvidenceInRecallsPrompt(t *testing.T) {
	t.Parallel()
	in := instance("q1")
	evidence, sessions := questionEvidence(in)
	shown := "[Sat 20 May 2023] Assistant: Here are a few ideas: 1. **Shakshuka**: eggs poached in a spiced…"
	v, ok := contexteval.EvidenceRecall(shown, evidence)
	require.True(t, ok)
	require.Equal(t, 1.0, v)
	v, _ = contexteval.SessionRecall(shown, sessions)
	require.Equal(t, 1.0, v)

	// 59 of the first 60 characters are not enough.
	cut := "Assistant: Here are a few ideas: 1. **Shakshuka**: eggs poached in a s…"
	v, _ = contexteval.EvidenceRecall(cut, evidence)
	require.Equal(t, 0.0, v)
	// The user's turn of the answer session shows the session, not the evidence.
	asked := "User: I'm vegetarian and I'd love some dinner ideas that use eggs or lentils."
	v, _ = contexteval.EvidenceRecall(asked, evidence)
	require.Equal(t, 0.0, v)
	v, _ = contexteval.SessionRecall(asked, sessions)
	require.Equal(t, 1.0, v)
	// Another session's short turn shows nothing.
	v, _ = contexteval.SessionRecall("Assistant: continue", sessions)
	require.Equal(t, 0.0, v)
}

// TestTallyAbstentionApart scores two questions: the abstention one goes
// to rows of its own, and its answer (which says what the history lacks) is
// not looked for.
func TestTallyAbstentionApart(t *testing.T) {
	t.Parallel()
	insts := []datasets.LongMemEvalInstance{instance("q1"), instance("q2_abs")}
	insts[1].Question.Answer = "The information provided is not enough."
	recalled := []string{
		"Assistant: Here are a few ideas: 1. **Shakshuka**: eggs poached in a spiced tomato sauce.",
		"nothing remembered",
	}
	var lines bytes.Buffer
	rows, abstention, err := tally(insts, recalled, options{Options: contexteval.Options{Budget: 8000, QuestionsOut: &lines}})
	require.NoError(t, err)
	require.Len(t, rows, 4)
	require.Len(t, abstention, 4)

	r := findRow(rows, contexteval.RowRecall)
	require.Equal(t, 1.0, r.EvidenceRecall)
	require.Equal(t, 1.0, r.SessionRecall)
	require.Equal(t, 1.0, r.AnswerRecall)
	require.Equal(t, 1.0, r.AnswerHits)
	require.Equal(t, map[string]float64{"single-session-assistant": 1}, r.EvidenceByType)
	require.Equal(t, 1, r.AnswerScored)

	a := findRow(abstention, contexteval.RowRecall)
	require.Equal(t, 0.0, a.EvidenceRecall)
	require.Equal(t, 1, a.EvidenceScored)
	require.Equal(t, 0, a.AnswerScored, "an abstention answer is not looked for")
	full := findRow(abstention, contexteval.RowFull)
	require.Equal(t, 1.0, full.EvidenceRecall)
	require.Equal(t, 1.0, full.SessionRecall)

	require.Equal(t, 2, strings.Count(lines.String(), "\n"), "one line per question")
	require.Contains(t, lines.String(), `"question_id":"q2_abs","question_type":"single-session-assistant","abstention":true`)
}

func TestPick(t *testing.T) {
	t.Parallel()
	insts := []datasets.LongMemEvalInstance{instance("a"), instance("b"), instance("c_abs")}
	ids := func(in []datasets.LongMemEvalInstance) []string {
		var out []string
		for _, i := range in {
			out = append(out, i.Question.ID)
		}
		return out
	}
	got, err := pick(insts, nil, 0)
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b", "c_abs"}, ids(got))
	got, err = pick(insts, nil, 2)
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b"}, ids(got))
	got, err = pick(insts, []string{"c_abs", "a"}, 0)
	require.NoError(t, err)
	require.Equal(t, []string{"a", "c_abs"}, ids(got), "the data's order")
	_, err = pick(insts, []string{"a", "zzz"}, 0)
	require.ErrorContains(t, err, "-only names 2 questions, the data holds 1 of them")
}

// TestEndToEnd runs the whole harness on two instances, one of them an
// abstention question and the other holding the data's one turn the API
// refuses: a fresh database, a real `recall run` child with
// embedded JetStream, every turn through the API and the workers, the
// context asked per question at its date (-at, as make eval-longmem asks),
// and the tables printed. It skips only under -short.
func TestEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL-backed recall run as a child process")
	}
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	dir, err := datasets.Dir(datasets.DefaultDir)
	require.NoError(t, err)
	root, err := recallrun.RepoRoot()
	require.NoError(t, err)
	o := options{
		Options: contexteval.Options{DataDir: dir, Budget: 8000, Tenant: "eval", Concurrency: 2,
			System: recallrun.Options{AdminURL: testenv.AdminURL(), Root: root, StopTimeout: 30 * time.Second},
			Settle: recallrun.SettleOptions{Quiet: 3 * time.Second, Timeout: 2 * time.Minute, Poll: 200 * time.Millisecond}},
		Only: []string{"852ce960", "982b5123_abs"}, PostConcurrency: 2, At: true,
	}
	log := slog.New(slog.NewTextHandler(t.Output(), nil))
	rep, err := run(ctx, o, log)
	require.NoError(t, err)

	var out bytes.Buffer
	printTables(&out, rep)
	t.Log("\n" + out.String())

	require.Equal(t, 2, rep.Instances)
	require.Equal(t, 396+505, rep.Turns)
	require.Equal(t, []refusal{{Turn: "lme-852ce960-8-sharegpt_FYhsZ0Q_0-0", Reason: "content: 76719 bytes, limit is 65536"}}, rep.Refused,
		"LongMemEval's one turn over the API's limit")
	require.Equal(t, int64(rep.Turns-1), rep.Stored, "every other turn was stored")
	require.Equal(t, 1, rep.Questions)
	require.Equal(t, 1, rep.Abstentions)
	require.Equal(t, map[string]int{"knowledge-update": 1}, rep.ByType)
	require.Contains(t, rep.Consumers, "RECALL_TURNS/ingest", "the workers' consumers were found and awaited")
	require.Len(t, rep.Rows, 4)
	require.Len(t, rep.Abstention, 4)

	full, bm25, recency, recall := rep.Row(contexteval.RowFull), rep.Row(contexteval.RowBM25), rep.Row(contexteval.RowRecency), rep.Row(contexteval.RowRecall)
	require.Equal(t, 1.0, full.EvidenceRecall, "the full history holds every evidence turn")
	require.Equal(t, 1.0, full.SessionRecall)
	require.Equal(t, 1, full.EvidenceScored)
	require.Equal(t, 1, full.AnswerScored)
	require.LessOrEqual(t, bm25.PromptChars, 8000.0)
	require.LessOrEqual(t, recency.PromptChars, 8000.0)
	require.Greater(t, recency.PromptChars, 7000.0, "about 400 turns fill the budget")
	require.Greater(t, full.PromptChars, 8000.0)
	require.Greater(t, recall.PromptChars, 0.0, "Recall answered with a prompt")
	// The budget counts the entries; the framing and the headings (a few
	// hundred characters) come on top of it.
	require.LessOrEqual(t, recall.PromptChars, 8000.0+600)
	require.Equal(t, 0, findRow(rep.Abstention, contexteval.RowRecall).AnswerScored)
	require.Equal(t, 1.0, findRow(rep.Abstention, contexteval.RowFull).EvidenceRecall, "982b5123_abs has one evidence turn")
	for _, phase := range []string{"load", "start", "post", "settle", "questions", "total"} {
		require.Contains(t, rep.Seconds, phase)
	}
	require.Contains(t, out.String(), "abstention: 1 questions")
	require.Contains(t, out.String(), "timings: load ")
	require.Contains(t, out.String(), "/v1/context at the question's date (`at`)")

	// The run dropped its database.
	conn, err := pgx.Connect(ctx, testenv.AdminURL())
	require.NoError(t, err)
	defer conn.Close(context.WithoutCancel(ctx))
	var exists bool
	require.NoError(t, conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, rep.Database).Scan(&exists))
	require.NotEmpty(t, rep.Database)
	require.False(t, exists, "database %s left behind", rep.Database)
}

// A question is asked at its date, or a second after its history's newest
// turn when the history runs past the date.
func TestAskedAt(t *testing.T) {
	t.Parallel()
	in := instance("q1")
	require.Equal(t, in.Question.Date, askedAt(in))
	require.Zero(t, lateEvidence(in))
	in.Question.Date = in.Turns[4].OccurredAt // the third session's first turn
	require.Equal(t, in.Turns[5].OccurredAt.Add(time.Second), askedAt(in))
	require.Equal(t, 1, lateEvidence(in), "the third session's answer is dated after the question")
}
