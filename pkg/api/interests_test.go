package api_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/recallhq/recall/pkg/queue"
	"github.com/recallhq/recall/pkg/record"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/store"
)

type (
	interestFactBody struct {
		Type            string    `json:"type"`
		Value           string    `json:"value"`
		Display         string    `json:"display"`
		BaseWeight      float64   `json:"base_weight"`
		Weight          float64   `json:"weight"`
		MentionCount    int64     `json:"mention_count"`
		LastMentionedAt time.Time `json:"last_mentioned_at"`
		ExpiresAt       time.Time `json:"expires_at"`
		Status          string    `json:"status"`
	}
	interestsBody struct {
		UserID string             `json:"user_id"`
		At     time.Time          `json:"at"`
		Facts  []interestFactBody `json:"facts"`
		Cuts   []struct {
			Reason string `json:"reason"`
			Count  int64  `json:"count"`
		} `json:"cuts"`
		Vector struct {
			Present      bool           `json:"present"`
			Dims         int            `json:"dims"`
			Model        string         `json:"model"`
			Sources      map[string]int `json:"sources"`
			ComputedFrom time.Time      `json:"computed_from"`
			UpdatedAt    time.Time      `json:"updated_at"`
			Revision     int64          `json:"revision"`
			Values       []float32      `json:"values"`
		} `json:"vector"`
	}
	recommendationsBody struct {
		UserID string `json:"user_id"`
		K      int    `json:"k"`
		Model  string `json:"model"`
		Items  []struct {
			Ref      string         `json:"ref"`
			Type     string         `json:"type"`
			Title    string         `json:"title"`
			Attrs    map[string]any `json:"attrs"`
			Distance float64        `json:"distance"`
			Score    float64        `json:"score"`
		} `json:"items"`
	}
)

func userPath(user string, rest ...string) string {
	return "/v1/users/" + url.PathEscape(user) + "/" + strings.Join(rest, "/")
}

func factMention(tenant, user, event, typ, value string, at time.Time) store.Mention {
	return store.Mention{TenantID: tenant, EventID: event, UserID: user, SessionID: "s", Type: typ, Value: value,
		Display: "《" + value + "》", OccurredAt: at, ExpiresAt: at.Add(90 * 24 * time.Hour), Source: "rules"}
}

