package search_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/search"
	"github.com/recallhq/recall/pkg/store"
)

func TestAsksCount(t *testing.T) {
	t.Parallel()
	classifies(t, search.AsksCount, []string{
		"How many concerts did I go to this year?",
		"how much did I spend on the bike in total?",
		"What is the total weight of the feed I bought?",
		"What's the number of books I read?",
		"我一共买了几本书？",
		"这个月花了多少钱",
		"我去了几次健身房",
		"How many days did I spend on camping trips in total?",
		"How many hours have I spent playing games?",
		"How many days passed in total between the trips, combined?",
		"How many books did I buy in the weeks before the exam?",
	}, []string{
		"What did Caroline paint last year?",
		"Can you recommend a show for tonight?",
		"我几乎每天都跑步",
		"totally agree, thanks",
		// The time between two moments, read off their dates: no tally.
		"How many days ago did I attend a networking event?",
		"How many weeks had passed since I recovered from the flu when I went jogging?",
		"how many months before my anniversary did Rachel get engaged?",
		"How many days passed between the day I fixed my bike and the race?",
		"How much time has passed since I moved?",
		"",
	})
}

// A count or a total is searched for what it counts, not for the words
// that name the operation: "total" and "in all" are not among its terms; a
// message that counts nothing keeps its words.
func TestWithoutCountOperators(t *testing.T) {
	t.Parallel()
	an := search.SharedAnalyzer()
	for q, want := range map[string][]string{
		"How many hours have I spent playing games in total?": an.QueryTerms("How many hours have I spent playing games"),
		"What is the total weight of the feed I bought?":      an.QueryTerms("What is weight of the feed I bought"),
		"What's the number of books I read, in all?":          an.QueryTerms("What's books I read"),
		"Which of the films did I like?":                      an.QueryTerms("Which of the films did I like?"),
	} {
		require.ElementsMatch(t, want, an.QueryTerms(search.WithoutCountOperators(q)), q)
	}
}

// A message asking for a count finds, through the terms of the user's turns
// it finds first, a turn that shares none of its words: "concert" is not in
// the third show, but the venue and the way the user speaks of shows are.
func TestSearchFeedback(t *testing.T) {
	t.Parallel()
	s := setupRanking(t)
	an := search.SharedAnalyzer()
	searcher := search.NewSearcher(s.st, an, nil, 0, testenv.Logger(t))
	entry := func(session, id, role string, day int, text string) store.SearchEntry {
		e := msgEntry("acme", "u1", session, id, role, t0.Add(-time.Duration(day)*24*time.Hour), text)
		e.Terms = an.Terms(text, nil)
		return e
	}
	s.upsert(t,
		entry("s1", "concert-1", "user", 30, "I went to a concert at the Red Rocks amphitheatre, the live band and the crowd were amazing"),
		entry("s2", "concert-2", "user", 20, "Another concert last week: a live band at the amphitheatre, great crowd"),
		entry("s3", "third-show", "user", 10, "Saw a live band at the amphitheatre on Friday, the crowd sang along"),
		entry("s4", "recipe", "user", 5, "I need a quick recipe for dinner with chickpeas"),
		entry("s5", "bike", "user", 3, "My bike needs a new chain, any tips?"),
		entry("s6", "reply", "assistant", 3, "Here is a concert checklist: tickets, earplugs, water"),
	)
	q := "How many concerts did I go to?"
	p, _, ok := searcher.Prepare(s.ctx, search.Query{TenantID: "acme", Text: q, Params: search.Params{UserID: "u1", K: 10, RecencyWeight: -1, Now: t0}})
	require.True(t, ok)
	first := s.search(t, "acme", p)
	require.NotContains(t, sources(first), "third-show", "no word of the message")

	cfg := search.Config{ContextRecallFeedback: 1, ContextRecallFeedbackDocs: 10, ContextRecallFeedbackTerms: 20}
	f := cfg.Feedback(q)
	fp, ok := searcher.Feedback(p, first, f)
	require.True(t, ok)
	require.Equal(t, p.Terms, fp.Terms[:len(p.Terms)], "the message's terms first, as they were")
	added := fp.Terms[len(p.Terms):]
	require.NotEmpty(t, added)
	require.LessOrEqual(t, len(added), 20)
	require.Contains(t, added, "amphitheatr", "a word the user's turns share")
	require.NotContains(t, added, "checklist", "the assistant's turns are not read")
	for j, w := range fp.TermWeights {
		if j < len(p.Terms) {
			require.Equal(t, 1.0, w)
			continue
		}
		require.Greater(t, w, 0.0)
		require.LessOrEqual(t, w, 1.0)
	}
	require.Equal(t, 1.0, fp.TermWeights[len(p.Terms)], "the best added term weighs Weight")

	again := s.search(t, "acme", fp)
	require.Contains(t, sources(again), "third-show")
	require.ElementsMatch(t, []string{"concert-1", "concert-2"}, sources(again)[:2], "the turns with the message's words still first")

	// A context's search does it in one scan (a Plan's Rank reads
	// nothing): the rows it read kept their terms and are ranked again
	// for the added ones. The hits are those of the second search, scores
	// and all.
	inBatch := func(p search.Params, f search.FeedbackParams) []search.Hit {
		pl, err := searcher.PlanParams(p, f)
		require.NoError(t, err)
		defer pl.Release()
		require.NoError(t, s.st.Tenant("acme").ScanSearch(s.ctx, pl.Scan()))
		hits, err := pl.Rank(pl.During())
		require.NoError(t, err)
		return hits
	}
	require.Equal(t, again, inBatch(p, f))
	// Without feedback it is the first search's hits.
	require.Equal(t, first, inBatch(p, search.FeedbackParams{}))
	// Nor for a message whose first hits hold no turn of the user's: the
	// kept terms change nothing.
	pb := p
	pb.Roles = []string{"assistant"}
	require.Equal(t, s.search(t, "acme", pb), inBatch(pb, f))

	// No feedback for a message that asks for no count, or when off, or
	// from no turn of the user's.
	require.Zero(t, cfg.Feedback("Which band did I see at the amphitheatre?"))
	require.Zero(t, search.Config{}.Feedback(q))
	_, ok = searcher.Feedback(p, nil, f)
	require.False(t, ok)

	// However many terms are asked for, at most MaxFeedbackTerms are added.
	var long []string
	for i := range 300 {
		long = append(long, fmt.Sprintf("word%c%c", 'a'+i/26%26, 'a'+i%26))
	}
	many := []search.Hit{{Kind: store.SearchMessage, Role: "user", Score: 1, LexicalRank: 1, Text: strings.Join(long, " ")}}
	fp, ok = searcher.Feedback(p, many, search.FeedbackParams{Docs: 1, Terms: 1000, Weight: 1})
	require.True(t, ok)
	require.Len(t, fp.Terms, len(p.Terms)+search.MaxFeedbackTerms)
}
