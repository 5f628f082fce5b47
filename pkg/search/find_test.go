package search_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/search"
	"github.com/recallhq/recall/pkg/store"
	"github.com/recallhq/recall/pkg/when"
)

// The ranking's tests store entries whose terms are the words of their text
// (the analyzer has tests of its own) and search them with Find against a
// real database.

type rankingSetup struct {
	ctx context.Context
	st  *store.Store
}

func setupRanking(t *testing.T) rankingSetup {
	t.Helper()
	return rankingSetup{ctx: context.Background(), st: testenv.NewDB(t).Store}
}

// msgEntry is a turn's entry whose terms are the words of its text.
func msgEntry(tenant, user, session, id, role string, at time.Time, text string) store.SearchEntry {
	return store.SearchEntry{TenantID: tenant, UserID: user, Kind: store.SearchMessage, SourceID: id,
		SessionID: session, Role: role, OccurredAt: at, Text: text, Terms: strings.Fields(text)}
}

func (s rankingSetup) upsert(t *testing.T, entries ...store.SearchEntry) int64 {
	t.Helper()
	n, err := s.st.UpsertSearchEntries(s.ctx, entries)
	require.NoError(t, err)
	return n
}

func (s rankingSetup) search(t *testing.T, tenant string, p search.Params) []search.Hit {
	t.Helper()
	if p.Now.IsZero() {
		p.Now = t0
	}
	hits, err := search.Find(s.ctx, s.st.Tenant(tenant), p)
	require.NoError(t, err)
	return hits
}

func sources(hits []search.Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.SourceID
	}
	return out
}

func TestSearchLexicalRanking(t *testing.T) {
	t.Parallel()
	s := setupRanking(t)
	// "book" is in every entry, "dune" in two: the rare term decides. Between
	// the two dune entries, the shorter one ranks first (length
	// normalization), and more occurrences rank higher than one.
	var batch []store.SearchEntry
	for i := range 20 {
		batch = append(batch, msgEntry("acme", "u1", fmt.Sprintf("s%d", i), fmt.Sprintf("filler%d", i), "user",
			t0, "book about something else entirely "+strings.Repeat("book ", i%3)))
	}
	batch = append(batch,
		msgEntry("acme", "u1", "a", "long", "user", t0, "book dune with many other words around it here"),
		msgEntry("acme", "u1", "b", "short", "user", t0, "book dune"),
		msgEntry("acme", "u1", "c", "twice", "user", t0, "dune book dune with many other words around it"),
	)
	s.upsert(t, batch...)
	hits := s.search(t, "acme", search.Params{UserID: "u1", Terms: []string{"book", "dune"}, K: 4})
	require.Equal(t, []string{"short", "twice", "long"}, sources(hits)[:3])
	for i, h := range hits {
		require.Equal(t, i+1, h.LexicalRank)
		require.Positive(t, h.LexicalScore)
		require.Zero(t, h.VectorRank)
	}
	require.Greater(t, hits[2].LexicalScore, hits[3].LexicalScore)

	_, err := search.Find(s.ctx, s.st.Tenant("acme"), search.Params{UserID: "u1"})
	require.ErrorIs(t, err, store.ErrEmptyQuery)
}

