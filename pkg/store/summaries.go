package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/recallhq/recall/pkg/record"
)

// SummaryTrigger is when IngestTurns asks for a session's summary, as the
// ingest statement (MessageInsertBatch) applies it: at least EveryMessages
// non-system messages since the last summary (≤ 0: never) and at least
// MinInterval of event time between the newest message the last summary
// covers and the session's newest message (≤ 0: no minimum); a session never
// summarized is due on the count alone. The policy, with its defaults and
// variables, is summarize.Policy.
type SummaryTrigger struct {
	// EveryMessages is the count threshold; ≤ 0 asks for no summary.
	EveryMessages int
	// MinInterval is the event time between two summaries; ≤ 0: none.
	MinInterval time.Duration
}

// DueSession is a session an ingest batch made due for a summary: the range
// it asks for, as counts of non-system messages (FromCount is what the current
// summary accounts for), and the event time of its newest message.
type DueSession struct {
	TenantID      string
	SessionID     string
	UserID        string
	FromCount     int64
	ThroughCount  int64
	LastMessageAt time.Time
}

// IngestResult is what one ingest batch changed.
type IngestResult struct {
	// Sessions is how many sessions gained messages.
	Sessions int64
	// Due are the sessions this batch made due for a summary, each asked once
	// per summary (see SummaryTrigger).
	Due []DueSession
	// Refused are the turns left out because their session belongs to
	// another user; the others are stored.
	Refused []RefusedTurn
}

func scanSummary(row pgx.CollectableRow) (record.Summary, error) {
	var s record.Summary
	err := row.Scan(summaryDest(&s)...)
	return normalizeSummary(s), err
}

// summaryDest is the scan destination of the summary queries' column list.
func summaryDest(s *record.Summary) []any {
	return []any{&s.SessionID, &s.UserID, &s.Version, &s.FromCount, &s.ThroughCount, &s.FirstEventID, &s.FirstAt,
		&s.LastEventID, &s.LastAt, &s.CoversFrom, &s.CoversTo, &s.MessagesRead, &s.Text, &s.KeyTopics, &s.Model, &s.Reason, &s.CreatedAt}
}

// normalizeSummary puts times in UTC and never leaves the topics nil.
func normalizeSummary(s record.Summary) record.Summary {
	s.FirstAt, s.LastAt, s.CreatedAt = s.FirstAt.UTC(), s.LastAt.UTC(), s.CreatedAt.UTC()
	s.CoversFrom, s.CoversTo = s.CoversFrom.UTC(), s.CoversTo.UTC()
	if s.KeyTopics == nil {
		s.KeyTopics = []string{}
	}
	return s
}

// collectOne reads at most one summary.
func collectOne(rows pgx.Rows) (*record.Summary, error) {
	list, err := pgx.CollectRows(rows, scanSummary)
	if err != nil || len(list) == 0 {
		return nil, err
	}
	return &list[0], nil
}

// CurrentSummary returns a session's current summary, or ErrNotFound.
func (t *Tenant) CurrentSummary(ctx context.Context, sessionID string) (record.Summary, error) {
	rows, err := t.s.pool.Query(ctx, q(qSummaryGetCurrent), t.id, sessionID)
	if err != nil {
		return record.Summary{}, fmt.Errorf("get summary: %w", err)
	}
	s, err := collectOne(rows)
	if err != nil {
		return record.Summary{}, fmt.Errorf("get summary: %w", err)
	}
	if s == nil {
		return record.Summary{}, ErrNotFound
	}
	return *s, nil
}

// SummaryVersions returns up to limit versions of a session's summary, newest
// first.
func (t *Tenant) SummaryVersions(ctx context.Context, sessionID string, limit int) ([]record.Summary, error) {
	rows, err := t.s.pool.Query(ctx, q(qSummaryListBySession), t.id, sessionID, limit)
	if err != nil {
		return nil, fmt.Errorf("list summaries: %w", err)
	}
	out, err := pgx.CollectRows(rows, scanSummary)
	if err != nil {
		return nil, fmt.Errorf("list summaries: %w", err)
	}
	return out, nil
}

// SummaryState is what summarization has accounted for in a session.
type SummaryState struct {
	UserID string
	// Counted is the session's non-system messages; Summarized how many of
	// them the current summary accounts for.
	Counted    int64
	Summarized int64
	// SummarizedAt is the event time of the newest message the current
	// summary covers (zero before the first); LastMessageAt the session's newest.
	SummarizedAt  time.Time
	LastMessageAt time.Time
}