func TestGetInterests(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	day := 24 * time.Hour
	_, err := b.db.Store.RecordMentions(ctx, []store.Mention{
		factMention("acme", "u1", "e1", "book_title", "三体", testNow.Add(-45*day)), // 0.9 now
		factMention("acme", "u1", "e2", "book_title", "三体", testNow.Add(-40*day)), // second mention, still 0.9
		factMention("acme", "u1", "e3", "author", "刘慈欣", testNow.Add(-2*day)),     // 1.0
		factMention("acme", "u1", "e4", "genre", "科幻", testNow.Add(-65*day)),      // 0.81
		factMention("acme", "u1", "e5", "topic", "园艺", testNow.Add(-100*day)),     // expired
		factMention("other", "u1", "e1", "genre", "爵士", testNow.Add(-time.Hour)),  // another tenant's
		factMention("acme", "u-facts-only", "e9", "genre", "诗歌", testNow.Add(-time.Hour)),
	})
	require.NoError(t, err)
	vec := make([]float32, 4)
	vec[1] = 1
	_, err = b.db.Store.Tenant("acme").SaveProfile(ctx, store.Profile{UserID: "u1", Vector: vec, Model: "hashing-v1-4", Dims: 4,
		Sources: map[string]int{"shelf": 2, "facts": 3}, ComputedFrom: testNow.Add(-time.Hour), SnapshotAt: testNow})
	require.NoError(t, err)

	res := b.get(t, "acme", userPath("u1", "interests"))
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	p := decode[interestsBody](t, res)
	require.Equal(t, "u1", p.UserID)
	require.Equal(t, testNow, p.At, "weights are computed at request time")
	require.Len(t, p.Facts, 3)
	require.Equal(t, []string{"刘慈欣", "三体", "科幻"}, []string{p.Facts[0].Value, p.Facts[1].Value, p.Facts[2].Value}, "strongest now first")
	require.InDelta(t, 1.0, p.Facts[0].Weight, 1e-9)
	require.InDelta(t, 0.9, p.Facts[1].Weight, 1e-9)
	require.InDelta(t, 0.81, p.Facts[2].Weight, 1e-9)
	f := p.Facts[1]
	require.Equal(t, 1.0, f.BaseWeight)
	require.EqualValues(t, 2, f.MentionCount)
	require.Equal(t, testNow.Add(-40*day), f.LastMentionedAt)
	require.Equal(t, testNow.Add(50*day), f.ExpiresAt)
	require.Equal(t, record.FactActive, f.Status)
	require.Equal(t, "《三体》", f.Display)
	require.Len(t, p.Cuts, 1)
	require.Equal(t, "expired", p.Cuts[0].Reason)
	require.True(t, p.Vector.Present)
	require.Equal(t, 4, p.Vector.Dims)
	require.Equal(t, "hashing-v1-4", p.Vector.Model)
	require.Equal(t, map[string]int{"shelf": 2, "facts": 3}, p.Vector.Sources)
	require.Equal(t, testNow.Add(-time.Hour), p.Vector.ComputedFrom)
	require.EqualValues(t, 1, p.Vector.Revision)
	require.Nil(t, p.Vector.Values, "the raw vector only on request")
	require.NotContains(t, string(res.Body), "爵士")

	p = decode[interestsBody](t, b.get(t, "acme", userPath("u1", "interests")+"?vector=true&limit=1"))
	require.Equal(t, vec, p.Vector.Values)
	require.Len(t, p.Facts, 1)

	// Facts and no vector yet.
	p = decode[interestsBody](t, b.get(t, "acme", userPath("u-facts-only", "interests")))
	require.Len(t, p.Facts, 1)
	require.False(t, p.Vector.Present)

	// Unknown here: another tenant's user, or nobody.
	requireCode(t, b.get(t, "acme", userPath("nobody", "interests")), http.StatusNotFound, "not_found")
	requireCode(t, b.get(t, "other2", userPath("u1", "interests")), http.StatusNotFound, "not_found")
	p = decode[interestsBody](t, b.get(t, "other", userPath("u1", "interests")))
	require.Len(t, p.Facts, 1)
	require.Equal(t, "爵士", p.Facts[0].Value)
	require.False(t, p.Vector.Present, "acme's vector is acme's")

	require.Equal(t, []string{"user_id"}, requireFields(t, b.get(t, "acme", userPath(strings.Repeat("u", 129), "interests")), http.StatusBadRequest))
	require.Equal(t, []string{"user_id"}, requireFields(t, b.get(t, "acme", userPath("a\tb", "interests")), http.StatusBadRequest))
	require.Equal(t, []string{"limit", "vector"}, requireFields(t, b.get(t, "acme", userPath("u1", "interests")+"?limit=0&vector=maybe"), http.StatusBadRequest))
	require.Equal(t, []string{"X-Tenant-ID"}, requireFields(t, b.get(t, "", userPath("u1", "interests")), http.StatusBadRequest))
}