func TestSearchFusionAndRecency(t *testing.T) {
	t.Parallel()
	s := setupRanking(t)
	e := func(id string, at time.Time, text string, vec []float32) store.SearchEntry {
		x := msgEntry("acme", "u1", "s-"+id, id, "user", at, text)
		x.Embedding, x.Model = vec, "m"
		return x
	}
	s.upsert(t,
		e("both", t0.AddDate(0, -6, 0), "dune review", []float32{1, 0.1}),
		e("lexical", t0.AddDate(0, -6, 0), "dune", []float32{-1, 0.5}),
		e("vector", t0.AddDate(0, -6, 0), "unrelated", []float32{1, 0}),
		// the same text twice, one old, one fresh: the prior orders them
		e("old", t0.AddDate(-1, 0, 0), "spice melange", []float32{0, 1}),
		e("fresh", t0.Add(-time.Hour), "spice melange", []float32{0, 1}),
	)
	hits := s.search(t, "acme", search.Params{UserID: "u1", Terms: []string{"dune"}, Vector: []float32{1, 0}, Model: "m", K: 3})
	// every entry of the model is in the vector list: "lexical" is first
	// there and last here, "both" second in each
	require.Equal(t, "both", hits[0].SourceID, "found well by both sides, first")
	require.NotZero(t, hits[0].LexicalRank)
	require.NotZero(t, hits[0].VectorRank)

	hits = s.search(t, "acme", search.Params{UserID: "u1", Terms: []string{"spice"}})
	require.Equal(t, []string{"fresh", "old"}, sources(hits))
	require.InDelta(t, hits[0].LexicalScore, hits[1].LexicalScore, 1e-9)
	require.Less(t, hits[0].Score/hits[1].Score, 1.11, "a mild prior: at most +10%")
	hits = s.search(t, "acme", search.Params{UserID: "u1", Terms: []string{"spice"}, RecencyWeight: -1})
	require.InDelta(t, hits[0].Score, hits[1].Score, 1e-12, "no prior: equal scores")
}

func TestSearchFilters(t *testing.T) {
	t.Parallel()
	s := setupRanking(t)
	a := msgEntry("acme", "u1", "s1", "a", "user", t0, "dune")
	a.AgentID = "librarian"
	s.upsert(t, a,
		msgEntry("acme", "u1", "s1", "b", "assistant", t0.Add(time.Hour), "dune"),
		msgEntry("acme", "u1", "s2", "c", "user", t0.Add(2*time.Hour), "dune"),
		store.SearchEntry{TenantID: "acme", UserID: "u1", Kind: store.SearchSummary, SourceID: "s2", Revision: 1,
			SessionID: "s2", OccurredAt: t0.Add(2 * time.Hour), Text: "dune", Terms: []string{"dune"}},
	)
	q := func(p search.Params) []string {
		p.UserID, p.Terms = "u1", []string{"dune"}
		return sources(s.search(t, "acme", p))
	}
	require.ElementsMatch(t, []string{"a", "b", "c", "s2"}, q(search.Params{MaxPerSession: -1}))
	require.ElementsMatch(t, []string{"a", "b"}, q(search.Params{SessionID: "s1"}))
	require.ElementsMatch(t, []string{"a"}, q(search.Params{AgentID: "librarian"}))
	require.ElementsMatch(t, []string{"a", "c"}, q(search.Params{Roles: []string{"user"}}))
	require.ElementsMatch(t, []string{"s2"}, q(search.Params{Kinds: []string{store.SearchSummary}}))
	require.ElementsMatch(t, []string{"b", "c", "s2"}, q(search.Params{Since: t0.Add(time.Hour)}))
	require.ElementsMatch(t, []string{"a", "b"}, q(search.Params{Until: t0.Add(2 * time.Hour)}))
	require.ElementsMatch(t, []string{"b"}, q(search.Params{Since: t0.Add(time.Minute), Until: t0.Add(2 * time.Hour)}))
}

func TestSearchSessionCap(t *testing.T) {
	t.Parallel()
	s := setupRanking(t)
	// One long session says "dune" forty times, three others once each.
	var batch []store.SearchEntry
	for i := range 40 {
		batch = append(batch, msgEntry("acme", "u1", "long", fmt.Sprintf("long%02d", i), "user", t0, "dune dune dune"))
	}
	for i := range 3 {
		batch = append(batch, msgEntry("acme", "u1", fmt.Sprintf("other%d", i), fmt.Sprintf("other%d", i), "user", t0, "dune and more words"))
	}
	s.upsert(t, batch...)
	perSession := func(hits []search.Hit) map[string]int {
		out := map[string]int{}
		for _, h := range hits {
			out[h.SessionID]++
		}
		return out
	}
	hits := s.search(t, "acme", search.Params{UserID: "u1", Terms: []string{"dune"}, K: 6})
	require.Len(t, hits, 6)
	require.Equal(t, map[string]int{"long": 3, "other0": 1, "other1": 1, "other2": 1}, perSession(hits))
	hits = s.search(t, "acme", search.Params{UserID: "u1", Terms: []string{"dune"}, K: 6, MaxPerSession: 1})
	require.Len(t, hits, 4)
	hits = s.search(t, "acme", search.Params{UserID: "u1", Terms: []string{"dune"}, K: 6, MaxPerSession: -1})
	require.Equal(t, map[string]int{"long": 6}, perSession(hits))
}

