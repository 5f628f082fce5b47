package gateway

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/cenkalti/backoff/v4"
	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/recallhq/recall/pkg/contract"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/memory"
)

// job is one exchange's turns, waiting to be published.
type job struct {
	tenant string
	turns  []events.Turn
	// at is when it was queued: it is retried until PublishRetryFor after.
	at time.Time
}

// publisher publishes exchanges' turns after their answers have gone to
// the caller, so that the chat never waits on Recall's writes. Only what
// is new is published: the turns this process published lately are
// remembered, and the rest are looked up in the store (clients resend the
// whole conversation with every request). A turn published twice all the
// same (another replica, a lookup that failed) is deduplicated by its id
// in JetStream and in the database. What cannot be published yet is
// retried within bounds; what is given up is counted and logged with its
// ids, never dropped silently.
type publisher struct {
	mem      *memory.Service
	limits   events.Limits
	log      *slog.Logger
	m        *metrics
	jobs     chan job
	retryFor time.Duration
	workers  int
	now      func() time.Time
	// recent are tenant\x00id of turns this process published lately.
	recent *lru.Cache[string, struct{}]
	// closed is set once the intake is closed (the gateway drains).
	mu     sync.RWMutex
	closed bool
	wg     sync.WaitGroup
}

// recentTurns is how many published turn ids a gateway remembers: a few
// hundred thousand ids are a few tens of megabytes at most, and cover the
// conversations active at once on one replica.
const recentTurns = 200_000

func newPublisher(mem *memory.Service, cfg Config, log *slog.Logger, m *metrics, now func() time.Time) *publisher {
	recent, _ := lru.New[string, struct{}](recentTurns)
	return &publisher{mem: mem, limits: mem.Limits(), log: log, m: m, jobs: make(chan job, cfg.PublishQueue),
		retryFor: cfg.PublishRetryFor, workers: cfg.PublishConcurrency, now: now, recent: recent}
}

// offer queues an exchange's turns without waiting; a full queue counts
// them as dropped and logs their ids. The conversation's next request
// resends them, so they are offered again then.
func (p *publisher) offer(tenant string, turns []events.Turn) {
	fresh := turns[:0:0]
	for _, t := range turns {
		if !p.recent.Contains(tenant + "\x00" + t.ID) {
			fresh = append(fresh, t)
		}
	}
	if len(fresh) == 0 {
		return
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	if p.closed {
		p.lost("draining", tenant, fresh, "dropped")
		return
	}
	select {
	case p.jobs <- job{tenant: tenant, turns: fresh, at: p.now()}:
		p.m.queue.Inc()
	default:
		p.lost("publish queue full (GATEWAY_PUBLISH_QUEUE)", tenant, fresh, "dropped")
	}
}

// start runs the workers; they publish until the intake is closed and
// emptied, or ctx ends.
func (p *publisher) start(ctx context.Context) {
	for range p.workers {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			for j := range p.jobs {
				p.m.queue.Dec()
				if ctx.Err() != nil {
					p.lost("the gateway stopped before it could publish them", j.tenant, j.turns, "lost")
					continue
				}
				p.publish(ctx, j)
			}
		}()
	}
}

// drain closes the intake and waits for the workers to publish what is
// queued.
func (p *publisher) drain() {
	p.mu.Lock()
	if !p.closed {
		p.closed = true
		close(p.jobs)
	}
	p.mu.Unlock()
	p.wg.Wait()
}

// publish publishes a job's turns that are not stored yet, retrying while
// JetStream or the store is away, until PublishRetryFor has passed since
// it was queued.
func (p *publisher) publish(ctx context.Context, j job) {
	turns := p.valid(j)
	b := backoff.NewExponentialBackOff()
	b.InitialInterval, b.MaxInterval, b.MaxElapsedTime = 100*time.Millisecond, 5*time.Second, 0
	for len(turns) > 0 {
		turns = p.attempt(ctx, j.tenant, turns)
		if len(turns) == 0 {
			return
		}
		wait := b.NextBackOff()
		if p.now().Add(wait).Sub(j.at) > p.retryFor {
			p.lost("not published within GATEWAY_PUBLISH_RETRY_FOR", j.tenant, turns, "lost")
			return
		}
		p.m.turns.WithLabelValues("retried").Add(float64(len(turns)))
		select {
		case <-ctx.Done():
			p.lost("the gateway stopped before it could publish them", j.tenant, turns, "lost")
			return
		case <-time.After(wait):
		}
	}
}

