// Package queue is the JetStream runtime every Recall binary shares: the
// stream and consumer declarations, the connection, the publisher, the one
// consumer runner (ack, retry with backoff, dead letters, heartbeats, drain),
// dead-letter tools and replay. Producers need none of it: the contract they
// code against (envelopes, validation, subjects) is package events.
package queue

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/telemetry"

	"github.com/cenkalti/backoff/v4"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/recallhq/recall/pkg/envconfig"
)

// Message is what a handler sees of a delivery: the payload and where it came from.
type Message struct {
	Subject string
	Data    []byte
	Header  nats.Header
	// Seq is the stream sequence; Deliveries counts this delivery (1 = first).
	Seq        uint64
	Deliveries uint64
	// Published is when the stream stored the message.
	Published time.Time

	// span is the message's consumer span while the runner handles it
	// (nil with tracing off).
	span trace.Span
}

// EventID is the producer's id from Nats-Msg-Id, for logs.
func (m Message) EventID() string { return m.Header.Get(jetstream.MsgIDHeader) }

// Context returns ctx carrying the message's trace span, for work done for
// this message alone (PerMessage runs each message's handler under it);
// with tracing off, ctx itself.
func (m Message) Context(ctx context.Context) context.Context {
	if m.span == nil {
		return ctx
	}
	return trace.ContextWithSpan(ctx, m.span)
}

// BatchHandler processes a batch and returns one error per message, in order: nil
// acks the message, a Permanent error dead-letters it at once, any other error
// retries it later (or dead-letters it on its last delivery). Returning a nil slice
// means every message succeeded.
type BatchHandler func(ctx context.Context, msgs []Message) []error

// Handler processes one message.
type Handler func(ctx context.Context, msg Message) error

// PerMessage adapts a Handler to a BatchHandler, one message after another.
func PerMessage(h Handler) BatchHandler {
	return func(ctx context.Context, msgs []Message) []error {
		var errs []error
		for i, m := range msgs {
			if err := h(m.Context(ctx), m); err != nil {
				if errs == nil {
					errs = make([]error, len(msgs))
				}
				errs[i] = err
			}
		}
		return errs
	}
}

// PermanentError marks a failure that no retry can fix (malformed input, a rule
// violation). The runner dead-letters the message at once.
type PermanentError struct{ Err error }

func (e *PermanentError) Error() string { return e.Err.Error() }
func (e *PermanentError) Unwrap() error { return e.Err }

// Permanent wraps err so the runner dead-letters instead of retrying.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return &PermanentError{Err: err}
}

// IsPermanent reports whether err, or anything it wraps, is permanent. Validation
// errors are permanent by nature.
func IsPermanent(err error) bool {
	var pe *PermanentError
	var ve *events.ValidationError
	return errors.As(err, &pe) || errors.As(err, &ve)
}

// RunnerConfig tunes a runner. BatchSize and Concurrency have no default of
// their own: each worker's description (worker.Def) sets them, and a config
// built in code must set them too (Validate says so).
type RunnerConfig struct {
	// BatchSize is how many messages a handler call gets at most.
	BatchSize int `env:"BATCH_SIZE"`
	// BatchWait is how long to wait to fill a batch once it has one message.
	BatchWait time.Duration `env:"BATCH_WAIT" envDefault:"5ms"`
	// Concurrency is how many handler calls run at once.
	Concurrency int `env:"CONCURRENCY"`
	// DrainTimeout bounds how long in-flight handlers may run after shutdown starts.
	DrainTimeout time.Duration `env:"DRAIN_TIMEOUT" envDefault:"20s"`
	// RetryInitial and RetryMax shape the redelivery delay.
	RetryInitial time.Duration `env:"RETRY_INITIAL" envDefault:"1s"`
	RetryMax     time.Duration `env:"RETRY_MAX" envDefault:"2m"`
	// LagEvery is how often the consumer's lag is read from the server for
	// recall_consumer_pending_messages, busy or idle.
	LagEvery time.Duration `env:"LAG_INTERVAL" envDefault:"5s"`
	// HandleTimeout bounds one handler call: past it the call's context is
	// cancelled and its messages are no longer kept in progress, so a
	// handler stuck on a lock or a dead connection fails (and is retried, up
	// to the dead-letter limit) instead of holding its messages forever.
	HandleTimeout time.Duration `env:"HANDLE_TIMEOUT" envDefault:"5m"`
}

