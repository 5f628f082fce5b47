package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/recallhq/recall/pkg/attribute"
)

// HabitUser is a user as the habits step pages through a tenant's users.
type HabitUser struct {
	UserID string
	// Through is the newest message of the user's sessions (event time,
	// any role): what their habits are derived as of.
	Through time.Time
	// TimezoneAssertions counts the assertions of their time zone key.
	TimezoneAssertions int64
	// Generation is their mark's (0 without one): a session delete counts
	// one more.
	Generation int64
	// Due: no mark yet, a message newer than the mark's, or another count
	// of time zone assertions.
	Due bool
}

// HabitUsers returns the next page of the tenant's users with sessions, by
// user id after after, at most limit: whether each is due for their habits
// to be derived, and what their mark will say once they are. timezoneKey is
// the attribute key of the time zone the habits are reckoned in.
func (t *Tenant) HabitUsers(ctx context.Context, after string, limit int, timezoneKey string) ([]HabitUser, error) {
	rows, err := t.s.pool.Query(ctx, q(qHabitUserPage), t.id, after, limit, timezoneKey)
	if err != nil {
		return nil, fmt.Errorf("habit users: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (HabitUser, error) {
		var u HabitUser
		var gen *int64
		err := r.Scan(&u.UserID, &u.Through, &u.TimezoneAssertions, &gen, &u.Due)
		if gen != nil {
			u.Generation = *gen
		}
		u.Through = u.Through.UTC()
		return u, err
	})
	if err != nil {
		return nil, fmt.Errorf("habit users: %w", err)
	}
	return out, nil
}

// AssertionsByUsers are every assertion about each of the users, oldest
// first (Assertions for many users in one statement).
func (t *Tenant) AssertionsByUsers(ctx context.Context, userIDs []string) (map[string][]attribute.Assertion, error) {
	rows, err := t.s.pool.Query(ctx, q(qAttributeAssertionListByUsers), t.id, userIDs)
	if err != nil {
		return nil, fmt.Errorf("list assertions: %w", err)
	}
	return collectByUser(rows, len(userIDs))
}

// HabitMessage is one of a user's own messages as habits are derived from
// it: where and when it was written, its length and its beginning.
type HabitMessage struct {
	EventID    string
	OccurredAt time.Time
	SiteID     string
	AgentID    string
	// Chars is the length of the whole content, in characters.
	Chars int
	// Text is the content's first characters (HabitMessages' textChars).
	Text string
}

// HabitMessages streams the users' own messages (role user) that occurred
// at or after each one's since, newest first, at most limit per user, to
// fn: the length of each in characters and its first textChars characters.
// Nothing is collected, so a batch of users holds no more than one row at a
// time.
func (t *Tenant) HabitMessages(ctx context.Context, userIDs []string, since []time.Time, limit, textChars int, fn func(userID string, m HabitMessage) error) error {
	rows, err := t.s.pool.Query(ctx, q(qHabitMessagesByUsers), t.id, userIDs, since, limit, textChars)
	if err != nil {
		return fmt.Errorf("habit messages: %w", err)
	}
	var user string
	var m HabitMessage
	_, err = pgx.ForEachRow(rows, []any{&user, &m.EventID, &m.OccurredAt, &m.SiteID, &m.AgentID, &m.Chars, &m.Text}, func() error {
		m.OccurredAt = m.OccurredAt.UTC()
		return fn(user, m)
	})
	if err != nil {
		return fmt.Errorf("habit messages: %w", err)
	}
	return nil
}

// SaveHabits stores, in one transaction, the marks of users whose habits
// were derived and their derived assertions: only for the users whose mark
// is still at the generation read (HabitUser.Generation), since a session
// deleted in between made the derivation stale. It returns the users marked
// and how many assertions were new.
//
// stored, when not nil, is given the assertions stored now, in the
// transaction before its commit: its error rolls everything back (the
// decayer's change feed, which has no message to retry, so that the next
// run derives, stores and tells them again).
func (t *Tenant) SaveHabits(ctx context.Context, marks []HabitUser, rows []AssertionRow, stored func(context.Context, []AssertionRow) error) (marked []string, inserted int64, err error) {
	if len(marks) == 0 {
		return nil, 0, nil
	}
	users, through, tz, gen := make([]string, len(marks)), make([]time.Time, len(marks)), make([]int64, len(marks)), make([]int64, len(marks))
	for i, m := range marks {
		users[i], through[i], tz[i], gen[i] = m.UserID, m.Through, m.TimezoneAssertions, m.Generation
	}
	err = pgx.BeginFunc(ctx, t.s.pool, func(tx pgx.Tx) error {
		r, err := tx.Query(ctx, q(qHabitMarkSaveBatch), t.id, users, through, tz, gen)
		if err != nil {
			return err
		}
		marked, err = pgx.CollectRows(r, pgx.RowTo[string])
		if err != nil {
			return err
		}
		ok := make(map[string]bool, len(marked))
		for _, u := range marked {
			ok[u] = true
		}
		var keep []AssertionRow
		for _, row := range rows {
			if row.TenantID == t.id && ok[row.UserID] {
				keep = append(keep, row)
			}
		}
		var keys map[AssertionKey]bool
		if inserted, keys, err = recordAssertions(ctx, tx, keep); err != nil || stored == nil {
			return err
		}
		if fresh := newAssertions(keep, keys); len(fresh) > 0 {
			return stored(ctx, fresh)
		}
		return nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("save habits: %w", err)
	}
	return marked, inserted, nil
}
