package decayer

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/recallhq/recall/pkg/changefeed"
	"github.com/recallhq/recall/pkg/decay"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/pause"
	"github.com/recallhq/recall/pkg/store"
)

// Step names, and the outcomes they count (the label values of
// recall_decayer_rows_total).
const (
	StepFacts     = "facts"
	StepPurge     = "purge"
	StepRetention = "retention"
	StepHabits    = "habits"
	StepSeen      = "seen"
	StepRefresh   = "refresh"

	// Facts whose weight fell by a period and stay active.
	OutcomeDecayed = "decayed"
	// Facts whose weight fell below the floor.
	OutcomeArchived = "archived"
	// Facts past their expiry.
	OutcomeExpired = "expired"
	// Archived facts above the floor again, after the policy changed.
	OutcomeReactivated = "reactivated"
	// Facts expired for longer than FACT_PURGE_AFTER, deleted with their
	// mentions.
	OutcomeFactsPurged    = "facts_purged"
	OutcomeMentionsPurged = "mentions_purged"
	// Messages and sessions deleted by retention.
	OutcomeMessagesDeleted = "messages_deleted"
	OutcomeSessionsDeleted = "sessions_deleted"
	// Learned attribute values that went with the turns they were read
	// from.
	OutcomeAttributesDeleted = "attributes_deleted"
	// Users whose usage habits were derived, and the derived values that
	// changed (put or taken back).
	OutcomeUsersDerived      = "users_derived"
	OutcomeAttributesDerived = "attributes_derived"
	// Users sent a profile refresh.
	OutcomeUsersRefreshed = "users_refreshed"
)

// Bounds of the pages one facts batch covers, whatever the density says.
const (
	minPagesPerBatch     = 1
	maxPagesPerBatch     = 1 << 16
	defaultRowsPerPage   = 60
	refreshBatch         = 1000
	sessionsPerBatchPart = 20 // sessions per retention batch: BatchSize / this
)

// decayFacts walks the facts table in ranges of heap pages (a TID range scan:
// sequential reads, no index, bounded work per statement) and brings each
// range up to date as of the run's time. The range size follows the table's
// density so a batch holds about BatchSize facts. Pages added after the step
// started hold new row versions (fresh mentions, or rows this run already
// updated) and are left to the next run.
func (d *Decayer) decayFacts(ctx context.Context, r *Run, s *StepRun) error {
	pages, per, err := factBatches(ctx, r)
	if err != nil {
		return err
	}
	target := float64(r.Config.BatchSize)
	var total store.DecayCounts
	for lo := int64(0); lo < pages; {
		hi := min(lo+per, pages)
		var c store.DecayCounts
		err := retryConflicts(ctx, func() (err error) {
			c, err = r.Store.DecayFacts(ctx, d.rules, lo, hi, r.At, d.tellEnded)
			return err
		})
		if err != nil {
			return err
		}
		total.Add(c)
		s.Add(OutcomeDecayed, c.Decayed)
		s.Add(OutcomeArchived, c.Archived)
		s.Add(OutcomeExpired, c.Expired)
		s.Add(OutcomeReactivated, c.Reactivated)
		if c.Scanned > 0 {
			// Follow the density of the part of the table just read, at most
			// doubling or halving at once.
			next := pagesFor(target, float64(c.Scanned)/float64(hi-lo))
			per = max(min(next, per*2), per/2, minPagesPerBatch)
		} else {
			per = min(per*2, maxPagesPerBatch)
		}
		lo = hi
		if err := s.Batch(ctx, "page", lo, "pages", pages, "scanned", total.Scanned); err != nil {
			return err
		}
	}
	s.Add("scanned", total.Scanned)
	return nil
}

// tellEnded publishes the change feed's news of the facts a batch archived
// or expired, inside the batch's transaction: the decayer has no message
// that a failed publish could leave unacknowledged, so the batch rolls back
// instead, and the next run archives (and tells of) them again, with the
// same ids (changefeed.FactsEnded derives them from event times). A commit
// that fails after the publish leaves changes told that the next run makes
// and tells again (the same ids).
func (d *Decayer) tellEnded(ctx context.Context, facts []store.DecayedFact) error {
	if d.changes == nil {
		return nil
	}
	return d.changes.Publish(ctx, changefeed.FactsEnded(d.policy, facts))
}

// factDecayRules is the policy as the store's SQL applies it: the default
// rule, then each fact type's own, with the multiplier tables the Go formula
// reads.
func factDecayRules(p *decay.Policy) []store.FactDecayRule {
	rule := func(typ string, r decay.Rule) store.FactDecayRule {
		return store.FactDecayRule{Type: typ, Period: r.Period, Floor: r.Floor, Multipliers: r.Multipliers()}
	}
	out := []store.FactDecayRule{rule("", p.Default())}
	for _, t := range p.Types() {
		out = append(out, rule(t, p.Rule(t)))
	}
	return out
}

// purgeFacts deletes the facts that expired longer than PurgeAfter ago (event
// time) with their mentions, walking the facts table in page ranges of about
// BatchSize facts, like decayFacts. Expired facts change no profile, so no
// refresh is owed.
func (d *Decayer) purgeFacts(ctx context.Context, r *Run, s *StepRun) error {
	if r.Config.PurgeAfter <= 0 {
		return nil
	}
	pages, per, err := factBatches(ctx, r)
	if err != nil {
		return err
	}
	before := r.At.Add(-r.Config.PurgeAfter)
	for lo := int64(0); lo < pages; {
		hi := min(lo+per, pages)
		var facts, mentions int64
		err := retryConflicts(ctx, func() (err error) {
			facts, mentions, err = r.Store.PurgeExpiredFacts(ctx, lo, hi, before)
			return err
		})
		if err != nil {
			return err
		}
		s.Add(OutcomeFactsPurged, facts)
		s.Add(OutcomeMentionsPurged, mentions)
		lo = hi
		if err := s.Batch(ctx, "page", lo, "pages", pages); err != nil {
			return err
		}
	}
	return nil
}

