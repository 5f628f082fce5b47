// Package webhooks is the webhooks worker: it delivers the change feed to
// tenants' HTTP endpoints, signed (webhooks.Sign of pkg/webhooks, where the
// endpoints' use cases, the signature and the network guard live).
//
// The worker reads RECALL_CHANGES on its own durable consumer. For each
// change it makes one delivery row in PostgreSQL per matching endpoint of
// the change's tenant (unique on endpoint and change id, so that a change
// seen again, redelivered or replayed or published again past the stream's
// duplicate window, makes none), then acknowledges the message. Beside the
// runner, a dispatcher claims the deliveries that are due and POSTs each
// one, signed, to its endpoint; a failure (no connection, a timeout, an
// answer other than 2xx) makes it due again after an exponential backoff
// (queue.RetryDelay, the runner's formula), and after WEBHOOK_MAX_ATTEMPTS
// it is given up on: failed, and dead-lettered (recall.dlq.webhooks.>) with
// the reason.
//
// Why rows, and not the runner's NakWithDelay: a change goes to several
// endpoints, and one endpoint down must neither hold back nor repeat the
// others' deliveries, while a nak retries the whole message. The rows are
// also the delivery state the API and the inspector show, and what a
// re-drive resets. The claim takes a few deliveries of an endpoint at a
// time and none of an endpoint with some in flight, so that a slow
// endpoint holds few of the dispatcher's slots; replicas share the rows,
// each delivery claimed by one at a time under a lease.
package webhooks

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/recallhq/recall/pkg/contract"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/queue"
	"github.com/recallhq/recall/pkg/service"
	"github.com/recallhq/recall/pkg/store"
	"github.com/recallhq/recall/pkg/webhooks"
	"github.com/recallhq/recall/pkg/worker"
)

// Def is the webhooks worker as the registry lists it.
var Def = worker.Def[Config, *Worker]{
	Name:    "webhooks",
	Doc:     "delivers the change feed to tenants' webhook endpoints, signed, with retries",
	Binding: queue.Binding{Durable: "webhooks", Stream: queue.ChangesStream, Filters: []string{events.ChangeSubjects}},
	// A change costs one read of its tenant's endpoints and one insert; the
	// requests are the dispatcher's, apart from the runner.
	BatchSize: 100, Concurrency: 2,
	Queue: func(c *Config) *worker.Queue { return &c.Queue },
	New:   func(_ context.Context, cfg Config, d *worker.Deps) (*Worker, error) { return New(cfg, d) },
}

// Config is the worker's part of the config.
type Config struct {
	Queue worker.Queue `envPrefix:"WEBHOOKS_"`
	// Network is which addresses endpoints may reach (WEBHOOK_ALLOW_PRIVATE).
	Network webhooks.Network
	// Timeout bounds one delivery attempt, connection to answer: past it
	// the attempt failed, and is retried.
	Timeout time.Duration `env:"WEBHOOK_TIMEOUT" envDefault:"10s"`
	// MaxAttempts is how many attempts a delivery gets before it is given up
	// on and dead-lettered (a re-drive gives it as many again).
	MaxAttempts int `env:"WEBHOOK_MAX_ATTEMPTS" envDefault:"12"`
	// RetryInitial and RetryMax shape the wait before each next attempt:
	// doubling from RetryInitial, capped at RetryMax, ±20% jitter. With the
	// defaults, twelve attempts span about five and a half hours.
	RetryInitial time.Duration `env:"WEBHOOK_RETRY_INITIAL" envDefault:"30s"`
	RetryMax     time.Duration `env:"WEBHOOK_RETRY_MAX" envDefault:"1h"`
	// Concurrency is how many attempts one process makes at once, all
	// endpoints together; EndpointConcurrency how many of those one endpoint
	// may have.
	Concurrency         int `env:"WEBHOOK_CONCURRENCY" envDefault:"16"`
	EndpointConcurrency int `env:"WEBHOOK_ENDPOINT_CONCURRENCY" envDefault:"2"`
	// PollInterval is how often the dispatcher looks for deliveries due
	// (a retry's time, another replica's change); a change this process
	// reads is attempted at once.
	PollInterval time.Duration `env:"WEBHOOK_POLL_INTERVAL" envDefault:"1s"`
	// Keep is how long a finished delivery (delivered or failed) is kept
	// for the API and the inspector.
	Keep time.Duration `env:"WEBHOOK_KEEP" envDefault:"168h"`
}

