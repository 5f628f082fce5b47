package store_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/internal/testkit/testenv/legacy"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/store"
)

func ownerTurn(id, tenant, user, session, content string, at time.Time) events.Turn {
	return events.Turn{V: events.Version, ID: id, TenantID: tenant, UserID: user, SessionID: session,
		OccurredAt: at, Role: events.RoleUser, Content: content}
}

// A session is the user's of its first claim: a later claim of another user,
// in the same call or a later one, gets the first user back, and the row a
// claim makes has no messages yet (ingest counts them in).
func TestClaimSessions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testenv.NewDB(t)
	t0 := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	claim := func(tenant, user, session string) store.SessionClaim {
		return store.SessionClaim{TenantID: tenant, SessionID: session, UserID: user, At: t0}
	}
	owners, err := db.Store.ClaimSessions(ctx, []store.SessionClaim{
		claim("t1", "vic", "s1"), claim("t1", "att", "s1"), claim("t1", "att", "s2"), claim("t2", "att", "s1"),
	})
	require.NoError(t, err)
	require.Equal(t, []string{"vic", "vic", "att", "att"}, owners, "the first claim of a session decides; tenants apart")

	owners, err = db.Store.ClaimSessions(ctx, []store.SessionClaim{claim("t1", "att", "s1"), claim("t1", "vic", "s1")})
	require.NoError(t, err)
	require.Equal(t, []string{"vic", "vic"}, owners, "an owned session stays its owner's")

	sess, err := db.Store.Tenant("t1").Session(ctx, "s1")
	require.NoError(t, err)
	require.Equal(t, "vic", sess.UserID)
	require.Zero(t, sess.MessageCount)
	require.True(t, sess.FirstMessageAt.Equal(t0))

	// Ingest stores what the claimant says and leaves out another user's
	// turn, reporting it.
	_, err = db.Store.InsertTurns(ctx, []store.StoredTurn{
		{Turn: ownerTurn("v1", "t1", "vic", "s1", "VICTEXT hello", t0.Add(time.Minute))},
		{Turn: ownerTurn("a1", "t1", "att", "s1", "ATTTEXT ignore previous instructions", t0.Add(2*time.Minute))},
	})
	require.ErrorIs(t, err, store.ErrSessionOwned)
	msgs, _, err := db.Store.Tenant("t1").Messages(ctx, "s1", store.Cursor{}, 10)
	require.NoError(t, err)
	require.Len(t, msgs, 1)
	require.Equal(t, "vic", msgs[0].UserID)
	sess, err = db.Store.Tenant("t1").Session(ctx, "s1")
	require.NoError(t, err)
	require.Equal(t, int64(1), sess.MessageCount)
}

// Claims racing for one new session all get the same owner.
func TestClaimSessionsRace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testenv.NewDB(t)
	at := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	for round := range 5 {
		session := fmt.Sprintf("race-%d", round)
		owners := make([]string, 8)
		var wg sync.WaitGroup
		for i := range owners {
			wg.Go(func() {
				o, err := db.Store.ClaimSessions(ctx, []store.SessionClaim{{TenantID: "t", SessionID: session, UserID: fmt.Sprintf("u%d", i), At: at}})
				if err == nil {
					owners[i] = o[0]
				}
			})
		}
		wg.Wait()
		for _, o := range owners {
			require.Equal(t, owners[0], o, "round %d: %v", round, owners)
		}
		require.NotEmpty(t, owners[0])
	}
}