// Validate reports the first setting a runner cannot work with.
func (c RunnerConfig) Validate() error {
	switch {
	case c.BatchSize < 1:
		return fmt.Errorf("runner: batch size %d: want at least 1", c.BatchSize)
	case c.Concurrency < 1:
		return fmt.Errorf("runner: concurrency %d: want at least 1", c.Concurrency)
	case c.BatchWait <= 0, c.DrainTimeout <= 0, c.RetryInitial <= 0, c.RetryMax < c.RetryInitial, c.LagEvery <= 0, c.HandleTimeout <= 0:
		return fmt.Errorf("runner: batch wait %s, drain timeout %s, handle timeout %s and retry delays %s..%s must be positive and in order",
			c.BatchWait, c.DrainTimeout, c.HandleTimeout, c.RetryInitial, c.RetryMax)
	}
	return nil
}

// RetryDelay is the redelivery delay after the given number of deliveries:
// exponential from initial, capped at maxDelay, with ±20% jitter so that a burst of
// failures does not come back as a burst.
func RetryDelay(deliveries uint64, initial, maxDelay time.Duration) time.Duration {
	b := backoff.NewExponentialBackOff()
	b.InitialInterval = initial
	b.MaxInterval = maxDelay
	b.Multiplier = 2
	b.RandomizationFactor = 0.2
	b.MaxElapsedTime = 0
	b.Reset()
	d := b.NextBackOff()
	for i := uint64(1); i < deliveries && i < 32; i++ {
		d = b.NextBackOff()
	}
	return d
}

// Runner is the one consumer loop every worker uses: it pulls from a durable
// consumer, batches, calls the handler, and owns ack, retry, dead-lettering,
// heartbeats, panics and drain. Handlers only say what happened.
type Runner struct {
	js       jetstream.JetStream
	consumer jetstream.Consumer
	name     string
	handler  BatchHandler
	cfg      RunnerConfig
	log      *slog.Logger
	metrics  *RunnerMetrics
	// tracer makes the spans of each message and batch; nil with tracing
	// off, so that the runner then does nothing for tracing.
	tracer *runnerTracer

	maxDeliver int
	ackWait    time.Duration
}

// NewRunner creates (or updates) the durable consumer on stream and returns a runner
// for it. metrics may be nil.
//
// The runner, not the server, enforces cc.MaxDeliver: the consumer is declared
// with unlimited deliveries (Unlimited), and a message delivered more often
// than the limit is dead-lettered before its handler runs. A server that
// stops delivering after MaxDeliver moves past a message whose every delivery
// ended without an answer (the worker killed, a timeout) and tells no one
// but an advisory; this way such a message still ends in the dead-letter
// stream, with its reason.
func NewRunner(ctx context.Context, js jetstream.JetStream, stream string, cc jetstream.ConsumerConfig, h BatchHandler, cfg RunnerConfig, log *slog.Logger, metrics *RunnerMetrics) (*Runner, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("consumer %s: %w", cc.Durable, err)
	}
	limit := cc.MaxDeliver
	cc = Unlimited(cc)
	var cons jetstream.Consumer
	err := declare(ctx, "consumer "+cc.Durable, DeclareRetryFor, log, func(ctx context.Context) (err error) {
		cons, err = js.CreateOrUpdateConsumer(ctx, stream, cc)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("consumer %s on %s: %w", cc.Durable, stream, err)
	}
	return newRunner(js, cons, h, cfg, limit, log, metrics), nil
}

// Unlimited is cc with unlimited deliveries on the server: the runner counts
// them (see NewRunner).
func Unlimited(cc jetstream.ConsumerConfig) jetstream.ConsumerConfig {
	cc.MaxDeliver = -1
	return cc
}