// Validate reports the first setting the worker cannot work with.
func (c Config) Validate() error {
	if c.Timeout <= 0 || c.MaxAttempts < 1 || c.RetryInitial <= 0 || c.RetryMax < c.RetryInitial ||
		c.Concurrency < 1 || c.EndpointConcurrency < 1 || c.PollInterval <= 0 || c.Keep <= 0 {
		return fmt.Errorf("webhooks: timeout %s, max attempts %d, retry %s..%s, concurrency %d (per endpoint %d), poll %s and keep %s must be positive and in order",
			c.Timeout, c.MaxAttempts, c.RetryInitial, c.RetryMax, c.Concurrency, c.EndpointConcurrency, c.PollInterval, c.Keep)
	}
	return nil
}

// Worker turns changes into deliveries and makes them.
type Worker struct {
	cfg     Config
	store   *store.Store
	js      jetstream.JetStream
	log     *slog.Logger
	client  *http.Client
	metrics *metrics
	// wake tells the dispatcher that deliveries were just made.
	wake chan struct{}
	// claims numbers this process's claims.
	claims atomic.Uint64
	claim  string
}

type metrics struct {
	changes  *prometheus.CounterVec
	attempts *prometheus.CounterVec
}

// New returns the worker; its metrics go to d.Registry (nil: none).
func New(cfg Config, d *worker.Deps) (*Worker, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	m := &metrics{
		changes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "recall", Subsystem: "webhooks", Name: "changes_total",
			Help: "Changes read by the webhooks worker, by outcome (enqueued: some endpoint wants it; unwanted).",
		}, []string{"outcome"}),
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "recall", Subsystem: "webhooks", Name: "attempts_total",
			Help: "Delivery attempts, by outcome (delivered, retry, failed: given up on and dead-lettered).",
		}, []string{"outcome"}),
	}
	if d.Registry != nil {
		d.Registry.MustRegister(m.changes, m.attempts)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	// No proxy: the address checked is the endpoint's own.
	tr.Proxy = nil
	tr.DialContext = cfg.Network.Dialer(cfg.Timeout).DialContext
	tr.MaxIdleConnsPerHost = cfg.EndpointConcurrency
	client := &http.Client{Transport: tr, Timeout: cfg.Timeout,
		// A redirect is an answer other than 2xx: a failure, not a new
		// address to send the change to.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return &Worker{cfg: cfg, store: d.Store, js: d.JS, log: d.Log, client: client, metrics: m,
		wake: make(chan struct{}, 1), claim: claimPrefix()}, nil
}

// claimPrefix is this process's random prefix of its claims: "c-" and 16
// hex digits.
func claimPrefix() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return "c-" + hex.EncodeToString(b)
}

// Periodic are the dispatcher and the pruning of old deliveries, beside
// the runner.
func (w *Worker) Periodic() []service.Task { return []service.Task{w.Dispatch, w.Prune} }