func TestSearchNeighbors(t *testing.T) {
	t.Parallel()
	s := setupRanking(t)
	var turns []store.StoredTurn
	contents := []string{"hello", "which book should I read next", "try dune by frank herbert", "thanks"}
	for i, c := range contents {
		role := events.RoleUser
		if i%2 == 1 {
			role = events.RoleAssistant
		}
		turns = append(turns, store.StoredTurn{Turn: events.Turn{ID: fmt.Sprintf("t%d", i), TenantID: "acme", UserID: "u1",
			SessionID: "s1", OccurredAt: t0.Add(time.Duration(i) * time.Minute), Role: role, Content: c}})
	}
	turns = append(turns, store.StoredTurn{Turn: events.Turn{ID: "sys", TenantID: "acme", UserID: "u1", SessionID: "s1",
		OccurredAt: t0.Add(90 * time.Second), Role: events.RoleSystem, Content: "system prompt"}})
	_, err := s.st.InsertTurns(s.ctx, turns)
	require.NoError(t, err)
	var batch []store.SearchEntry
	for _, tu := range turns {
		batch = append(batch, msgEntry("acme", "u1", "s1", tu.Turn.ID, tu.Turn.Role, tu.Turn.OccurredAt, tu.Turn.Content))
	}
	s.upsert(t, batch...)

	hits := s.search(t, "acme", search.Params{UserID: "u1", Terms: []string{"dune"}, Neighbors: true, DialogueWeight: -1})
	require.Len(t, hits, 1)
	require.Equal(t, "t2", hits[0].SourceID)
	require.Equal(t, &search.Neighbor{EventID: "t1", Role: "assistant", OccurredAt: t0.Add(time.Minute), Content: contents[1]}, hits[0].Previous,
		"the system turn between them is skipped")
	require.Equal(t, &search.Neighbor{EventID: "t3", Role: "assistant", OccurredAt: t0.Add(3 * time.Minute), Content: contents[3]}, hits[0].Next)

	hits = s.search(t, "acme", search.Params{UserID: "u1", Terms: []string{"hello", "thanks"}, Neighbors: true, DialogueWeight: -1})
	require.Len(t, hits, 2)
	for _, h := range hits {
		require.True(t, (h.Previous == nil) != (h.Next == nil), "the first turn has no previous, the last no next")
	}
	hits = s.search(t, "acme", search.Params{UserID: "u1", Terms: []string{"hello", "thanks"}, Neighbors: true, NeighborHits: 1, DialogueWeight: -1})
	require.Len(t, hits, 2)
	require.True(t, (hits[0].Previous == nil) != (hits[0].Next == nil), "the first hit has its neighbour")
	require.Nil(t, hits[1].Previous, "the second, past NeighborHits, has none")
	require.Nil(t, hits[1].Next)
	hits = s.search(t, "acme", search.Params{UserID: "u1", Terms: []string{"dune"}, DialogueWeight: -1})
	require.Nil(t, hits[0].Previous, "neighbours only when asked for")
	require.Nil(t, hits[0].Next)

	// Two turns on each side: the turns beyond the nearest, nearest first,
	// as far as the session goes.
	hits = s.search(t, "acme", search.Params{UserID: "u1", Terms: []string{"dune"}, Neighbors: true, NeighborTurns: 2, DialogueWeight: -1})
	require.Equal(t, "t1", hits[0].Previous.EventID)
	require.Equal(t, []search.Neighbor{{EventID: "t0", Role: "user", OccurredAt: t0, Content: contents[0]}}, hits[0].Earlier)
	require.Equal(t, "t3", hits[0].Next.EventID)
	require.Empty(t, hits[0].Later, "t3 is the session's last turn")
	hits = s.search(t, "acme", search.Params{UserID: "u1", Terms: []string{"which"}, Neighbors: true, NeighborTurns: 3, DialogueWeight: -1})
	require.Equal(t, "t1", hits[0].SourceID)
	require.Empty(t, hits[0].Earlier)
	require.Equal(t, []string{"t3"}, neighborIDs(hits[0].Later))
	hits = s.search(t, "acme", search.Params{UserID: "u1", Terms: []string{"dune"}, NeighborTurns: 2, DialogueWeight: -1})
	require.Nil(t, hits[0].Previous, "turns without Neighbors are nothing")
	require.Empty(t, hits[0].Earlier)
	_, err = search.Find(s.ctx, s.st.Tenant("acme"), search.Params{UserID: "u1", Terms: []string{"dune"}, Neighbors: true, NeighborTurns: search.MaxNeighborTurns + 1})
	require.ErrorContains(t, err, "neighbor turns")
}

