package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/recallhq/recall/pkg/events"
)

// DefaultSeenCap is how many seen items are kept per user when RecordSeen is
// given no cap (ITEMS_SEEN_CAP).
const DefaultSeenCap = 100

// DefaultSeenPruneBatch is the batch PruneSeenItems deletes in when given none.
const DefaultSeenPruneBatch = 1000

// ErrNoList is returned for a session that exists but has not presented a list.
var ErrNoList = errors.New("no list presented in this session")

// ListItem is one position of a session's current list: the newest turn (by
// event time, then event id) that presented items.
type ListItem struct {
	// EventID and OccurredAt are the turn that presented the list.
	EventID    string
	OccurredAt time.Time
	// Count is the list's length (0 for an empty list, which still replaces the
	// one before it).
	Count int
	// Item is the item as it was sent, nil when the position is beyond Count.
	Item json.RawMessage
}

// ListItem returns item n (1-based) of the session's current list. A session
// that has no list gives ErrNoList, an unknown session ErrNotFound; n beyond the
// list gives a ListItem without Item.
func (t *Tenant) ListItem(ctx context.Context, sessionID string, n int) (ListItem, error) {
	var li ListItem
	if n < 1 {
		return li, fmt.Errorf("list item %d: positions start at 1", n)
	}
	err := t.s.pool.QueryRow(ctx, q(qListItemAt), t.id, sessionID, n).Scan(&li.EventID, &li.OccurredAt, &li.Count, &li.Item)
	if errors.Is(err, pgx.ErrNoRows) {
		if _, err := t.Session(ctx, sessionID); err != nil {
			return li, err
		}
		return li, ErrNoList
	}
	if err != nil {
		return li, fmt.Errorf("list item: %w", err)
	}
	li.OccurredAt = li.OccurredAt.UTC()
	return li, nil
}

// RecordSeen folds the items presented by turns into their users' seen-item
// registries: first and last seen (event time), times shown, and the title and
// attrs of the newest showing. Each turn counts once however often it is
// recorded (seen_lists is keyed by tenant and event id), a ref repeated within
// one list once. Each user keeps at most seenCap items (DefaultSeenCap when ≤ 0):
// those first seen longest ago are deleted. Turns without items are ignored.
//
// The statements go in one pipeline, which PostgreSQL runs as one implicit
// transaction (a single Sync ends it): the batch commits or fails whole, in one
// round trip. Registry writes for one user are serialized by transaction-scoped
// advisory locks taken in a fixed order, so that two batches evicting for the
// same user cannot deadlock on each other's rows.
//
// It returns the turns recorded now (not before), by tenant and event id:
// the lists a change feed tells of.
func (s *Store) RecordSeen(ctx context.Context, turns []events.Turn, seenCap int) (map[[2]string]bool, error) {
	if seenCap <= 0 {
		seenCap = DefaultSeenCap
	}
	var sb seenBatch
	for i := range turns {
		sb.add(&turns[i])
	}
	if len(sb.ref) == 0 {
		return nil, nil
	}
	var b pgx.Batch
	recorded := map[[2]string]bool{}
	sb.queue(&b, seenCap, func(rows pgx.Rows) error {
		var k [2]string
		_, err := pgx.ForEachRow(rows, []any{&k[0], &k[1]}, func() error {
			recorded[k] = true
			return nil
		})
		return err
	})
	if err := s.pool.SendBatch(ctx, &b).Close(); err != nil {
		return nil, fmt.Errorf("record seen items: %w", err)
	}
	return recorded, nil
}

// seenBatch is a batch's presented items, one row per item.
type seenBatch struct {
	tenant, event, user, session, ref, title []string
	attrs                                    []*string
	occurred                                 []time.Time
}

func (b *seenBatch) add(t *events.Turn) {
	for _, it := range t.Items {
		b.tenant = append(b.tenant, t.TenantID)
		b.event = append(b.event, t.ID)
		b.user = append(b.user, t.UserID)
		b.session = append(b.session, t.SessionID)
		b.ref = append(b.ref, it.Ref)
		b.title = append(b.title, it.Title)
		var attrs *string
		if len(it.Attrs) > 0 {
			attrs = ptr(string(it.Attrs))
		}
		b.attrs = append(b.attrs, attrs)
		b.occurred = append(b.occurred, t.OccurredAt)
	}
}

