package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/attribute"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/store"
)

// The habits step's storage: who is due, the users' own messages newest
// first, marks and derived assertions saved together unless a session
// delete came in between, and a session delete that takes the derived
// values and makes the user due again.
func TestHabitStorage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testenv.NewDB(t)
	acme := db.Store.Tenant("acme")
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	turn := func(id, user, session, role, content string, at time.Time) store.StoredTurn {
		return store.StoredTurn{Turn: events.Turn{V: events.Version, ID: id, TenantID: "acme", UserID: user, SessionID: session,
			SiteID: "shop", AgentID: "librarian", OccurredAt: at, Role: role, Content: content}}
	}
	var turns []store.StoredTurn
	for i := range 4 {
		at := t0.Add(time.Duration(i) * time.Hour)
		turns = append(turns,
			turn(fmt.Sprintf("a%d", i), "u1", "s1", events.RoleUser, fmt.Sprintf("question %d", i), at),
			turn(fmt.Sprintf("a%d-r", i), "u1", "s1", events.RoleAssistant, "an answer", at.Add(time.Minute)))
	}
	turns = append(turns,
		turn("b0", "u1", "s2", events.RoleUser, "推荐几本科幻小说", t0.Add(10*time.Hour)),
		turn("c0", "u2", "s3", events.RoleUser, "hello", t0))
	_, err := db.Store.InsertTurns(ctx, turns)
	require.NoError(t, err)
	_, err = db.Store.InsertTurns(ctx, []store.StoredTurn{{Turn: events.Turn{V: events.Version, ID: "x0", TenantID: "other", UserID: "u1",
		SessionID: "s1", OccurredAt: t0.Add(20 * time.Hour), Role: events.RoleUser, Content: "another tenant"}}})
	require.NoError(t, err)

	users, err := acme.HabitUsers(ctx, "", 10, "timezone")
	require.NoError(t, err)
	require.Equal(t, []store.HabitUser{
		{UserID: "u1", Through: t0.Add(10 * time.Hour), Due: true},
		{UserID: "u2", Through: t0, Due: true},
	}, users)
	page, err := acme.HabitUsers(ctx, "u1", 10, "timezone")
	require.NoError(t, err)
	require.Len(t, page, 1, "after a user id")

	type got struct {
		user, id string
		chars    int
		text     string
	}
	read := func(users []string, since []time.Time, limit, textChars int) []got {
		var out []got
		require.NoError(t, acme.HabitMessages(ctx, users, since, limit, textChars, func(u string, m store.HabitMessage) error {
			require.Equal(t, "shop", m.SiteID)
			require.Equal(t, "librarian", m.AgentID)
			out = append(out, got{u, m.EventID, m.Chars, m.Text})
			return nil
		}))
		return out
	}
	require.Equal(t, []got{
		{"u1", "b0", 8, "推荐几本科幻小说"}, {"u1", "a3", 10, "question 3"}, {"u1", "a2", 10, "question 2"},
		{"u2", "c0", 5, "hello"},
	}, read([]string{"u1", "u2"}, []time.Time{t0.Add(2 * time.Hour), t0}, 3, 400), "own messages, newest first, since, at most the limit")
	require.Equal(t, []got{{"u2", "c0", 5, "hel"}}, read([]string{"u2"}, []time.Time{t0}, 3, 3), "the whole length, the text's beginning")

	// Saved: marks and assertions together; then not due.
	derived := func(user, event, key, value string) store.AssertionRow {
		a := attribute.Assertion{Key: key, Value: value, Op: attribute.Put, Source: attribute.Derived, EventID: event, Confidence: 1, At: t0}
		require.NoError(t, attribute.Normalize(attribute.Default(), &a))
		return store.AssertionRow{TenantID: "acme", UserID: user, Assertion: a}
	}
	marked, n, err := acme.SaveHabits(ctx, users, []store.AssertionRow{
		derived("u1", "derived:languages:b0", "languages", "Chinese"),
		derived("u2", "derived:message_length:c0", "message_length", "short (median 5 characters)"),
	}, nil)
	require.NoError(t, err)
	require.Equal(t, []string{"u1", "u2"}, marked)
	require.EqualValues(t, 2, n)
	users, err = acme.HabitUsers(ctx, "", 10, "timezone")
	require.NoError(t, err)
	require.False(t, users[0].Due || users[1].Due, "%+v", users)

	// A newer message, or a word on the time zone, makes a user due.
	_, err = db.Store.InsertTurns(ctx, []store.StoredTurn{turn("c1", "u2", "s3", events.RoleAssistant, "hi", t0.Add(time.Hour))})
	require.NoError(t, err)
	tz := attribute.Assertion{Key: "timezone", Value: "Asia/Shanghai", Op: attribute.Put, Source: attribute.Explicit, EventID: "edit-1", Confidence: 1, At: t0}
	_, err = db.Store.RecordAssertions(ctx, []store.AssertionRow{{TenantID: "acme", UserID: "u1", Assertion: tz}})
	require.NoError(t, err)
	users, err = acme.HabitUsers(ctx, "", 10, "timezone")
	require.NoError(t, err)
	require.Equal(t, []store.HabitUser{
		{UserID: "u1", Through: t0.Add(10 * time.Hour), TimezoneAssertions: 1, Due: true},
		{UserID: "u2", Through: t0.Add(time.Hour), Due: true},
	}, users)
	byUser, err := acme.AssertionsByUsers(ctx, []string{"u1", "u2", "u3"})
	require.NoError(t, err)
	require.Len(t, byUser["u1"], 2)
	require.Len(t, byUser["u2"], 1)
	require.Equal(t, "short (median 5 characters)", byUser["u2"][0].Value)

	// A session of u1 is deleted: what was derived goes, the user is due,
	// and a derivation that read u1 before stores nothing.
	d, err := acme.DeleteSession(ctx, "s2")
	require.NoError(t, err)
	require.EqualValues(t, 1, d.Rows["attribute_assertions"], "the derived language")
	byUser, err = acme.AssertionsByUsers(ctx, []string{"u1"})
	require.NoError(t, err)
	require.Equal(t, []attribute.Assertion{tz}, nilEvidence(byUser["u1"]), "what was set explicitly stays")
	stale := users[0]
	marked, n, err = acme.SaveHabits(ctx, []store.HabitUser{stale}, []store.AssertionRow{derived("u1", "derived:languages:b0", "languages", "Chinese")}, nil)
	require.NoError(t, err)
	require.Empty(t, marked)
	require.Zero(t, n)
	users, err = acme.HabitUsers(ctx, "", 1, "timezone")
	require.NoError(t, err)
	require.Equal(t, []store.HabitUser{{UserID: "u1", Through: t0.Add(3*time.Hour + time.Minute), TimezoneAssertions: 1, Generation: 1, Due: true}}, users)
	marked, _, err = acme.SaveHabits(ctx, users, nil, nil)
	require.NoError(t, err)
	require.Equal(t, []string{"u1"}, marked, "read at the new generation: saved")

	// Forgetting the user takes the mark.
	counts, err := acme.CountUser(ctx, "u1")
	require.NoError(t, err)
	require.EqualValues(t, 1, counts["habit_marks"])
	forgot, err := acme.ForgetUser(ctx, "u1")
	require.NoError(t, err)
	require.EqualValues(t, 1, forgot["habit_marks"])
}

func nilEvidence(as []attribute.Assertion) []attribute.Assertion {
	for i := range as {
		if len(as[i].Evidence) == 0 {
			as[i].Evidence = nil
		}
	}
	return as
}