func neighborIDs(ns []search.Neighbor) []string {
	var ids []string
	for _, n := range ns {
		ids = append(ids, n.EventID)
	}
	return ids
}

// TestSearchDialogue: a turn is scored with its neighbours. The same answer
// ("dune") in two sessions scores the same alone, and the newer one comes
// first; read with the question before it, the answer to "what should I read
// on the flight" comes first for a query about both.
func TestSearchDialogue(t *testing.T) {
	t.Parallel()
	s := setupRanking(t)
	s.upsert(t,
		msgEntry("acme", "u1", "a", "question", "user", t0, "what should I read on the flight"),
		msgEntry("acme", "u1", "a", "answer", "assistant", t0.Add(time.Minute), "dune"),
		msgEntry("acme", "u1", "b", "hello", "user", t0.Add(time.Hour), "hello there"),
		msgEntry("acme", "u1", "b", "alone", "assistant", t0.Add(time.Hour+time.Minute), "dune"),
	)
	q := search.Params{UserID: "u1", Terms: []string{"flight", "dune"}, Kinds: []string{store.SearchMessage}, Roles: []string{"assistant"}}
	q.DialogueWeight = -1
	hits := s.search(t, "acme", q)
	require.Equal(t, []string{"alone", "answer"}, sources(hits), "alone, equal scores: the newer first")
	require.InDelta(t, hits[0].LexicalScore, hits[1].LexicalScore, 1e-12)
	q.DialogueWeight = 0
	hits = s.search(t, "acme", q)
	require.Equal(t, []string{"answer", "alone"}, sources(hits), "with its question, the answer first")
	require.Greater(t, hits[0].LexicalScore, hits[1].LexicalScore)
	q.DialogueWeight = 1
	again := s.search(t, "acme", q)
	require.Greater(t, again[0].LexicalScore, hits[0].LexicalScore, "the weight scales the neighbours' share")
}

