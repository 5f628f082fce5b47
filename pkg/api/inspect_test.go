package api_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/contract"
	"github.com/recallhq/recall/pkg/decay"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/record"
	"github.com/recallhq/recall/pkg/store"
)

type (
	usersBody struct {
		Users []struct {
			UserID         string    `json:"user_id"`
			Sessions       int64     `json:"sessions"`
			Messages       int64     `json:"messages"`
			FirstMessageAt time.Time `json:"first_message_at"`
			LastMessageAt  time.Time `json:"last_message_at"`
		} `json:"users"`
		NextCursor string `json:"next_cursor"`
	}
	curvePoint struct {
		At     time.Time `json:"at"`
		Weight float64   `json:"weight"`
		Kind   string    `json:"kind"`
	}
	factsBody struct {
		UserID string    `json:"user_id"`
		At     time.Time `json:"at"`
		Policy map[string]struct {
			PeriodSeconds float64 `json:"period_seconds"`
			Factor        float64 `json:"factor"`
			Floor         float64 `json:"floor"`
			TTLSeconds    float64 `json:"ttl_seconds"`
			ArchivedAfter int     `json:"archived_after_periods"`
		} `json:"policy"`
		Facts []struct {
			Type            string       `json:"type"`
			Value           string       `json:"value"`
			BaseWeight      float64      `json:"base_weight"`
			Weight          float64      `json:"weight"`
			Status          string       `json:"status"`
			StatusNow       string       `json:"status_now"`
			MentionCount    int64        `json:"mention_count"`
			LastMentionedAt time.Time    `json:"last_mentioned_at"`
			ExpiresAt       time.Time    `json:"expires_at"`
			Mentions        []time.Time  `json:"mentions"`
			Curve           []curvePoint `json:"curve"`
		} `json:"facts"`
		NextCursor string `json:"next_cursor"`
	}
	userSessionsBody struct {
		Sessions []struct {
			SessionID     string    `json:"session_id"`
			MessageCount  int64     `json:"message_count"`
			LastMessageAt time.Time `json:"last_message_at"`
			Summary       *struct {
				Summary    string    `json:"summary"`
				CoversFrom time.Time `json:"covers_from"`
				CoversTo   time.Time `json:"covers_to"`
			} `json:"summary"`
		} `json:"sessions"`
		NextCursor string `json:"next_cursor"`
	}
)

func (u usersBody) ids() []string {
	out := make([]string, len(u.Users))
	for i, x := range u.Users {
		out[i] = x.UserID
	}
	return out
}

