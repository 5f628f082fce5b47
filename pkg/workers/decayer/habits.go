package decayer

import (
	"context"
	"slices"
	"time"

	"github.com/recallhq/recall/pkg/attribute"
	"github.com/recallhq/recall/pkg/changefeed"
	"github.com/recallhq/recall/pkg/contract"
	"github.com/recallhq/recall/pkg/habits"
	"github.com/recallhq/recall/pkg/store"
)

// deriveHabits derives the usage habits (pkg/habits) of every user due for
// them: a message newer than where they were last derived, a new word on
// their time zone, or never derived. It pages through each tenant's users
// (BatchSize at a time, on the session index) and derives the due ones in
// batches of about BatchSize messages (BatchSize / HABITS_MAX_MESSAGES
// users): one statement reads their assertions, one streams their messages
// through a tally each (counts, never texts), one transaction stores their
// marks and the derived values that changed.
//
// Habits are slow to change, and a day's messages are plenty to see a new
// one: a scheduled pass, single by the run's lock, rather than the profiler,
// whose per-user tasks follow facts, not messages, and run concurrently.
// The results depend on the stored messages alone (event times, never the
// run's time), so a second run, or one after a replay, stores nothing new.
func (d *Decayer) deriveHabits(ctx context.Context, r *Run, s *StepRun) error {
	cfg := r.Config.Habits
	if !cfg.Derive {
		return nil
	}
	tenants, err := r.Store.SessionTenants(ctx)
	if err != nil {
		return err
	}
	per := max(r.Config.BatchSize/cfg.MaxMessages, 1)
	for _, tenant := range tenants {
		t := r.Store.Tenant(tenant)
		schema := d.schemas.For(tenant)
		after := ""
		for {
			page, err := t.HabitUsers(ctx, after, r.Config.BatchSize, habits.KeyTimezone)
			if err != nil {
				return err
			}
			if len(page) == 0 {
				break
			}
			last := len(page) < r.Config.BatchSize
			after = page[len(page)-1].UserID
			due := slices.DeleteFunc(page, func(u store.HabitUser) bool { return !u.Due })
			for chunk := range slices.Chunk(due, per) {
				var users, derived int64
				err := retryConflicts(ctx, func() (err error) {
					users, derived, err = d.deriveUsers(ctx, cfg, t, schema, tenant, chunk)
					return err
				})
				if err != nil {
					return err
				}
				s.Add(OutcomeUsersDerived, users)
				s.Add(OutcomeAttributesDerived, derived)
				if err := s.Batch(ctx, "tenant_id", tenant, "user_id", chunk[len(chunk)-1].UserID); err != nil {
					return err
				}
			}
			if last {
				break
			}
		}
	}
	return nil
}

// deriveUsers derives the habits of a batch of due users of one tenant and
// stores them: the users marked, and the derived assertions stored. What
// the stored ones changed in the users' attributes is told on the change feed
// inside the batch's transaction (SaveHabits' stored): a failed publish rolls
// the batch back, and the next run derives the same assertions (their events
// and times come from the messages) and tells them again, with the same ids.
func (d *Decayer) deriveUsers(ctx context.Context, cfg habits.Config, t *store.Tenant, schema *attribute.Schema, tenant string, users []store.HabitUser) (int64, int64, error) {
	ids := make([]string, len(users))
	since := make([]time.Time, len(users))
	for i, u := range users {
		ids[i], since[i] = u.UserID, u.Through.Add(-cfg.Window)
	}
	as, err := t.AssertionsByUsers(ctx, ids)
	if err != nil {
		return 0, 0, err
	}
	zones := make(map[string]habits.Zone, len(users))
	tallies := make(map[string]*habits.Tally, len(users))
	marks := slices.Clone(users)
	for i, u := range marks {
		z := habits.UserZone(schema, as[u.UserID])
		zones[u.UserID], tallies[u.UserID] = z, habits.NewTally(cfg, z.Location)
		// The mark says what this derivation read: a word on the zone
		// stored since the page was read makes no difference to it.
		marks[i].TimezoneAssertions = int64(countKey(as[u.UserID], habits.KeyTimezone))
	}
	err = t.HabitMessages(ctx, ids, since, cfg.MaxMessages, habits.TextChars, func(user string, m store.HabitMessage) error {
		tallies[user].Add(habits.Message(m))
		return nil
	})
	if err != nil {
		return 0, 0, err
	}
	var rows []store.AssertionRow
	for _, id := range ids {
		for _, a := range habits.Changes(schema, as[id], tallies[id].Habits(), zones[id]) {
			rows = append(rows, store.AssertionRow{TenantID: tenant, UserID: id, Assertion: a})
		}
	}
	tell := func(ctx context.Context, fresh []store.AssertionRow) error {
		if d.changes == nil {
			return nil
		}
		byUser := map[string][]attribute.Assertion{}
		var order []string
		for _, r := range fresh {
			if _, ok := byUser[r.UserID]; !ok {
				order = append(order, r.UserID)
			}
			byUser[r.UserID] = append(byUser[r.UserID], r.Assertion)
		}
		var cs []contract.Change
		for _, id := range order {
			// The user's assertions as read for the derivation, and the
			// ones stored now.
			all := append(slices.Clone(as[id]), byUser[id]...)
			cs = append(cs, changefeed.AttributeChanges(schema, tenant, id, all, byUser[id])...)
		}
		return d.changes.Publish(ctx, cs)
	}
	marked, stored, err := t.SaveHabits(ctx, marks, rows, tell)
	return int64(len(marked)), stored, err
}

func countKey(as []attribute.Assertion, key string) int {
	n := 0
	for _, a := range as {
		if a.Key == key {
			n++
		}
	}
	return n
}
