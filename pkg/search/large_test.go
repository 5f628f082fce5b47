package search_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/embed"
	"github.com/recallhq/recall/pkg/envconfig"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/search"
	"github.com/recallhq/recall/pkg/store"
	"github.com/recallhq/recall/pkg/when"
)

// A user whose history crosses the switch to indexes (store.LargeSearch)
// keeps its best hits: KdConv's 150 film conversations as one user's
// history (about 3,000 turns), each asked for by its topic, by the scan
// and by the indexes (the switch set below the user's size), with the
// hashing embedder's vectors and by terms alone. The indexes read the
// newest turns and the sessions holding the question's rare terms, with
// the history's statistics: the conversation asked for comes first as
// often as by the scan, and its first hit is the same turn.
func TestSearchLargeUserSwitch(t *testing.T) {
	t.Parallel()
	b := setup(t)
	convs, turns := b.indexKdConv(t, "film", 150)
	var entries int64
	require.NoError(t, b.db.Store.Pool().QueryRow(b.ctx, `SELECT entries FROM search_user_stats WHERE tenant_id = 'acme' AND user_id = 'u1'`).Scan(&entries))
	require.EqualValues(t, len(turns), entries, "the triggers count every entry")
	_, err := b.db.Store.Pool().Exec(b.ctx, `ANALYZE`)
	require.NoError(t, err)

	large := envconfig.Defaults[search.Config]().Large()
	large.From = int(entries) // the user is just large
	for _, terms := range []bool{false, true} {
		searcher := b.searcher
		if terms {
			searcher = search.NewSearcher(b.db.Store, b.an, nil, 0, testenv.Logger(t))
		}
		var mrr [2]float64
		same := 0
		for i, c := range convs {
			q := topicQuestion(c.Topic)
			var first [2]string
			for k, l := range []store.LargeSearch{{}, large} {
				res, err := searcher.Search(b.ctx, search.Query{TenantID: "acme", Text: q, Params: search.Params{UserID: "u1", K: 10, Now: t0, Large: l}})
				require.NoError(t, err)
				require.NotEmpty(t, res.Hits, q)
				first[k] = res.Hits[0].SourceID
				for rank, h := range res.Hits {
					if h.SessionID == fmt.Sprintf("kd-film-%d", i) {
						mrr[k] += 1 / float64(rank+1)
						break
					}
				}
			}
			if first[0] == first[1] {
				same++
			}
		}
		mrr[0] /= float64(len(convs))
		mrr[1] /= float64(len(convs))
		t.Logf("terms only %v: MRR scan %.3f, indexes %.3f; the same first hit for %d of %d", terms, mrr[0], mrr[1], same, len(convs))
		require.GreaterOrEqual(t, mrr[1], mrr[0]-0.01, "terms only %v", terms)
		require.GreaterOrEqual(t, same, len(convs)*9/10, "terms only %v", terms)
	}

	// One entry fewer than the switch: the scan; the search is the same.
	large.From = int(entries) + 1
	q := topicQuestion(convs[7].Topic)
	var hits [2][]string
	for k, l := range []store.LargeSearch{{}, large} {
		res, err := b.searcher.Search(b.ctx, search.Query{TenantID: "acme", Text: q, Params: search.Params{UserID: "u1", K: 10, Now: t0, Large: l}})
		require.NoError(t, err)
		hits[k] = sources(res.Hits)
	}
	require.Equal(t, hits[0], hits[1], "below the switch the user is scanned")
}

// The large users' search reads the history as of a time as the scan does:
// nothing at or after it.
func TestSearchLargeUserAsOf(t *testing.T) {
	t.Parallel()
	b := setup(t)
	turns := gardenDays(60)
	turns = append(turns, chat("acme", "u1", "late", t0.AddDate(0, 0, -1), "I adopted a greyhound named Biscuit", "Congratulations!")...)
	b.index(t, turns)
	large := envconfig.Defaults[search.Config]().Large()
	large.From = 10
	res := b.search(t, "acme", "u1", "what is my greyhound called?", search.Params{K: 5, Large: large})
	require.Equal(t, "late-0", res.Hits[0].SourceID)
	res = b.search(t, "acme", "u1", "what is my greyhound called?", search.Params{K: 5, Large: large, At: t0.AddDate(0, 0, -2)})
	for _, h := range res.Hits {
		require.NotEqual(t, "late", h.SessionID, "read as of before it was said")
	}
	_ = embed.NewHashing
}