// SessionWeight lifts a matching turn by how well its whole session
// matches: of two equal turns, the one whose conversation also holds the
// message's other words comes first; a turn holding none of them is not
// lifted into the hits.
func TestSearchSessions(t *testing.T) {
	t.Parallel()
	s := setupRanking(t)
	s.upsert(t,
		msgEntry("acme", "u1", "a", "a-class", "user", t0, "pottery class"),
		msgEntry("acme", "u1", "a", "a-filler", "assistant", t0.Add(time.Minute), "sounds lovely"),
		msgEntry("acme", "u1", "a", "a-weekend", "user", t0.Add(2*time.Minute), "every weekend with the kids"),
		msgEntry("acme", "u1", "b", "b-class", "user", t0.Add(time.Hour), "pottery class"),
		msgEntry("acme", "u1", "b", "b-filler", "assistant", t0.Add(time.Hour+time.Minute), "how nice"),
		msgEntry("acme", "u1", "c", "c-other", "user", t0.Add(2*time.Hour), "my dog likes walks"),
	)
	p := search.Params{UserID: "u1", Terms: []string{"pottery", "weekend", "kids"}, DialogueWeight: -1, RecencyWeight: -1, MaxPerSession: -1}
	hits := s.search(t, "acme", p)
	require.ElementsMatch(t, []string{"a-class", "b-class", "a-weekend"}, sources(hits))
	require.InDelta(t, scoreOf(hits, "a-class"), scoreOf(hits, "b-class"), 1e-12, "no lift: the same words score the same")
	p.SessionWeight = 0.4
	lifted := s.search(t, "acme", p)
	require.ElementsMatch(t, []string{"a-class", "b-class", "a-weekend"}, sources(lifted), "no turn without a query term is lifted in")
	require.Greater(t, lexicalOf(lifted, "a-class"), lexicalOf(lifted, "b-class"), "the turn of the session that holds the other words first")
	require.Less(t, sourceRank(lifted, "a-class"), sourceRank(lifted, "b-class"))
	// The best session adds the weight times the best turn's score.
	require.InDelta(t, 1.4*lexicalOf(hits, "a-weekend"), lexicalOf(lifted, "a-weekend"), 1e-9)
}

func scoreOf(hits []search.Hit, id string) float64   { return hits[sourceRank(hits, id)].Score }
func lexicalOf(hits []search.Hit, id string) float64 { return hits[sourceRank(hits, id)].LexicalScore }

func sourceRank(hits []search.Hit, id string) int {
	for i, h := range hits {
		if h.SourceID == id {
			return i
		}
	}
	return -1
}

// UserWeight lifts the user's own turns over the assistant's of the same
// relevance, by the given fraction.
func TestSearchUserWeight(t *testing.T) {
	t.Parallel()
	s := setupRanking(t)
	s.upsert(t,
		msgEntry("acme", "u1", "s1", "said-by-assistant", "assistant", t0, "guitar strings"),
		msgEntry("acme", "u1", "s2", "said-by-user", "user", t0, "guitar strings"),
	)
	p := search.Params{UserID: "u1", Terms: []string{"guitar"}, RecencyWeight: -1}
	hits := s.search(t, "acme", p)
	require.InDelta(t, hits[0].Score, hits[1].Score, 1e-12, "no lift: equal scores")
	p.UserWeight = 0.3
	hits = s.search(t, "acme", p)
	require.Equal(t, []string{"said-by-user", "said-by-assistant"}, sources(hits))
	require.InDelta(t, 1.3, hits[0].Score/hits[1].Score, 1e-9)
}

// classifies checks that is holds for every message of yes and for none
// of no.
func classifies(t *testing.T, is func(string) bool, yes, no []string) {
	t.Helper()
	for _, m := range yes {
		require.True(t, is(m), m)
	}
	for _, m := range no {
		require.False(t, is(m), m)
	}
}

func TestRefersToAssistant(t *testing.T) {
	t.Parallel()
	classifies(t, search.RefersToAssistant, []string{
		"Can you remind me of the vegan eatery you recommended in New York?",
		"You mentioned a few language learning apps last time, which were they?",
		"What was the 7th job in the list you provided?",
		"I'm going back to your previous answer about dinosaurs.",
		"你之前推荐的那本书叫什么？",
		"上次你说的那家餐厅在哪里",
		"提醒我一下那个电话号码",
		"YOU MENTIONED A BOOK. WHICH ONE?",
		"Remind me what the third step was.",
	}, []string{
		"Can you recommend a show or movie for me to watch tonight?",
		"What should I serve for dinner this weekend?",
		"How many hours have I spent playing games in total?",
		"Do you think it would be a good idea to attend my high school reunion?",
		"我最近在读什么书？",
		"周末有什么好吃的甜点推荐吗",
		"你推荐什么书？",
		"What would you suggest for a rainy day?",
		"What did Caroline research?",
		"",
	})
}