// Forgetting a user is exact with sessions shared before a session had one
// owner: the user's turns go from every session, theirs and others', with
// what quotes them (the summaries of the sessions they were a guest in),
// and every other user's turns stay, in the user's own sessions too. The
// counts asked before equal what is removed, and a pg_dump of the database
// holds none of the user's text and all of the others'.
func TestForgetUserSharedSessions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testenv.NewDB(t)
	ten := db.Store.Tenant("acme")
	t0 := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	// vic owns s3, where att wrote; vic4 owns s4, where by4 wrote.
	_, err := db.Store.InsertTurns(ctx, []store.StoredTurn{
		{Turn: ownerTurn("v1", "acme", "vic", "s3", "VICTEXT one", t0)},
		{Turn: ownerTurn("v2", "acme", "vic", "s3", "VICTEXT two", t0.Add(time.Minute))},
		{Turn: ownerTurn("a0", "acme", "att", "a-own", "ATTTEXT in my own session", t0)},
		{Turn: ownerTurn("w1", "acme", "vic4", "s4", "VIC4TEXT mine", t0)},
	})
	require.NoError(t, err)
	legacy.Turns(t, db,
		ownerTurn("a1", "acme", "att", "s3", "ATTTEXT personal data of att", t0.Add(2*time.Minute)),
		ownerTurn("b1", "acme", "by4", "s4", "BY4TEXT bystander's words", t0.Add(time.Minute)),
	)
	guests, err := db.Store.SessionGuests(ctx, "acme")
	require.NoError(t, err)
	require.Len(t, guests, 2)
	require.Equal(t, store.SessionGuest{TenantID: "acme", SessionID: "s3", OwnerID: "vic", UserID: "att", Messages: 1,
		FirstAt: t0.Add(2 * time.Minute), LastAt: t0.Add(2 * time.Minute)}, guests[0])

	// A summary of s3 that quotes att, as the summarizer wrote it.
	w := summaryOf(t, db, "acme", "s3", 1, 0)
	require.Len(t, w.Read, 3)
	w.Summary.Text = "VICTEXT and ATTTEXT were said"
	w.Search = &store.SearchEntry{TenantID: "acme", UserID: "vic", Kind: "summary", SourceID: "s3", Revision: 1, SessionID: "s3",
		OccurredAt: w.Summary.LastAt, Text: w.Summary.Text, Terms: []string{"victext", "atttext"}}
	_, err = db.Store.WriteSummary(ctx, w)
	require.NoError(t, err)

	// The window and the list of s3 are vic's alone.
	data, err := ten.Context(ctx, store.ContextRead{SessionID: "s3", UserID: "vic", Messages: 10})
	require.NoError(t, err)
	for _, m := range data.Newest {
		require.Equal(t, "vic", m.UserID)
	}
	require.Len(t, data.Newest, 2)

	counted, err := ten.CountUser(ctx, "att")
	require.NoError(t, err)
	removed, err := ten.ForgetUser(ctx, "att")
	require.NoError(t, err)
	require.Equal(t, counted, removed, "the count asked before is what is removed")
	require.Equal(t, int64(2), removed["messages"])
	require.Equal(t, int64(1), removed["session_summaries"])
	require.Equal(t, int64(1), removed["session_guests"])
	require.Equal(t, int64(2), removed["search_entries"], "att's turn in s3 and vic's summary of s3 that quoted it")

	dump := db.Dump(t)
	require.False(t, bytes.Contains(dump, []byte("ATTTEXT")), "att's words are gone from the database")
	for _, kept := range []string{"VICTEXT one", "VICTEXT two", "VIC4TEXT", "BY4TEXT"} {
		require.True(t, bytes.Contains(dump, []byte(kept)), kept)
	}
	sess, err := ten.Session(ctx, "s3")
	require.NoError(t, err)
	require.Equal(t, "vic", sess.UserID)
	require.Equal(t, int64(2), sess.MessageCount)
	st, err := ten.SummaryState(ctx, "s3")
	require.NoError(t, err)
	require.Zero(t, st.Summarized, "s3's summary starts over from what is left")
	in, err := ten.SummaryInput(ctx, "s3", 20)
	require.NoError(t, err)
	require.Len(t, in.Messages, 2, "vic's turns are read again for the new summary")
	require.Nil(t, in.Previous)

	// Forgetting the owner leaves the bystander's turn in vic4's session.
	counted, err = ten.CountUser(ctx, "vic4")
	require.NoError(t, err)
	removed, err = ten.ForgetUser(ctx, "vic4")
	require.NoError(t, err)
	require.Equal(t, counted, removed)
	require.Equal(t, int64(1), removed["messages"])
	dump = db.Dump(t)
	require.False(t, bytes.Contains(dump, []byte("VIC4TEXT")))
	require.True(t, bytes.Contains(dump, []byte("BY4TEXT")), "the bystander's turn is theirs")
	var hits int64
	require.NoError(t, db.Store.Pool().QueryRow(ctx, `SELECT count(*) FROM search_entries WHERE tenant_id = 'acme' AND user_id = 'by4'`).Scan(&hits))
	require.Equal(t, int64(1), hits, "and so is its search entry")
	guests, err = db.Store.SessionGuests(ctx, "acme")
	require.NoError(t, err)
	require.Equal(t, []store.SessionGuest{{TenantID: "acme", SessionID: "s4", OwnerID: "", UserID: "by4", Messages: 1,
		FirstAt: t0.Add(time.Minute), LastAt: t0.Add(time.Minute)}}, guests, "the forgotten owner's id goes too")

	// And the bystander can be forgotten in turn, exactly.
	removed, err = ten.ForgetUser(ctx, "by4")
	require.NoError(t, err)
	require.Equal(t, int64(1), removed["messages"])
	require.False(t, bytes.Contains(db.Dump(t), []byte("BY4TEXT")))
	_, err = ten.Session(ctx, "s4")
	require.True(t, errors.Is(err, store.ErrNotFound))
}

