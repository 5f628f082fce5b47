package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/recallhq/recall/pkg/attribute"
	"github.com/recallhq/recall/pkg/record"
)

// Session is a session's aggregate row.
type Session struct {
	SessionID      string
	UserID         string
	SiteID         string
	AgentID        string
	MessageCount   int64
	SystemCount    int64
	FirstMessageAt time.Time
	LastMessageAt  time.Time
	CreatedAt      time.Time
	UpdatedAt      time.Time
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
	s, err := scanSession(t.s.pool.QueryRow(ctx, q(qSessionGet), t.id, sessionID))
	if err != nil && !errors.Is(err, ErrNotFound) {
		return s, fmt.Errorf("get session: %w", err)
	}
	return s, err
}

// SessionWithRecent reads a session and its newest messages (newest first) in
// one round trip, or ErrNotFound. System turns are left out unless withSystem: the
// context window never replays them, and should not spend its count on them.
func (t *Tenant) SessionWithRecent(ctx context.Context, sessionID string, since time.Time, limit int, withSystem bool) (Session, []record.Message, error) {
	sess, msgs, _, err := t.sessionWithRecent(ctx, sessionID, since, limit, withSystem, false)
	return sess, msgs, err
}

// SessionWithSummary is SessionWithRecent (system turns included) with the
// session's current summary (nil when it has none yet), in one round trip.
func (t *Tenant) SessionWithSummary(ctx context.Context, sessionID string, limit int) (Session, []record.Message, *record.Summary, error) {
	return t.sessionWithRecent(ctx, sessionID, time.Time{}, limit, true, true)
}

func (t *Tenant) sessionWithRecent(ctx context.Context, sessionID string, since time.Time, limit int, withSystem, withSummary bool) (Session, []record.Message, *record.Summary, error) {
	var b pgx.Batch
	var sum *record.Summary
	var sess Session
	var sessErr error
	msgs := make([]record.Message, 0, limit)
	b.Queue(q(qSessionGet), t.id, sessionID).QueryRow(func(row pgx.Row) error {
		sess, sessErr = scanSession(row)
		if errors.Is(sessErr, ErrNotFound) {
			return nil
		}
		return sessErr
	})
	b.Queue(q(qMessageListRecent), t.id, sessionID, since, limit, withSystem).Query(func(rows pgx.Rows) error {
		var err error
		msgs, err = appendMessages(msgs, rows)
		return err
	})
	if withSummary {
		b.Queue(q(qSummaryGetCurrent), t.id, sessionID).Query(func(rows pgx.Rows) error {
			var err error
			sum, err = collectOne(rows)
			return err
		})
	}
	if err := t.s.pool.SendBatch(ctx, &b).Close(); err != nil {
		return sess, nil, nil, fmt.Errorf("session with recent: %w", err)
	}
	if sessErr != nil {
		return sess, nil, nil, sessErr
	}
	return sess, msgs, sum, nil
}

// ContextData is everything the context endpoint reads, fetched in one round
// trip: the session (ErrNotFound is reported through Session being zero and
// Found false), its newest non-system messages, the user's newest active facts,
// the current summaries of the user's other sessions (latest first) and the
// session's own current summary (nil when it has none). Read as of a past
// moment (Context's at), each is what it was then: the session's counts,
// its messages and list before then, the user's facts as their mentions
// before then made them (of every status: Facts' Status is empty, for the
// reader to judge at that moment), of each session the newest summary
// version that read only earlier messages, the assertions made before then.
type ContextData struct {
	Found     bool
	Session   Session
	Newest    []record.Message
	Facts     []record.Fact
	Summaries []record.Summary
	Summary   *record.Summary
	// List is the session's current list (nil when it presented none).
	List *record.PresentedList
	// Assertions are every assertion about the user's attributes (read
	// when asked for), but of the self-statements only the newest
	// ContextStatements: attribute.Resolve makes the attributes part of them.
	Assertions []attribute.Assertion
	// StatementSimilarity is, when the search's query has a vector, the
	// cosine similarity of each of the user's statements embedded by the
	// same model to it, by StatementKey; nil otherwise.
	StatementSimilarity map[string]float64
	// AttributesRevision is the revision of the user's assertions as
	// Assertions were read (0: the user never had any, or the read was as
	// of a past moment, which has none). AttributesKept is true when they
	// were still at ContextRead.KnownAttributes and so not read again:
	// Assertions is empty then, and what the caller holds is current.
	AttributesRevision int64
	AttributesKept     bool
}