// queue adds the registry statements: the per-user locks (sorted, so concurrent
// batches take them in the same order), the idempotent upsert, and the cap.
func (b *seenBatch) queue(batch *pgx.Batch, seenCap int, recorded func(pgx.Rows) error) {
	users := make(map[[2]string]bool)
	var tenants, userIDs []string
	var keys []int64
	for i := range b.tenant {
		k := [2]string{b.tenant[i], b.user[i]}
		if users[k] {
			continue
		}
		users[k] = true
		tenants, userIDs = append(tenants, k[0]), append(userIDs, k[1])
		keys = append(keys, seenLockKey(k[0], k[1]))
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	batch.Queue(q(qSeenLockUsers), keys)
	batch.Queue(q(qSeenRecordBatch), b.tenant, b.event, b.user, b.session, b.ref, b.title, b.attrs, b.occurred).Query(recorded)
	batch.Queue(q(qSeenEvictBeyondCap), tenants, userIDs, seenCap)
}

// seenLockKey is a user's advisory lock key. Two users sharing a key only wait
// for each other.
func seenLockKey(tenant, user string) int64 {
	h := fnv.New64a()
	h.Write([]byte("recall.seen\x00"))
	h.Write([]byte(tenant))
	h.Write([]byte{0})
	h.Write([]byte(user))
	return int64(h.Sum64())
}

// SeenItem is an item a user has been shown.
type SeenItem struct {
	Ref   string
	Title string
	Attrs json.RawMessage
	// TimesShown counts the turns that presented it (each turn once).
	TimesShown    int64
	FirstSeenAt   time.Time
	LastSeenAt    time.Time
	LastEventID   string
	LastSessionID string
}

// SeenItems returns a user's seen items, most recently shown first, at most limit.
func (t *Tenant) SeenItems(ctx context.Context, userID string, limit int) ([]SeenItem, error) {
	rows, err := t.s.pool.Query(ctx, q(qSeenItemListByUser), t.id, userID, limit)
	if err != nil {
		return nil, fmt.Errorf("list seen items: %w", err)
	}
	items, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (SeenItem, error) {
		var s SeenItem
		err := r.Scan(&s.Ref, &s.Title, &s.Attrs, &s.TimesShown, &s.FirstSeenAt, &s.LastSeenAt, &s.LastEventID, &s.LastSessionID)
		s.FirstSeenAt, s.LastSeenAt = s.FirstSeenAt.UTC(), s.LastSeenAt.UTC()
		return s, err
	})
	if err != nil {
		return nil, fmt.Errorf("list seen items: %w", err)
	}
	return items, nil
}

// UnseenOptions tune Unseen.
type UnseenOptions struct {
	// Mark records the answer as notified (at At), so that the next request
	// without the same NotificationID leaves it out.
	Mark bool
	At   time.Time
	// NotificationID names the notification: refs notified under the same id
	// are answered again, so a retried request gets the same answer.
	NotificationID string
}

// Unseen returns, in the order given, the refs the user has never been shown
// and never been notified of (see UnseenOptions.NotificationID), and how many
// this call recorded as notified. refs must not repeat.
func (t *Tenant) Unseen(ctx context.Context, userID string, refs []string, o UnseenOptions) ([]string, int, error) {
	out := make([]string, 0, len(refs))
	if !o.Mark {
		rows, err := t.s.pool.Query(ctx, q(qItemUnseenList), t.id, userID, refs, o.NotificationID)
		if err != nil {
			return nil, 0, fmt.Errorf("unseen items: %w", err)
		}
		var ref string
		_, err = pgx.ForEachRow(rows, []any{&ref}, func() error { out = append(out, ref); return nil })
		if err != nil {
			return nil, 0, fmt.Errorf("unseen items: %w", err)
		}
		return out, 0, nil
	}
	rows, err := t.s.pool.Query(ctx, q(qItemUnseenMark), t.id, userID, refs, o.NotificationID, o.At)
	if err != nil {
		return nil, 0, fmt.Errorf("mark unseen items: %w", err)
	}
	var ref string
	var marked bool
	n := 0
	_, err = pgx.ForEachRow(rows, []any{&ref, &marked}, func() error {
		out = append(out, ref)
		if marked {
			n++
		}
		return nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("mark unseen items: %w", err)
	}
	return out, n, nil
}

// PruneSeenItems deletes, across tenants, the seen items last shown (event
// time) before olderThan and the notifications recorded before it, in batches of
// at most batch rows (DefaultSeenPruneBatch when ≤ 0), so that no statement
// holds many locks or runs long. It returns how many seen items and
// notifications it deleted. Rows being written at that moment are left for the
// next run. The per-turn idempotency keys (seen_lists) older than olderThan go
// too: a replay of turns that old records them again, and the next run removes
// them again.
func (s *Store) PruneSeenItems(ctx context.Context, olderThan time.Time, batch int) (int64, error) {
	if batch <= 0 {
		batch = DefaultSeenPruneBatch
	}
	var total int64
	for _, name := range []queryName{qSeenItemPrune, qItemNotificationPrune, qSeenListPrune} {
		for {
			tag, err := s.pool.Exec(ctx, q(name), olderThan, batch)
			if err != nil {
				return total, fmt.Errorf("prune seen items: %w", err)
			}
			if name != qSeenListPrune {
				total += tag.RowsAffected()
			}
			if tag.RowsAffected() < int64(batch) {
				break
			}
		}
	}
	return total, nil
}