func TestPostInterestsRefresh(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	res := b.do(t, http.MethodPost, userPath("用户 1", "interests", "refresh"), "acme", nil)
	require.Equal(t, http.StatusAccepted, res.Status, string(res.Body))
	body := decode[struct {
		UserID      string    `json:"user_id"`
		RequestedAt time.Time `json:"requested_at"`
		Duplicate   bool      `json:"duplicate"`
	}](t, res)
	require.Equal(t, "用户 1", body.UserID)
	require.Equal(t, testNow, body.RequestedAt)
	require.False(t, body.Duplicate)

	s, err := b.js.Stream(ctx, queue.TasksStream)
	require.NoError(t, err)
	m, err := s.GetLastMsgForSubject(ctx, events.ProfileTaskSubject("acme", "用户 1"))
	require.NoError(t, err)
	task, err := events.DecodeProfileTask(m.Data, events.ValidateOptions{Limits: events.DefaultLimits})
	require.NoError(t, err)
	require.Equal(t, events.ProfileTask{V: 1, TenantID: "acme", UserID: "用户 1", RequestedAt: testNow}, withUTC(task))

	// Repeated requests are debounced: at most one more task (if a bucket
	// boundary fell between them).
	for range 5 {
		require.Equal(t, http.StatusAccepted, b.do(t, http.MethodPost, userPath("用户 1", "interests", "refresh"), "acme", nil).Status)
	}
	info, err := s.Info(ctx, jetstream.WithSubjectFilter(events.ProfileTaskSubject("acme", "用户 1")))
	require.NoError(t, err)
	require.LessOrEqual(t, info.State.Msgs, uint64(2))

	// Another tenant's refresh of the same user id is its own task, on its subject.
	require.Equal(t, http.StatusAccepted, b.do(t, http.MethodPost, userPath("用户 1", "interests", "refresh"), "other", nil).Status)
	_, err = s.GetLastMsgForSubject(ctx, events.ProfileTaskSubject("other", "用户 1"))
	require.NoError(t, err)

	require.Equal(t, []string{"user_id"}, requireFields(t, b.do(t, http.MethodPost, userPath(strings.Repeat("é", 65), "interests", "refresh"), "acme", nil), http.StatusBadRequest))
}

// The interests' former paths answer exactly as theirs: the same handler,
// the same statuses and bodies, errors included.
func TestProfileAliasesInterests(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	_, err := b.db.Store.RecordMentions(ctx, []store.Mention{
		factMention("acme", "u1", "e1", "book_title", "三体", testNow.Add(-45*24*time.Hour)),
		factMention("acme", "u1", "e2", "author", "刘慈欣", testNow.Add(-2*24*time.Hour)),
	})
	require.NoError(t, err)
	_, err = b.db.Store.Tenant("acme").SaveProfile(ctx, store.Profile{UserID: "u1", Vector: []float32{0, 1, 0}, Model: "m", Dims: 3,
		Sources: map[string]int{"facts": 2}, ComputedFrom: testNow.Add(-time.Hour), SnapshotAt: testNow})
	require.NoError(t, err)
	for _, c := range []struct{ tenant, user, query string }{
		{"acme", "u1", ""},
		{"acme", "u1", "?vector=true&limit=1"},
		{"acme", "nobody", ""},
		{"acme", "u1", "?limit=0&vector=maybe"},
		{"acme", "u1", "?limits=3"},
		{"acme", strings.Repeat("u", 129), ""},
		{"", "u1", ""},
	} {
		now := b.get(t, c.tenant, userPath(c.user, "interests")+c.query)
		was := b.get(t, c.tenant, userPath(c.user, "profile")+c.query)
		require.Equal(t, now.Status, was.Status, "%+v", c)
		require.Equal(t, string(now.Body), string(was.Body), "%+v", c)
	}
	// A refresh by either path is the same task: the second folds into
	// the first.
	first := b.do(t, http.MethodPost, userPath("u2", "interests", "refresh"), "acme", nil)
	require.Equal(t, http.StatusAccepted, first.Status, string(first.Body))
	second := b.do(t, http.MethodPost, userPath("u2", "profile", "refresh"), "acme", nil)
	require.Equal(t, http.StatusAccepted, second.Status, string(second.Body))
	require.JSONEq(t, strings.Replace(string(first.Body), `"duplicate":false`, `"duplicate":true`, 1), string(second.Body))
	bad := strings.Repeat("é", 65)
	now := b.do(t, http.MethodPost, userPath(bad, "interests", "refresh"), "acme", nil)
	was := b.do(t, http.MethodPost, userPath(bad, "profile", "refresh"), "acme", nil)
	require.Equal(t, http.StatusBadRequest, now.Status)
	require.Equal(t, now.Status, was.Status)
	require.Equal(t, string(now.Body), string(was.Body))
}

