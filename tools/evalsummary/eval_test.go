package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/eval/contexteval"
	"github.com/recallhq/recall/internal/eval/datasets"
	"github.com/recallhq/recall/pkg/summarize"
)

// TestTargets runs the evaluation over the real LoCoMo data, which always
// sits beside the repository (../shared/data), and fails when the data is
// missing, a session goes unscored, or the summarizer does not beat the
// baselines of its length. It is never skipped.
func TestTargets(t *testing.T) {
	t.Parallel()
	dir, err := datasets.Dir(datasets.DefaultDir)
	require.NoError(t, err)
	_, err = os.Stat(filepath.Join(dir, "locomo"))
	require.NoError(t, err, "evaluation data is missing; it must be present beside the repository")

	rep, err := run(context.Background(), dir, 0)
	require.NoError(t, err)
	var out bytes.Buffer
	printTable(&out, rep)
	t.Log("\n" + out.String())
	require.Equal(t, 128, rep.Sessions)
	require.Len(t, rep.Conversations, 5)
	for _, r := range rep.Rows {
		require.Equal(t, rep.Sessions, r.all.N, "every session scored: %s", r.Name)
		require.Len(t, r.ByConversation, 5, r.Name)
	}
	require.GreaterOrEqual(t, rep.Versions, rep.Sessions, "every session has a summary")
	require.NoError(t, checkTargets(rep))
	oracle := rep.Row(RowOracle).Recall
	for _, r := range rep.Rows {
		require.LessOrEqual(t, r.Recall, oracle, "the oracle is the ceiling: %s", r.Name)
	}
}

// recorder stands in for the summarizer and records what each version read.
type recorder struct {
	inputs []summarize.Input
}

func (r *recorder) Summarize(_ context.Context, in summarize.Input) (summarize.Summary, error) {
	r.inputs = append(r.inputs, in)
	return summarize.Summary{Text: fmt.Sprintf("v%d", len(r.inputs)), Model: summarize.ModelExtractive}, nil
}

// session makes n turns spaced by every, the user first, each text its
// index.
func session(n int, every time.Duration) []datasets.Turn {
	at := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)
	turns := make([]datasets.Turn, n)
	for i := range turns {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		turns[i] = datasets.Turn{Role: role, Text: fmt.Sprint(i), OccurredAt: at.Add(time.Duration(i) * every)}
	}
	return turns
}

func TestRollFeedsLikeTheWorker(t *testing.T) {
	t.Parallel()
	f := feed{policy: summarize.Policy{EveryMessages: 10, MinInterval: 5 * time.Minute}, maxMessages: 20}
	read := func(in summarize.Input) []string {
		out := make([]string, len(in.Turns))
		for i, tu := range in.Turns {
			out[i] = tu.Text
		}
		return out
	}

	// A live chat at 30 s a turn: a version every 10 messages (5 minutes),
	// the rest when the session goes idle.
	rec := &recorder{}
	sum, versions, err := f.roll(context.Background(), rec, session(45, 30*time.Second))
	require.NoError(t, err)
	require.Equal(t, 5, versions)
	require.Equal(t, "v5", sum.Text, "the last version")
	require.Nil(t, rec.inputs[0].Previous, "the first version has none")
	for i, in := range rec.inputs {
		if i > 0 {
			require.Equal(t, fmt.Sprintf("v%d", i), in.Previous.Text, "each version rolls the one before in")
		}
	}
	require.Equal(t, []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}, read(rec.inputs[0]))
	require.Equal(t, []string{"40", "41", "42", "43", "44"}, read(rec.inputs[4]))

	// Turns a second apart: after the first summary the next waits for 5
	// minutes of event time, and the backlog is read 20 at a time.
	rec = &recorder{}
	_, versions, err = f.roll(context.Background(), rec, session(330, time.Second))
	require.NoError(t, err)
	sizes := make([]int, len(rec.inputs))
	for i, in := range rec.inputs {
		sizes[i] = len(in.Turns)
	}
	require.Equal(t, []int{10, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20}, sizes,
		"10 by count; due again at message 310 (300 s after the 10th): 300 read 20 at a time; the last 20 when idle")
	require.Equal(t, len(sizes), versions)
	require.Equal(t, "309", read(rec.inputs[15])[19], "the catch-up stops at the message that made it due (index 309: 300 s after 9)")

	// Blank turns give no version of their own.
	rec = &recorder{}
	blank := session(3, time.Second)
	for i := range blank {
		blank[i].Text = " "
	}
	_, versions, err = f.roll(context.Background(), rec, blank)
	require.NoError(t, err)
	require.Zero(t, versions)
}