// Pending is how many non-system messages no summary accounts for yet.
func (s SummaryState) Pending() int64 { return s.Counted - s.Summarized }

// SummaryState reads a session's summary counters, or ErrNotFound.
func (t *Tenant) SummaryState(ctx context.Context, sessionID string) (SummaryState, error) {
	return summaryState(ctx, t.s.pool, t.id, sessionID)
}

func summaryState(ctx context.Context, db interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, tenantID, sessionID string) (SummaryState, error) {
	return scanSummaryState(db.QueryRow(ctx, q(qSummaryStateGet), tenantID, sessionID))
}

// scanSummaryState reads qSummaryStateGet's row; ErrNotFound without one.
func scanSummaryState(row pgx.Row) (SummaryState, error) {
	var st SummaryState
	var at *time.Time
	err := row.Scan(&st.UserID, &st.Counted, &st.Summarized, &at, &st.LastMessageAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return st, ErrNotFound
	}
	if err != nil {
		return st, fmt.Errorf("summary state: %w", err)
	}
	if at != nil {
		st.SummarizedAt = at.UTC()
	}
	st.LastMessageAt = st.LastMessageAt.UTC()
	return st, nil
}

// SummaryInput is what the next version of a session's summary is made from,
// read in one snapshot: the counters, the current version (nil before the
// first) and the oldest non-system messages no version has read, oldest
// first (event time).
type SummaryInput struct {
	State    SummaryState
	Previous *record.Summary
	Messages []record.Message
}

// SummaryInput reads, in one repeatable-read snapshot, what the next summary
// of a session is made from, with at most maxMessages messages: the oldest
// unread ones, whenever they were committed. A backlog larger than
// maxMessages is read by several versions in turn, and a message that came
// late (its event time before the current summary's end) by the next one.
// ErrNotFound when the session does not exist.
func (t *Tenant) SummaryInput(ctx context.Context, sessionID string, maxMessages int) (SummaryInput, error) {
	var in SummaryInput
	// One snapshot, one round trip: the three reads go in one batch.
	err := pgx.BeginTxFunc(ctx, t.s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		var b pgx.Batch
		b.Queue(q(qSummaryStateGet), t.id, sessionID).QueryRow(func(row pgx.Row) error {
			var err error
			in.State, err = scanSummaryState(row)
			return err
		})
		b.Queue(q(qSummaryGetCurrent), t.id, sessionID).Query(func(rows pgx.Rows) error {
			var err error
			in.Previous, err = collectOne(rows)
			return err
		})
		b.Queue(q(qSummaryMessagesUnread), t.id, sessionID, maxMessages).Query(func(rows pgx.Rows) error {
			var err error
			in.Messages, err = appendMessages(make([]record.Message, 0, maxMessages), rows)
			return err
		})
		return tx.SendBatch(ctx, &b).Close()
	})
	if errors.Is(err, ErrNotFound) {
		return in, err
	}
	if err != nil {
		return in, fmt.Errorf("summary input: %w", err)
	}
	return in, nil
}

// EventIDs are the messages' event ids, in order.
func (in SummaryInput) EventIDs() []string {
	ids := make([]string, len(in.Messages))
	for i, m := range in.Messages {
		ids[i] = m.EventID
	}
	return ids
}

// SummaryWrite is a new version of a session's summary with the interest
// facts its key topics yield.
type SummaryWrite struct {
	TenantID string
	Summary  record.Summary
	// Read are the event ids of the messages the version read (all of
	// SummaryInput.Messages, with text or not): they are marked read in its
	// transaction. Summary.ThroughCount must be Summary.FromCount plus their
	// number.
	Read []string
	// Mentions are recorded with the summary, in its transaction, under the
	// summary's event id (SummaryEventID), so a repeat changes nothing.
	Mentions []Mention
	// Search, when set, is the summary's search entry (search.SummaryEntry),
	// stored in the same transaction: the session's entry then always holds
	// its current version.
	Search *SearchEntry
	// Assertions are what a model read about the user from the same
	// messages (pkg/attribute/infer), stored in its transaction under the
	// summary's event id, so a repeat changes nothing.
	Assertions []AssertionRow
}

// SummaryEventID is the event id a summary's key topics are recorded under as
// fact mentions. Turn ids cannot hold control characters, so a summary's
// mentions never share a key with a turn's.
func SummaryEventID(sessionID string, fromCount, throughCount int64) string {
	return fmt.Sprintf("summary\x1f%s\x1f%d-%d", sessionID, fromCount, throughCount)
}

