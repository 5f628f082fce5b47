package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Session is a session's aggregate row.
type Session struct {
	SessionID      string    `json:"session_id"`
	UserID         string    `json:"user_id"`
	SiteID         string    `json:"site_id,omitempty"`
	AgentID        string    `json:"agent_id,omitempty"`
	MessageCount   int64     `json:"message_count"`
	SystemCount    int64     `json:"system_count"`
	FirstMessageAt time.Time `json:"first_message_at"`
	LastMessageAt  time.Time `json:"last_message_at"`
	CreatedAt      time.Time `json:"created_at"`
	UpdatedAt      time.Time `json:"updated_at"`
}

func scanSession(row pgx.Row) (Session, error) {
	var s Session
	err := row.Scan(&s.SessionID, &s.UserID, &s.SiteID, &s.AgentID, &s.MessageCount, &s.SystemCount,
		&s.FirstMessageAt, &s.LastMessageAt, &s.CreatedAt, &s.UpdatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return s, ErrNotFound
	}
	s.FirstMessageAt, s.LastMessageAt = s.FirstMessageAt.UTC(), s.LastMessageAt.UTC()
	s.CreatedAt, s.UpdatedAt = s.CreatedAt.UTC(), s.UpdatedAt.UTC()
	return s, err
}

// Session returns a session's aggregates, or ErrNotFound.
func (t *Tenant) Session(ctx context.Context, sessionID string) (Session, error) {
	s, err := scanSession(t.s.pool.QueryRow(ctx, q("SessionGet"), t.id, sessionID))
	if err != nil && !errors.Is(err, ErrNotFound) {
		return s, fmt.Errorf("get session: %w", err)
	}
	return s, err
}

// SessionWithRecent reads a session and its newest messages (newest first) in
// one statement, or ErrNotFound. System turns are left out unless withSystem: the
// context window never replays them, and should not spend its count on them.
func (t *Tenant) SessionWithRecent(ctx context.Context, sessionID string, since time.Time, limit int, withSystem bool) (Session, []Message, error) {
	rows, err := t.s.pool.Query(ctx, q("SessionGetWithRecent"), t.id, sessionID, since, limit, withSystem)
	if err != nil {
		return Session{}, nil, fmt.Errorf("session with recent: %w", err)
	}
	defer rows.Close()
	var sess Session
	msgs := make([]Message, 0, limit)
	found := false
	for rows.Next() {
		found = true
		var m Message
		var eventID, userID, siteID, agentID, role, content *string
		var occurred, stored *time.Time
		var tc, it, md []byte
		if err := rows.Scan(&sess.SessionID, &sess.UserID, &sess.SiteID, &sess.AgentID, &sess.MessageCount, &sess.SystemCount,
			&sess.FirstMessageAt, &sess.LastMessageAt, &sess.CreatedAt, &sess.UpdatedAt,
			&eventID, &userID, &siteID, &agentID, &role, &content, &tc, &it, &md, &occurred, &stored); err != nil {
			return Session{}, nil, fmt.Errorf("session with recent: %w", err)
		}
		if eventID == nil {
			continue
		}
		m.EventID, m.SiteID, m.AgentID, m.Role, m.Content = *eventID, *siteID, *agentID, *role, *content
		m.SessionID, m.UserID = sess.SessionID, *userID
		m.ToolCalls, m.Items, m.Metadata = tc, it, md
		m.OccurredAt, m.StoredAt = occurred.UTC(), stored.UTC()
		msgs = append(msgs, m)
	}
	if err := rows.Err(); err != nil {
		return Session{}, nil, fmt.Errorf("session with recent: %w", err)
	}
	if !found {
		return Session{}, nil, ErrNotFound
	}
	sess.FirstMessageAt, sess.LastMessageAt = sess.FirstMessageAt.UTC(), sess.LastMessageAt.UTC()
	sess.CreatedAt, sess.UpdatedAt = sess.CreatedAt.UTC(), sess.UpdatedAt.UTC()
	return sess, msgs, nil
}

// DeleteSession removes a session and all its messages in one transaction. It
// returns the session's user (for purging the stream) or ErrNotFound.
func (t *Tenant) DeleteSession(ctx context.Context, sessionID string) (userID string, err error) {
	err = pgx.BeginFunc(ctx, t.s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, q("MessageDeleteBySession"), t.id, sessionID); err != nil {
			return err
		}
		return tx.QueryRow(ctx, q("SessionDelete"), t.id, sessionID).Scan(&userID)
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return "", ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("delete session: %w", err)
	}
	return userID, nil
}
