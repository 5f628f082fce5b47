package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/recallhq/recall/pkg/record"
)

// The decayer's queries: set-based, in bounded batches, each batch its own
// short transaction. Facts are decayed across tenants (the policy is per fact
// type, not per tenant); retention works one tenant at a time.

// TryAdvisoryLock takes a session-level advisory lock on a connection of its
// own and keeps it until unlock is called (or the connection is lost). ok is
// false when another session holds it: the caller should not do the work.
func (s *Store) TryAdvisoryLock(ctx context.Context, key int64) (unlock func(), ok bool, err error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, false, fmt.Errorf("advisory lock: %w", err)
	}
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, key).Scan(&ok); err != nil {
		conn.Release()
		return nil, false, fmt.Errorf("advisory lock: %w", err)
	}
	if !ok {
		conn.Release()
		return nil, false, nil
	}
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if _, err := conn.Exec(ctx, `SELECT pg_advisory_unlock($1)`, key); err != nil {
			// The lock dies with the session: close it rather than hand a
			// connection that may still hold the lock back to the pool.
			_ = conn.Conn().Close(ctx)
		}
		conn.Release()
	}, true, nil
}

// FactPages is the facts table's size in heap pages, and its rows per page as
// last analyzed (0 when unknown).
func (s *Store) FactPages(ctx context.Context) (pages int64, density float64, err error) {
	if err := s.pool.QueryRow(ctx, q(qFactPages)).Scan(&pages, &density); err != nil {
		return 0, 0, fmt.Errorf("facts size: %w", err)
	}
	return pages, density, nil
}

// DecayCounts is what bringing a range of facts up to date changed.
type DecayCounts struct {
	// Scanned facts (all but the expired ones).
	Scanned int64
	// Decayed: the weight changed, the status did not.
	Decayed int64
	// Archived: active facts whose weight fell below the floor.
	Archived int64
	// Expired: facts whose expiry passed.
	Expired int64
	// Reactivated: archived facts above the floor again (the policy changed).
	Reactivated int64
	// Users put in the refresh outbox.
	Users int64
}

// Add adds o to c.
func (c *DecayCounts) Add(o DecayCounts) {
	c.Scanned += o.Scanned
	c.Decayed += o.Decayed
	c.Archived += o.Archived
	c.Expired += o.Expired
	c.Reactivated += o.Reactivated
	c.Users += o.Users
}

// DecayFacts brings the facts stored in heap pages [firstPage, endPage) up to
// date as of at under the rules (the default first, then one per fact type
// with its own), in one statement (one short transaction), and owes a profile
// refresh to every user whose facts changed (see RefreshOutbox). at is taken
// to the microsecond, as PostgreSQL stores it.
//
// ended, when not nil, is given the facts the statement archived or expired,
// in its transaction before the commit: its error rolls the batch back, so
// that a later run makes (and tells of) the same changes again.
func (s *Store) DecayFacts(ctx context.Context, rules []FactDecayRule, firstPage, endPage int64, at time.Time, ended func(context.Context, []DecayedFact) error) (DecayCounts, error) {
	var c DecayCounts
	sp, err := decayParams(rules)
	if err != nil {
		return c, err
	}
	lo, hi := pageTIDs(firstPage, endPage)
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var changed []byte
		err := tx.QueryRow(ctx, q(qFactDecayRange), lo, hi, at.Truncate(time.Microsecond),
			sp.types, sp.periodUS, sp.floors, sp.mult, sp.width).
			Scan(&c.Scanned, &c.Decayed, &c.Archived, &c.Expired, &c.Reactivated, &c.Users, &changed)
		if err != nil || ended == nil {
			return err
		}
		var rows []struct {
			TenantID        string    `json:"tenant_id"`
			UserID          string    `json:"user_id"`
			Type            string    `json:"type"`
			Value           string    `json:"value"`
			Display         string    `json:"display"`
			Status          string    `json:"status"`
			BaseWeight      float64   `json:"base_weight"`
			Weight          float64   `json:"weight"`
			MentionCount    int64     `json:"mention_count"`
			FirstSeenAt     time.Time `json:"first_seen_at"`
			LastMentionedAt time.Time `json:"last_mentioned_at"`
			ExpiresAt       time.Time `json:"expires_at"`
			Source          string    `json:"source"`
			SessionID       string    `json:"session_id"`
		}
		if err := json.Unmarshal(changed, &rows); err != nil {
			return fmt.Errorf("facts changed: %w", err)
		}
		if len(rows) == 0 {
			return nil
		}
		facts := make([]DecayedFact, len(rows))
		for i, r := range rows {
			facts[i] = DecayedFact{TenantID: r.TenantID, UserID: r.UserID, DecayedWeight: r.Weight, Fact: record.Fact{
				Type: r.Type, Value: r.Value, Display: r.Display, Weight: r.BaseWeight, MentionCount: r.MentionCount,
				FirstSeenAt: r.FirstSeenAt.UTC(), LastMentionedAt: r.LastMentionedAt.UTC(), ExpiresAt: r.ExpiresAt.UTC(),
				Status: r.Status, Source: r.Source, SourceSessionID: r.SessionID}}
		}
		return ended(ctx, facts)
	})
	if err != nil {
		return DecayCounts{}, fmt.Errorf("decay facts in pages %d-%d: %w", firstPage, endPage, err)
	}
	return c, nil
}