func TestAboutUser(t *testing.T) {
	t.Parallel()
	classifies(t, search.AboutUser, []string{
		"How many hours have I spent playing games in total?",
		"What was my score in the last game?",
		"I'm planning a trip, any ideas?",
		"Can you help me pick a gift?",
		"i’ve been thinking about a new bike",
		"我上个月买了几本书？",
		"推荐一部我会喜欢的电影",
		"我",
	}, []string{
		"What did Caroline paint last year?",
		"When did Melanie run a charity race?",
		"Any dessert ideas for the weekend?",
		"我们周末去哪儿？",
		"Tell us about iMessage and myriad mines", // no word of the first person singular
		"周末有什么好吃的甜点推荐吗",
	})
}

// The context's search lifts the user's turns by the user weight, by the
// self weight when the user speaks of themselves, and not at all when the
// message points back at what the assistant said.
func TestQueryUserWeight(t *testing.T) {
	t.Parallel()
	cfg := search.Config{ContextRecallUserWeight: 0.3, ContextRecallSelfWeight: 1}
	weight := func(m string) float64 { return cfg.Query("t", "u", m, 10, time.Time{}).Params.UserWeight }
	require.InDelta(t, 0.3, weight("What did Caroline paint last year?"), 1e-12)
	require.InDelta(t, 1, weight("How many books have I read this year?"), 1e-12)
	require.InDelta(t, 1, weight("我上个月读了几本书？"), 1e-12)
	require.Zero(t, weight("Can you remind me of the book you recommended?"))
	cfg.ContextRecallSelfWeight = 0.1
	require.InDelta(t, 0.3, weight("How many books have I read this year?"), 1e-12, "never below the user weight")
}

// What happened when the message says is a list of its own: a turn of that
// day is found though it shares no word with the message, and of two
// turns with the same words, that day's comes first. A span that holds the
// whole history says nothing, and changes nothing.
func TestSearchDuring(t *testing.T) {
	t.Parallel()
	s := setupRanking(t)
	saturday := t0.AddDate(0, 0, -6) // t0 is a Friday
	s.upsert(t,
		msgEntry("acme", "u1", "sat", "sat-planted", "user", saturday.Add(2*time.Hour), "planted twelve tomato saplings"),
		msgEntry("acme", "u1", "sat", "sat-tips", "user", saturday.Add(3*time.Hour), "gardening tips please"),
		msgEntry("acme", "u1", "old", "old-tips", "user", saturday.AddDate(0, 0, -7), "gardening tips please"),
		msgEntry("acme", "u1", "old", "old-gloves", "user", saturday.AddDate(0, 0, -8), "gardening gloves"),
		msgEntry("acme", "u1", "new", "new-dog", "user", t0.Add(-time.Hour), "my dog likes walks"),
	)
	p := search.Params{UserID: "u1", Terms: []string{"gardening"}, RecencyWeight: -1, DialogueWeight: -1, MaxPerSession: -1}
	plain := s.search(t, "acme", p)
	require.NotContains(t, sources(plain), "sat-planted", "no word of the message")
	require.InDelta(t, scoreOf(plain, "sat-tips"), scoreOf(plain, "old-tips"), 1e-12, "the same words score the same")

	p.During = []when.Span{{From: saturday, To: saturday.AddDate(0, 0, 1)}}
	p.DuringWeight = 1
	timed := s.search(t, "acme", p)
	require.Equal(t, "sat-tips", timed[0].SourceID, "that day's words first")
	require.Equal(t, 1, timed[0].TimeRank)
	require.Contains(t, sources(timed), "sat-planted", "that day's turn without the message's words")
	require.Equal(t, 2, timed[sourceRank(timed, "sat-planted")].TimeRank)
	require.Zero(t, timed[sourceRank(timed, "old-tips")].TimeRank)
	// The list weighs by what it leaves out: 2 of 5 turns in it.
	require.InDelta(t, 1/float64(10+timed[0].LexicalRank)+0.6/11, scoreOf(timed, "sat-tips"), 1e-9)
	require.InDelta(t, 0.6/12, scoreOf(timed, "sat-planted"), 1e-9)

	p.During = []when.Span{{From: saturday.AddDate(0, 0, -30), To: t0.AddDate(0, 0, 1)}}
	all := s.search(t, "acme", p)
	require.Equal(t, sources(plain), sources(all), "a span of the whole history changes nothing")
	for i := range all {
		require.InDelta(t, plain[i].Score, all[i].Score, 1e-12)
	}
}