// NewRunnerFor runs h on an existing consumer (ephemeral consumers for
// replay), declared Unlimited, dead-lettering a message delivered more than
// maxDeliver times (0: no limit).
func NewRunnerFor(js jetstream.JetStream, cons jetstream.Consumer, maxDeliver int, h BatchHandler, cfg RunnerConfig, log *slog.Logger, metrics *RunnerMetrics) (*Runner, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return newRunner(js, cons, h, cfg, maxDeliver, log, metrics), nil
}

func newRunner(js jetstream.JetStream, cons jetstream.Consumer, h BatchHandler, cfg RunnerConfig, maxDeliver int, log *slog.Logger, metrics *RunnerMetrics) *Runner {
	info := cons.CachedInfo()
	name := info.Config.Durable
	if name == "" {
		name = info.Name
	}
	if metrics == nil {
		metrics = NewRunnerMetrics(nil)
	}
	ackWait := info.Config.AckWait
	if ackWait <= 0 {
		ackWait = 30 * time.Second
	}
	r := &Runner{
		js: js, consumer: cons, name: name, handler: h, cfg: cfg,
		log: log.With("consumer", name), metrics: metrics,
		maxDeliver: maxDeliver, ackWait: ackWait,
	}
	if telemetry.Enabled() {
		r.tracer = newRunnerTracer(info.Stream, name)
	}
	return r
}

// Name is the consumer's name.
func (r *Runner) Name() string { return r.name }

// Run consumes until ctx is cancelled, then drains: it stops pulling, lets the
// batches in flight finish (up to DrainTimeout) and hands undelivered buffered
// messages back to the server. It returns nil after a clean drain.
func (r *Runner) Run(ctx context.Context) error {
	buf := make(chan jetstream.Msg, r.cfg.BatchSize*r.cfg.Concurrency)
	stopping := make(chan struct{})
	cc, err := r.consumer.Consume(func(m jetstream.Msg) {
		select {
		case buf <- m:
		case <-stopping:
			_ = m.Nak()
		}
	}, jetstream.PullMaxMessages(max(2*r.cfg.BatchSize*r.cfg.Concurrency, 64)),
		jetstream.ConsumeErrHandler(func(_ jetstream.ConsumeContext, err error) {
			if !errors.Is(err, jetstream.ErrNoHeartbeat) {
				r.log.Warn("consume", "error", err.Error())
			}
		}))
	if err != nil {
		return fmt.Errorf("consume %s: %w", r.name, err)
	}

	// Handlers run on a context that survives the shutdown signal for DrainTimeout,
	// so a batch in flight can commit and ack instead of being redone elsewhere.
	hctx, hcancel := context.WithCancel(context.WithoutCancel(ctx))
	defer hcancel()

	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		r.watchLag(ctx)
	}()
	for range r.cfg.Concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.loop(ctx, hctx, buf)
		}()
	}

	<-ctx.Done()
	// Stop pulling; messages already on their way to this client still reach the
	// callback, which now hands them straight back (Nak) instead of leaving them to
	// wait out AckWait.
	close(stopping)
	cc.Drain()
	select {
	case <-cc.Closed():
	case <-time.After(5 * time.Second):
		cc.Stop()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(r.cfg.DrainTimeout):
		r.log.Warn("drain timeout; cancelling in-flight handlers", "timeout", r.cfg.DrainTimeout.String())
		hcancel()
		<-done
	}
	// Whatever is still buffered was never handed to a handler: give it back now
	// rather than letting it wait out AckWait.
	for {
		select {
		case m := <-buf:
			_ = m.Nak()
		default:
			r.log.Info("drained")
			return nil
		}
	}
}

