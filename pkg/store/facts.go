package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/recallhq/recall/pkg/record"
)

// Mention is one fact found in one event (a turn, or a summary): the unit of
// idempotency for facts.
type Mention struct {
	TenantID   string
	EventID    string
	UserID     string
	SessionID  string
	Type       string
	Value      string // normalized key
	Display    string
	OccurredAt time.Time
	// ExpiresAt is OccurredAt plus the fact type's TTL.
	ExpiresAt time.Time
	// Source names the extractor: rules, llm, catalog, summary.
	Source string
}

// UserRef names a user across tenants, for work fanned out per user.
type UserRef struct {
	TenantID string
	UserID   string
}

// RecordMentions stores a batch of mentions in one transaction and folds the new
// ones into their facts. A mention already recorded (same tenant, event, type and
// value) changes nothing, so redelivery and replay are harmless. It returns the
// users whose facts changed, each once.
func (s *Store) RecordMentions(ctx context.Context, ms []Mention) ([]UserRef, error) {
	r, err := s.RecordMentionsIndexed(ctx, ms, nil)
	return r.Users, err
}

// MentionsRecorded is what a batch of mentions changed.
type MentionsRecorded struct {
	// Users are the users whose facts changed, each once.
	Users []UserRef
	// Created are the facts the batch created (first mentioned), as
	// stored.
	Created []FactRow
}

// FactRow is a user's stored fact, with the event of its first mention.
type FactRow struct {
	TenantID string
	UserID   string
	record.Fact
	// FirstEventID is the event whose mention created the fact ("" for a
	// fact stored before it was kept), FirstEventAt that mention's event
	// time (an older mention stored later moves FirstSeenAt, not it).
	FirstEventID string
	FirstEventAt time.Time
}

// RecordMentionsIndexed is RecordMentions that also stores the facts' search
// entries in the same transaction (one commit for both, on the extractor's
// path), and says which facts the batch created.
func (s *Store) RecordMentionsIndexed(ctx context.Context, ms []Mention, entries []SearchEntry) (MentionsRecorded, error) {
	var r MentionsRecorded
	if len(ms) == 0 {
		return r, nil
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		if r, err = recordMentions(ctx, tx, ms); err != nil {
			return err
		}
		if len(entries) > 0 {
			_, err = upsertSearchEntries(ctx, tx, entries)
		}
		return err
	})
	if err != nil {
		return MentionsRecorded{}, fmt.Errorf("record mentions: %w", err)
	}
	return r, nil
}

// recordMentions runs FactMentionBatch in tx: the one path every mention
// (a turn's, a summary's) takes into the facts.
func recordMentions(ctx context.Context, tx pgx.Tx, ms []Mention) (MentionsRecorded, error) {
	if len(ms) == 0 {
		return MentionsRecorded{}, nil
	}
	rows, err := tx.Query(ctx, q(qFactMentionBatch), mentionArgs(ms)...)
	if err != nil {
		return MentionsRecorded{}, err
	}
	return mentionsRecorded(rows)
}

// mentionArgs are qFactMentionBatch's arguments for ms, for a caller that
// runs it in a batch of its own.
func mentionArgs(ms []Mention) []any {
	n := len(ms)
	tenant, event, typ, value, display, user, session, source := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	occurred, expires := make([]time.Time, n), make([]time.Time, n)
	for i, m := range ms {
		tenant[i], event[i], typ[i], value[i], display[i] = m.TenantID, m.EventID, m.Type, m.Value, m.Display
		user[i], session[i], source[i], occurred[i], expires[i] = m.UserID, m.SessionID, m.Source, m.OccurredAt, m.ExpiresAt
	}
	return []any{tenant, event, typ, value, display, user, session, occurred, source, expires}
}

// mentionsRecorded reads qFactMentionBatch's rows: the users whose facts
// changed, each once, and the facts created.
func mentionsRecorded(rows pgx.Rows) (MentionsRecorded, error) {
	var r MentionsRecorded
	seen := map[UserRef]bool{}
	var f FactRow
	var created bool
	dest := append([]any{&f.TenantID, &f.UserID, &created}, factDest(&f.Fact)...)
	_, err := pgx.ForEachRow(rows, append(dest, &f.FirstEventID), func() error {
		u := UserRef{f.TenantID, f.UserID}
		if !seen[u] {
			seen[u] = true
			r.Users = append(r.Users, u)
		}
		if created {
			factUTC(&f.Fact)
			// A fact created by this batch: its first mention is its
			// earliest.
			f.FirstEventAt = f.FirstSeenAt
			r.Created = append(r.Created, f)
		}
		return nil
	})
	return r, err
}