// valid is the job's turns that events.ValidateTurn accepts; the others
// are counted as rejected and logged with what is wrong with them (the
// gateway fits what it can beforehand, so this is rare: an id or a tool
// name over its limit).
func (p *publisher) valid(j job) []events.Turn {
	out := j.turns[:0:0]
	for _, t := range j.turns {
		err := events.ValidateTurn(&t, events.ValidateOptions{Limits: p.limits, Now: p.now})
		var ve *events.ValidationError
		if errors.As(err, &ve) {
			p.m.turns.WithLabelValues("rejected").Inc()
			p.log.Error("gateway turn rejected", "tenant_id", j.tenant, "id", t.ID, "user_id", t.UserID, "session_id", t.SessionID, "fields", ve.Fields)
			continue
		}
		out = append(out, t)
	}
	return out
}

// attempt publishes the turns not stored yet once, and returns those that
// could not be published.
func (p *publisher) attempt(ctx context.Context, tenant string, turns []events.Turn) []events.Turn {
	ids := make([]string, len(turns))
	for i, t := range turns {
		ids[i] = t.ID
	}
	sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	stored, err := p.mem.StoredTurns(sctx, tenant, ids)
	cancel()
	if err != nil {
		// Publish them all: duplicates are deduplicated by id.
		p.log.Debug("gateway stored-turn lookup failed", "tenant_id", tenant, "error", err.Error())
		stored = nil
	}
	fresh := make([]*events.Turn, 0, len(turns))
	for i := range turns {
		if stored[turns[i].ID] {
			p.remember(tenant, turns[i].ID)
			p.m.turns.WithLabelValues("already_stored").Inc()
			continue
		}
		fresh = append(fresh, &turns[i])
	}
	if len(fresh) == 0 {
		return nil
	}
	accepted, err := p.mem.For(tenant).AddTurns(ctx, fresh...)
	done := map[string]bool{}
	for _, a := range accepted {
		done[a.ID] = true
		p.remember(tenant, a.ID)
		if a.Duplicate {
			p.m.turns.WithLabelValues("duplicate").Inc()
		} else {
			p.m.turns.WithLabelValues("published").Inc()
		}
	}
	if err == nil {
		return nil
	}
	if e, ok := errors.AsType[*contract.Error](err); ok && (e.Code == contract.CodeInvalidRequest || e.Code == contract.CodeSessionOwned) {
		// ValidateTurn passed them, or their session is another user's
		// (claimed since the request read memory): nothing a retry would
		// change.
		p.m.turns.WithLabelValues("rejected").Add(float64(len(fresh)))
		p.log.Error("gateway turns rejected", "tenant_id", tenant, "ids", ids, "error", e.Error(), "fields", e.Fields)
		return nil
	}
	var left []events.Turn
	for _, t := range fresh {
		if !done[t.ID] {
			left = append(left, *t)
		}
	}
	p.log.Warn("gateway publish failed; retrying", "tenant_id", tenant, "turns", len(left), "error", err.Error())
	return left
}

func (p *publisher) remember(tenant, id string) { p.recent.Add(tenant+"\x00"+id, struct{}{}) }

// lost counts turns given up on under outcome and logs their ids, so that
// an operator can find them (and the conversation's next request resends
// them).
func (p *publisher) lost(why, tenant string, turns []events.Turn, outcome string) {
	p.m.turns.WithLabelValues(outcome).Add(float64(len(turns)))
	ids := make([]string, len(turns))
	for i, t := range turns {
		ids[i] = t.ID
	}
	p.log.Error("gateway turns not published", "reason", why, "outcome", outcome, "tenant_id", tenant, "ids", ids)
}