func (r *Runner) loop(ctx, hctx context.Context, buf <-chan jetstream.Msg) {
	batch := make([]jetstream.Msg, 0, r.cfg.BatchSize)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		batch = batch[:0]
		select {
		case <-ctx.Done():
			return
		case m := <-buf:
			batch = append(batch, m)
		}
		timer.Reset(r.cfg.BatchWait)
	fill:
		for len(batch) < r.cfg.BatchSize {
			select {
			case m := <-buf:
				batch = append(batch, m)
			case <-timer.C:
				break fill
			case <-ctx.Done():
				break fill
			}
		}
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
		r.process(hctx, batch)
	}
}

// watchLag sets the pending gauge from the server's view of the consumer
// every LagEvery until ctx ends: the messages not yet handled, those waiting
// to be delivered and those delivered but not acknowledged (a worker pulls
// ahead, so a busy consumer can have nothing left to deliver). The server's
// count is the truth whatever the runner is doing: a batch's metadata says
// what was pending when it was delivered, and nothing would lower the gauge
// once the consumer is idle.
func (r *Runner) watchLag(ctx context.Context) {
	t := time.NewTicker(r.cfg.LagEvery)
	defer t.Stop()
	for {
		if info, err := r.consumer.Info(ctx); err == nil {
			r.metrics.Pending.WithLabelValues(r.name).Set(float64(info.NumPending) + float64(info.NumAckPending))
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// process runs the handler on one batch and settles every message.
func (r *Runner) process(ctx context.Context, batch []jetstream.Msg) {
	msgs := make([]Message, len(batch))
	for i, m := range batch {
		msgs[i] = Message{Subject: m.Subject(), Data: m.Data(), Header: m.Headers()}
		if md, err := m.Metadata(); err == nil {
			msgs[i].Seq = md.Sequence.Stream
			msgs[i].Deliveries = md.NumDelivered
			msgs[i].Published = md.Timestamp
		}
	}
	if r.tracer != nil {
		r.tracer.startProcess(ctx, msgs)
	}

	// A message delivered more often than the limit never got an answer:
	// every delivery ended with the worker gone or out of time. It is
	// dead-lettered without running the handler once more.
	handle, handleMsgs := batch, msgs
	if r.maxDeliver > 0 {
		handle, handleMsgs = batch[:0:0], msgs[:0:0]
		for i, m := range batch {
			if msgs[i].Deliveries > uint64(r.maxDeliver) {
				r.metrics.Failed.WithLabelValues(r.name, "exhausted").Inc()
				r.deadLetter(ctx, m, msgs[i], fmt.Sprintf("gave up after %d deliveries without an answer: each ended without an ack (the worker stopped, crashed or ran out of time)", msgs[i].Deliveries-1))
				continue
			}
			handle, handleMsgs = append(handle, m), append(handleMsgs, msgs[i])
		}
		if len(handle) == 0 {
			return
		}
	}

	start := time.Now()
	hctx, cancel := context.WithTimeout(ctx, r.cfg.HandleTimeout)
	defer cancel()
	stopBeat := r.heartbeat(hctx, handle)
	var span trace.Span
	if r.tracer != nil {
		hctx, span = r.tracer.startHandle(hctx, handleMsgs)
	}
	errs := r.call(hctx, handleMsgs)
	if errors.Is(hctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
		r.log.Warn("handler ran past its timeout", "timeout", r.cfg.HandleTimeout.String(), "messages", len(handleMsgs))
		for i := range errs {
			if errs[i] != nil {
				errs[i] = fmt.Errorf("ran past the handle timeout (%s): %w", r.cfg.HandleTimeout, errs[i])
			}
		}
	}
	if span != nil {
		endHandle(span, errs)
	}
	stopBeat()
	r.metrics.HandlerSeconds.WithLabelValues(r.name).Observe(time.Since(start).Seconds())
	r.metrics.BatchSize.WithLabelValues(r.name).Observe(float64(len(handle)))

	for i, m := range handle {
		var err error
		if errs != nil {
			err = errs[i]
		}
		r.settle(ctx, m, handleMsgs[i], err)
	}
}

// call runs the handler, turning a panic into a retryable error for the whole batch.
func (r *Runner) call(ctx context.Context, msgs []Message) (errs []error) {
	defer func() {
		if p := recover(); p != nil {
			r.log.Error("handler panic", "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			err := fmt.Errorf("handler panic: %v", p)
			errs = make([]error, len(msgs))
			for i := range errs {
				errs[i] = err
			}
		}
	}()
	errs = r.handler(ctx, msgs)
	if errs != nil && len(errs) != len(msgs) {
		err := fmt.Errorf("handler returned %d results for %d messages", len(errs), len(msgs))
		errs = make([]error, len(msgs))
		for i := range errs {
			errs[i] = err
		}
	}
	return errs
}

// heartbeat keeps the batch's messages from being redelivered while a slow handler
// works on them, until ctx ends (the handle timeout): a handler that does not
// return then leaves them to be delivered again after AckWait, counted
// towards the dead-letter limit. It returns the function that stops it.
func (r *Runner) heartbeat(ctx context.Context, batch []jetstream.Msg) func() {
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(max(r.ackWait/3, 10*time.Millisecond))
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				for _, m := range batch {
					_ = m.InProgress()
				}
				r.metrics.Heartbeats.WithLabelValues(r.name).Add(float64(len(batch)))
			}
		}
	}()
	return func() { close(stop); <-done }
}

func (r *Runner) settle(ctx context.Context, m jetstream.Msg, msg Message, err error) {
	if err == nil {
		aerr := m.Ack()
		if aerr != nil {
			r.log.Warn("ack", "subject", msg.Subject, "seq", msg.Seq, "event_id", msg.EventID(), "error", aerr.Error())
		}
		if msg.span != nil {
			if aerr != nil {
				failSpan(msg.span, aerr)
			}
			endProcess(msg.span, eventAck)
		}
		r.metrics.Processed.WithLabelValues(r.name).Inc()
		return
	}
	last := r.maxDeliver > 0 && msg.Deliveries >= uint64(r.maxDeliver)
	switch {
	case IsPermanent(err):
		r.metrics.Failed.WithLabelValues(r.name, "permanent").Inc()
	case last:
		r.metrics.Failed.WithLabelValues(r.name, "exhausted").Inc()
	default:
		r.metrics.Failed.WithLabelValues(r.name, "retry").Inc()
	}
	if msg.span != nil {
		failSpan(msg.span, err)
	}
	if IsPermanent(err) || last {
		reason := err.Error()
		if !IsPermanent(err) {
			reason = fmt.Sprintf("gave up after %d deliveries: %s", msg.Deliveries, reason)
		}
		r.deadLetter(ctx, m, msg, reason)
		return
	}
	delay := RetryDelay(msg.Deliveries, r.cfg.RetryInitial, r.cfg.RetryMax)
	_ = m.NakWithDelay(delay)
	if msg.span != nil {
		endProcess(msg.span, eventRetry, attribute.String("recall.retry_in", delay.String()))
	}
	r.metrics.Retried.WithLabelValues(r.name).Inc()
	r.log.Warn("handler failed; will retry", "subject", msg.Subject, "seq", msg.Seq, "deliveries", msg.Deliveries, "event_id", msg.EventID(), "retry_in", delay.String(), "error", err.Error())
}

// deadLetter moves a message to the dead-letter stream with its reason and
// terminates it here; if the dead letter cannot be stored, the message is
// handed back to come again, so it is never lost.
func (r *Runner) deadLetter(ctx context.Context, m jetstream.Msg, msg Message, reason string) {
	stream := ""
	if md, err := m.Metadata(); err == nil {
		stream = md.Stream
	}
	if dlqErr := DeadLetter(ctx, r.js, r.name, stream, msg, reason); dlqErr != nil {
		r.log.Error("dead-letter failed; will retry", "subject", msg.Subject, "seq", msg.Seq, "event_id", msg.EventID(), "error", dlqErr.Error())
		delay := RetryDelay(1, r.cfg.RetryInitial, r.cfg.RetryMax)
		_ = m.NakWithDelay(delay)
		if msg.span != nil {
			failSpan(msg.span, dlqErr)
			endProcess(msg.span, eventRetry, attribute.String("recall.retry_in", delay.String()))
		}
		r.metrics.Retried.WithLabelValues(r.name).Inc()
		return
	}
	// Term, not TermWithReason: servers before 2.10.4 ignore the latter and
	// would deliver the message again; the reason is in the dead letter.
	_ = m.Term()
	if msg.span != nil {
		msg.span.SetStatus(codes.Error, reason)
		endProcess(msg.span, eventDeadLettered, attribute.String("recall.dlq.reason", reason))
	}
	r.metrics.DeadLettered.WithLabelValues(r.name).Inc()
	r.log.Warn("dead-lettered", "subject", msg.Subject, "seq", msg.Seq, "deliveries", msg.Deliveries, "event_id", msg.EventID(), "reason", reason)
}

// Dead-letter headers. The original headers are kept as they were, except the
// dedupe id, which moves to HeaderOriginalMsgID.
const (
	HeaderReason        = "Recall-Dlq-Reason"
	HeaderConsumer      = "Recall-Dlq-Consumer"
	HeaderStream        = "Recall-Dlq-Stream"
	HeaderStreamSeq     = "Recall-Dlq-Stream-Seq"
	HeaderSubject       = "Recall-Dlq-Subject"
	HeaderDeliveries    = "Recall-Dlq-Deliveries"
	HeaderFailedAt      = "Recall-Dlq-Failed-At"
	HeaderOriginalMsgID = "Recall-Dlq-Original-Msg-Id"
)

// DeadLetter stores the original message (read by consumer from stream) plus
// the reason in the dead-letter stream and waits for the server's ack. Its own
// dedupe id makes a repeat harmless.
func DeadLetter(ctx context.Context, js jetstream.JetStream, consumer, stream string, msg Message, reason string) error {
	return DeadLetterOf(ctx, js, consumer, stream, msg, reason, "")
}

// DeadLetterOf is DeadLetter for a consumer that may give up on one message
// more than once, each time for something of its own (the webhooks worker:
// one delivery per endpoint, and again after a re-drive): key tells those
// dead letters apart, so that the stream's dedupe drops only a repeat of
// the same one.
func DeadLetterOf(ctx context.Context, js jetstream.JetStream, consumer, stream string, msg Message, reason, key string) error {
	out := nats.NewMsg(DLQSubject(consumer, msg.Subject))
	out.Data = msg.Data
	for k, v := range msg.Header {
		if k == jetstream.MsgIDHeader {
			out.Header[HeaderOriginalMsgID] = v
			continue
		}
		out.Header[k] = v
	}
	out.Header.Set(HeaderReason, clip(reason, 4096))
	out.Header.Set(HeaderConsumer, consumer)
	out.Header.Set(HeaderStream, stream)
	out.Header.Set(HeaderStreamSeq, strconv.FormatUint(msg.Seq, 10))
	out.Header.Set(HeaderSubject, msg.Subject)
	out.Header.Set(HeaderDeliveries, strconv.FormatUint(msg.Deliveries, 10))
	out.Header.Set(HeaderFailedAt, time.Now().UTC().Format(time.RFC3339Nano))
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	id := fmt.Sprintf("dlq:%s:%s:%d", consumer, stream, msg.Seq)
	if key != "" {
		id += ":" + key
	}
	_, err := js.PublishMsg(pctx, out, jetstream.WithMsgID(id))
	if err != nil {
		return fmt.Errorf("publish dead letter: %w", err)
	}
	return nil
}

// clip shortens s to at most n bytes for a header or an ack reason, cutting
// at a character boundary and marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}

// RunnerDefaults is a RunnerConfig with its env tags' defaults and the given
// batch size and concurrency, for a runner built in code.
func RunnerDefaults(batchSize, concurrency int) RunnerConfig {
	c := envconfig.Defaults[RunnerConfig]()
	c.BatchSize, c.Concurrency = batchSize, concurrency
	return c
}
