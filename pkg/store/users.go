package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/recallhq/recall/pkg/record"
)

// userTables are every table that holds a user's data, each with the statement
// that deletes the user's rows, in the order they run (messages are found
// through the user's sessions and the sessions they were a guest in, so they
// go first). A test checks that every table with a user_id column is here.
var userTables = []struct {
	table string
	query queryName
}{
	{table: "messages", query: qUserDeleteMessages},
	{table: "session_summaries", query: qUserDeleteSummaries},
	{table: "sessions", query: qUserDeleteSessions},
	{table: "session_guests", query: qUserDeleteGuests},
	{table: "fact_mentions", query: qUserDeleteFactMentions},
	{table: "facts", query: qUserDeleteFacts},
	{table: "shelf_items", query: qUserDeleteShelf},
	{table: "user_profiles", query: qUserDeleteProfile},
	{table: "profile_refresh_outbox", query: qUserDeleteRefreshOutbox},
	{table: "seen_items", query: qUserDeleteSeenItems},
	{table: "seen_lists", query: qUserDeleteSeenLists},
	{table: "item_notifications", query: qUserDeleteNotifications},
	{table: "search_entries", query: qUserDeleteSearchEntries},
	{table: "search_user_stats", query: qUserDeleteSearchStats},
	{table: "attribute_assertions", query: qUserDeleteAttributes},
	{table: "attribute_revisions", query: qUserDeleteAttributeRevisions},
	{table: "habit_marks", query: qUserDeleteHabitMarks},
	{table: "webhook_deliveries", query: qUserDeleteWebhookDeliveries},
}

// ForgetUser deletes everything stored about a user in one transaction and
// returns the rows deleted per table. Forgetting a user twice, or one never
// seen, deletes nothing and is no error.
func (t *Tenant) ForgetUser(ctx context.Context, userID string) (map[string]int64, error) {
	counts := make(map[string]int64, len(userTables))
	err := pgx.BeginFunc(ctx, t.s.pool, func(tx pgx.Tx) error {
		// First what the user's turns in other users' sessions fed: those
		// sessions' summaries (UserGuestSummariesForget).
		var sums, entries, unread, reset int64
		if err := tx.QueryRow(ctx, q(qUserGuestSummariesForget), t.id, userID).Scan(&sums, &entries, &unread, &reset); err != nil {
			return fmt.Errorf("guest sessions: %w", err)
		}
		for _, ut := range userTables {
			tag, err := tx.Exec(ctx, q(ut.query), t.id, userID)
			if err != nil {
				return fmt.Errorf("%s: %w", ut.table, err)
			}
			counts[ut.table] = tag.RowsAffected()
		}
		counts["session_summaries"] += sums
		counts["search_entries"] += entries
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("forget user: %w", err)
	}
	return counts, nil
}

// CountUser counts, table by table, the rows ForgetUser would delete now:
// what a confirmation names before a user is forgotten.
func (t *Tenant) CountUser(ctx context.Context, userID string) (map[string]int64, error) {
	rows, err := t.s.pool.Query(ctx, q(qUserCount), t.id, userID)
	if err != nil {
		return nil, fmt.Errorf("count user: %w", err)
	}
	counts := make(map[string]int64, len(userTables))
	var table string
	var n int64
	if _, err := pgx.ForEachRow(rows, []any{&table, &n}, func() error {
		counts[table] = n
		return nil
	}); err != nil {
		return nil, fmt.Errorf("count user: %w", err)
	}
	return counts, nil
}

// UserActivity is a user as a tenant's list of users shows them: their
// sessions, messages and when they were active (event times).
type UserActivity struct {
	UserID         string
	Sessions       int64
	Messages       int64
	FirstMessageAt time.Time
	LastMessageAt  time.Time
}

// ActivityCursor is a position in a newest-first list: the last row's time
// and id.
type ActivityCursor struct {
	At time.Time
	ID string
}

// Users returns a page of the tenant's users who have sessions, latest
// activity first, after the cursor (zero: from the start), only ids starting
// with prefix when it is not empty. next is the cursor of the page's last
// user when the page is full, nil otherwise.
func (t *Tenant) Users(ctx context.Context, prefix string, after ActivityCursor, limit int) ([]UserActivity, *ActivityCursor, error) {
	rows, err := t.s.pool.Query(ctx, q(qUserListActive), t.id, nullTime(after.At), after.ID, prefix, limit)
	if err != nil {
		return nil, nil, fmt.Errorf("list users: %w", err)
	}
	users, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (UserActivity, error) {
		var u UserActivity
		err := r.Scan(&u.UserID, &u.Sessions, &u.Messages, &u.FirstMessageAt, &u.LastMessageAt)
		u.FirstMessageAt, u.LastMessageAt = u.FirstMessageAt.UTC(), u.LastMessageAt.UTC()
		return u, err
	})
	if err != nil {
		return nil, nil, fmt.Errorf("list users: %w", err)
	}
	return users, pageCursor(users, limit, func(u UserActivity) ActivityCursor { return ActivityCursor{At: u.LastMessageAt, ID: u.UserID} }), nil
}

// pageCursor is the cursor after the last of rows when the page is full
// (there may be more), nil otherwise.
func pageCursor[T, C any](rows []T, limit int, after func(T) C) *C {
	if len(rows) == 0 || len(rows) < limit {
		return nil
	}
	c := after(rows[len(rows)-1])
	return &c
}

// UserSession is a session of a user's with its current summary (nil before
// the first).
type UserSession struct {
	Session
	Summary *record.Summary
}

// UserSessions returns a page of a user's sessions, latest activity first,
// after the cursor (zero: from the start), each with its current summary;
// next as in Users.
func (t *Tenant) UserSessions(ctx context.Context, userID string, after ActivityCursor, limit int) ([]UserSession, *ActivityCursor, error) {
	rows, err := t.s.pool.Query(ctx, q(qUserSessionList), t.id, userID, nullTime(after.At), after.ID, limit)
	if err != nil {
		return nil, nil, fmt.Errorf("list user sessions: %w", err)
	}
	sessions, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (UserSession, error) {
		s, err := scanSession(r)
		return UserSession{Session: s}, err
	})
	if err != nil {
		return nil, nil, fmt.Errorf("list user sessions: %w", err)
	}
	if len(sessions) == 0 {
		return sessions, nil, nil
	}
	ids := make([]string, len(sessions))
	at := make(map[string]int, len(sessions))
	for i, s := range sessions {
		ids[i], at[s.SessionID] = s.SessionID, i
	}
	rows, err = t.s.pool.Query(ctx, q(qSummaryListCurrent), t.id, ids)
	if err != nil {
		return nil, nil, fmt.Errorf("list user sessions: %w", err)
	}
	sums, err := pgx.CollectRows(rows, scanSummary)
	if err != nil {
		return nil, nil, fmt.Errorf("list user sessions: %w", err)
	}
	for _, s := range sums {
		sessions[at[s.SessionID]].Summary = &s
	}
	return sessions, pageCursor(sessions, limit, func(s UserSession) ActivityCursor { return ActivityCursor{At: s.LastMessageAt, ID: s.SessionID} }), nil
}
