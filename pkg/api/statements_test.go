package api_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testenv"
	"github.com/recallhq/recall/pkg/contract"
	"github.com/recallhq/recall/pkg/extractor"
	"github.com/recallhq/recall/pkg/indexer"
	"github.com/recallhq/recall/pkg/queue"
)

// What users say of themselves, in words no rule names, reaches a later
// session's context through the whole pipeline (API, JetStream, ingest,
// extractor, PostgreSQL): in their own words, dated, under their own
// heading; a move supersedes the old city; Chinese requests set the
// profile's keys; questions, hypotheticals and other people's words are not
// kept.
func TestStatementsReachALaterSession(t *testing.T) {
	t.Parallel()
	b := setup(t, withIngest)
	testenv.StartWorker(t, b.nats, b.db, indexer.Def, nil)
	testenv.StartWorker(t, b.nats, b.db, extractor.Def, nil)
	day := 24 * time.Hour
	start := testNow.Add(-40 * day)
	var turns []turn
	say := func(user, session, content string, at time.Time) {
		turns = append(turns, newTurn(fmt.Sprintf("%s-%d", user, len(turns)), user, session, content, at))
	}
	say("pat", "p1", "Hi! I have an intense fear of flying, so I avoid air travel whenever possible.", start)
	say("pat", "p1", "My son Tom can't have any nuts, he has a severe allergy.", start.Add(time.Minute))
	say("pat", "p1", "I live in Lyon with my family.", start.Add(2*time.Minute))
	say("pat", "p1", "If I were vegetarian, would I need supplements?", start.Add(3*time.Minute))
	say("pat", "p1", "My colleague said \"I hate cilantro\" at lunch.", start.Add(4*time.Minute))
	for i := range 12 {
		say("pat", fmt.Sprintf("p%d", i+2), fmt.Sprintf("Can you explain how compound interest works, example %d?", i), start.Add(time.Duration(i+1)*day))
	}
	say("pat", "p20", "We finally moved to Toronto last week!", start.Add(30*day))
	say("wang", "w1", "以后回答请尽量简短一点", start)
	say("wang", "w1", "请用中文简短回答。", start.Add(time.Minute))
	say("wang", "w1", "我对芒果过敏。", start.Add(2*time.Minute))
	b.postOK(t, "t1", turns...)
	b.waitIngested(t)
	b.nats.WaitSettled(t, queue.TurnsStream, extractor.Def.Binding.Durable)

	// Without the recalled part: this user's history is so short that the
	// search recalls every turn, and a statement whose turn is recalled
	// gives way to it (checked below).
	ask := func(user, query string) contract.Context {
		t.Helper()
		res := b.get(t, "t1", contextPath(user, "new-"+user, "query", query, "max_recalled", "0"))
		require.Equal(t, http.StatusOK, res.Status, string(res.Body))
		return decode[contract.Context](t, res)
	}
	// The statements' block: its heading, a line each, a blank line.
	block := func(c contract.Context, heading string) string {
		t.Helper()
		i := strings.Index(c.Prompt, heading)
		require.GreaterOrEqual(t, i, 0, c.Prompt)
		rest := c.Prompt[i:]
		if j := strings.Index(rest, "\n\n"); j >= 0 {
			rest = rest[:j]
		}
		return rest
	}
	c := ask("pat", "What should I bake for the school fair?")
	said := block(c, "What the user has said about themselves, in their own words") + "\n"
	require.Contains(t, said, "\n- ["+start.Add(time.Minute).UTC().Format(time.DateOnly)+"] My son Tom can't have any nuts, he has a severe allergy.\n",
		"in the user's words, dated, one line")
	require.Contains(t, said, "] I have an intense fear of flying, so I avoid air travel whenever possible.")
	require.Contains(t, c.Prompt, "\nAbout the user: lives in: Toronto; allergic to: nuts (son)\n\n", "the move superseded the old city")
	for _, not := range []string{"vegetarian", "cilantro", "compound", "Toronto"} {
		require.NotContains(t, said, not, "not a statement, or said by the profile's keys")
	}
	require.Len(t, c.Profile.Statements, 2)
	// The nut allergy bears on baking, with no word in common: it comes
	// first, as matched; the fear of flying follows for its strength.
	require.Contains(t, c.Profile.Statements[0].Text, "can't have any nuts")
	require.True(t, c.Profile.Statements[0].Matched)
	require.False(t, c.Profile.Statements[1].Matched)
	trip := ask("pat", "I'm visiting friends in different US cities, what's the best way to get around?")
	require.Contains(t, trip.Profile.Statements[0].Text, "fear of flying")
	require.True(t, trip.Profile.Statements[0].Matched)
	for _, st := range c.Profile.Statements {
		require.False(t, st.At.IsZero())
		require.Equal(t, "p1", st.SessionID)
	}

	// With it, the statements whose turns the search recalled first give
	// way to them: the prompt shows each once, dated, in the recalled part.
	res := b.get(t, "t1", contextPath("pat", "new-pat", "query", "What should I bake for the school fair?"))
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	recalled := decode[contract.Context](t, res)
	require.Empty(t, recalled.Profile.Statements, recalled.Prompt)
	require.Equal(t, 1, strings.Count(recalled.Prompt, "can't have any nuts"), recalled.Prompt)

	zh := ask("wang", "推荐一些水果甜点")
	var requests []string
	for _, e := range zh.Profile.Requests {
		requests = append(requests, e.Key+"="+strings.Join(e.Values, ","))
	}
	require.Equal(t, []string{"reply_language=中文", "reply_length=简短"}, requests)
	require.Contains(t, block(zh, "用户自述"), "我对芒果过敏。")
	require.Contains(t, zh.Prompt, "过敏：芒果")
}