// ContextStatements is how many of a user's newest self-statement
// assertions a context reads (and measures against the message's vector):
// a user's statements grow with their history, and a context ranks only
// the newest few hundred current ones (pkg/memory).
const ContextStatements = 1000

// ContextRead is what a context reads in its one batch (Tenant.Context):
// the session's newest Messages, its user's Facts (active, newest mention
// first) and Summaries (of the user's other sessions), the user's
// attributes and self-statements when Statements is set, the session's
// current list; everything as it stood before At when At is set; and,
// with Search, the search's rows of the user's history.
type ContextRead struct {
	SessionID, UserID string
	Messages          int
	Facts             int
	Summaries         int
	Statements        bool
	At                time.Time
	Search            *SearchScan
	// KnownAttributes is the revision of the user's assertions whose
	// reading the caller holds (ContextData.AttributesRevision of an
	// earlier read; 0 for none). While it is current the assertions are
	// not read again, and ContextData.AttributesKept says so. A read as of
	// a past moment (At) reads them whatever it is.
	KnownAttributes int64
}

// Context reads a session's window, its user's facts and the summaries (of the
// user's other sessions, at most summaryLimit, and of this session) in one
// pipelined batch; with r.Search, the same batch reads the search's scan of
// the user's history (SearchScan), so a context with a query is one
// round trip on one connection. The caller ranks the scan's rows once this
// returns, with the connection back in the pool (search.Plan), and
// releases them.
//
// With at set, everything is read as it stood before at (see ContextData),
// by statements of their own (the ...Before queries), so that a context
// asked without it reads exactly what it did; the search's scan is bounded
// by its own (SearchScan.Before).
func (t *Tenant) Context(ctx context.Context, r ContextRead) (ContextData, error) {
	var b pgx.Batch
	d := ContextData{Newest: make([]record.Message, 0, r.Messages)}
	if r.Search != nil {
		r.Search.queue(&b, t)
	}
	counts := t.queueWindow(&b, r, &d)
	if r.Facts > 0 {
		t.queueFacts(&b, r, &d)
	}
	if r.Statements {
		t.queueStatements(&b, r, &d)
	}
	t.queueSummaries(&b, r, &d)
	t.queueList(&b, r, &d)
	if err := t.s.pool.SendBatch(ctx, &b).Close(); err != nil {
		return d, fmt.Errorf("context: %w", err)
	}
	if counts != nil {
		d.Session.MessageCount, d.Session.SystemCount = counts[0], counts[1]
	}
	return d, nil
}

// queueWindow queues the session and its newest messages into d; as of
// r.At, also the session's counts as they were, returned to stand in for
// the session row's (today's) once the batch is read.
func (t *Tenant) queueWindow(b *pgx.Batch, r ContextRead, d *ContextData) (counts *[2]int64) {
	past := !r.At.IsZero()
	var sessErr error
	b.Queue(q(qSessionGet), t.id, r.SessionID).QueryRow(func(row pgx.Row) error {
		d.Session, sessErr = scanSession(row)
		if errors.Is(sessErr, ErrNotFound) {
			return nil
		}
		d.Found = sessErr == nil
		return sessErr
	})
	readMessages := func(rows pgx.Rows) error {
		var err error
		d.Newest, err = appendMessages(d.Newest, rows)
		return err
	}
	// The session's counts as they were, in place of the session row's
	// (today's) once the batch is read.
	if past {
		c := new([2]int64)
		b.Queue(q(qMessageCountBefore), t.id, r.SessionID, r.At).QueryRow(func(row pgx.Row) error {
			return row.Scan(&c[0], &c[1])
		})
		counts = c
		b.Queue(q(qMessageListRecentBefore), t.id, r.SessionID, r.At, r.Messages, false).Query(readMessages)
	} else {
		b.Queue(q(qMessageListRecent), t.id, r.SessionID, time.Time{}, r.Messages, false).Query(readMessages)
	}
	return counts
}

