package api_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/openaitest"
	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/api"
	"github.com/recallhq/recall/pkg/contract"
	"github.com/recallhq/recall/pkg/embed"
	"github.com/recallhq/recall/pkg/queue"
	"github.com/recallhq/recall/pkg/workers/extractor"
	"github.com/recallhq/recall/pkg/workers/indexer"
)

// What users say of themselves, in words no rule names, reaches a later
// session's context through the whole pipeline (API, JetStream, ingest,
// extractor, PostgreSQL): in their own words, dated, under their own
// heading; a move supersedes the old city; Chinese requests set the
// attributes' keys; questions, hypotheticals and other people's words are not
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
		require.NotContains(t, said, not, "not a statement, or said by the attributes' keys")
	}
	require.Len(t, c.Attributes.Statements, 2)
	// The nut allergy bears on baking, with no word in common: it comes
	// first, as matched; the fear of flying follows for its strength.
	require.Contains(t, c.Attributes.Statements[0].Text, "can't have any nuts")
	require.True(t, c.Attributes.Statements[0].Matched)
	require.False(t, c.Attributes.Statements[1].Matched)
	trip := ask("pat", "I'm visiting friends in different US cities, what's the best way to get around?")
	require.Contains(t, trip.Attributes.Statements[0].Text, "fear of flying")
	require.True(t, trip.Attributes.Statements[0].Matched)
	for _, st := range c.Attributes.Statements {
		require.False(t, st.At.IsZero())
		require.Equal(t, "p1", st.SessionID)
	}

	// With it, the statements whose turns the search recalled first give
	// way to them: the prompt shows each once, dated, in the recalled part.
	res := b.get(t, "t1", contextPath("pat", "new-pat", "query", "What should I bake for the school fair?"))
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	recalled := decode[contract.Context](t, res)
	require.Empty(t, recalled.Attributes.Statements, recalled.Prompt)
	require.Equal(t, 1, strings.Count(recalled.Prompt, "can't have any nuts"), recalled.Prompt)

	zh := ask("wang", "推荐一些水果甜点")
	var requests []string
	for _, e := range zh.Attributes.Requests {
		requests = append(requests, e.Key+"="+strings.Join(e.Values, ","))
	}
	require.Equal(t, []string{"reply_language=中文", "reply_length=简短"}, requests)
	require.Contains(t, block(zh, "用户自述"), "我对芒果过敏。")
	require.Contains(t, zh.Prompt, "过敏：芒果")
}

// With an embedder, the extractor stores each statement's vector and a
// context whose message the search embedded measures the statements
// against it: a statement that shares no word and no life domain with the
// message bears on it when the embedder puts it nearest, though its turn,
// about something else, is not among what the search recalls. The fake
// embedder knows one concept (heights, thrills): the statement and the
// message are on its axis, the turns about weekend plans near it, the rest
// (the hash of the text) off it; a message asking for "no vector" fails.
func TestStatementsMatchedByTheEmbedder(t *testing.T) {
	t.Parallel()
	const dims = 16
	fake := openaitest.New(t)
	fake.RespondEmbeddings(func(r openaitest.Request) openaitest.Reply {
		var out []openaitest.Embedding
		for i, text := range r.Input {
			if strings.Contains(text, "no vector") {
				return openaitest.Reply{Status: http.StatusInternalServerError}
			}
			v := openaitest.Vector(text, dims)
			v[0] = 0
			switch {
			case strings.HasPrefix(text, "I have an extreme aversion") || strings.Contains(text, "thrilling"):
				v = make([]float32, dims)
				v[0] = 1
			case strings.Contains(text, "weekend plans"):
				v[0] = 1
			}
			out = append(out, openaitest.Embedding{Index: &i, Embedding: v})
		}
		return openaitest.Reply{Data: out}
	})
	embedCfg := func(c *embed.Config) {
		c.BaseURL, c.Model, c.Dimensions = fake.URL()+"/v1", "text-embedding-3-small", dims
		c.Timeout, c.MaxRetries, c.Batch = 5*time.Second, 0, 64
		c.RetryInitial, c.RetryMax = time.Millisecond, time.Millisecond
	}
	b := setup(t, withIngest, withConfig(func(c *api.Config) { embedCfg(&c.Embed) }))
	testenv.StartWorker(t, b.nats, b.db, indexer.Def, func(c *indexer.Config) { embedCfg(&c.Embed) })
	testenv.StartWorker(t, b.nats, b.db, extractor.Def, func(c *extractor.Config) { embedCfg(&c.Embed) })
	at := testNow.Add(-20 * 24 * time.Hour)
	var turns []turn
	for i, text := range []string{
		"Can you help me sort out my tax return this year? I keep losing receipts. I have an extreme aversion to heights.",
		"I love old jazz records.",
		"I work as a nurse.",
		"I'm learning Spanish.",
		"My son Tom can't have any nuts, he has a severe allergy.",
	} {
		turns = append(turns, newTurn(fmt.Sprintf("e-%d", i), "pat", "p1", text, at.Add(time.Duration(i)*time.Minute)))
	}
	for i := range 10 {
		turns = append(turns, newTurn(fmt.Sprintf("w-%d", i), "pat", fmt.Sprintf("w%d", i), fmt.Sprintf("Let's go over my weekend plans, list number %d.", i), at.Add(time.Duration(i+1)*time.Hour)))
	}
	b.postOK(t, "t1", turns...)
	b.waitIngested(t)
	b.nats.WaitSettled(t, queue.TurnsStream, extractor.Def.Binding.Durable)
	b.nats.WaitSettled(t, queue.TurnsStream, indexer.Def.Binding.Durable)

	var embedded int
	require.NoError(t, b.db.Store.Pool().QueryRow(t.Context(),
		`SELECT count(*) FROM attribute_assertions WHERE tenant_id = 't1' AND user_id = 'pat' AND key = 'statements' AND embedding IS NOT NULL AND embedding_model <> ''`).Scan(&embedded))
	require.Equal(t, 5, embedded, "every statement stored with its vector")

	ask := func(query string) contract.Context {
		t.Helper()
		res := b.get(t, "t1", contextPath("pat", "new", "query", query))
		require.Equal(t, http.StatusOK, res.Status, string(res.Body))
		return decode[contract.Context](t, res)
	}
	c := ask("Anything thrilling to do in Colorado?")
	require.NotEmpty(t, c.Attributes.Statements, c.Prompt)
	require.Equal(t, "I have an extreme aversion to heights.", c.Attributes.Statements[0].Text, c.Prompt)
	require.True(t, c.Attributes.Statements[0].Matched)
	require.Equal(t, "hybrid", c.Recalled.Search)
	for _, h := range c.Recalled.Hits {
		require.NotContains(t, h.Text, "heights", "the aversion's turn is not recalled: the statement alone carries it")
	}

	// The same message when the embedder fails for it: the search falls back
	// to terms, the statements to their domains and terms, and the aversion
	// bears on nothing.
	c = ask("Anything thrilling to do in Colorado? no vector")
	require.Equal(t, "lexical", c.Recalled.Search)
	for _, st := range c.Attributes.Statements {
		if strings.Contains(st.Text, "heights") {
			require.False(t, st.Matched, c.Prompt)
		}
	}
}