// A large user's search reads the entries of the times the message names,
// whatever their words: what happened that day is found though it lies
// outside the newest entries and holds none of the message's terms.
func TestSearchLargeUserTimes(t *testing.T) {
	t.Parallel()
	b := setup(t)
	var turns []events.Turn
	for d := range 60 {
		turns = append(turns, chat("acme", "u1", fmt.Sprintf("s%02d", d), t0.AddDate(0, 0, d-60),
			fmt.Sprintf("day %d: what should I do about the weather", d), "Check the forecast.",
			"thanks, and what should I do about dinner", "Something light.",
			"ok", "Anything else?")...)
	}
	b.index(t, turns)
	day := t0.AddDate(0, 0, 10-60)
	saturday := chat("acme", "u1", "sat", day.Add(20*time.Hour), "planted twelve tomato saplings", "Lovely!")
	b.index(t, saturday)
	large := envconfig.Defaults[search.Config]().Large()
	large.From = 10
	p := search.Params{K: 10, Large: large, DuringWeight: 1,
		During: []when.Span{{From: day, To: day.AddDate(0, 0, 1)}}}
	res := b.search(t, "acme", "u1", "what should I do", p)
	require.Contains(t, sources(res.Hits), "sat-0", "that day's turn")
	p.During = nil
	res = b.search(t, "acme", "u1", "what should I do", p)
	require.NotContains(t, sources(res.Hits), "sat-0", "no word of the message, and long ago")
}

// A large user's count or total reads more sessions than another message
// (Config.LargeFor): its answer is one turn in each of several sessions,
// which may hold fewer of the message's terms than sessions it does not
// need. Here fifteen long sessions hold three of its terms, and three old,
// short ones the two that matter: the usual ten sessions are the fifteen's
// newest; a count reads the three as well, and finds them all, as the scan
// does.
func TestSearchLargeUserCountReadsMoreSessions(t *testing.T) {
	t.Parallel()
	b := setup(t)
	filler := strings.Repeat("the weather was mild and the train ran late again and the coffee was cold ", 6)
	var turns []events.Turn
	for i, game := range []string{"Celeste", "Hyper Light Drifter", "Hollow Knight"} {
		turns = append(turns, chat("acme", "u1", fmt.Sprintf("game%d", i), t0.AddDate(0, -6, i),
			fmt.Sprintf("I finished %s, a game that took me %d hours", game, 10+i), "Well done!")...)
	}
	for i := range 15 {
		turns = append(turns, chat("acme", "u1", fmt.Sprintf("long%02d", i), t0.AddDate(0, -3, i),
			"I spent an hour at the park and watched the kids play; "+filler, "Sounds relaxing.")...)
	}
	for i := range 20 {
		turns = append(turns, chat("acme", "u1", fmt.Sprintf("chat%02d", i), t0.AddDate(0, 0, i-21),
			fmt.Sprintf("note %d about groceries and errands", i), "Noted.")...)
	}
	b.index(t, turns)

	cfg := envconfig.Defaults[search.Config]()
	cfg.SearchLargeUserEntries, cfg.SearchLargeUserSample = 10, 20
	cfg.SearchLargeUserSessions, cfg.SearchLargeUserCountSessions = 10, 30
	q := "How many hours have I spent playing games in total?"
	found := func(l store.LargeSearch) int {
		res := b.search(t, "acme", "u1", q, search.Params{K: 10, Large: l})
		sessions := map[string]bool{}
		for _, h := range res.Hits {
			if strings.HasPrefix(h.SessionID, "game") {
				sessions[h.SessionID] = true
			}
		}
		return len(sessions)
	}
	require.Equal(t, 3, found(store.LargeSearch{}), "the scan")
	require.Less(t, found(cfg.Large()), 3, "ten sessions: the long ones hold more of the terms")
	require.Equal(t, 3, found(cfg.LargeFor(q)), "a count reads thirty")
	require.Equal(t, cfg.Large(), cfg.LargeFor("what games did I play?"), "not a count")
}