// queueFacts queues the user's facts into d: active now, or as they stood
// at r.At.
func (t *Tenant) queueFacts(b *pgx.Batch, r ContextRead, d *ContextData) {
	past := !r.At.IsZero()
	readFacts := func(rows pgx.Rows) error {
		var err error
		d.Facts, err = pgx.CollectRows(rows, scanFact)
		return err
	}
	if past {
		// The mentions, grouped by fact, come in the order of the facts'
		// key: read with a merge join, each side once. On tables not yet
		// analyzed (a fresh import) the planner took a nested loop that
		// read all of the user's facts again for each one mentioned:
		// 117 ms for a user of 715 facts, in every context read as of a
		// time. A failed batch rolls the setting back with its implicit
		// transaction.
		b.Queue(setNoNestLoop)
		b.Queue(q(qFactListByUserBefore), t.id, r.UserID, r.At, r.Facts).Query(readFacts)
		b.Queue(resetNestLoop)
	} else {
		b.Queue(q(qFactListByUser), t.id, r.UserID, []string{record.FactActive}, r.Facts).Query(readFacts)
	}
}

// queueStatements queues the user's attribute and self-statement
// assertions into d, and, when the search has a query vector, each
// statement's similarity to it.
func (t *Tenant) queueStatements(b *pgx.Batch, r ContextRead, d *ContextData) {
	past := !r.At.IsZero()
	readAssertions := func(rows pgx.Rows) error {
		var err error
		d.Assertions, err = pgx.CollectRows(rows, scanAssertion)
		return err
	}
	if past {
		b.Queue(q(qAttributeAssertionListForContextBefore), t.id, r.UserID, attribute.KeyStatements, ContextStatements, r.At).Query(readAssertions)
	} else {
		// The revision first, then the assertions unless it is still the
		// known one: the assertions read are at least as new as the
		// revision reported with them (a write between the two reads is
		// read, and reported as the older revision, which the next read
		// then finds moved).
		b.Queue(q(qAttributeRevision), t.id, r.UserID).Query(func(rows pgx.Rows) error {
			_, err := pgx.ForEachRow(rows, []any{&d.AttributesRevision}, func() error { return nil })
			return err
		})
		b.Queue(q(qAttributeAssertionListForContext), t.id, r.UserID, attribute.KeyStatements, ContextStatements, r.KnownAttributes).
			Query(func(rows pgx.Rows) error {
				if err := readAssertions(rows); err != nil {
					return err
				}
				d.AttributesKept = r.KnownAttributes != 0 && d.AttributesRevision == r.KnownAttributes && len(d.Assertions) == 0
				return nil
			})
	}
	if r.Search != nil && r.Search.vector != nil {
		var before any = r.At
		if !past {
			before = pgtype.Timestamptz{InfinityModifier: pgtype.Infinity, Valid: true}
		}
		d.StatementSimilarity = map[string]float64{}
		b.Queue(q(qAttributeStatementSimilarity), t.id, r.UserID, attribute.KeyStatements, r.Search.vector, r.Search.model, before, ContextStatements).Query(func(rows pgx.Rows) error {
			var event, item string
			var sim float64
			_, err := pgx.ForEachRow(rows, []any{&event, &item, &sim}, func() error {
				d.StatementSimilarity[StatementKey(event, item)] = sim
				return nil
			})
			return err
		})
	}
}

// queueSummaries queues the summaries of the user's other sessions and of
// this one into d.
func (t *Tenant) queueSummaries(b *pgx.Batch, r ContextRead, d *ContextData) {
	past := !r.At.IsZero()
	readSummaries := func(rows pgx.Rows) error {
		defer rows.Close()
		for rows.Next() {
			var s record.Summary
			var own bool
			if err := rows.Scan(append(summaryDest(&s), &own)...); err != nil {
				return err
			}
			s = normalizeSummary(s)
			if own {
				d.Summary = &s
			} else {
				d.Summaries = append(d.Summaries, s)
			}
		}
		return rows.Err()
	}
	if past {
		b.Queue(q(qSummaryListForContextBefore), t.id, r.UserID, r.SessionID, max(r.Summaries, 0), r.At).Query(readSummaries)
	} else {
		b.Queue(q(qSummaryListForContext), t.id, r.UserID, r.SessionID, max(r.Summaries, 0)).Query(readSummaries)
	}
}

