package indexer_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/openaitest"
	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/eventmsg"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/queue"
	"github.com/recallhq/recall/pkg/search"
	"github.com/recallhq/recall/pkg/workers/indexer"
)

var t0 = time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC)

func turn(id, session, role, content string, i int) events.Turn {
	return events.Turn{ID: id, TenantID: "t", UserID: "u", SessionID: session, OccurredAt: t0.Add(time.Duration(i) * time.Minute), Role: role, Content: content}
}

func entries(t *testing.T, db *testenv.DB) map[string]string {
	t.Helper()
	rows, err := db.Store.Pool().Query(context.Background(), `SELECT source_id, coalesce(embedding_model, '') FROM search_entries WHERE kind = 'message' ORDER BY source_id`)
	require.NoError(t, err)
	out := map[string]string{}
	for rows.Next() {
		var id, model string
		require.NoError(t, rows.Scan(&id, &model))
		out[id] = model
	}
	require.NoError(t, rows.Err())
	return out
}

// Every user and assistant turn with text becomes one entry with terms and a
// vector; system, tool and empty turns none; redelivery, duplicate publishes
// and a replay change nothing; invalid turns are dead-lettered.
func TestIndexerIndexesTurnsOnce(t *testing.T) {
	t.Parallel()
	db, n := testenv.NewDB(t), testenv.NewNATS(t)
	testenv.StartWorker(t, n, db, indexer.Def, nil)
	tool := turn("e5", "s1", events.RoleAssistant, "", 4)
	tool.ToolCalls = []events.ToolCall{{Name: "search", Result: []byte(`{"title":"Dune"}`)}}
	turns := []events.Turn{
		turn("e1", "s1", events.RoleUser, "Recommend me a novel like Dune", 0),
		turn("e2", "s1", events.RoleAssistant, "Try Hyperion by Dan Simmons", 1),
		turn("e3", "s1", events.RoleSystem, "You are a librarian", 2),
		turn("e4", "s1", events.RoleTool, `{"hits": 3}`, 3),
		tool,
	}
	pub := queue.NewPublisher(n.JS)
	_, err := pub.PublishTurns(context.Background(), turns)
	require.NoError(t, err)
	_, err = pub.PublishTurns(context.Background(), turns[:2]) // a duplicate publish
	require.NoError(t, err)
	bad := turn("e9", "s1", "bot", "x", 9)
	m, err := eventmsg.Turn(&bad)
	require.NoError(t, err)
	_, err = n.JS.PublishMsg(context.Background(), m)
	require.NoError(t, err)
	n.WaitSettled(t, queue.TurnsStream, indexer.Def.Binding.Durable)

	got := entries(t, db)
	require.Len(t, got, 2, "user and assistant turns with text only: %v", got)
	require.NotEmpty(t, got["e1"], "embedded by the offline model")
	require.Len(t, n.DeadLetters(t), 1, "the turn with an unknown role")

	// The search finds them by their terms.
	an := search.SharedAnalyzer()
	hits, err := search.Find(context.Background(), db.Store.Tenant("t"), search.Params{UserID: "u", Terms: an.QueryTerms("Hyperion")})
	require.NoError(t, err)
	require.Equal(t, "e2", hits[0].SourceID)

	// A replay of the worker over the stream changes nothing.
	var before int
	require.NoError(t, db.Store.Pool().QueryRow(context.Background(), `SELECT count(*) FROM search_entries`).Scan(&before))
	w, b, err := indexer.Def.Build(context.Background(), indexer.Def.Defaults(), testenv.Deps(t, n, db))
	require.NoError(t, err)
	require.NotNil(t, w)
	var msgs []queue.Message
	for _, tn := range turns {
		mm, err := eventmsg.Turn(&tn)
		require.NoError(t, err)
		msgs = append(msgs, queue.Message{Subject: mm.Subject, Data: mm.Data, Header: mm.Header, Deliveries: 1})
	}
	for _, err := range b.Handler(context.Background(), msgs) {
		require.NoError(t, err)
	}
	var after int
	require.NoError(t, db.Store.Pool().QueryRow(context.Background(), `SELECT count(*) FROM search_entries`).Scan(&after))
	require.Equal(t, before, after)
}

// With INDEX_TOOL_RESULTS the string values of a turn's tool results are
// indexed with its text.
func TestIndexerToolResults(t *testing.T) {
	t.Parallel()
	db, n := testenv.NewDB(t), testenv.NewNATS(t)
	testenv.StartWorker(t, n, db, indexer.Def, func(c *indexer.Config) { c.ToolResults = true })
	tn := turn("e1", "s1", events.RoleAssistant, "Here is what I found.", 0)
	tn.ToolCalls = []events.ToolCall{{Name: "search", Result: []byte(`{"hits":[{"title":"Hyperion Cantos"}]}`)}}
	_, err := queue.NewPublisher(n.JS).PublishTurns(context.Background(), []events.Turn{tn})
	require.NoError(t, err)
	n.WaitSettled(t, queue.TurnsStream, indexer.Def.Binding.Durable)
	var text string
	require.NoError(t, db.Store.Pool().QueryRow(context.Background(), `SELECT body FROM search_entries WHERE source_id = 'e1'`).Scan(&text))
	require.Contains(t, text, "Hyperion Cantos")
}

// A failing embedder: the turns are retried for their vectors, and on their
// last delivery stored with terms only, never dead-lettered.
func TestIndexerEmbedderDown(t *testing.T) {
	t.Parallel()
	db, n := testenv.NewDB(t), testenv.NewNATS(t)
	fake := openaitest.New(t)
	fake.RespondEmbeddings(func(openaitest.Request) openaitest.Reply {
		return openaitest.Reply{Status: http.StatusServiceUnavailable}
	})
	testenv.StartWorker(t, n, db, indexer.Def, func(c *indexer.Config) {
		c.Embed.BaseURL, c.Embed.Model, c.Embed.Dimensions, c.Embed.MaxRetries = fake.URL()+"/v1", "text-embedding-3-small", 8, 0
		c.Embed.RetryInitial, c.Embed.RetryMax = time.Millisecond, time.Millisecond
		c.Queue.Consumer.MaxDeliver = 3
		c.Queue.Runner.RetryInitial, c.Queue.Runner.RetryMax = 10*time.Millisecond, 20*time.Millisecond
	})
	_, err := queue.NewPublisher(n.JS).PublishTurns(context.Background(), []events.Turn{turn("e1", "s1", events.RoleUser, "I love Dune", 0)})
	require.NoError(t, err)
	n.WaitSettled(t, queue.TurnsStream, indexer.Def.Binding.Durable)
	require.Equal(t, map[string]string{"e1": ""}, entries(t, db), "stored with terms, without a vector")
	require.Empty(t, n.DeadLetters(t))
	require.GreaterOrEqual(t, len(fake.Requests()), 3, "tried on every delivery")
}
