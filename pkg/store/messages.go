package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/record"
)

// StoredTurn is a validated turn with the stream sequence it came from.
type StoredTurn struct {
	Turn events.Turn
	Seq  uint64
}

// InsertTurns stores a batch in one transaction. Turns whose (tenant, event id) is
// already stored are skipped, so redelivery, duplicate publishes and replays change
// nothing; session aggregates count only new rows. A turn whose session belongs
// to another user is left out, and the error then wraps ErrSessionOwned (the
// others are stored). Tool calls and items are
// stored as received (events.Turn.ItemsJSON). It returns how many sessions
// gained messages. It asks for no summaries: the ingest worker uses IngestTurns.
func (s *Store) InsertTurns(ctx context.Context, turns []StoredTurn) (int64, error) {
	res, err := s.IngestTurns(ctx, turns, SummaryTrigger{EveryMessages: -1})
	if err == nil && len(res.Refused) > 0 {
		err = fmt.Errorf("insert turns: %d turn(s) left out: %w", len(res.Refused), ErrSessionOwned)
	}
	return res.Sessions, err
}

// IngestTurns is InsertTurns that also reports, from the same statement, the
// sessions the batch made due for a summary by trigger. Each session is
// reported once per summary: the request is recorded with the session's
// counters, so a later batch does not ask again while it is outstanding.
func (s *Store) IngestTurns(ctx context.Context, turns []StoredTurn, trigger SummaryTrigger) (IngestResult, error) {
	var res IngestResult
	n := len(turns)
	var (
		tenant, event, session, user, site, agent, role, content = make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		toolCalls, items, metadata                               = make([]*string, n), make([]*string, n), make([]*string, n)
		occurred                                                 = make([]time.Time, n)
		seq                                                      = make([]int64, n)
	)
	for i := range turns {
		st := &turns[i]
		t := &st.Turn
		tenant[i], event[i], session[i], user[i] = t.TenantID, t.ID, t.SessionID, t.UserID
		site[i], agent[i], role[i], content[i] = t.SiteID, t.AgentID, t.Role, t.Content
		b, err := t.ToolCallsJSON()
		if err != nil {
			return res, fmt.Errorf("encode tool_calls of %s: %w", t.ID, err)
		}
		if b != nil {
			toolCalls[i] = ptr(string(b))
		}
		if b, err = t.ItemsJSON(); err != nil {
			return res, fmt.Errorf("encode items of %s: %w", t.ID, err)
		}
		if b != nil {
			items[i] = ptr(string(b))
		}
		if len(t.Metadata) > 0 {
			metadata[i] = ptr(string(t.Metadata))
		}
		occurred[i] = t.OccurredAt
		seq[i] = int64(st.Seq)
	}
	var (
		dueTenant, dueSession, dueUser []string
		dueFrom, dueThrough            []int64
		dueLast                        []time.Time
		refusedAt                      []int64
		refusedOwner                   []string
	)
	args := []any{tenant, event, session, user, site, agent, role, content, toolCalls, items, metadata, occurred, seq,
		trigger.EveryMessages, max(trigger.MinInterval, 0).Microseconds()}
	// Almost every batch's sessions are each its owner's: one statement
	// stores it (MessageInsertBatch). One that is not fails whole on the
	// sessions' owner (sessionOwnerMismatch) and is stored judged turn by
	// turn (MessageInsertJudged), which fails the same way only when
	// another writer made one of its new sessions for another user
	// meanwhile: the batch is then tried again.
	err := s.pool.QueryRow(ctx, q(qMessageInsertBatch), args...).
		Scan(&res.Sessions, &dueTenant, &dueSession, &dueUser, &dueFrom, &dueThrough, &dueLast)
	if sessionOwnerMismatch(err) {
		err = s.pool.QueryRow(ctx, q(qMessageInsertJudged), args...).
			Scan(&res.Sessions, &refusedAt, &refusedOwner, &dueTenant, &dueSession, &dueUser, &dueFrom, &dueThrough, &dueLast)
		if sessionOwnerMismatch(err) {
			err = errSessionRaced
		}
	}
	if err != nil {
		return IngestResult{}, fmt.Errorf("insert turns: %w", err)
	}
	if len(dueTenant) > 0 {
		res.Due = make([]DueSession, len(dueTenant))
		for i := range dueTenant {
			res.Due[i] = DueSession{TenantID: dueTenant[i], SessionID: dueSession[i], UserID: dueUser[i],
				FromCount: dueFrom[i], ThroughCount: dueThrough[i], LastMessageAt: dueLast[i].UTC()}
		}
	}
	for i, at := range refusedAt {
		res.Refused = append(res.Refused, RefusedTurn{Index: int(at) - 1, Owner: refusedOwner[i]})
	}
	return res, nil
}

// errSessionRaced: another writer made one of a batch's new sessions for
// another user while the batch was stored; the batch is tried again.
var errSessionRaced = errors.New("a session was made for another user meanwhile; try again")

// sessionOwnerMismatch reports whether err is the insert statements' way of
// saying that a session of the batch is not the user's its turns name: a
// NULL written into sessions.user_id.
func sessionOwnerMismatch(err error) bool {
	pgErr, ok := errors.AsType[*pgconn.PgError](err)
	return ok && pgErr.Code == notNullViolation && pgErr.TableName == "sessions" && pgErr.ColumnName == "user_id"
}

