package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/recallhq/recall/pkg/events"
)

// SessionClaim is a turn's claim on the session it names: the session is
// its user's, or becomes theirs if it has no owner yet.
//
// A session belongs to one user, the user of the first turn any front door
// (the API, MCP, the gateway) or turn-stream worker accepted for it:
// sessions.user_id, which no statement changes. The front doors claim the
// sessions of a request before they publish it, so that a turn of another
// user is refused there (409); turns published straight to the stream are
// claimed by the first worker that sees them, and every worker judges them
// by the same row, so that they all keep or all refuse a turn.
type SessionClaim struct {
	TenantID, SessionID, UserID string
	// SiteID, AgentID and At (the turn's event time) describe the session
	// row a claim makes.
	SiteID, AgentID string
	At              time.Time
}

// ClaimOf is a turn's claim on its session.
func ClaimOf(t *events.Turn) SessionClaim {
	return SessionClaim{TenantID: t.TenantID, SessionID: t.SessionID, UserID: t.UserID, SiteID: t.SiteID, AgentID: t.AgentID, At: t.OccurredAt}
}

// ErrSessionOwned: a turn names a session that belongs to another user.
var ErrSessionOwned = errors.New("the session belongs to another user")

// sessionKey is a session's identity across tenants.
type sessionKey struct{ tenant, session string }

// ClaimSessions answers the owner of each claim's session, in the order of
// claims, and makes the sessions that have none yet the claimant's: the
// first claim of a session in the list decides, so a later claim of
// another user for the same new session gets the first one's user. A claim
// is granted when the owner answered is its own user.
//
// Sessions that exist cost one read of their keys; new ones a second
// statement that inserts their rows (and a third read in the rare race
// with another writer making the same session).
func (s *Store) ClaimSessions(ctx context.Context, claims []SessionClaim) ([]string, error) {
	first := make(map[sessionKey]int, len(claims))
	var order []sessionKey
	for i, c := range claims {
		k := sessionKey{c.TenantID, c.SessionID}
		if _, ok := first[k]; !ok {
			first[k] = i
			order = append(order, k)
		}
	}
	owners := make(map[sessionKey]string, len(order))
	read := func(keys []sessionKey) error {
		tenants, sessions := make([]string, len(keys)), make([]string, len(keys))
		for i, k := range keys {
			tenants[i], sessions[i] = k.tenant, k.session
		}
		rows, err := s.pool.Query(ctx, q(qSessionOwnerList), tenants, sessions)
		if err != nil {
			return err
		}
		return scanOwners(rows, owners)
	}
	if err := read(order); err != nil {
		return nil, fmt.Errorf("session owners: %w", err)
	}
	var missing []sessionKey
	for _, k := range order {
		if _, ok := owners[k]; !ok {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		n := len(missing)
		tenants, sessions, users, sites, agents := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		at := make([]time.Time, n)
		for i, k := range missing {
			c := claims[first[k]]
			tenants[i], sessions[i], users[i], sites[i], agents[i], at[i] = c.TenantID, c.SessionID, c.UserID, c.SiteID, c.AgentID, c.At
		}
		rows, err := s.pool.Query(ctx, q(qSessionClaimBatch), tenants, sessions, users, sites, agents, at)
		if err != nil {
			return nil, fmt.Errorf("claim sessions: %w", err)
		}
		if err := scanOwners(rows, owners); err != nil {
			return nil, fmt.Errorf("claim sessions: %w", err)
		}
		// Made meanwhile by another writer: its row, read now, decides.
		var raced []sessionKey
		for _, k := range missing {
			if _, ok := owners[k]; !ok {
				raced = append(raced, k)
			}
		}
		if len(raced) > 0 {
			if err := read(raced); err != nil {
				return nil, fmt.Errorf("session owners: %w", err)
			}
		}
	}
	out := make([]string, len(claims))
	for i, c := range claims {
		o, ok := owners[sessionKey{c.TenantID, c.SessionID}]
		if !ok {
			// Deleted between the claim and the read: nothing decided.
			return nil, fmt.Errorf("claim sessions: session %q of tenant %q was deleted while it was claimed", c.SessionID, c.TenantID)
		}
		out[i] = o
	}
	return out, nil
}

func scanOwners(rows pgx.Rows, owners map[sessionKey]string) error {
	var tenant, session, user string
	_, err := pgx.ForEachRow(rows, []any{&tenant, &session, &user}, func() error {
		owners[sessionKey{tenant, session}] = user
		return nil
	})
	return err
}

// SessionGuest is a user whose turns sit in another user's session: stored
// there before a session had one owner (session_guests). Forgetting the
// guest removes them; deleting the session removes them with it.
type SessionGuest struct {
	TenantID, SessionID string
	// OwnerID is the session's owner ("" when its row is gone: its owner
	// was forgotten, or it never had one).
	OwnerID string
	UserID  string
	// Messages are the guest's turns in the session, between FirstAt and
	// LastAt (event time), when they were found.
	Messages        int64
	FirstAt, LastAt time.Time
}

// SessionGuests lists the guests of sessions, of one tenant or ("") of all.
func (s *Store) SessionGuests(ctx context.Context, tenant string) ([]SessionGuest, error) {
	rows, err := s.pool.Query(ctx, q(qSessionGuestList), tenant)
	if err != nil {
		return nil, fmt.Errorf("session guests: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (SessionGuest, error) {
		var g SessionGuest
		err := r.Scan(&g.TenantID, &g.SessionID, &g.OwnerID, &g.UserID, &g.Messages, &g.FirstAt, &g.LastAt)
		g.FirstAt, g.LastAt = g.FirstAt.UTC(), g.LastAt.UTC()
		return g, err
	})
	if err != nil {
		return nil, fmt.Errorf("session guests: %w", err)
	}
	return out, nil
}

// ScanSessionGuests reads every message of one tenant or ("") of all again
// and records the guests it finds (SessionGuestScan): after a rollout during
// which workers of an earlier version still stored turns in other users'
// sessions. It reads the whole messages table once.
func (s *Store) ScanSessionGuests(ctx context.Context, tenant string) (int64, error) {
	var n int64
	if err := s.pool.QueryRow(ctx, q(qSessionGuestScan), tenant).Scan(&n); err != nil {
		return 0, fmt.Errorf("scan session guests: %w", err)
	}
	return n, nil
}