// A large user's search chooses the sessions that hold the message's rare
// terms again and again over one that names more of them once: a
// conversation about a topic repeats its words, one that passes by
// repeats none. Here the message asks for a conversation about frontend
// and backend work "we had before"; one old session talks of nothing else
// (six turns hold both words), another holds "remind", "previous" and
// "conversation" once each, three words as rare in this history as the
// two. Counted once a session, the second weighs more and is the one
// session read; counted as a session's term frequency, saturated as BM25
// saturates a document's (k1 1.2), the first is, and is found, as the
// scan finds it.
func TestSearchLargeUserChoosesSessionsByTermFrequency(t *testing.T) {
	t.Parallel()
	b := setup(t)
	turns := chat("acme", "u1", "web", t0.AddDate(0, -5, 0),
		"Should I learn frontend or backend first?", "Frontend first: backend makes more sense once you see a page.",
		"What backend language pairs well with a frontend in React?", "For a React frontend, a Node backend keeps one language.",
		"Is a frontend framework worth it before backend basics?", "Learn backend basics alongside; frontend frameworks change fast.")
	turns = append(turns, chat("acme", "u1", "misc", t0.AddDate(0, -4, 0),
		"Please remind me to call my sister.", "Sure.",
		"That previous plan fell through.", "Sorry to hear.",
		"Thanks for the conversation.", "Anytime.")...)
	for i, w := range []string{"remind", "previous", "conversation"} {
		for j := range 5 {
			turns = append(turns, chat("acme", "u1", fmt.Sprintf("one%d%d", i, j), t0.AddDate(0, -3, 5*i+j),
				fmt.Sprintf("a word on %s, once", w), "Okay.")...)
		}
	}
	turns = append(turns, gardenDays(30)...)
	b.index(t, turns)

	cfg := envconfig.Defaults[search.Config]()
	cfg.SearchLargeUserEntries, cfg.SearchLargeUserSample, cfg.SearchLargeUserSessions = 10, 20, 1
	q := "Can you remind me of our previous conversation about frontend and backend?"
	inWeb := func(l store.LargeSearch) bool {
		res := b.search(t, "acme", "u1", q, search.Params{K: 5, Large: l})
		return slices.ContainsFunc(res.Hits, func(h search.Hit) bool { return h.SessionID == "web" })
	}
	require.True(t, inWeb(store.LargeSearch{}), "the scan")
	require.True(t, inWeb(cfg.Large()), "the one session read is the one about the topic")
}

// A large user's search tells a term of the last conversation from a
// common one: the newest entries (the sample each term's share of the
// history is estimated from) are mostly the last session or two, and a
// term each of its turns holds looks common there though no other session
// holds it. Here the user's last session is about a NAS, every turn of it;
// eight older ones say "buy" once. Estimated from the sample, "nas" is in
// half the history, past the budget, not looked up, and weighs little:
// the older sessions' "buy" comes first. Counted by the sessions of the
// sample that hold it (one of several), it is looked up, its entries
// counted, and the NAS session comes first, as the scan has it.
func TestSearchLargeUserLastTopicIsNotCommon(t *testing.T) {
	t.Parallel()
	b := setup(t)
	turns := gardenDays(60)
	for i := range 8 {
		turns = append(turns, chat("acme", "u1", fmt.Sprintf("shop%d", i), t0.AddDate(0, -3, i),
			"I want to buy new shoes.", "Good idea.")...)
	}
	turns = append(turns, chat("acme", "u1", "nas", t0.Add(-2*time.Hour),
		"My laptop is full; is a NAS a good idea?", "A NAS keeps files for every device at home.",
		"How many drives should my NAS have?", "Two drives in a NAS can mirror each other.",
		"Can a NAS back up my phone?", "Yes, most NAS apps back up phones.")...)
	b.index(t, turns)

	cfg := envconfig.Defaults[search.Config]()
	cfg.SearchLargeUserEntries, cfg.SearchLargeUserSample, cfg.SearchLargeUserBudget = 10, 12, 20
	q := "Should I buy a NAS?"
	first := func(l store.LargeSearch) string {
		res := b.search(t, "acme", "u1", q, search.Params{K: 3, Large: l})
		require.NotEmpty(t, res.Hits)
		return res.Hits[0].SessionID
	}
	require.Equal(t, "nas", first(store.LargeSearch{}), "the scan")
	require.Equal(t, "nas", first(cfg.Large()), "through the indexes")
}

// A large user's search is planned once per connection (the generic plan
// of SearchCandidates), and leaves the connection's planner settings as it
// found them, when the batch fails too: on a pool of one connection, three
// searches use the generic plan and none a custom one, and plan_cache_mode
// is back to its default after each, and after a batch that fails between
// the setting and its reset.
func TestSearchLargeUserGenericPlan(t *testing.T) {
	t.Parallel()
	b := setup(t)
	turns := gardenDays(30)
	turns = append(turns, chat("acme", "u1", "dog", t0.AddDate(0, 0, -40), "I adopted a greyhound named Biscuit", "Congratulations!")...)
	b.index(t, turns)
	st, err := store.Open(b.ctx, store.Config{URL: b.db.URL, MaxConns: 1})
	require.NoError(t, err)
	t.Cleanup(st.Close)
	searcher := search.NewSearcher(st, b.an, nil, 0, testenv.Logger(t))
	large := envconfig.Defaults[search.Config]().Large()
	large.From = 10
	setting := func() string {
		var mode string
		require.NoError(t, st.Pool().QueryRow(b.ctx, `SELECT current_setting('plan_cache_mode')`).Scan(&mode))
		return mode
	}
	for range 3 {
		res, err := searcher.Search(b.ctx, search.Query{TenantID: "acme", Text: "what is my greyhound called?",
			Params: search.Params{UserID: "u1", K: 5, Now: t0, Large: large}})
		require.NoError(t, err)
		require.NotEmpty(t, res.Hits)
		require.Equal(t, "dog-0", res.Hits[0].SourceID, "found through the indexes, though not among the newest")
		require.Equal(t, "auto", setting())
	}
	var generic, custom int64
	require.NoError(t, st.Pool().QueryRow(b.ctx, `SELECT generic_plans, custom_plans FROM pg_prepared_statements
		WHERE statement LIKE '-- A large user''s entries that a search can find%'`).Scan(&generic, &custom))
	require.EqualValues(t, 3, generic, "the generic plan")
	require.Zero(t, custom, "never planned for the arguments")

	// The setting goes with the batch's implicit transaction when a
	// statement after it fails.
	batch := &pgx.Batch{}
	batch.Queue(`SET plan_cache_mode = force_generic_plan`)
	batch.Queue(`SELECT 1 / 0`)
	batch.Queue(`RESET plan_cache_mode`)
	require.Error(t, st.Pool().SendBatch(b.ctx, batch).Close())
	require.Equal(t, "auto", setting())
}