// notNullViolation is PostgreSQL's SQLSTATE for a NULL in a NOT NULL column.
const notNullViolation = "23502"

// RefusedTurn is a turn IngestTurns left out because its session belongs
// to another user.
type RefusedTurn struct {
	// Index is the turn's place in the batch given.
	Index int
	// Owner is the user the session belongs to.
	Owner string
}

func ptr[T any](v T) *T { return &v }

// appendMessages scans every row (the message queries' column list) onto msgs.
// One scratch row and one destination list serve every row: this is the context
// read path, and per-row allocations add up there.
func appendMessages(msgs []record.Message, rows pgx.Rows) ([]record.Message, error) {
	defer rows.Close()
	var m record.Message
	dest := []any{&m.EventID, &m.SessionID, &m.UserID, &m.SiteID, &m.AgentID, &m.Role, &m.Content,
		rawJSON(&m.ToolCalls), rawJSON(&m.Items), rawJSON(&m.Metadata), &m.OccurredAt, &m.StoredAt}
	for rows.Next() {
		m = record.Message{}
		if err := rows.Scan(dest...); err != nil {
			return msgs, err
		}
		m.OccurredAt, m.StoredAt = m.OccurredAt.UTC(), m.StoredAt.UTC()
		msgs = append(msgs, m)
	}
	return msgs, rows.Err()
}

// rawJSON scans a json or jsonb column as the bytes PostgreSQL sent. pgx decodes
// into a *json.RawMessage with json.Unmarshal, which validates and copies what
// the server already validated; into a *[]byte it only copies.
func rawJSON(p *json.RawMessage) *[]byte { return (*[]byte)(p) }

// Cursor is a position in a session's event-time order.
type Cursor struct {
	OccurredAt time.Time
	EventID    string
}

// Messages returns up to limit messages after the cursor, oldest first, and the
// cursor of the last one (zero when the page is not full, i.e. there is no more).
func (t *Tenant) Messages(ctx context.Context, sessionID string, after Cursor, limit int) ([]record.Message, *Cursor, error) {
	if after.OccurredAt.IsZero() {
		after.OccurredAt = time.Unix(0, 0)
	}
	rows, err := t.s.pool.Query(ctx, q(qMessageListAfter), t.id, sessionID, after.OccurredAt, after.EventID, limit+1)
	if err != nil {
		return nil, nil, fmt.Errorf("list messages: %w", err)
	}
	msgs, err := appendMessages(make([]record.Message, 0, limit+1), rows)
	if err != nil {
		return nil, nil, fmt.Errorf("list messages: %w", err)
	}
	if len(msgs) <= limit {
		return msgs, nil, nil
	}
	msgs = msgs[:limit]
	last := msgs[limit-1]
	return msgs, &Cursor{OccurredAt: last.OccurredAt, EventID: last.EventID}, nil
}

// StoredIDs reports which of ids the tenant has stored as messages, so that
// a front door that sees a conversation again (the chat gateway: clients
// resend the whole history) publishes only what is new.
func (t *Tenant) StoredIDs(ctx context.Context, ids []string) (map[string]bool, error) {
	out := make(map[string]bool, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := t.s.pool.Query(ctx, q(qMessageStoredIDs), t.id, ids)
	if err != nil {
		return nil, fmt.Errorf("stored ids: %w", err)
	}
	ids, err = pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("stored ids: %w", err)
	}
	for _, id := range ids {
		out[id] = true
	}
	return out, nil
}

// TurnRow is where one stored turn stands, for the turn status route.
type TurnRow struct {
	SessionID, UserID, Role string
	// Seq is the turn stream's sequence the turn was stored from (0 for a
	// turn stored without one).
	Seq uint64
	// Summarized: a version of the session's summary has read the turn.
	Summarized bool
}

// TurnRow reads one stored turn by its event id; ErrNotFound when the tenant
// has none by that id.
func (t *Tenant) TurnRow(ctx context.Context, eventID string) (TurnRow, error) {
	var r TurnRow
	var seq int64
	err := t.s.pool.QueryRow(ctx, q(qMessageStatusGet), t.id, eventID).Scan(&r.SessionID, &r.UserID, &r.Role, &seq, &r.Summarized)
	if errors.Is(err, pgx.ErrNoRows) {
		return r, ErrNotFound
	}
	if err != nil {
		return r, fmt.Errorf("turn %s: %w", eventID, err)
	}
	r.Seq = uint64(max(seq, 0))
	return r, nil
}

// ReplyBefore is the newest turn of a session before at, when it is the
// assistant's: the reply a user's turn at at answers (a pick among the
// options it offered). Only the session owner's turns count.
func (t *Tenant) ReplyBefore(ctx context.Context, sessionID string, at time.Time) (record.Message, bool, error) {
	rows, err := t.s.pool.Query(ctx, q(qMessageListRecentBefore), t.id, sessionID, at, 1, false)
	if err != nil {
		return record.Message{}, false, fmt.Errorf("reply before: %w", err)
	}
	msgs, err := appendMessages(nil, rows)
	if err != nil {
		return record.Message{}, false, fmt.Errorf("reply before: %w", err)
	}
	if len(msgs) == 0 || msgs[0].Role != "assistant" {
		return record.Message{}, false, nil
	}
	return msgs[0], true, nil
}