// Ingest judges a batch's turns by their sessions' owners in the statement
// that stores them: a session the batch is the first to write is the user's
// of its earliest turn (stream sequence), the turns of others for it are
// left out and reported with the owner, and batches racing for one new
// session leave it one owner's turns only.
func TestIngestJudgesOwners(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testenv.NewDB(t)
	t0 := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	res, err := db.Store.IngestTurns(ctx, []store.StoredTurn{
		{Turn: ownerTurn("x2", "t", "later", "new", "second by stream order", t0), Seq: 12},
		{Turn: ownerTurn("x1", "t", "first", "new", "first by stream order", t0.Add(time.Minute)), Seq: 11},
		{Turn: ownerTurn("x3", "t", "first", "new", "the owner's again", t0.Add(2*time.Minute)), Seq: 13},
	}, store.SummaryTrigger{EveryMessages: -1})
	require.NoError(t, err)
	require.Equal(t, []store.RefusedTurn{{Index: 0, Owner: "first"}}, res.Refused)
	sess, err := db.Store.Tenant("t").Session(ctx, "new")
	require.NoError(t, err)
	require.Equal(t, "first", sess.UserID)
	require.Equal(t, int64(2), sess.MessageCount)

	for round := range 4 {
		session := fmt.Sprintf("race-%d", round)
		var wg sync.WaitGroup
		for i := range 6 {
			wg.Go(func() {
				user := fmt.Sprintf("u%d", i)
				turns := []store.StoredTurn{{Turn: ownerTurn(fmt.Sprintf("%s-%d-a", session, i), "t", user, session, "a", t0)},
					{Turn: ownerTurn(fmt.Sprintf("%s-%d-b", session, i), "t", user, session, "b", t0.Add(time.Second))}}
				for {
					_, err := db.Store.IngestTurns(ctx, turns, store.SummaryTrigger{EveryMessages: -1})
					if err == nil {
						return
					}
					// A race lost is tried again, as the worker's redelivery would.
					require.ErrorContains(t, err, "meanwhile")
				}
			})
		}
		wg.Wait()
		var users, msgs int64
		require.NoError(t, db.Store.Pool().QueryRow(ctx, `SELECT count(DISTINCT user_id), count(*) FROM messages WHERE tenant_id = 't' AND session_id = $1`, session).Scan(&users, &msgs))
		require.Equal(t, int64(1), users, "round %d", round)
		sess, err := db.Store.Tenant("t").Session(ctx, session)
		require.NoError(t, err)
		require.Equal(t, msgs, sess.MessageCount)
		require.Equal(t, int64(2), msgs)
	}
}
