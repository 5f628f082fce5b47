package memory_test

import (
	"strings"
	"testing"
	"time"

	"github.com/recallhq/recall/pkg/contract"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/decay"
	"github.com/recallhq/recall/pkg/envconfig"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/memory"
	"github.com/recallhq/recall/pkg/search"
	"github.com/recallhq/recall/pkg/store"
)

// A long turn recalled for a message shows its opening and the passage
// that answers the message, not only its first characters.
func TestContextRecallsThePassage(t *testing.T) {
	t.Parallel()
	db := testenv.NewDB(t)
	an := search.SharedAnalyzer()
	svc, err := memory.New(memory.Options{Config: envconfig.Defaults[memory.Config](), Store: db.Store, Decay: decay.DefaultPolicy, Log: testenv.Logger(t),
		Searcher: search.NewSearcher(db.Store, an, nil, time.Second, testenv.Logger(t))})
	require.NoError(t, err)
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	long := "Here are some ideas for your trip to Japan. " + strings.Repeat("Kyoto has many temples and gardens worth a visit. ", 12) +
		"For the flight, the cheapest fares to Osaka are usually on Tuesdays in late January. " + strings.Repeat("Enjoy the food too. ", 6)
	indexTurns(t, db.Store, an, "u1", "old", at,
		events.Turn{ID: "q", Role: events.RoleUser, Content: "I'm planning a trip to Japan next year."},
		events.Turn{ID: "a", Role: events.RoleAssistant, Content: long})

	c, err := svc.Context(t.Context(), "t1", contract.ContextParams{UserID: "u1", SessionID: "new",
		Query: "when are the cheapest fares to Osaka?"})
	require.NoError(t, err)
	require.NotNil(t, c.Recalled)
	var shown string
	for _, h := range c.Recalled.Hits {
		if h.EventID == "a" {
			shown = h.Text
			require.True(t, h.Truncated, "%q", h.Text)
		}
	}
	require.True(t, strings.HasPrefix(shown, "Here are some ideas for your trip to Japan."), shown)
	require.Contains(t, shown, "… For the flight, the cheapest fares to Osaka are usually on Tuesdays")
	require.Contains(t, c.Prompt, "the cheapest fares to Osaka are usually on Tuesdays")

	// A message that names an entry of a list by its position is shown
	// that entry of the list recalled, past the snippet's cut.
	list := "To make the widest variety of gin-based cocktails, I would recommend these five bottles. " +
		strings.Repeat("Keep opened vermouth in the fridge, and taste each bottle on its own before mixing. ", 6) + "\n\n" +
		"1. Sweet Vermouth: a fortified wine that is key in gin cocktails like the Negroni and the Martinez.\n" +
		"2. Dry Vermouth: essential for a classic gin Martini, and used in many other gin cocktails too.\n" +
		"3. Campari: a bitter Italian liqueur for the Negroni and for other gin-based cocktails.\n" +
		"4. Elderflower liqueur: delicate and floral, it brightens gin cocktails like the Elderflower Collins.\n" +
		"5. Absinthe: a strong herbal liqueur, used in small amounts for the Corpse Reviver No. 2.\n"
	indexTurns(t, db.Store, an, "u2", "bar", at,
		events.Turn{ID: "q2", Role: events.RoleUser, Content: "What 5 bottles should I buy to make the widest variety of gin-based cocktails?"},
		events.Turn{ID: "a2", Role: events.RoleAssistant, Content: list})
	c, err = svc.Context(t.Context(), "t1", contract.ContextParams{UserID: "u2", SessionID: "new",
		Query: "You recommended five bottles for gin-based cocktails. Can you remind me what the fifth bottle was?"})
	require.NoError(t, err)
	require.NotNil(t, c.Recalled)
	require.Contains(t, c.Prompt, "… 5. Absinthe: a strong herbal liqueur")
}

// indexTurns stores the search entries of a user's turns in one session of
// tenant t1, a minute apart from at, as the indexer would.
func indexTurns(t *testing.T, st *store.Store, an *search.Analyzer, user, session string, at time.Time, turns ...events.Turn) {
	t.Helper()
	var entries []store.SearchEntry
	for i, tu := range turns {
		tu.TenantID, tu.UserID, tu.SessionID, tu.OccurredAt = "t1", user, session, at.Add(time.Duration(i)*time.Minute)
		e, ok := search.TurnEntry(tu)
		require.True(t, ok)
		entries = append(entries, e)
	}
	require.NoError(t, search.NewIndexer(st, an, nil).Prepare(t.Context(), entries))
	_, err := st.UpsertSearchEntries(t.Context(), entries)
	require.NoError(t, err)
}