// DecayedFact is a fact a decay run archived or expired: Status is its new
// status, Weight its base weight, DecayedWeight its weight as of the run.
type DecayedFact struct {
	TenantID string
	UserID   string
	record.Fact
	DecayedWeight float64
}

// PurgeExpiredFacts deletes the facts stored in heap pages [firstPage,
// endPage) that expired before before, with their mentions, in one statement.
// It returns how many facts and mentions it deleted. A replay of turns that
// old mentions a purged fact again as new; it expires again by the same rule.
func (s *Store) PurgeExpiredFacts(ctx context.Context, firstPage, endPage int64, before time.Time) (facts, mentions int64, err error) {
	lo, hi := pageTIDs(firstPage, endPage)
	if err := s.pool.QueryRow(ctx, q(qFactPurgeRange), lo, hi, before).Scan(&facts, &mentions); err != nil {
		return 0, 0, fmt.Errorf("purge expired facts in pages %d-%d: %w", firstPage, endPage, err)
	}
	return facts, mentions, nil
}

// pageTIDs are the tuple ids bounding heap pages [firstPage, endPage).
func pageTIDs(firstPage, endPage int64) (lo, hi pgtype.TID) {
	lo = pgtype.TID{BlockNumber: uint32(firstPage), Valid: true}
	hi = pgtype.TID{BlockNumber: uint32(endPage), Valid: true}
	if endPage > 1<<32-1 {
		hi = pgtype.TID{BlockNumber: 1<<32 - 1, OffsetNumber: 1<<16 - 1, Valid: true}
	}
	return lo, hi
}

// PendingRefresh is a profile refresh the decayer owes a user.
type PendingRefresh struct {
	UserRef
	RequestedAt time.Time
}

// RefreshOutbox returns the next refreshes owed, in key order after after.
func (s *Store) RefreshOutbox(ctx context.Context, after UserRef, limit int) ([]PendingRefresh, error) {
	rows, err := s.pool.Query(ctx, q(qRefreshOutboxList), after.TenantID, after.UserID, limit)
	if err != nil {
		return nil, fmt.Errorf("refresh outbox: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (PendingRefresh, error) {
		var p PendingRefresh
		err := r.Scan(&p.TenantID, &p.UserID, &p.RequestedAt)
		p.RequestedAt = p.RequestedAt.UTC()
		return p, err
	})
	if err != nil {
		return nil, fmt.Errorf("refresh outbox: %w", err)
	}
	return out, nil
}

