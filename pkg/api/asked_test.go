package api_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/api"
	"github.com/recallhq/recall/pkg/contract"
	"github.com/recallhq/recall/pkg/queue"
	"github.com/recallhq/recall/pkg/workers/indexer"
)

// A message that asks for the user's age recalls the turn where they said
// it, which shares no word with the message, in the context and in the
// search of their history, where the hit says its place in that list
// (asked_rank); a number of minutes is no age. With
// CONTEXT_RECALL_ASKED_WEIGHT 0 there is no such list (that the turn is
// then ranked below the message's words is TestSearchAsked's).
func TestContextRecallsTheUsersAge(t *testing.T) {
	t.Parallel()
	const q = "How old will I be when my friend Rachel gets married?"
	age := "I'm 32, so I'm in my 30s. My skin has been looking dull lately."
	for _, weight := range []float64{1, 0} {
		b := setup(t, withIngest, withConfig(func(c *api.Config) { c.ContextRecallAskedWeight = weight }))
		testenv.StartWorker(t, b.nats, b.db, indexer.Def, nil)
		at := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
		b.postOK(t, "t", newTurn("age", "u", "skin", age, at.AddDate(0, 0, -20)))
		b.postOK(t, "t", newTurn("wedding", "u", "gift", "My friend Rachel is getting married next year, any gift ideas?", at.AddDate(0, 0, -5)))
		for i := range 12 {
			b.postOK(t, "t", newTurn(fmt.Sprintf("f%d", i), "u", fmt.Sprintf("f%d", i),
				fmt.Sprintf("I'm %d minutes from the station, what should I bring for the rain?", 5+i), at.AddDate(0, 0, -i-1)))
		}
		b.waitIngested(t)
		b.nats.WaitSettled(t, queue.TurnsStream, indexer.Def.Binding.Durable)

		res := b.do(t, http.MethodGet, "/v1/context?"+url.Values{"user_id": {"u"}, "session_id": {"new"}, "query": {q},
			"max_recalled": {"3"}, "at": {at.Format(time.RFC3339)}}.Encode(), "t", nil)
		require.Equal(t, http.StatusOK, res.Status, string(res.Body))
		prompt := decode[contract.Context](t, res).Prompt
		res = b.do(t, http.MethodGet, "/v1/users/u/search?"+url.Values{"q": {q}, "k": {"3"}, "at": {at.Format(time.RFC3339)}}.Encode(), "t", nil)
		require.Equal(t, http.StatusOK, res.Status, string(res.Body))
		s := decode[contract.SearchResult](t, res)
		if weight == 0 {
			require.NotContains(t, string(res.Body), `"asked_rank"`)
			continue
		}
		require.Contains(t, prompt, age, "the turn that says the user's age")
		found := false
		for _, h := range s.Hits {
			if h.Text == age {
				found = true
				require.Equal(t, 1, h.AskedRank)
			} else {
				require.Zero(t, h.AskedRank, "%q says no age", h.Text)
			}
		}
		require.True(t, found, "%v", s.Hits)
		require.True(t, strings.Contains(string(res.Body), `"asked_rank":1`), string(res.Body))
	}
}