// The scan of a user reads its range of the primary key however few users
// the table holds: after six searches of a user with nearly every entry,
// PostgreSQL's plan of the scan for a user of a few entries (the generic
// plan it keeps once that looks no costlier) is still the range, not a
// scan of the whole table sorted, on the statement's own connection.
func TestSearchScanPlanFewUsers(t *testing.T) {
	t.Parallel()
	b := setup(t)
	at := t0.AddDate(0, -1, 0)
	var entries []store.SearchEntry
	for i := range 3000 {
		entries = append(entries, store.SearchEntry{TenantID: "acme", UserID: "big", Kind: store.SearchMessage,
			SourceID: fmt.Sprintf("b%d", i), SessionID: fmt.Sprintf("bs%d", i/10), Role: events.RoleUser,
			OccurredAt: at.Add(time.Duration(i) * time.Minute), Text: "a turn about the garden and the weather " + strings.Repeat("x", 200),
			Terms: []string{"garden", "weather", fmt.Sprintf("t%d", i%300)}})
	}
	for i := range 20 {
		entries = append(entries, store.SearchEntry{TenantID: "acme", UserID: "small", Kind: store.SearchMessage,
			SourceID: fmt.Sprintf("s%d", i), SessionID: "ss", Role: events.RoleUser,
			OccurredAt: at.Add(time.Duration(i) * time.Minute), Text: "my greyhound is called Biscuit", Terms: []string{"greyhound", "biscuit"}})
	}
	for len(entries) > 0 {
		n := min(len(entries), 1000)
		_, err := b.db.Store.UpsertSearchEntries(b.ctx, entries[:n])
		require.NoError(t, err)
		entries = entries[n:]
	}
	_, err := b.db.Store.Pool().Exec(b.ctx, `ANALYZE`)
	require.NoError(t, err)
	st, err := store.Open(b.ctx, store.Config{URL: b.db.URL, MaxConns: 1})
	require.NoError(t, err)
	t.Cleanup(st.Close)
	searcher := search.NewSearcher(st, b.an, nil, 0, testenv.Logger(t))
	for _, user := range []string{"big", "big", "big", "big", "big", "big", "small"} {
		res, err := searcher.Search(b.ctx, search.Query{TenantID: "acme", Text: "garden greyhound", Params: search.Params{UserID: user, K: 5, Now: t0}})
		require.NoError(t, err)
		require.NotEmpty(t, res.Hits, user)
	}
	var name string
	require.NoError(t, st.Pool().QueryRow(b.ctx, `SELECT name FROM pg_prepared_statements
		WHERE statement LIKE '-- One user''s entries, one row each%'`).Scan(&name))
	rows, err := st.Pool().Query(b.ctx, `EXPLAIN EXECUTE `+pgx.Identifier{name}.Sanitize()+
		`('acme', 'small', '''greyhound''', NULL, 'm', false, NULL)`, pgx.QueryExecModeSimpleProtocol)
	require.NoError(t, err)
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	plan := strings.Join(lines, "\n")
	require.Contains(t, plan, "Index Scan using search_entries_pkey on search_entries", plan)
	require.NotContains(t, plan, "Seq Scan on search_entries", plan)
	var mode string
	require.NoError(t, st.Pool().QueryRow(b.ctx, `SELECT current_setting('enable_seqscan')`).Scan(&mode))
	require.Equal(t, "on", mode, "reset after the scan")
}

// gardenDays is user u1's history of n days before t0, a session a day:
// the user on watering the garden and cooking, the assistant's reply.
func gardenDays(n int) []events.Turn {
	var turns []events.Turn
	for d := range n {
		turns = append(turns, chat("acme", "u1", fmt.Sprintf("s%02d", d), t0.AddDate(0, 0, d-n),
			fmt.Sprintf("day %d: I watered the garden and talked about cooking", d), "Sounds like a good day.")...)
	}
	return turns
}
