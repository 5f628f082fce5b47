package memory_test

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testenv"
	"github.com/recallhq/recall/pkg/decay"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/memory"
	"github.com/recallhq/recall/pkg/search"
	"github.com/recallhq/recall/pkg/service"
	"github.com/recallhq/recall/pkg/store"
)

// A long turn recalled for a message shows its opening and the passage
// that answers the message, not only its first characters.
func TestContextRecallsThePassage(t *testing.T) {
	t.Parallel()
	db := testenv.NewDB(t)
	an := search.SharedAnalyzer()
	svc, err := memory.New(memory.Options{Config: service.Defaults[memory.Config](), Store: db.Store, Decay: decay.DefaultPolicy, Log: testenv.Logger(t),
		Searcher: search.NewSearcher(db.Store, an, nil, time.Second, testenv.Logger(t))})
	require.NoError(t, err)
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	long := "Here are some ideas for your trip to Japan. " + strings.Repeat("Kyoto has many temples and gardens worth a visit. ", 12) +
		"For the flight, the cheapest fares to Osaka are usually on Tuesdays in late January. " + strings.Repeat("Enjoy the food too. ", 6)
	var entries []store.SearchEntry
	for i, tu := range []events.Turn{
		{ID: "q", Role: events.RoleUser, Content: "I'm planning a trip to Japan next year."},
		{ID: "a", Role: events.RoleAssistant, Content: long},
	} {
		tu.TenantID, tu.UserID, tu.SessionID, tu.OccurredAt = "t1", "u1", "old", at.Add(time.Duration(i)*time.Minute)
		e, ok := search.TurnEntry(tu)
		require.True(t, ok)
		entries = append(entries, e)
	}
	require.NoError(t, search.NewIndexer(db.Store, an, nil).Prepare(t.Context(), entries))
	_, err = db.Store.UpsertSearchEntries(t.Context(), entries)
	require.NoError(t, err)

	c, err := svc.Context(t.Context(), "t1", url.Values{"user_id": {"u1"}, "session_id": {"new"},
		"query": {"when are the cheapest fares to Osaka?"}})
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
}