// A context's search lifts the times its message names and searches for
// the message's other words: the time's own are blanked out.
func TestQueryTimes(t *testing.T) {
	t.Parallel()
	cfg := search.Config{ContextRecallTimeWeight: 1}
	q := cfg.Query("t", "u", "What did I do last Saturday?", 10, t0)
	saturday := time.Date(2026, 4, 25, 0, 0, 0, 0, time.UTC)
	require.Equal(t, []when.Span{{From: saturday, To: saturday.AddDate(0, 0, 1)}}, q.During)
	require.InDelta(t, 1, q.DuringWeight, 1e-12)
	require.Equal(t, "What did I do              ?", q.Untimed)
	q = cfg.Query("t", "u", "What did I do on Saturday?", 10, t0)
	require.Nil(t, q.During)
	require.Empty(t, q.Untimed, "no time named: the message is searched as it is")
	cfg.ContextRecallTimeWeight = 0
	q = cfg.Query("t", "u", "What did I do last Saturday?", 10, t0)
	require.Nil(t, q.During)
	require.Empty(t, q.Untimed)
}

// A message that is nothing but a time is searched for by its own words
// when no embedder gives it a vector.
func TestPrepareUntimed(t *testing.T) {
	t.Parallel()
	s := search.NewSearcher(nil, search.SharedAnalyzer(), nil, 0, testenv.Logger(t))
	p, res, ok := s.Prepare(context.Background(), search.Query{Text: "gardening last Saturday", Untimed: "gardening              "})
	require.True(t, ok)
	require.Equal(t, []string{"garden"}, p.Terms)
	require.Equal(t, p.Terms, res.Terms)
	p, _, ok = s.Prepare(context.Background(), search.Query{Text: "last Saturday", Untimed: "             "})
	require.True(t, ok)
	require.Equal(t, []string{"last", "saturday"}, p.Terms)
}

// A turn said again and again (a greeting, a daily request) is found once
// by a search that asks for distinct texts (a context's), its newest time:
// the hits after it are what else the history holds. Without, each time.
func TestSearchSameTextOnce(t *testing.T) {
	t.Parallel()
	s := setupRanking(t)
	var entries []store.SearchEntry
	for d := range 30 {
		session := fmt.Sprintf("day%02d", d)
		text := "Remind me to water the tomato plants tonight!"
		if d%2 == 1 {
			text = "remind me to water the tomato plants tonight"
		}
		entries = append(entries, msgEntry("acme", "u1", session, session+"-0", "user", t0.AddDate(0, 0, d-30), text))
	}
	entries = append(entries,
		msgEntry("acme", "u1", "garden", "garden-0", "user", t0.AddDate(0, 0, -40), "The tomato plants got blight last summer, so I switched to a resistant variety."),
		msgEntry("acme", "u1", "garden", "garden-1", "assistant", t0.AddDate(0, 0, -40), "Resistant tomato varieties are a good choice; water the plants at the base."))
	s.upsert(t, entries...)
	hits := s.search(t, "acme", search.Params{UserID: "u1", Terms: []string{"water", "tomato", "plants"}, K: 5, Now: t0, Distinct: true})
	ids := sources(hits)
	require.Equal(t, "day29-0", ids[0], "the newest of the repeats")
	for _, id := range ids[1:] {
		require.NotRegexp(t, `^day`, id, "a repeat is found once: %v", ids)
	}
	require.Contains(t, ids, "garden-0")
	hits = s.search(t, "acme", search.Params{UserID: "u1", Terms: []string{"water", "tomato", "plants"}, K: 5, Now: t0})
	for _, id := range sources(hits) {
		require.Regexp(t, `^day`, id, "each time it was said")
	}
}