// queueList queues the session's current list into d.
func (t *Tenant) queueList(b *pgx.Batch, r ContextRead, d *ContextData) {
	past := !r.At.IsZero()
	readList := func(row pgx.Row) error {
		var l record.PresentedList
		err := row.Scan(&l.EventID, &l.OccurredAt, rawJSON(&l.Items))
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err == nil {
			l.OccurredAt = l.OccurredAt.UTC()
			d.List = &l
		}
		return err
	}
	if past {
		b.Queue(q(qMessageCurrentListBefore), t.id, r.SessionID, r.At).QueryRow(readList)
	} else {
		b.Queue(q(qMessageCurrentList), t.id, r.SessionID).QueryRow(readList)
	}
}

// SessionDeleted is what deleting a session removed: rows per table, and
// the user the session belonged to.
type SessionDeleted struct {
	UserID string
	Rows   map[string]int64
}

// DeleteSession deletes a session and, in the same transaction, what was
// derived from it alone: its messages, summaries and search entries; its
// fact mentions, and the facts left with no mention (with their search
// entries); what was read about the user from its turns (stated and
// inferred attributes: what they set explicitly stays); what was derived
// from the user's usage (derived attributes, which counted its messages:
// the decayer's habits step derives them again from what is left); its
// presented lists' records in the seen registry, and the seen items no other
// showing is left for. What other sessions share is kept and
// counted again without this one: a fact mentioned elsewhere too (its
// mention count, first and last mention, expiry and last session), a seen
// item shown elsewhere too (one showing fewer per list of this session; its
// first and last seen times stay as they were). Notifications (items/unseen)
// belong to the user, not a session, and stay. ErrNotFound when there is no
// such session.
func (t *Tenant) DeleteSession(ctx context.Context, sessionID string) (SessionDeleted, error) {
	d := SessionDeleted{Rows: map[string]int64{}}
	exec := func(tx pgx.Tx, table string, name queryName, args ...any) error {
		tag, err := tx.Exec(ctx, q(name), args...)
		d.Rows[table] += tag.RowsAffected()
		return err
	}
	err := pgx.BeginFunc(ctx, t.s.pool, func(tx pgx.Tx) error {
		// The session's row first, as every other writer of the session
		// takes it first (a summary's write, ingest).
		var one int
		if err := tx.QueryRow(ctx, q(qSessionLock), t.id, sessionID).Scan(&one); err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		var lists, lowered int64
		if err := tx.QueryRow(ctx, q(qSessionSeenForget), t.id, sessionID).Scan(&lists, &lowered); err != nil {
			return err
		}
		d.Rows["seen_lists"] = lists
		var mentions, facts, recounted, entries int64
		if err := tx.QueryRow(ctx, q(qSessionFactsForget), t.id, sessionID).Scan(&mentions, &facts, &recounted, &entries); err != nil {
			return err
		}
		d.Rows["fact_mentions"], d.Rows["facts"], d.Rows["search_entries"] = mentions, facts, entries
		if err := exec(tx, "messages", qMessageDeleteBySession, t.id, sessionID); err != nil {
			return err
		}
		if err := exec(tx, "session_summaries", qSummaryDeleteBySession, t.id, sessionID); err != nil {
			return err
		}
		if err := exec(tx, "search_entries", qSearchDeleteBySession, t.id, sessionID); err != nil {
			return err
		}
		if err := exec(tx, "attribute_assertions", qSessionAttributesForget, t.id, sessionID); err != nil {
			return err
		}
		if err := exec(tx, "session_guests", qSessionGuestsDelete, t.id, sessionID); err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, q(qSessionDelete), t.id, sessionID).Scan(&d.UserID); err != nil {
			return err
		}
		d.Rows["sessions"] = 1
		// The user's habits counted the session's messages: the mark first
		// (a derivation storing now finishes first, one that read before
		// stores nothing), then what was derived.
		if _, err := tx.Exec(ctx, q(qHabitMarkReset), t.id, d.UserID); err != nil {
			return err
		}
		if err := exec(tx, "attribute_assertions", qSessionHabitsForget, t.id, d.UserID); err != nil {
			return err
		}
		return exec(tx, "seen_items", qSessionSeenDropUnshown, t.id, d.UserID)
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return SessionDeleted{}, ErrNotFound
	}
	if err != nil {
		return SessionDeleted{}, fmt.Errorf("delete session: %w", err)
	}
	return d, nil
}