func withUTC(task events.ProfileTask) events.ProfileTask {
	task.RequestedAt = task.RequestedAt.UTC()
	return task
}

func TestGetRecommendations(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	vec := func(xs ...float32) []float32 { return xs }
	item := func(tenant, ref string, v []float32) store.CatalogUpsert {
		return store.CatalogUpsert{TenantID: tenant, Ref: ref, Type: "book", Title: "Title " + ref, Attrs: []byte(`{"author":"X"}`),
			Embedding: v, EmbeddingModel: "m", EventID: "e-" + ref, OccurredAt: testNow}
	}
	deleted := item("acme", "/deleted", vec(1, 0, 0))
	deleted.Deleted = true
	_, err := b.db.Store.ApplySignals(ctx, []store.CatalogUpsert{
		item("acme", "/read", vec(1, 0, 0)),
		item("acme", "/near", vec(0.9, 0.1, 0)),
		item("acme", "/mid", vec(0.5, 0.5, 0)),
		item("acme", "/far", vec(0, 0, 1)),
		item("acme", "/opposite", vec(-1, 0, 0)),
		deleted,
		// The other tenant's items are closer to the vector than any of acme's.
		item("other", "/theirs-1", vec(1, 0, 0)),
		item("other", "/theirs-2", vec(0.99, 0.01, 0)),
	}, []store.ShelfUpsert{{TenantID: "acme", UserID: "u1", Ref: "/read", Status: "read", EventID: "s1", OccurredAt: testNow}})
	require.NoError(t, err)
	require.NoError(t, b.db.Store.EnsureCatalogIndex(ctx, 3))
	save := func(tenant, user string, v []float32) {
		_, err := b.db.Store.Tenant(tenant).SaveProfile(ctx, store.Profile{UserID: user, Vector: v, Model: "m", Dims: 3,
			ComputedFrom: testNow, SnapshotAt: testNow})
		require.NoError(t, err)
	}
	save("acme", "u1", vec(1, 0, 0))
	save("acme", "u-no-direction", nil)

	res := b.get(t, "acme", userPath("u1", "recommendations")+"?k=3")
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	body := decode[recommendationsBody](t, res)
	require.Equal(t, 3, body.K)
	require.Equal(t, "m", body.Model)
	var got []string
	for _, it := range body.Items {
		got = append(got, it.Ref)
		require.InDelta(t, 1-it.Distance, it.Score, 1e-9)
	}
	require.Equal(t, []string{"/near", "/mid", "/far"}, got, "nearest first; read, deleted and other tenants' items never")
	require.Equal(t, "Title /near", body.Items[0].Title)
	require.Equal(t, map[string]any{"author": "X"}, body.Items[0].Attrs)

	body = decode[recommendationsBody](t, b.get(t, "acme", userPath("u1", "recommendations")))
	require.Equal(t, 10, body.K)
	require.Len(t, body.Items, 4)
	require.Equal(t, "/opposite", body.Items[3].Ref)

	requireCode(t, b.get(t, "acme", userPath("nobody", "recommendations")), http.StatusConflict, "no_profile")
	requireCode(t, b.get(t, "acme", userPath("u-no-direction", "recommendations")), http.StatusConflict, "no_profile")
	requireCode(t, b.get(t, "other", userPath("u1", "recommendations")), http.StatusConflict, "no_profile")
	for _, k := range []string{"0", "101", "ten", "-1"} {
		require.Equal(t, []string{"k"}, requireFields(t, b.get(t, "acme", userPath("u1", "recommendations")+"?k="+k), http.StatusBadRequest), k)
	}
	require.Equal(t, []string{"user_id"}, requireFields(t, b.get(t, "acme", userPath(strings.Repeat("u", 200), "recommendations")), http.StatusBadRequest))
}