// FirstMentioned returns the facts that the given mentions created (whose
// first mention they are), as stored now: what a redelivered event tells
// the change feed again, its first handling having perhaps stored them and
// failed before it told.
func (t *Tenant) FirstMentioned(ctx context.Context, ms []Mention) ([]FactRow, error) {
	var user, event, typ, value []string
	seen := map[[4]string]bool{}
	for _, m := range ms {
		k := [4]string{m.UserID, m.EventID, m.Type, m.Value}
		if m.TenantID != t.id || seen[k] {
			continue
		}
		seen[k] = true
		user, event, typ, value = append(user, k[0]), append(event, k[1]), append(typ, k[2]), append(value, k[3])
	}
	if len(user) == 0 {
		return nil, nil
	}
	rows, err := t.s.pool.Query(ctx, q(qFactListFirstMentioned), t.id, user, event, typ, value)
	if err != nil {
		return nil, fmt.Errorf("facts first mentioned: %w", err)
	}
	return t.collectFirstMentioned(rows)
}

// CreatedBy returns the user's facts that one event's mentions created (a
// summary version's key topics), as stored now: FirstMentioned for an event
// whose mentions the caller does not have.
func (t *Tenant) CreatedBy(ctx context.Context, userID, eventID string) ([]FactRow, error) {
	rows, err := t.s.pool.Query(ctx, q(qFactListCreatedBy), t.id, userID, eventID)
	if err != nil {
		return nil, fmt.Errorf("facts first mentioned: %w", err)
	}
	return t.collectFirstMentioned(rows)
}

// collectFirstMentioned reads FactListFirstMentioned's and
// FactListCreatedBy's rows.
func (t *Tenant) collectFirstMentioned(rows pgx.Rows) ([]FactRow, error) {
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (FactRow, error) {
		f := FactRow{TenantID: t.id}
		err := r.Scan(append(append([]any{&f.UserID}, factDest(&f.Fact)...), &f.FirstEventID, &f.FirstEventAt)...)
		factUTC(&f.Fact)
		f.FirstEventAt = f.FirstEventAt.UTC()
		return f, err
	})
	if err != nil {
		return nil, fmt.Errorf("facts first mentioned: %w", err)
	}
	return out, nil
}

// Facts returns a user's facts with any of the given statuses, newest mention
// first, at most limit.
func (t *Tenant) Facts(ctx context.Context, userID string, statuses []string, limit int) ([]record.Fact, error) {
	rows, err := t.s.pool.Query(ctx, q(qFactListByUser), t.id, userID, statuses, limit)
	if err != nil {
		return nil, fmt.Errorf("list facts: %w", err)
	}
	facts, err := pgx.CollectRows(rows, scanFact)
	if err != nil {
		return nil, fmt.Errorf("list facts: %w", err)
	}
	return facts, nil
}

func scanFact(r pgx.CollectableRow) (record.Fact, error) {
	var f record.Fact
	err := r.Scan(factDest(&f)...)
	factUTC(&f)
	return f, err
}

// factDest is the scan destination of the fact queries' column list.
func factDest(f *record.Fact) []any {
	return []any{&f.Type, &f.Value, &f.Display, &f.Weight, &f.MentionCount, &f.FirstSeenAt,
		&f.LastMentionedAt, &f.ExpiresAt, &f.Status, &f.Source, &f.SourceSessionID}
}

// factUTC puts a scanned fact's times in UTC.
func factUTC(f *record.Fact) {
	f.FirstSeenAt, f.LastMentionedAt, f.ExpiresAt = f.FirstSeenAt.UTC(), f.LastMentionedAt.UTC(), f.ExpiresAt.UTC()
}

// FactHistory is a fact with the times of its newest mentions.
type FactHistory struct {
	record.Fact
	// Mentions are the event times of its newest mentions, oldest first.
	Mentions []time.Time
}

// FactCursor is a position in a user's facts, newest mention first.
type FactCursor struct {
	LastMentionedAt time.Time
	Type            string
	Value           string
}

// FactPage returns a page of a user's facts with any of the given statuses,
// newest mention first, after the cursor (zero: from the start), each with
// the times of its newest mentions (at most mentions). next is the cursor of
// the page's last fact when the page is full, nil otherwise.
func (t *Tenant) FactPage(ctx context.Context, userID string, statuses []string, after FactCursor, limit, mentions int) ([]FactHistory, *FactCursor, error) {
	rows, err := t.s.pool.Query(ctx, q(qFactPageByUser), t.id, userID, statuses, nullTime(after.LastMentionedAt),
		after.Type, after.Value, limit, mentions)
	if err != nil {
		return nil, nil, fmt.Errorf("list facts: %w", err)
	}
	facts, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (FactHistory, error) {
		var f FactHistory
		err := r.Scan(append(factDest(&f.Fact), &f.Mentions)...)
		factUTC(&f.Fact)
		for i := range f.Mentions {
			f.Mentions[i] = f.Mentions[i].UTC()
		}
		return f, err
	})
	if err != nil {
		return nil, nil, fmt.Errorf("list facts: %w", err)
	}
	return facts, pageCursor(facts, limit, func(f FactHistory) FactCursor {
		return FactCursor{LastMentionedAt: f.LastMentionedAt, Type: f.Type, Value: f.Value}
	}), nil
}
