package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/record"
	"github.com/recallhq/recall/pkg/store"
)

func mention(tenant, user, event, typ, value, display string, at time.Time) store.Mention {
	return store.Mention{TenantID: tenant, EventID: event, UserID: user, SessionID: "s-" + event, Type: typ, Value: value,
		Display: display, OccurredAt: at, ExpiresAt: at.Add(90 * 24 * time.Hour), Source: "rules"}
}

func TestRecordMentionsIdempotent(t *testing.T) {
	t.Parallel()
	db := testenv.NewDB(t)
	ctx := context.Background()
	batch := []store.Mention{
		mention("t", "u1", "e1", "book_title", "三体", "《三体》", t0),
		mention("t", "u1", "e1", "book_title", "三体", "《三体》", t0), // twice in one event
		mention("t", "u1", "e2", "book_title", "三体", "三体", t0.Add(48*time.Hour)),
		mention("t", "u1", "e2", "genre", "科幻", "科幻", t0.Add(48*time.Hour)),
		mention("t", "u2", "e3", "author", "刘慈欣", "刘慈欣", t0),
	}
	users, err := db.Store.RecordMentions(ctx, batch)
	require.NoError(t, err)
	require.ElementsMatch(t, []store.UserRef{{TenantID: "t", UserID: "u1"}, {TenantID: "t", UserID: "u2"}}, users)

	check := func() {
		facts, err := db.Store.Tenant("t").Facts(ctx, "u1", []string{record.FactActive}, 10)
		require.NoError(t, err)
		require.Len(t, facts, 2)
		book := facts[0]
		if book.Type != "book_title" {
			book = facts[1]
		}
		require.Equal(t, "三体", book.Value)
		require.Equal(t, "三体", book.Display, "the newest mention's spelling")
		require.EqualValues(t, 2, book.MentionCount, "one per event, not per occurrence")
		require.Equal(t, t0, book.FirstSeenAt)
		require.Equal(t, t0.Add(48*time.Hour), book.LastMentionedAt)
		require.Equal(t, t0.Add(48*time.Hour+90*24*time.Hour), book.ExpiresAt)
		require.Equal(t, 1.0, book.Weight)
		require.Equal(t, "s-e2", book.SourceSessionID)
	}
	check()

	// Redelivery and replay, in any order: nothing changes.
	users, err = db.Store.RecordMentions(ctx, []store.Mention{batch[2], batch[0], batch[3]})
	require.NoError(t, err)
	require.Empty(t, users, "no fact changed")
	check()
}

func TestRecordMentionsOlderMentionKeepsNewest(t *testing.T) {
	t.Parallel()
	db := testenv.NewDB(t)
	ctx := context.Background()
	_, err := db.Store.RecordMentions(ctx, []store.Mention{mention("t", "u", "new", "topic", "太空", "太空", t0.Add(time.Hour))})
	require.NoError(t, err)
	_, err = db.Store.Pool().Exec(ctx, `UPDATE facts SET status = 'archived', weight = 0.05`)
	require.NoError(t, err)

	// A replayed, older mention counts, but does not make the fact newer.
	_, err = db.Store.RecordMentions(ctx, []store.Mention{mention("t", "u", "old", "topic", "太空", "太空!", t0)})
	require.NoError(t, err)
	facts, err := db.Store.Tenant("t").Facts(ctx, "u", []string{record.FactActive, record.FactArchived}, 10)
	require.NoError(t, err)
	require.Len(t, facts, 1)
	require.EqualValues(t, 2, facts[0].MentionCount)
	require.Equal(t, t0, facts[0].FirstSeenAt)
	require.Equal(t, t0.Add(time.Hour), facts[0].LastMentionedAt)
	require.Equal(t, "太空", facts[0].Display)
	require.Equal(t, record.FactArchived, facts[0].Status, "an older mention does not revive it")

	// A newer one does: weight back to 1.0, active, expiry extended.
	_, err = db.Store.RecordMentions(ctx, []store.Mention{mention("t", "u", "newer", "topic", "太空", "太空", t0.Add(100*24*time.Hour))})
	require.NoError(t, err)
	facts, err = db.Store.Tenant("t").Facts(ctx, "u", []string{record.FactActive}, 10)
	require.NoError(t, err)
	require.Len(t, facts, 1)
	require.Equal(t, 1.0, facts[0].Weight)
	require.Equal(t, t0.Add(190*24*time.Hour), facts[0].ExpiresAt)
}

func TestFactsTenantIsolation(t *testing.T) {
	t.Parallel()
	db := testenv.NewDB(t)
	ctx := context.Background()
	var batch []store.Mention
	for i, tenant := range []string{"A", "B"} {
		batch = append(batch, mention(tenant, "u", fmt.Sprint("e", i), "genre", "推理", "推理", t0))
	}
	batch = append(batch, mention("A", "u", "e9", "genre", "历史", "历史", t0))
	_, err := db.Store.RecordMentions(ctx, batch)
	require.NoError(t, err)
	a, err := db.Store.Tenant("A").Facts(ctx, "u", []string{record.FactActive}, 10)
	require.NoError(t, err)
	b, err := db.Store.Tenant("B").Facts(ctx, "u", []string{record.FactActive}, 10)
	require.NoError(t, err)
	require.Len(t, a, 2)
	require.Len(t, b, 1)
	require.Equal(t, "推理", b[0].Value)
}