// ErrSummaryConflict is returned by WriteSummary when the session's summarized
// range moved since the input was read: another summarizer wrote a version
// (or marked the range) first, or some of the messages read are gone.
var ErrSummaryConflict = errors.New("session summary changed meanwhile")

// WriteSummary stores a new current version of a session's summary, marks
// the messages it read, moves the session's summarized range to it, and
// records its mentions and its search entry, in one transaction. The version
// must start where the session's range stands (Summary.FromCount) and its
// messages must still be unread; otherwise nothing is written and
// ErrSummaryConflict is returned. It returns what it stored.
func (s *Store) WriteSummary(ctx context.Context, w SummaryWrite) (SummaryWritten, error) {
	sum := w.Summary
	if sum.ThroughCount != sum.FromCount+int64(len(w.Read)) {
		return SummaryWritten{}, fmt.Errorf("write summary: through_count %d is not from_count %d plus the %d messages read", sum.ThroughCount, sum.FromCount, len(w.Read))
	}
	var out SummaryWritten
	// Every statement goes in one pipelined batch (a round trip instead of
	// one a statement): the first check that fails, in order, is the
	// answer, and the transaction rolls back whatever followed it.
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var b pgx.Batch
		queueMarkRead(&b, w.TenantID, sum.SessionID, sum.FromCount, w.Read)
		b.Queue(q(qSummaryRetire), w.TenantID, sum.SessionID)
		topics := sum.KeyTopics
		if topics == nil {
			topics = []string{}
		}
		b.Queue(q(qSummaryInsert), w.TenantID, sum.SessionID, sum.UserID, sum.Version, sum.FromCount, sum.ThroughCount,
			sum.FirstEventID, sum.FirstAt, sum.LastEventID, sum.LastAt, sum.CoversFrom, sum.CoversTo,
			sum.MessagesRead, sum.Text, topics, sum.Model, sum.Reason).QueryRow(func(row pgx.Row) error {
			if err := row.Scan(&sum.CreatedAt); errors.Is(err, pgx.ErrNoRows) {
				return ErrSummaryConflict
			} else if err != nil {
				return err
			}
			return nil
		})
		b.Queue(q(qSummaryStateAdvance), w.TenantID, sum.SessionID, sum.FromCount, sum.ThroughCount, sum.LastAt)
		if w.Search != nil {
			args, err := searchEntryArgs([]SearchEntry{*w.Search})
			if err != nil {
				return fmt.Errorf("search entry: %w", err)
			}
			b.Queue(q(qSearchEntryUpsertBatch), args...)
		}
		if len(w.Assertions) > 0 {
			args, err := assertionArgs(w.Assertions)
			if err != nil {
				return err
			}
			b.Queue(q(qAttributeAssertionInsertBatch), args...).Query(func(rows pgx.Rows) error {
				stored, err := storedKeys(rows)
				out.Assertions = newAssertions(w.Assertions, stored)
				return err
			})
		}
		if len(w.Mentions) > 0 {
			b.Queue(q(qFactMentionBatch), mentionArgs(w.Mentions)...).Query(func(rows pgx.Rows) error {
				var err error
				out.Mentions, err = mentionsRecorded(rows)
				return err
			})
		}
		return tx.SendBatch(ctx, &b).Close()
	})
	switch {
	case errors.Is(err, ErrNotFound), errors.Is(err, ErrSummaryConflict):
		return SummaryWritten{}, err
	case err != nil:
		return SummaryWritten{}, fmt.Errorf("write summary: %w", err)
	}
	out.Summary = normalizeSummary(sum)
	return out, nil
}

// SummaryWritten is what WriteSummary stored: the version (as read back,
// its creation time included), what its mentions changed (the users whose
// facts changed, the facts they created) and the assertions stored now.
type SummaryWritten struct {
	Summary    record.Summary
	Mentions   MentionsRecorded
	Assertions []AssertionRow
}

// AdvanceSummarized marks messages read and moves a session's summarized
// range past them without a new version: for messages with no text to
// summarize. It reports whether it moved (false: the range had moved
// already, or the messages were read or deleted meanwhile).
func (t *Tenant) AdvanceSummarized(ctx context.Context, sessionID string, from int64, read []string) (bool, error) {
	err := pgx.BeginFunc(ctx, t.s.pool, func(tx pgx.Tx) error {
		var b pgx.Batch
		queueMarkRead(&b, t.id, sessionID, from, read)
		b.Queue(q(qSummaryStateAdvance), t.id, sessionID, from, from+int64(len(read)), nil)
		return tx.SendBatch(ctx, &b).Close()
	})
	switch {
	case errors.Is(err, ErrSummaryConflict), errors.Is(err, ErrNotFound):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("advance summarized range: %w", err)
	}
	return true, nil
}