// factBatches is the facts table's size in heap pages, and the pages a batch
// of about BatchSize facts covers at the density last analyzed.
func factBatches(ctx context.Context, r *Run) (pages, per int64, err error) {
	pages, density, err := r.Store.FactPages(ctx)
	if err != nil {
		return 0, 0, err
	}
	if density <= 0 {
		density = defaultRowsPerPage
	}
	return pages, pagesFor(float64(r.Config.BatchSize), density), nil
}

func pagesFor(rows, density float64) int64 {
	return max(min(int64(rows/density), maxPagesPerBatch), minPagesPerBatch)
}

// retention deletes, for every tenant with a retention, the messages that
// occurred longer ago than it, and the sessions left without messages (a
// session whose last message is that old goes whole). Messages are found
// through their sessions, so no index beyond the session's own is needed.
func (d *Decayer) retention(ctx context.Context, r *Run, s *StepRun) error {
	tenants := map[string]bool{}
	for t, keep := range r.Config.RetentionByTenant {
		if keep > 0 {
			tenants[t] = true
		}
	}
	if r.Config.RetentionDefault > 0 {
		all, err := r.Store.SessionTenants(ctx)
		if err != nil {
			return err
		}
		for _, t := range all {
			tenants[t] = true
		}
	}
	perSessions := max(r.Config.BatchSize/sessionsPerBatchPart, 1)
	for _, tenant := range slices.Sorted(maps.Keys(tenants)) {
		keep := r.Config.RetentionFor(tenant)
		if keep <= 0 {
			continue
		}
		cutoff := r.At.Add(-keep)
		t := r.Store.Tenant(tenant)
		var msgs, sess int64
		after := ""
		for {
			var b store.RetentionBatch
			err := retryConflicts(ctx, func() (err error) {
				b, err = t.DeleteOldMessages(ctx, after, cutoff, perSessions, r.Config.BatchSize)
				return err
			})
			if err != nil {
				return err
			}
			if b.Done {
				break
			}
			msgs += b.Messages
			sess += b.Sessions
			s.Add(OutcomeMessagesDeleted, b.Messages)
			s.Add(OutcomeSessionsDeleted, b.Sessions)
			s.Add(OutcomeAttributesDeleted, b.Attributes)
			after = b.Next
			if err := s.Batch(ctx, "tenant_id", tenant); err != nil {
				return err
			}
		}
		if msgs > 0 || sess > 0 {
			r.log.Info("retention applied", "tenant_id", tenant, "retention", formatRetention(keep),
				"cutoff", cutoff, OutcomeMessagesDeleted, msgs, OutcomeSessionsDeleted, sess)
		}
	}
	return nil
}

// refresh publishes a profile-refresh task for every user in the outbox (the
// users whose facts this run or an earlier one changed), as of the time their
// facts were decayed, and forgets them once the server has the tasks.
func (d *Decayer) refresh(ctx context.Context, r *Run, s *StepRun) error {
	if d.pub == nil {
		return nil
	}
	after := store.UserRef{}
	for {
		pend, err := r.Store.RefreshOutbox(ctx, after, refreshBatch)
		if err != nil {
			return err
		}
		if len(pend) == 0 {
			return nil
		}
		tasks := make([]events.ProfileTask, len(pend))
		for i, p := range pend {
			tasks[i] = events.ProfileTask{TenantID: p.TenantID, UserID: p.UserID, RequestedAt: p.RequestedAt}
		}
		if _, err := d.pub.Publish(ctx, tasks); err != nil {
			return fmt.Errorf("publish profile refresh: %w", err)
		}
		if err := r.Store.RefreshesSent(ctx, pend); err != nil {
			return err
		}
		s.Add(OutcomeUsersRefreshed, int64(len(pend)))
		after = pend[len(pend)-1].UserRef
		if err := s.Batch(ctx); err != nil {
			return err
		}
	}
}

// retryConflicts runs a batch again when PostgreSQL aborted it for a deadlock
// or a serialization failure. A batch waits for the row locks of concurrent
// writers (a mention batch locks its facts in key order, a batch here in page
// order), so a cycle is possible on a busy system; the batch is one
// idempotent statement or transaction, so running it again is safe.
func retryConflicts(ctx context.Context, f func() error) error {
	const attempts = 5
	var err error
	for i := range attempts {
		if err = f(); err == nil || !isConflict(err) {
			return err
		}
		if !pause.For(ctx, time.Duration(i+1)*100*time.Millisecond) {
			return ctx.Err()
		}
	}
	return err
}

func isConflict(err error) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && (pg.Code == "40P01" || pg.Code == "40001") // deadlock_detected, serialization_failure
}

// pruneSeen deletes the seen items (and notifications) last shown longer ago
// than ITEMS_SEEN_MAX_AGE, by event time, in bounded batches.
func (d *Decayer) pruneSeen(ctx context.Context, r *Run, s *StepRun) error {
	cutoff, ok := r.Config.Seen.Cutoff(r.At)
	if !ok {
		return nil
	}
	n, err := r.Store.PruneSeenItems(ctx, cutoff, r.Config.BatchSize)
	if err != nil {
		return err
	}
	s.Add("deleted", n)
	return s.Batch(ctx)
}