// The tenant's users, latest activity first, a page at a time; a prefix
// narrows them; another tenant's users never appear.
func TestGetUsers(t *testing.T) {
	t.Parallel()
	b := setup(t)
	at := testNow.Add(-time.Hour)
	b.insert(t,
		events.Turn{ID: "1", TenantID: "t1", UserID: "ann", SessionID: "a1", OccurredAt: at, Role: events.RoleUser, Content: "x"},
		events.Turn{ID: "2", TenantID: "t1", UserID: "ann", SessionID: "a2", OccurredAt: at.Add(3 * time.Minute), Role: events.RoleUser, Content: "x"},
		events.Turn{ID: "3", TenantID: "t1", UserID: "用户 2", SessionID: "c1", OccurredAt: at.Add(2 * time.Minute), Role: events.RoleUser, Content: "x"},
		events.Turn{ID: "4", TenantID: "t1", UserID: "用户 2", SessionID: "c1", OccurredAt: at.Add(time.Minute), Role: events.RoleAssistant, Content: "x"},
		events.Turn{ID: "5", TenantID: "t1", UserID: "andy", SessionID: "d1", OccurredAt: at.Add(time.Minute), Role: events.RoleUser, Content: "x"},
		events.Turn{ID: "6", TenantID: "t2", UserID: "zed", SessionID: "z1", OccurredAt: at.Add(time.Hour), Role: events.RoleUser, Content: "x"},
	)
	all := decode[usersBody](t, b.get(t, "t1", "/v1/users"))
	require.Equal(t, []string{"ann", "用户 2", "andy"}, all.ids())
	require.Empty(t, all.NextCursor)
	require.Equal(t, int64(2), all.Users[0].Sessions)
	require.Equal(t, int64(2), all.Users[1].Messages)
	require.Equal(t, at.Add(3*time.Minute), all.Users[0].LastMessageAt)

	var paged []string
	cursor := ""
	for range 4 {
		page := decode[usersBody](t, b.get(t, "t1", "/v1/users?limit=1&cursor="+cursor))
		paged = append(paged, page.ids()...)
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	require.Equal(t, all.ids(), paged, "pages follow each other without gaps or repeats")

	require.Equal(t, []string{"ann", "andy"}, decode[usersBody](t, b.get(t, "t1", "/v1/users?prefix=an")).ids())
	require.Equal(t, []string{"zed"}, decode[usersBody](t, b.get(t, "t2", "/v1/users")).ids())
	require.Equal(t, []string{"cursor"}, requireFields(t, b.get(t, "t1", "/v1/users?cursor=nope"), http.StatusBadRequest))
	require.Equal(t, []string{"limit"}, requireFields(t, b.get(t, "t1", "/v1/users?limit=0"), http.StatusBadRequest))
	res := b.do(t, http.MethodPost, "/v1/users", "t1", []byte(`{}`))
	require.Equal(t, http.StatusMethodNotAllowed, res.Status)
}

// GET /v1/users/{id} counts what forgetting would remove, in the shape of the
// forget answer; DELETE then removes exactly that.
func TestGetUserCountsWhatForgetRemoves(t *testing.T) {
	t.Parallel()
	b := setup(t, withIngest)
	at := testNow.Add(-time.Hour)
	const user = "用户 1"
	b.postOK(t, "t1", newTurn("a1", user, "s1", "one", at), newTurn("a2", user, "s2", "two", at.Add(time.Second)))
	b.postOK(t, "t2", newTurn("b1", user, "s9", "someone else", at))
	b.waitIngested(t)
	_, err := b.db.Store.RecordMentions(t.Context(), []store.Mention{factMention("t1", user, "a1", "book_title", "三体", at)})
	require.NoError(t, err)

	path := "/v1/users/" + url.PathEscape(user)
	res := b.get(t, "t1", path)
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	count := decode[contract.UserData](t, res)
	require.Equal(t, int64(2), count.Rows["messages"])
	require.Equal(t, int64(2), count.Rows["sessions"])
	require.Equal(t, int64(1), count.Rows["facts"])
	require.Equal(t, uint64(2), count.StreamMessages["RECALL_TURNS"])

	del := decode[contract.UserData](t, b.do(t, http.MethodDelete, path, "t1", nil))
	require.Equal(t, count, del, "the count is what was removed")
	requireCode(t, b.get(t, "t1", path), http.StatusNotFound, "not_found")
	require.Equal(t, http.StatusOK, b.get(t, "t2", path).Status, "the same id in another tenant is someone else")
	requireCode(t, b.get(t, "t3", path), http.StatusNotFound, "not_found")
}

// Facts come with their weight now, their status now, their mentions and
// their weight curve, all by the server's decay policy.
func TestGetUserFacts(t *testing.T) {
	t.Parallel()
	b := setup(t)
	day := 24 * time.Hour
	first, second := testNow.Add(-100*day), testNow.Add(-45*day)
	_, err := b.db.Store.RecordMentions(t.Context(), []store.Mention{
		factMention("t1", "u1", "e1", "book_title", "三体", first),
		factMention("t1", "u1", "e2", "book_title", "三体", second),
		factMention("t1", "u1", "e3", "author", "刘慈欣", testNow.Add(-200*day)),
		factMention("t1", "u1", "e4", "genre", "科幻", testNow.Add(-time.Hour)),
		factMention("t2", "u1", "x1", "book_title", "theirs", testNow),
	})
	require.NoError(t, err)

	body := decode[factsBody](t, b.get(t, "t1", userPath("u1", "facts")))
	require.Equal(t, testNow, body.At)
	require.Len(t, body.Facts, 3, "every status, the other tenant's left out")
	require.Equal(t, []string{"科幻", "三体", "刘慈欣"}, []string{body.Facts[0].Value, body.Facts[1].Value, body.Facts[2].Value}, "newest mention first")
	rule := body.Policy["book_title"]
	require.Equal(t, (720 * time.Hour).Seconds(), rule.PeriodSeconds)
	require.Equal(t, 0.9, rule.Factor)
	require.Equal(t, 0.1, rule.Floor)
	require.Equal(t, 22, rule.ArchivedAfter)

	f := body.Facts[1]
	require.Equal(t, []time.Time{first, second}, f.Mentions)
	require.Equal(t, 0.9, f.Weight, "45 days after the last mention: one period")
	require.Equal(t, record.FactActive, f.StatusNow)
	p := decay.DefaultPolicy
	require.Equal(t, []curvePoint{
		{At: first, Weight: 1, Kind: decay.CurveMention},
		{At: first.Add(30 * day), Weight: 0.9, Kind: decay.CurveDecay},
		{At: second, Weight: 1, Kind: decay.CurveMention},
		{At: second.Add(30 * day), Weight: 0.9, Kind: decay.CurveDecay},
		{At: second.Add(60 * day), Weight: p.DecayedWeight("book_title", 1, second, second.Add(60*day)), Kind: decay.CurveDecay},
		{At: second.Add(90 * day), Weight: p.DecayedWeight("book_title", 1, second, second.Add(90*day)), Kind: decay.CurveExpired},
	}, f.Curve, "mentions, decay steps until the next mention, and the expiry")

	old := body.Facts[2]
	require.Equal(t, record.FactExpired, old.StatusNow, "past its expiry now")
	require.Equal(t, record.FactActive, old.Status, "the decayer has not run: the stored status lags")

	active := decode[factsBody](t, b.get(t, "t1", userPath("u1", "facts")+"?status=active"))
	require.Len(t, active.Facts, 3, "the stored status filters")
	page := decode[factsBody](t, b.get(t, "t1", userPath("u1", "facts")+"?limit=2&mentions=1"))
	require.Len(t, page.Facts, 2)
	require.Equal(t, []time.Time{second}, page.Facts[1].Mentions, "the newest mentions only")
	rest := decode[factsBody](t, b.get(t, "t1", userPath("u1", "facts")+"?limit=2&cursor="+page.NextCursor))
	require.Len(t, rest.Facts, 1)
	require.Equal(t, "刘慈欣", rest.Facts[0].Value)
	require.Empty(t, rest.NextCursor)

	require.Equal(t, []string{"status"}, requireFields(t, b.get(t, "t1", userPath("u1", "facts")+"?status=gone"), http.StatusBadRequest))
	require.Equal(t, []string{"limit", "mentions", "cursor"}, requireFields(t, b.get(t, "t1", userPath("u1", "facts")+"?limit=0&mentions=x&cursor=x"), http.StatusBadRequest))
	require.Empty(t, decode[factsBody](t, b.get(t, "t1", userPath("nobody", "facts"))).Facts)
}

// A user's sessions, latest activity first, each with its current summary.
func TestGetUserSessions(t *testing.T) {
	t.Parallel()
	b := setup(t)
	at := testNow.Add(-time.Hour)
	b.insert(t, chat("t1", "u1", "old", 3, at)...)
	b.insert(t, chat("t1", "u1", "new", 2, at.Add(time.Minute))...)
	b.insert(t, chat("t1", "u2", "other", 1, at)...)
	b.storedSummary(t, "t1", "old", "The user asked about 三体.", "三体")

	body := decode[userSessionsBody](t, b.get(t, "t1", userPath("u1", "sessions")))
	require.Len(t, body.Sessions, 2)
	require.Equal(t, "new", body.Sessions[0].SessionID)
	require.Nil(t, body.Sessions[0].Summary)
	require.Equal(t, "old", body.Sessions[1].SessionID)
	require.NotNil(t, body.Sessions[1].Summary)
	require.Equal(t, "The user asked about 三体.", body.Sessions[1].Summary.Summary)
	require.Equal(t, at, body.Sessions[1].Summary.CoversFrom)
	require.Equal(t, at.Add(2*time.Second), body.Sessions[1].Summary.CoversTo)

	page := decode[userSessionsBody](t, b.get(t, "t1", userPath("u1", "sessions")+"?limit=1"))
	require.Len(t, page.Sessions, 1)
	rest := decode[userSessionsBody](t, b.get(t, "t1", userPath("u1", "sessions")+"?limit=1&cursor="+page.NextCursor))
	require.Equal(t, "old", rest.Sessions[0].SessionID)
	require.Empty(t, decode[userSessionsBody](t, b.get(t, "t2", userPath("u1", "sessions"))).Sessions)

	// Every version of a session's summary, newest first.
	b.insert(t, chat("t1", "u1", "old", 5, at.Add(time.Hour))[3:]...)
	b.storedSummary(t, "t1", "old", "Then they asked about Dune.", "Dune")
	type version struct {
		Version      int       `json:"version"`
		FromCount    int64     `json:"from_count"`
		ThroughCount int64     `json:"through_count"`
		CoversFrom   time.Time `json:"covers_from"`
		Summary      string    `json:"summary"`
	}
	sums := decode[struct {
		Summaries []version `json:"summaries"`
	}](t, b.get(t, "t1", sessionPath("old", "summaries")))
	require.Len(t, sums.Summaries, 2)
	require.Equal(t, 2, sums.Summaries[0].Version)
	require.Equal(t, int64(3), sums.Summaries[0].FromCount)
	require.Equal(t, int64(5), sums.Summaries[0].ThroughCount)
	require.Equal(t, at, sums.Summaries[0].CoversFrom, "a version covers what it rolls forward")
	require.Equal(t, `{"session_id":"new","summaries":[]}`, strings.TrimSpace(string(b.get(t, "t1", sessionPath("new", "summaries")).Body)))
	requireCode(t, b.get(t, "t2", sessionPath("old", "summaries")), http.StatusNotFound, "not_found")
}

// The shelf with the catalog's titles.
func TestGetShelf(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, err := b.db.Store.ApplySignals(t.Context(), []store.CatalogUpsert{
		{TenantID: "t1", Ref: "/book/1", Type: "book", Title: "三体", EventID: "c1", OccurredAt: testNow},
	}, []store.ShelfUpsert{
		{TenantID: "t1", UserID: "u1", Ref: "/book/1", Status: "read", EventID: "s1", OccurredAt: testNow},
		{TenantID: "t1", UserID: "u1", Ref: "/book/unknown", Status: "want", EventID: "s2", OccurredAt: testNow},
		{TenantID: "t1", UserID: "u1", Ref: "/book/gone", Status: "removed", EventID: "s3", OccurredAt: testNow},
	})
	require.NoError(t, err)
	type item struct {
		Ref      string `json:"ref"`
		Status   string `json:"status"`
		Title    string `json:"title"`
		Type     string `json:"type"`
		Embedded bool   `json:"embedded"`
	}
	body := decode[struct {
		Items []item `json:"items"`
	}](t, b.get(t, "t1", userPath("u1", "shelf")))
	require.Equal(t, []item{
		{Ref: "/book/1", Status: "read", Title: "三体", Type: "book"},
		{Ref: "/book/unknown", Status: "want"},
	}, body.Items, "removed items are left out; unknown refs have no title")
	require.Empty(t, decode[struct {
		Items []item `json:"items"`
	}](t, b.get(t, "t2", userPath("u1", "shelf"))).Items)
}
