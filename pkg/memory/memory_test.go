package memory_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/contract"
	"github.com/recallhq/recall/pkg/decay"
	"github.com/recallhq/recall/pkg/embed"
	"github.com/recallhq/recall/pkg/envconfig"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/memory"
	"github.com/recallhq/recall/pkg/search"
	"github.com/recallhq/recall/pkg/workers/ingest"
)

// The in-process front door (For, what /mcp's tools use) checks what a
// caller sends by the rules of the /v1 routes, answers *contract.Error with
// the status of its code, and reads and writes the tenant's memory alone.
func TestForChecksAndServesLikeTheRoutes(t *testing.T) {
	t.Parallel()
	db := testenv.NewDB(t)
	nt := testenv.NewNATS(t)
	testenv.StartWorker(t, nt, db, ingest.Def, nil)
	emb, err := embed.New(envconfig.Defaults[embed.Config](), 0)
	require.NoError(t, err)
	svc, err := memory.New(memory.Options{Store: db.Store, JS: nt.JS, Decay: decay.DefaultPolicy, Log: testenv.Logger(t),
		Searcher: search.NewSearcher(db.Store, search.SharedAnalyzer(), emb, 0, testenv.Logger(t))})
	require.NoError(t, err)
	ctx := t.Context()
	m := svc.For("t1")

	// A bad turn is refused naming its field, and nothing is published.
	_, err = m.AddTurns(ctx, &events.Turn{UserID: "u1", SessionID: "s1", Role: "narrator", Content: "hi"})
	e := requireCode(t, err, contract.CodeInvalidRequest, http.StatusBadRequest)
	_, ok := e.Field("role")
	require.True(t, ok, "%v", err)

	// What the front door leaves out is filled in, as the client does.
	at := time.Now().UTC().Add(-time.Minute)
	user := &events.Turn{UserID: "u1", SessionID: "s1", Role: events.RoleUser, Content: "any science fiction like Dune?", OccurredAt: at}
	shown := &events.Turn{UserID: "u1", SessionID: "s1", Role: events.RoleAssistant, Content: "Two picks.", OccurredAt: at.Add(time.Second),
		Items: []events.Item{{Ref: "/book/1", Title: "Hyperion"}, {Ref: "/book/2", Title: "Foundation"}}}
	acc, err := m.AddTurns(ctx, user, shown)
	require.NoError(t, err)
	require.Len(t, acc, 2)
	require.NotEmpty(t, user.ID)
	require.Equal(t, "t1", user.TenantID)
	require.Equal(t, user.ID, acc[0].ID)
	again, err := m.AddTurns(ctx, user)
	require.NoError(t, err)
	require.True(t, again[0].Duplicate, "the same id is stored once")

	// Parameters out of range are refused as the route refuses them.
	_, err = m.Context(ctx, contract.ContextParams{UserID: "u1", SessionID: "s1", MaxMessages: 201})
	e = requireCode(t, err, contract.CodeInvalidRequest, http.StatusBadRequest)
	_, ok = e.Field("max_messages")
	require.True(t, ok, "%v", err)
	_, err = m.Selection(ctx, "s1", 0)
	e = requireCode(t, err, contract.CodeInvalidRequest, http.StatusBadRequest)
	_, ok = e.Field("n")
	require.True(t, ok, "%v", err)

	// Once stored, the list is there to select from, in this tenant only.
	require.Eventually(t, func() bool {
		sel, err := m.Selection(ctx, "s1", 2)
		return err == nil && sel.Ref() == "/book/2"
	}, 10*time.Second, 20*time.Millisecond)
	_, err = m.Selection(ctx, "s1", 3)
	requireCode(t, err, contract.CodeOutOfRange, http.StatusNotFound)
	_, err = svc.For("t2").Selection(ctx, "s1", 1)
	requireCode(t, err, contract.CodeNotFound, http.StatusNotFound)

	// The two turns may be stored by different ingest batches: wait for
	// both, not only the list's.
	var c *contract.Context
	require.Eventually(t, func() bool {
		c, err = m.Context(ctx, contract.ContextParams{UserID: "u1", SessionID: "s1", Query: "Dune"})
		return err == nil && len(c.Window.Messages) == 2
	}, 10*time.Second, 20*time.Millisecond)
	require.Len(t, c.Window.Messages, 2)
	require.NotNil(t, c.List)
	require.Equal(t, "/book/1", c.List.Items[0].Ref)
	require.Contains(t, c.Prompt, "Hyperion")
	_, err = m.Context(ctx, contract.ContextParams{UserID: "someone else", SessionID: "s1"})
	requireCode(t, err, contract.CodeSessionOwned, http.StatusConflict)

	// As of a moment, the context is what it was then: before the first
	// turn nothing, a second later the first turn but not yet the list.
	c, err = m.Context(ctx, contract.ContextParams{UserID: "u1", SessionID: "s1", Query: "Dune", At: at.Format(time.RFC3339Nano)})
	require.NoError(t, err)
	require.Empty(t, c.Window.Messages)
	require.Nil(t, c.List)
	require.Empty(t, c.Recalled.Hits)
	c, err = m.Context(ctx, contract.ContextParams{UserID: "u1", SessionID: "s1", At: at.Add(time.Second).Format(time.RFC3339Nano)})
	require.NoError(t, err)
	require.Len(t, c.Window.Messages, 1)
	require.Nil(t, c.List)
	// A moment that is no time is refused naming it, as the routes do.
	for _, bad := range []string{"yesterday", "2026-01-01", "1999-12-31T23:00:00Z", time.Now().Add(72 * time.Hour).Format(time.RFC3339)} {
		_, err = m.Context(ctx, contract.ContextParams{UserID: "u1", SessionID: "s1", At: bad})
		e = requireCode(t, err, contract.CodeInvalidRequest, http.StatusBadRequest)
		_, ok = e.Field("at")
		require.True(t, ok, "%s: %v", bad, err)
		_, err = m.Search(ctx, "u1", contract.SearchParams{Q: "Dune", At: bad})
		e = requireCode(t, err, contract.CodeInvalidRequest, http.StatusBadRequest)
		_, ok = e.Field("at")
		require.True(t, ok, "%s: %v", bad, err)
	}
}

// requireCode asserts err is a *contract.Error of code and status.
func requireCode(t *testing.T, err error, code string, status int) *contract.Error {
	t.Helper()
	var e *contract.Error
	require.ErrorAs(t, err, &e)
	require.Equal(t, code, e.Code, "%v", err)
	require.Equal(t, status, e.Status, "%v", err)
	return e
}