// RefreshesSent forgets published refreshes; one owed again since, for a later
// time, stays.
func (s *Store) RefreshesSent(ctx context.Context, sent []PendingRefresh) error {
	tenants, users, ats := make([]string, len(sent)), make([]string, len(sent)), make([]time.Time, len(sent))
	for i, p := range sent {
		tenants[i], users[i], ats[i] = p.TenantID, p.UserID, p.RequestedAt
	}
	if _, err := s.pool.Exec(ctx, q(qRefreshOutboxDelete), tenants, users, ats); err != nil {
		return fmt.Errorf("refresh outbox delete: %w", err)
	}
	return nil
}

// SessionTenants lists every tenant that has sessions.
func (s *Store) SessionTenants(ctx context.Context) ([]string, error) {
	rows, err := s.pool.Query(ctx, q(qSessionTenants))
	if err != nil {
		return nil, fmt.Errorf("list tenants: %w", err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("list tenants: %w", err)
	}
	return out, nil
}

// RetentionBatch is what one DeleteOldMessages call did.
type RetentionBatch struct {
	// Messages and Sessions deleted.
	Messages int64
	Sessions int64
	// Attributes are the learned attribute values read from the deleted
	// turns that went with them.
	Attributes int64
	// Next is the cursor for the next call; Done when there is nothing after it.
	Next string
	Done bool
}

// DeleteOldMessages deletes, in one transaction, at most maxMessages messages
// older than cutoff (event time) from the tenant's next sessions after the
// cursor (at most maxSessions of them) with their search entries and the
// attribute values read from them, takes them
// out of the sessions' aggregates, and deletes the sessions left without
// messages (and their summaries' search entries). Call it again
// with Next until Done. Sessions are locked first, in key order, as ingest
// locks them, so a turn stored meanwhile is either counted in a session that
// survives or recreates its session.
func (t *Tenant) DeleteOldMessages(ctx context.Context, after string, cutoff time.Time, maxSessions, maxMessages int) (RetentionBatch, error) {
	var b RetentionBatch
	err := pgx.BeginFunc(ctx, t.s.pool, func(tx pgx.Tx) error {
		b = RetentionBatch{}
		rows, err := tx.Query(ctx, q(qSessionLockOld), t.id, after, cutoff, maxSessions)
		if err != nil {
			return err
		}
		ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return err
		}
		if len(ids) == 0 {
			b.Next, b.Done = after, true
			return nil
		}
		rows, err = tx.Query(ctx, q(qMessageDeleteOld), t.id, ids, cutoff, maxMessages)
		if err != nil {
			return err
		}
		var sess []string
		var n, sys, summed []int64
		var id string
		var cn, cs, csum int64
		if _, err := pgx.ForEachRow(rows, []any{&id, &cn, &cs, &csum}, func() error {
			sess, n, sys, summed = append(sess, id), append(n, cn), append(sys, cs), append(summed, csum)
			b.Messages += cn
			return nil
		}); err != nil {
			return err
		}
		if len(sess) > 0 {
			if _, err := tx.Exec(ctx, q(qSessionFoldDeleted), t.id, sess, n, sys, summed); err != nil {
				return err
			}
		}
		tag, err := tx.Exec(ctx, q(qAttributeDeleteOld), t.id, ids, cutoff)
		if err != nil {
			return err
		}
		b.Attributes = tag.RowsAffected()
		if err := tx.QueryRow(ctx, q(qSessionDeleteEmpty), t.id, ids).Scan(&b.Sessions); err != nil {
			return err
		}
		// A full batch may have left old messages in these sessions: look at
		// them again (those done no longer qualify). Otherwise move on.
		b.Next = after
		if b.Messages < int64(maxMessages) {
			b.Next = ids[len(ids)-1]
		}
		b.Done = false
		return nil
	})
	if err != nil {
		return RetentionBatch{}, fmt.Errorf("retention of tenant %s: %w", t.id, err)
	}
	return b, nil
}
