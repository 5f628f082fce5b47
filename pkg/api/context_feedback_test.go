package api_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/api"
	"github.com/recallhq/recall/pkg/contract"
	"github.com/recallhq/recall/pkg/queue"
	"github.com/recallhq/recall/pkg/workers/indexer"
)

// A message that asks for a count recalls, through the real ingest and
// indexer, a turn that shares none of its words: the history the scan read
// is ranked again with the terms of the user's turns found first
// (search.Feedback). The search alone, for the same words, does not find it.
func TestContextFeedback(t *testing.T) {
	t.Parallel()
	b := setup(t, withIngest, withConfig(func(c *api.Config) {
		c.ContextRecallFeedback, c.ContextRecallFeedbackDocs, c.ContextRecallFeedbackTerms = 1, 10, 20
	}))
	testenv.StartWorker(t, b.nats, b.db, indexer.Def, nil)
	day := func(d int) time.Time { return time.Date(2026, 10, d, 20, 0, 0, 0, time.UTC) }
	b.postOK(t, "t",
		newTurn("c1", "u", "s1", "I went to a concert at the Red Rocks amphitheatre, the live band and the crowd were amazing", day(1)),
		newTurn("c2", "u", "s2", "Another concert last week: a live band at the amphitheatre, great crowd", day(8)),
		newTurn("c3", "u", "s3", "Saw a live band at the amphitheatre on Friday, the crowd sang along", day(15)),
		newTurn("r1", "u", "s4", "I need a quick recipe for dinner with chickpeas", day(20)),
		newTurn("b1", "u", "s5", "My bike needs a new chain, any tips?", day(21)),
	)
	b.waitIngested(t)
	b.nats.WaitSettled(t, queue.TurnsStream, indexer.Def.Binding.Durable)

	const query = "How many concerts did I go to?"
	res := b.get(t, "t", contextPath("u", "now", "query", query, "max_recalled", "10"))
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	c := decode[contract.Context](t, res)
	var recalled []string
	for _, h := range c.Recalled.Hits {
		recalled = append(recalled, h.EventID)
	}
	require.GreaterOrEqual(t, len(recalled), 3)
	require.ElementsMatch(t, []string{"c1", "c2", "c3"}, recalled[:3], "the third show, found by the words the first two share, before what the vector alone finds")
	require.Contains(t, c.Prompt, "Saw a live band at the amphitheatre on Friday")

	res = b.get(t, "t", "/v1/users/u/search?q=How+many+concerts+did+I+go+to%3F")
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	var found struct {
		Hits []struct {
			SourceID    string `json:"source_id"`
			LexicalRank int    `json:"lexical_rank"`
		} `json:"hits"`
	}
	require.NoError(t, json.Unmarshal(res.Body, &found))
	for _, h := range found.Hits {
		if h.SourceID == "c3" {
			require.Zero(t, h.LexicalRank, "the message's own words do not find it")
		}
	}
}