func TestScoreSession(t *testing.T) {
	t.Parallel()
	sc := newScorer([]string{"Ann", "Bob"})
	turns := []datasets.Turn{
		{Role: "user", Text: "Hi Bob! I painted a lake at sunrise."},
		{Role: "assistant", Text: "Lovely, Ann. I went hiking with my kids."},
		{Role: "user", Text: "My kids adore the lake too."},
	}
	// Reference content words: paint, lake, kid, went, hike (Ann and Bob
	// are names; the rest are stopwords).
	ref := "Ann painted a lake. Bob and his kids went hiking."
	sum := summarize.Summary{Text: "User: I painted a lake at sunrise. Assistant: I went hiking."}
	res := scoreSession(sc, turns, sum, ref)

	// The summary without its labels: i painted a lake at sunrise i went
	// hiking: 9 tokens, every row's length.
	require.Equal(t, 9, res.Words)
	require.InDelta(t, 4.0/5, res.Recall[RowExtractive], 1e-9, "paint, lake, went, hike; stemmed")
	// lead: hi bob i painted a lake at sunrise lovely: paint, lake.
	require.InDelta(t, 2.0/5, res.Recall[RowLead], 1e-9)
	// user lead: hi bob i painted a lake at sunrise my: paint, lake.
	require.InDelta(t, 2.0/5, res.Recall[RowUserLead], 1e-9)
	// assistant lead: lovely ann i went hiking with my kids: went, hike, kid.
	require.InDelta(t, 3.0/5, res.Recall[RowAssistantLead], 1e-9)
	// oracle: the sentence adding most reference words first (I went
	// hiking with my kids: 3), then the next (I painted a lake at sunrise:
	// 2), cut to 9 tokens: i went hiking with my kids i painted a.
	require.InDelta(t, 4.0/5, res.Recall[RowOracle], 1e-9)
	// About Ann (the user): paint, lake; about Bob: kid, went, hike.
	require.InDelta(t, 2.0/2, res.User[RowExtractive], 1e-9)
	require.InDelta(t, 2.0/3, res.Other[RowExtractive], 1e-9)
	require.InDelta(t, 0.0, res.User[RowAssistantLead], 1e-9)
	require.InDelta(t, 3.0/3, res.Other[RowAssistantLead], 1e-9)
	require.InDelta(t, 0.5, res.UserShare, 1e-9)
	require.True(t, res.userOK)
}

func TestAbout(t *testing.T) {
	t.Parallel()
	sc := newScorer([]string{"Caroline", "Melanie"})
	user, other := sc.about("Caroline and Melanie talked on 8 May. Caroline's necklace is from Sweden! Melanie and her kids went camping. " +
		"They both agreed. Melanie praised Caroline.")
	require.Equal(t, "caroline s necklace is from sweden", strings.Join(contexteval.Tokens(user), " "))
	require.Equal(t, "melanie and her kids went camping melanie praised caroline", strings.Join(contexteval.Tokens(other), " "),
		"a sentence opening with both names is about neither")
}

func TestContentWords(t *testing.T) {
	t.Parallel()
	sc := newScorer([]string{"Caroline", "Melanie"})
	got := sc.content([]string{"caroline", "s", "she", "painted", "paintings", "at", "the", "lgbtq", "center", "melanie"})
	require.Equal(t, map[string]bool{"paint": true, "lgbtq": true, "center": true}, got)
}

func TestUnlabelled(t *testing.T) {
	t.Parallel()
	require.Equal(t, "I painted a lake.  Nice work!", unlabelled("User: I painted a lake. Assistant: Nice work!"))
	require.Equal(t, "我在读《三体》。 好书。", unlabelled("用户：我在读《三体》。助手：好书。"))
	u, all := userSentences("User: a. Assistant: b. User: c.")
	require.Equal(t, [2]int{2, 3}, [2]int{u, all})
}