// Handle makes the deliveries of a batch of changes. A change that is not
// one (bad JSON, no id, a subject not its tenant's and user's) is
// permanent: the runner dead-letters it. A change on a dead letter's
// re-drive (webhooks.HeaderEndpoint) re-drives that endpoint's failed delivery
// too.
func (w *Worker) Handle(ctx context.Context, msgs []queue.Message) []error {
	endpoints := map[string][]store.WebhookEndpoint{}
	errs := make([]error, len(msgs))
	made := false
	for i, m := range msgs {
		n, err := w.handle(m.Context(ctx), m, endpoints)
		errs[i], made = err, made || n > 0
	}
	if made {
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
	return errs
}

func (w *Worker) handle(ctx context.Context, m queue.Message, endpoints map[string][]store.WebhookEndpoint) (int, error) {
	var c contract.Change
	if err := json.Unmarshal(m.Data, &c); err != nil {
		return 0, queue.Permanent(fmt.Errorf("not a change: %w", err))
	}
	if c.ID == "" || c.Type == "" || c.TenantID == "" || c.UserID == "" {
		return 0, queue.Permanent(errors.New("not a change: id, type, tenant_id and user_id are required"))
	}
	if want := events.ChangeSubject(c.TenantID, c.UserID); m.Subject != want {
		return 0, queue.Permanent(fmt.Errorf("change %s of tenant %q and user %q on %s, want %s", c.ID, c.TenantID, c.UserID, m.Subject, want))
	}
	t := w.store.Tenant(c.TenantID)
	eps, ok := endpoints[c.TenantID]
	if !ok {
		var err error
		if eps, err = t.Webhooks(ctx); err != nil {
			return 0, err
		}
		endpoints[c.TenantID] = eps
	}
	var ids []string
	for _, e := range eps {
		if webhooks.Matches(e.Types, c.Type) {
			ids = append(ids, e.ID)
		}
	}
	n := 0
	if len(ids) > 0 {
		made, err := t.EnqueueWebhookDeliveries(ctx, c.ID, c.Type, c.UserID, m.Seq, m.Data, ids)
		if err != nil {
			return 0, err
		}
		n = len(made)
		w.metrics.changes.WithLabelValues("enqueued").Inc()
	} else {
		w.metrics.changes.WithLabelValues("unwanted").Inc()
	}
	if ep := m.Header.Get(webhooks.HeaderEndpoint); ep != "" {
		_, err := t.RedriveWebhookDelivery(ctx, ep, c.ID)
		switch {
		case err == nil:
			n++
			w.log.Info("webhook delivery re-driven from its dead letter", "endpoint", ep, "change", c.ID)
		case !errors.Is(err, store.ErrNotFound):
			return 0, err
		}
	}
	return n, nil
}

// leaseMargin is how long past its timeout an attempt's claim holds, for
// recording its outcome.
const leaseMargin = 30 * time.Second

// Dispatch makes the deliveries that are due until ctx ends, then lets the
// attempts in flight finish.
func (w *Worker) Dispatch(ctx context.Context) error {
	slots := make(chan struct{}, w.cfg.Concurrency)
	finished := make(chan struct{}, w.cfg.Concurrency)
	var wg sync.WaitGroup
	defer wg.Wait()
	// Attempts outlive the shutdown signal by their timeout: an attempt
	// cut short would be made again by another replica.
	actx := context.WithoutCancel(ctx)
	tick := time.NewTicker(w.cfg.PollInterval)
	defer tick.Stop()
	for {
		if free := cap(slots) - len(slots); free > 0 && ctx.Err() == nil {
			claim := w.claim + "-" + strconv.FormatUint(w.claims.Add(1), 10)
			cs, err := w.store.ClaimWebhookDeliveries(ctx, claim, free, w.cfg.EndpointConcurrency, w.cfg.Timeout+leaseMargin)
			if err != nil && ctx.Err() == nil {
				w.log.Warn("claim webhook deliveries", "error", err.Error())
			}
			for _, c := range cs {
				slots <- struct{}{}
				wg.Add(1)
				go func() {
					defer wg.Done()
					w.attempt(actx, claim, c)
					<-slots
					select {
					case finished <- struct{}{}:
					default:
					}
				}()
			}
			if len(cs) == free {
				continue // more may be due
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		case <-w.wake:
		case <-finished:
		}
	}
}

// attempt makes one attempt of a claimed delivery and records it: delivered,
// due again after a backoff, or given up on and dead-lettered.
func (w *Worker) attempt(ctx context.Context, claim string, c store.WebhookClaim) {
	log := w.log.With("tenant", c.TenantID, "endpoint", c.EndpointID, "change", c.ChangeID)
	if c.Attempts >= w.cfg.MaxAttempts {
		// Its attempts were spent before (the dead letter could not be
		// written then, or the limit was lowered): give up without another.
		w.giveUp(ctx, log, claim, c, store.WebhookOutcome{Error: c.LastError}, c.Attempts)
		return
	}
	at := time.Now()
	code, err := w.post(ctx, c, at)
	o := store.WebhookOutcome{Attempted: true, StatusCode: code, At: at}
	attempts := c.Attempts + 1
	switch {
	case err == nil:
		o.Status = store.WebhookDelivered
		w.metrics.attempts.WithLabelValues("delivered").Inc()
	case attempts >= w.cfg.MaxAttempts:
		o.Error = err.Error()
		w.giveUp(ctx, log, claim, c, o, attempts)
		return
	default:
		o.Status, o.Error = store.WebhookPending, err.Error()
		o.RetryIn = queue.RetryDelay(uint64(attempts), w.cfg.RetryInitial, w.cfg.RetryMax)
		w.metrics.attempts.WithLabelValues("retry").Inc()
		log.Warn("webhook delivery failed; will retry", "attempts", attempts, "retry_in", o.RetryIn.String(), "error", o.Error)
	}
	w.record(ctx, log, claim, c, o)
}

// giveUp dead-letters a delivery whose attempts are spent (attempts of
// them) and records it failed; when the dead letter cannot be written, the
// delivery stays pending to be given up on again shortly.
func (w *Worker) giveUp(ctx context.Context, log *slog.Logger, claim string, c store.WebhookClaim, o store.WebhookOutcome, attempts int) {
	reason := fmt.Sprintf("webhook %s (%s): gave up after %d attempts: %s", c.EndpointID, c.URL, attempts, o.Error)
	h := nats.Header{}
	h.Set(jetstream.MsgIDHeader, c.ChangeID)
	h.Set(webhooks.HeaderEndpoint, c.EndpointID)
	msg := queue.Message{Subject: events.ChangeSubject(c.TenantID, c.UserID), Data: c.Body, Header: h, Seq: c.StreamSeq, Deliveries: uint64(attempts)}
	key := c.EndpointID + ":" + strconv.Itoa(c.Redrives)
	if err := queue.DeadLetterOf(ctx, w.js, Def.Name, queue.ChangesStream, msg, reason, key); err != nil {
		log.Error("dead-letter failed; will retry", "error", err.Error())
		o.Status, o.RetryIn = store.WebhookPending, w.cfg.RetryInitial
		w.record(ctx, log, claim, c, o)
		return
	}
	o.Status = store.WebhookFailed
	w.metrics.attempts.WithLabelValues("failed").Inc()
	log.Warn("webhook delivery given up on; dead-lettered", "attempts", attempts, "reason", reason)
	w.record(ctx, log, claim, c, o)
}

func (w *Worker) record(ctx context.Context, log *slog.Logger, claim string, c store.WebhookClaim, o store.WebhookOutcome) {
	held, err := w.store.RecordWebhookAttempt(ctx, c, claim, o)
	switch {
	case err != nil:
		log.Error("record webhook attempt; it is made again after its lease", "error", err.Error())
	case !held:
		log.Warn("webhook attempt outlasted its lease; another claim has the delivery")
	}
}

// post POSTs the change to the endpoint, signed at at, and returns the
// answer's status (0: none) and, unless it is 2xx, the failure.
func (w *Worker) post(ctx context.Context, c store.WebhookClaim, at time.Time) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, w.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL, bytes.NewReader(c.Body))
	if err != nil {
		return 0, fmt.Errorf("request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Recall-Webhooks/1")
	webhooks.Sign(req.Header, c.Secret, c.ChangeID, c.ChangeType, at, c.Body)
	resp, err := w.client.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return 0, fmt.Errorf("POST %s: no answer within %s (WEBHOOK_TIMEOUT)", c.URL, w.cfg.Timeout)
		}
		return 0, err
	}
	// Read a little of the answer, so that the connection can be reused.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp.StatusCode, fmt.Errorf("POST %s: answered %s", c.URL, resp.Status)
	}
	return resp.StatusCode, nil
}

// pruneEvery is how often finished deliveries past WEBHOOK_KEEP are deleted.
const pruneEvery = 10 * time.Minute

// Prune deletes finished deliveries older than Keep, every pruneEvery,
// until ctx ends.
func (w *Worker) Prune(ctx context.Context) error {
	t := time.NewTicker(pruneEvery)
	defer t.Stop()
	for {
		for {
			n, err := w.store.PruneWebhookDeliveries(ctx, time.Now().Add(-w.cfg.Keep), 1000)
			if err != nil {
				if ctx.Err() == nil {
					w.log.Warn("prune webhook deliveries", "error", err.Error())
				}
				break
			}
			if n < 1000 {
				break
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}