// queueMarkRead queues, first in a transaction's batch, locking the session,
// checking that its summarized range stands at from, and marking the
// messages read, all of them still unread: otherwise ErrSummaryConflict
// (another writer got there first, or messages were deleted), or
// ErrNotFound for a session that is gone; what the batch runs after a
// failed check is rolled back with it. The session's row lock orders it
// with ingest, which takes the same lock to add messages.
func queueMarkRead(b *pgx.Batch, tenantID, sessionID string, from int64, read []string) {
	b.Queue(q(qSummaryStateLock), tenantID, sessionID).QueryRow(func(row pgx.Row) error {
		var summarized int64
		err := row.Scan(&summarized)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			return ErrNotFound
		case err != nil:
			return err
		case summarized != from:
			return ErrSummaryConflict
		}
		return nil
	})
	b.Queue(q(qSummaryMessagesMark), tenantID, sessionID, read).Exec(func(tag pgconn.CommandTag) error {
		if tag.RowsAffected() != int64(len(read)) {
			return ErrSummaryConflict
		}
		return nil
	})
}

// ResetSummaryRequests forgets the threshold requests of the given sessions,
// after their publish failed, so the sessions' next ingest batches ask again.
func (s *Store) ResetSummaryRequests(ctx context.Context, due []DueSession) error {
	if len(due) == 0 {
		return nil
	}
	var b pgx.Batch
	for _, d := range due {
		b.Queue(q(qSummaryRequestReset), d.TenantID, d.SessionID, d.ThroughCount)
	}
	if err := s.pool.SendBatch(ctx, &b).Close(); err != nil {
		return fmt.Errorf("reset summary requests: %w", err)
	}
	return nil
}

// IdleSession is a session with messages no summary accounts for and no new
// message for a while.
type IdleSession struct {
	TenantID      string
	SessionID     string
	UserID        string
	Counted       int64
	Summarized    int64
	LastMessageAt time.Time
}

// sweepLock is the advisory lock key that lets one summarizer replica sweep
// at a time.
const sweepLock = 0x7265_6361_6c6c_0053 // "recall" + 'S'

// SweepIdleSessions finds, across tenants, the sessions whose newest message
// is older than before (event time) and that have messages no summary
// accounts for, oldest first, and hands them to fn in pages of pageSize, at
// most maxSessions in all. It holds an advisory lock for the whole sweep, so
// replicas sweeping at the same moment take turns: one that finds the lock
// taken returns (0, false, nil) without sweeping. It returns how many sessions
// were handed to fn.
//
// The sessions are read by one statement, its rows handed on a page at a
// time as they arrive. No index orders sessions by their newest message
// (every ingest batch changes it; see the sessions table): a statement per
// page read the whole table for each, twenty times a sweep of 10,000.
func (s *Store) SweepIdleSessions(ctx context.Context, before time.Time, pageSize, maxSessions int, fn func([]IdleSession) error) (int, bool, error) {
	total, swept := 0, false
	if maxSessions <= 0 {
		return 0, false, nil
	}
	if pageSize <= 0 || pageSize > maxSessions {
		pageSize = maxSessions
	}
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock($1)`, int64(sweepLock)).Scan(&swept); err != nil || !swept {
			return err
		}
		rows, err := tx.Query(ctx, q(qSummaryIdleSessions), before, maxSessions)
		if err != nil {
			return err
		}
		defer rows.Close()
		page := make([]IdleSession, 0, pageSize)
		flush := func() error {
			if len(page) == 0 {
				return nil
			}
			if err := fn(page); err != nil {
				return err
			}
			total += len(page)
			page = page[:0]
			return nil
		}
		for rows.Next() {
			var is IdleSession
			if err := rows.Scan(&is.TenantID, &is.SessionID, &is.UserID, &is.Counted, &is.Summarized, &is.LastMessageAt); err != nil {
				return err
			}
			if page = append(page, is); len(page) == pageSize {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		if err := rows.Err(); err != nil {
			return err
		}
		return flush()
	})
	if err != nil {
		return total, swept, fmt.Errorf("sweep idle sessions: %w", err)
	}
	return total, swept, nil
}
