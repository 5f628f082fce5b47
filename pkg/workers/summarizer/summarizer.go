// Package summarizer is the worker that keeps session summaries: it consumes
// summarize requests (recall.tasks.summarize.<tenant>.<user>.<session> on
// RECALL_TASKS) on its own durable consumer, reads the session's oldest
// messages that no summary has read (at most SUMMARY_MAX_MESSAGES) together
// with its current summary, writes the next version with a language model or
// offline, and records the key topics as the user's interest facts. Every
// message is read by some version, whatever order it arrived in: a backlog
// is summarized in several versions, oldest first, each asking for the next
// with a request of its own, and a message that arrives late is read by the
// next version. It also runs the idle sweep that asks for a final summary of
// sessions that went quiet.
//
// Requests are published by three triggers: the ingest worker, when a batch
// takes a session past the threshold (summarize.Policy); the API, on
// POST /v1/sessions/{id}/summarize; and the sweep; and the summarizer itself
// asks for the rest of a backlog. They are idempotent at every step: a
// request's dedupe id names the session and the range it asks for, a
// request whose range a summary already covers is acked without work, and
// versions are keyed by the point they start from and written only over
// messages still unread, so two summarizers racing on a session cannot both
// write.
//
// The writers themselves (extractive, or a language model) are package
// summarize; this package decides when they run and stores what they write.
package summarizer

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/recallhq/recall/pkg/attribute"
	"github.com/recallhq/recall/pkg/attribute/infer"
	"github.com/recallhq/recall/pkg/changefeed"
	"github.com/recallhq/recall/pkg/embed"
	"github.com/recallhq/recall/pkg/queue"
	"github.com/recallhq/recall/pkg/record"
	"github.com/recallhq/recall/pkg/search"
	"github.com/recallhq/recall/pkg/service"
	"github.com/recallhq/recall/pkg/worker"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/time/rate"

	"github.com/recallhq/recall/pkg/contract"
	"github.com/recallhq/recall/pkg/decay"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/extract"
	"github.com/recallhq/recall/pkg/llm"
	"github.com/recallhq/recall/pkg/store"
	"github.com/recallhq/recall/pkg/summarize"
)

// Def is the summarizer as the registry lists it.
var Def = worker.Def[Config, *Worker]{
	Name:    "summarizer",
	Doc:     "writes session summaries on request, and sweeps for sessions gone idle",
	Binding: queue.Binding{Durable: "summarizer", Stream: queue.TasksStream, Filters: []string{events.SummarizeTaskSubjects}},
	// The profile refresh of a user whose facts its summaries changed; the
	// request for the rest of a long backlog, and the idle sweep's; the
	// changes its versions made (summaries, facts, attributes).
	Publishes: []string{events.ProfileTaskSubjects, events.SummarizeTaskSubjects, events.ChangeSubjects},
	// One summary is a few database round trips and, with a model, a slow
	// request; several run at once. Eight drained a backfill of the dev data
	// (make check-data) fastest with every worker in one process on two
	// cores: 4 left the summarizer last by half a minute, 16 slowed the turn
	// workers more than it gained.
	BatchSize: 16, Concurrency: 8,
	Queue: func(c *Config) *worker.Queue { return &c.Queue },
	New:   New,
}

// Config is the summarizer's part of the config.
type Config struct {
	Queue worker.Queue `envPrefix:"SUMMARIZER_"`
	// Summary bounds what is written: SUMMARY_MAX_CHARS, SUMMARY_MAX_TOPICS.
	Summary summarize.Options
	// MaxMessages is how many unread messages one version reads at most, the
	// oldest first. A longer backlog is summarized by several versions, one
	// request each, so one handler call stays one summary's work (one model
	// request).
	MaxMessages int `env:"SUMMARY_MAX_MESSAGES" envDefault:"20"`
	// IdleAfter is how long a session must have had no message (event time
	// of its newest message against the sweeper's clock) before the sweep asks
	// for its final summary.
	IdleAfter time.Duration `env:"SUMMARY_IDLE_AFTER" envDefault:"30m"`
	// SweepInterval is how often the idle sweep runs; 0 turns it off.
	SweepInterval time.Duration `env:"SUMMARY_SWEEP_INTERVAL" envDefault:"1m"`
	// SweepMax bounds the sessions one sweep asks for; the rest wait for the
	// next sweep.
	SweepMax int `env:"SUMMARY_SWEEP_MAX" envDefault:"10000"`
	// LLM, when LLM_MODEL is set, writes the summaries; otherwise they are
	// extractive.
	LLM llm.Config
	// LLMTenantRate caps each tenant's summary requests to the model (with
	// LLM_MODEL set), per minute, in bursts of ten seconds' worth (0: no
	// cap); LLMTenantWait is how long a summary may wait for its tenant's
	// turn before it is written offline instead.
	LLMTenantRate float64       `env:"SUMMARIZER_LLM_TENANT_RATE" envDefault:"60"`
	LLMTenantWait time.Duration `env:"SUMMARIZER_LLM_TENANT_WAIT" envDefault:"10s"`
	// LLMFallback writes the extractive summary when the model has failed on
	// a request's last delivery (or refuses the request outright), instead of
	// dead-lettering it. Earlier failures are retried by redelivery.
	LLMFallback bool `env:"SUMMARIZER_LLM_FALLBACK" envDefault:"true"`
	// Decay is the facts' lifecycle policy, shared with the extractor: key
	// topics become facts that expire by their type's TTL (FACT_TTL,
	// FACT_TTL_BY_TYPE).
	Decay decay.Config
	// Refresh debounces the profile refreshes asked for the users whose key
	// topics were recorded.
	Refresh queue.RefreshConfig
	// Embed is the embedder summaries are indexed for search with (EMBED_*):
	// the indexer's.
	Embed embed.Config
	// Infer, with a model configured (LLM_MODEL), asks it once per summary
	// version what the version's messages say about the user (their
	// attributes: pkg/attribute/infer), with the user's current values
	// shown, and stores the operations it returns, with their evidence, as
	// values of source inferred in the version's transaction. It is one
	// more request per version, within the same concurrency cap and the
	// tenant's rate; a failure leaves the version without inferences.
	// Formerly PROFILE_INFER, still read while this is unset (deprecated:
	// it goes in the next minor release).
	Infer bool `env:"ATTRIBUTE_INFER" envOld:"PROFILE_INFER" envDefault:"true"`
	// InferMinConfidence drops the model's operations that are less sure.
	// Formerly PROFILE_INFER_MIN_CONFIDENCE, still read while this is unset
	// (deprecated: it goes in the next minor release).
	InferMinConfidence float64 `env:"ATTRIBUTE_INFER_MIN_CONFIDENCE" envOld:"PROFILE_INFER_MIN_CONFIDENCE" envDefault:"0.7"`
	// Attributes are the attributes' schemas (ATTRIBUTE_SCHEMA_FILE).
	Attributes attribute.Config
}

// ttlFor is the lifetime of a fact of the given type, by the shared policy.
func (c Config) ttlFor(typ string) time.Duration { return c.Decay.TTLFor(typ) }

// Outcomes of a request.
const (
	// OutcomeSummarized: a new version was written.
	OutcomeSummarized = "summarized"
	// OutcomeCovered: the session's summary already reached the request's range.
	OutcomeCovered = "covered"
	// OutcomeEmpty: the new messages had no text; the range was marked covered.
	OutcomeEmpty = "empty"
	// OutcomeMissing: the session is gone (deleted).
	OutcomeMissing = "missing"
)

// Worker writes session summaries.
type Worker struct {
	cfg        Config
	store      *store.Store
	extractive *summarize.Extractive
	llm        *summarize.LLM
	client     *llm.Client
	limits     events.Limits
	log        *slog.Logger
	metrics    *metrics
	limiter    *tenantLimiter
	pub        *queue.Publisher
	refresher  *queue.Refresher
	changes    *changefeed.Publisher
	index      *search.Indexer
	infer      *infer.Inferrer
	schemas    *attribute.Schemas
	now        func() time.Time
}

type metrics struct {
	requests  *prometheus.CounterVec
	summaries *prometheus.CounterVec
	fallbacks *prometheus.CounterVec
	swept     prometheus.Counter
	inferred  *prometheus.CounterVec
	inferOps  *prometheus.CounterVec
}

// New builds the rules (key topics and the offline summaries come from them)
// and, when LLM_MODEL is set, the model client that writes the summaries,
// and returns the worker. The sweep's requests and the profile refreshes are
// published on d.JS.
func New(_ context.Context, cfg Config, d *worker.Deps) (*Worker, error) {
	if cfg.MaxMessages < 1 {
		return nil, fmt.Errorf("SUMMARY_MAX_MESSAGES is %d: a version must read at least one message", cfg.MaxMessages)
	}
	rules, err := extract.NewRules(extract.RulesOptions{})
	if err != nil {
		return nil, fmt.Errorf("rules: %w", err)
	}
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "recall", Subsystem: "summarizer", Name: "requests_total",
			Help: "Summarize requests handled, by outcome: summarized, covered (already summarized), empty (no text), missing (session gone).",
		}, []string{"outcome"}),
		summaries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "recall", Subsystem: "summarizer", Name: "summaries_total",
			Help: "Summaries written, by writer (llm, extractive) and the reason they were asked for (threshold, request, idle).",
		}, []string{"writer", "reason"}),
		fallbacks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "recall", Subsystem: "summarizer", Name: "llm_skipped_total",
			Help: "Summaries written offline although a model is configured, by reason: tenant_rate (the tenant's cap), llm_failed (the model failed on the last delivery).",
		}, []string{"reason"}),
		swept: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: "recall", Subsystem: "summarizer", Name: "sweep_requests_total",
			Help: "Final summaries asked for by the idle sweep.",
		}),
	}
	m.inferred = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "recall", Subsystem: "summarizer", Name: "profile_requests_total",
		Help: "Requests to the model for what a summary version's messages say about the user (ATTRIBUTE_INFER), by outcome: asked, failed, tenant_rate (skipped by the tenant's cap), no_user_turn.",
	}, []string{"outcome"})
	m.inferOps = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "recall", Subsystem: "summarizer", Name: "profile_operations_total",
		Help: "The model's profile operations, by outcome: recorded, or the reason one was dropped (unknown_key, unknown_op, no_evidence, low_confidence, bad_value).",
	}, []string{"outcome"})
	if d.Registry != nil {
		d.Registry.MustRegister(m.requests, m.summaries, m.fallbacks, m.swept, m.inferred, m.inferOps)
	}
	schemas, err := cfg.Attributes.Schemas()
	if err != nil {
		return nil, err
	}
	w := &Worker{cfg: cfg, store: d.Store, extractive: summarize.NewExtractive(rules, cfg.Summary), limits: d.Limits, log: d.Log,
		metrics: m, limiter: newTenantLimiter(cfg.LLMTenantRate), now: time.Now}
	if cfg.LLM.Enabled() {
		client, err := llm.New("summarize", cfg.LLM, d.Registry, d.Log)
		if err != nil {
			return nil, err
		}
		w.client = client
		w.llm = summarize.NewLLM(client, rules, cfg.Summary)
		if cfg.Infer {
			w.infer = infer.New(client, cfg.InferMinConfidence)
		}
	}
	w.schemas = schemas
	w.changes = changefeed.NewPublisher(d.JS)
	if d.JS != nil {
		w.pub = queue.NewPublisher(d.JS)
		w.refresher = queue.NewRefresher(d.JS, cfg.Refresh.Bucket)
	}
	an := search.SharedAnalyzer()
	emb, err := d.Embedder(cfg.Embed)
	if err != nil {
		return nil, err
	}
	w.index = search.NewIndexer(d.Store, an, emb)
	return w, nil
}

// Periodic is the idle sweep, beside the runner.
func (w *Worker) Periodic() []service.Task { return []service.Task{w.RunSweeper} }

// SetClock replaces the sweep's clock, for tests.
func (w *Worker) SetClock(now func() time.Time) { w.now = now }

// request is the work one batch asks for one session.
type request struct {
	tenantID, userID, sessionID string
	through                     int64
	reason                      string
	last                        bool // the last delivery of one of its messages
	again                       bool // one of its messages was delivered before
	idx                         []int
}

// Handle is the batch handler. Invalid requests fail permanently. The requests
// of one session are served together, by one summary that reaches the
// furthest of them.
func (w *Worker) Handle(ctx context.Context, msgs []queue.Message) []error {
	errs := make([]error, len(msgs))
	var order []*request
	bySession := map[[2]string]*request{}
	for i, m := range msgs {
		r, err := queue.SummarizeEnvelope.Read(m, w.limits)
		if err != nil {
			errs[i] = err
			continue
		}
		k := [2]string{r.TenantID, r.SessionID}
		g := bySession[k]
		if g == nil {
			g = &request{tenantID: r.TenantID, userID: r.UserID, sessionID: r.SessionID, reason: r.Reason}
			bySession[k] = g
			order = append(order, g)
		}
		if r.ThroughCount > g.through {
			g.through, g.reason = r.ThroughCount, r.Reason
		}
		g.last = g.last || w.cfg.Queue.Consumer.MaxDeliver > 0 && m.Deliveries >= uint64(w.cfg.Queue.Consumer.MaxDeliver)
		g.again = g.again || m.Deliveries > 1
		g.idx = append(g.idx, i)
	}
	var refresh []events.ProfileTask
	for _, g := range order {
		_, err := w.summarize(ctx, g.tenantID, g.sessionID, g.through, g.reason, g.last, g.again, &refresh)
		for _, i := range g.idx {
			errs[i] = err
		}
	}
	w.refresh(ctx, refresh)
	return errs
}

// refresh asks for the profiles of the users whose facts the batch's
// summaries changed, in one publish for the whole batch: each is
// committed, and a user's profile catches up with their next change if the
// publish fails.
func (w *Worker) refresh(ctx context.Context, tasks []events.ProfileTask) {
	if len(tasks) == 0 || w.refresher == nil {
		return
	}
	// One task a user, at the newest change.
	slices.SortStableFunc(tasks, func(a, b events.ProfileTask) int {
		return cmp.Or(cmp.Compare(a.TenantID, b.TenantID), cmp.Compare(a.UserID, b.UserID), b.RequestedAt.Compare(a.RequestedAt))
	})
	tasks = slices.CompactFunc(tasks, func(a, b events.ProfileTask) bool { return a.TenantID == b.TenantID && a.UserID == b.UserID })
	if _, err := w.refresher.Publish(ctx, tasks); err != nil {
		w.log.Warn("publish profile refresh", "tasks", len(tasks), "error", err.Error())
	}
}

// Summarize brings a session's summary up to at least through non-system
// messages: it writes the next version from the oldest messages no version
// has read (at most MaxMessages), or does nothing when the summary reaches
// through already. When that version leaves messages unread (a backlog), it
// publishes the request for the rest, up to what the session held when it
// was read: its dedupe id names the range left, so a redelivery asks once.
// last says that a failing model will not get another chance at this
// request (see Config.LLMFallback). It returns the outcome.
func (w *Worker) Summarize(ctx context.Context, tenantID, sessionID string, through int64, reason string, last bool) (string, error) {
	var refresh []events.ProfileTask
	out, err := w.summarize(ctx, tenantID, sessionID, through, reason, last, false, &refresh)
	w.refresh(ctx, refresh)
	return out, err
}

// summarize is Summarize, appending the profile refresh its version asks
// for to refresh instead of publishing it, so that a batch publishes once.
// again (a request delivered before) tells the change feed of the current
// version again first: the request's first handling may have written it and
// failed before it told (the stream drops what it has).
func (w *Worker) summarize(ctx context.Context, tenantID, sessionID string, through int64, reason string, last, again bool, refresh *[]events.ProfileTask) (string, error) {
	t := w.store.Tenant(tenantID)
	in, err := t.SummaryInput(ctx, sessionID, w.cfg.MaxMessages)
	if err == nil && again && in.Previous != nil {
		err = w.retell(ctx, tenantID, *in.Previous)
	}
	switch {
	case errors.Is(err, store.ErrNotFound):
		return w.outcome(OutcomeMissing), nil
	case err != nil:
		return "", err
	case in.State.Summarized >= through || len(in.Messages) == 0:
		return w.outcome(OutcomeCovered), nil
	}
	out, err := w.summarizeNext(ctx, tenantID, sessionID, in, through, reason, last, refresh)
	if err != nil || out != OutcomeSummarized && out != OutcomeEmpty {
		return out, err
	}
	// A backlog (the version read as many as it may, and the session held
	// more): what is left goes on to the end of what the session held when
	// this version was read, so nothing is left behind below the threshold
	// (the request's own range may end sooner: an ingest batch asks for what
	// it has seen committed).
	st := in.State
	read, rest := st.Summarized+int64(len(in.Messages)), max(through, st.Counted)
	if len(in.Messages) == w.cfg.MaxMessages && read < rest {
		req := events.SummarizeRequest{TenantID: tenantID, UserID: st.UserID, SessionID: sessionID, Reason: reason,
			FromCount: read, ThroughCount: rest, RequestedAt: st.LastMessageAt}
		if err := w.askNext(ctx, req); err != nil {
			// The version is committed; a redelivery writes the next one and
			// asks again.
			return "", fmt.Errorf("ask for the rest of %s: %w", sessionID, err)
		}
	}
	return out, nil
}

// askNext publishes the request for the rest of a backlog, or serves it at
// once without JetStream (tools).
func (w *Worker) askNext(ctx context.Context, req events.SummarizeRequest) error {
	if w.pub == nil {
		_, err := w.Summarize(ctx, req.TenantID, req.SessionID, req.ThroughCount, req.Reason, false)
		return err
	}
	_, err := w.pub.PublishSummarizeRequests(ctx, []events.SummarizeRequest{req})
	return err
}

// summarizeNext writes the version that reads in's messages (or, when none
// has text, marks them read without one) and returns the outcome; through
// is the request's, for when another summarizer got there first.
func (w *Worker) summarizeNext(ctx context.Context, tenantID, sessionID string, in store.SummaryInput, through int64, reason string, last bool, refresh *[]events.ProfileTask) (string, error) {
	st := in.State
	read := in.EventIDs()
	own, turns := ownTurns(in)
	if len(turns) == 0 {
		// Nothing to say (no text: blanks, tool results): account for the
		// messages without a new version, so the triggers stop asking.
		moved, err := w.store.Tenant(tenantID).AdvanceSummarized(ctx, sessionID, st.Summarized, read)
		if err != nil {
			return "", err
		}
		if !moved {
			return w.conflict(ctx, tenantID, sessionID, through)
		}
		return w.outcome(OutcomeEmpty), nil
	}
	sin := summarize.Input{Turns: turns}
	version := 1
	first, newest := in.Messages[0], in.Messages[len(in.Messages)-1]
	coversFrom, coversTo := first.OccurredAt, newest.OccurredAt
	if p := in.Previous; p != nil {
		sin.Previous = &summarize.Previous{Text: p.Text, KeyTopics: p.KeyTopics}
		version = p.Version + 1
		if p.CoversFrom.Before(coversFrom) {
			coversFrom = p.CoversFrom
		}
		if p.CoversTo.After(coversTo) {
			coversTo = p.CoversTo
		}
	}
	sum, writer, err := w.write(ctx, tenantID, sin, last)
	if err != nil {
		return "", err
	}
	eventID := store.SummaryEventID(sessionID, st.Summarized, st.Summarized+int64(len(read)))
	var inferred []store.AssertionRow
	if writer == "llm" && w.infer != nil {
		if inferred, err = w.inferProfile(ctx, tenantID, st.UserID, sessionID, eventID, own); err != nil {
			return "", err
		}
	}
	row := record.Summary{
		SessionID: sessionID, UserID: st.UserID, Version: version, FromCount: st.Summarized, ThroughCount: st.Summarized + int64(len(read)),
		FirstEventID: first.EventID, FirstAt: first.OccurredAt, LastEventID: newest.EventID, LastAt: newest.OccurredAt,
		CoversFrom: coversFrom, CoversTo: coversTo,
		MessagesRead: len(turns), Text: sum.Text, KeyTopics: sum.TopicNames(), Model: sum.Model, Reason: reason,
	}
	mentions := w.topicMentions(tenantID, eventID, row, sum)
	// The summary becomes searchable in the same transaction; an embedder
	// that fails leaves it findable by its terms.
	entry := []store.SearchEntry{search.SummaryEntry(tenantID, "", row)}
	if err := w.index.Prepare(ctx, entry); err != nil && !errors.Is(err, search.ErrEmbed) {
		return "", err
	}
	wrote, err := w.store.WriteSummary(ctx, store.SummaryWrite{TenantID: tenantID, Summary: row, Mentions: mentions, Search: &entry[0], Read: read,
		Assertions: inferred})
	switch {
	case errors.Is(err, store.ErrNotFound):
		return w.outcome(OutcomeMissing), nil
	case errors.Is(err, store.ErrSummaryConflict):
		return w.conflict(ctx, tenantID, sessionID, through)
	case err != nil:
		return "", err
	}
	// The version is committed: when telling of it fails, the request is
	// retried, and its redelivery tells again (summarize's again).
	if err := w.tell(ctx, tenantID, wrote.Summary, wrote.Mentions.Created, wrote.Assertions); err != nil {
		return "", err
	}
	w.metrics.summaries.WithLabelValues(writer, reason).Inc()
	w.log.Debug("summary written", "tenant_id", tenantID, "session_id", sessionID, "version", version,
		"from", row.FromCount, "through", row.ThroughCount, "model", row.Model, "topics", len(row.KeyTopics))
	if len(mentions) > 0 {
		*refresh = append(*refresh, events.ProfileTask{TenantID: tenantID, UserID: st.UserID, RequestedAt: newest.OccurredAt})
	}
	return w.outcome(OutcomeSummarized), nil
}

// ownTurns are the messages of in that the session's own user stored, and
// those with text as the summary writers read them: a turn another user
// stored in it before a session had one owner (store.SessionGuest) is read,
// so that the counts move on, but never summarized into the owner's memory.
func ownTurns(in store.SummaryInput) ([]record.Message, []summarize.Turn) {
	own := make([]record.Message, 0, len(in.Messages))
	for _, m := range in.Messages {
		if m.UserID == in.State.UserID {
			own = append(own, m)
		}
	}
	turns := make([]summarize.Turn, len(own))
	for i, m := range own {
		turns[i] = summarize.Turn{Role: m.Role, Text: m.Content}
	}
	return own, summarize.Usable(turns)
}

// topicMentions are the interest facts a version's key topics record: the
// topics its turns mentioned (not those carried over), at the version's
// newest message, each expiring by its type's TTL.
func (w *Worker) topicMentions(tenantID, eventID string, row record.Summary, sum summarize.Summary) []store.Mention {
	var mentions []store.Mention
	for _, tp := range sum.Topics {
		if !tp.Mentioned {
			continue
		}
		mentions = append(mentions, store.Mention{
			TenantID: tenantID, EventID: eventID, UserID: row.UserID, SessionID: row.SessionID,
			Type: string(tp.Kind), Value: tp.Value, Display: tp.Display,
			OccurredAt: row.LastAt, ExpiresAt: row.LastAt.Add(w.cfg.ttlFor(string(tp.Kind))),
			Source: "summary",
		})
	}
	return mentions
}

// tell publishes the change feed's news of a version stored: the version
// (summary.updated), the facts its key topics mentioned first (fact.new)
// and what its assertions changed in the user's attributes.
func (w *Worker) tell(ctx context.Context, tenantID string, sum record.Summary, created []store.FactRow, assertions []store.AssertionRow) error {
	cs := []contract.Change{changefeed.SummaryUpdated(tenantID, sum)}
	cs = append(cs, changefeed.FactsNew(created)...)
	attrs, err := changefeed.Attributes(ctx, w.store, w.schemas, assertions)
	if err != nil {
		return err
	}
	cs = append(cs, attrs...)
	changefeed.Sort(cs)
	if err := w.changes.Publish(ctx, cs); err != nil {
		return fmt.Errorf("summary %s version %d: %w", sum.SessionID, sum.Version, err)
	}
	return nil
}

// retell tells the change feed of a stored version again, as tell did,
// from what is stored: the facts and the assertions stored under its event
// id.
func (w *Worker) retell(ctx context.Context, tenantID string, sum record.Summary) error {
	t := w.store.Tenant(tenantID)
	event := store.SummaryEventID(sum.SessionID, sum.FromCount, sum.ThroughCount)
	created, err := t.CreatedBy(ctx, sum.UserID, event)
	if err != nil {
		return err
	}
	as, err := t.Assertions(ctx, sum.UserID)
	if err != nil {
		return err
	}
	var rows []store.AssertionRow
	for _, a := range as {
		if a.EventID == event {
			rows = append(rows, store.AssertionRow{TenantID: tenantID, UserID: sum.UserID, Assertion: a})
		}
	}
	return w.tell(ctx, tenantID, sum, created, rows)
}

// inferProfile asks the model what a version's messages say about the
// user, showing it the user's current values, and returns the assertions
// to store with the version (under its event id). The model's failure, or
// the tenant's rate, leaves the version without them: the summary is not
// held back for its attributes. Only the end of ctx is an error.
func (w *Worker) inferProfile(ctx context.Context, tenantID, userID, sessionID, eventID string, msgs []record.Message) ([]store.AssertionRow, error) {
	turns := make([]infer.Turn, 0, len(msgs))
	for _, m := range msgs {
		if m.Role == "user" || m.Role == "assistant" {
			turns = append(turns, infer.Turn{EventID: m.EventID, Role: m.Role, Text: m.Content, At: m.OccurredAt})
		}
	}
	if !slices.ContainsFunc(turns, func(t infer.Turn) bool { return t.Role == "user" && strings.TrimSpace(t.Text) != "" }) {
		w.metrics.inferred.WithLabelValues("no_user_turn").Inc()
		return nil, nil
	}
	if !w.limiter.wait(ctx, tenantID, w.cfg.LLMTenantWait) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		w.metrics.inferred.WithLabelValues("tenant_rate").Inc()
		return nil, nil
	}
	schema := w.schemas.For(tenantID)
	as, err := w.store.Tenant(tenantID).Assertions(ctx, userID)
	if err != nil {
		return nil, err
	}
	res, err := w.infer.Infer(ctx, schema, infer.Input{SessionID: sessionID, BatchID: eventID, Turns: turns,
		Current: attribute.Resolve(schema, as).Current})
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		w.metrics.inferred.WithLabelValues("failed").Inc()
		w.log.Warn("profile inference failed; the summary is written without it", "tenant_id", tenantID, "session_id", sessionID,
			"reason", llm.Reason(err), "error", err.Error())
		return nil, nil
	}
	w.metrics.inferred.WithLabelValues("asked").Inc()
	for reason, n := range res.Dropped {
		w.metrics.inferOps.WithLabelValues(reason).Add(float64(n))
	}
	out := make([]store.AssertionRow, len(res.Assertions))
	for i, a := range res.Assertions {
		out[i] = store.AssertionRow{TenantID: tenantID, UserID: userID, Assertion: a}
	}
	w.metrics.inferOps.WithLabelValues("recorded").Add(float64(len(out)))
	return out, nil
}

// conflict is the outcome when another summarizer moved the session's range
// first: covered when it reached through, otherwise an error, so whatever is
// left is checked again on redelivery.
func (w *Worker) conflict(ctx context.Context, tenantID, sessionID string, through int64) (string, error) {
	now, err := w.store.Tenant(tenantID).SummaryState(ctx, sessionID)
	if err == nil && now.Summarized >= through {
		return w.outcome(OutcomeCovered), nil
	}
	return "", fmt.Errorf("summarize %s: %w", sessionID, store.ErrSummaryConflict)
}

func (w *Worker) outcome(o string) string {
	w.metrics.requests.WithLabelValues(o).Inc()
	return o
}

// write asks the model when one is configured and the tenant is within its
// rate, and otherwise (or when the model has failed on the last chance)
// writes the extractive summary. A model failure with chances left is
// returned, so the request is retried by redelivery.
func (w *Worker) write(ctx context.Context, tenantID string, in summarize.Input, last bool) (summarize.Summary, string, error) {
	if w.llm == nil {
		s, err := w.extractive.Summarize(ctx, in)
		return s, "extractive", err
	}
	if !w.limiter.wait(ctx, tenantID, w.cfg.LLMTenantWait) {
		if err := ctx.Err(); err != nil {
			return summarize.Summary{}, "", err
		}
		w.metrics.fallbacks.WithLabelValues("tenant_rate").Inc()
		s, err := w.extractive.Summarize(ctx, in)
		return s, "extractive", err
	}
	s, err := w.llm.Summarize(ctx, in)
	if err == nil {
		return s, "llm", nil
	}
	if ctx.Err() != nil {
		return summarize.Summary{}, "", err
	}
	reason := llm.Reason(err)
	if w.cfg.LLMFallback && (last || reason == llm.ReasonRejected) {
		w.client.NoteFallback(reason, err)
		w.metrics.fallbacks.WithLabelValues("llm_failed").Inc()
		s, err := w.extractive.Summarize(ctx, in)
		return s, "extractive", err
	}
	if reason == llm.ReasonRejected {
		return summarize.Summary{}, "", queue.Permanent(fmt.Errorf("llm summary: %w", err))
	}
	return summarize.Summary{}, "", fmt.Errorf("llm summary (retried on redelivery): %w", err)
}

// tenantLimiter holds one token bucket per tenant.
type tenantLimiter struct {
	perMinute float64
	mu        sync.Mutex
	byTenant  map[string]*rate.Limiter
}

func newTenantLimiter(perMinute float64) *tenantLimiter {
	return &tenantLimiter{perMinute: perMinute, byTenant: map[string]*rate.Limiter{}}
}

// wait takes a token of the tenant's bucket, waiting up to maxWait for it;
// it reports false, taking nothing, when the wait would be longer (or ctx ended).
func (l *tenantLimiter) wait(ctx context.Context, tenantID string, maxWait time.Duration) bool {
	if l.perMinute <= 0 {
		return true
	}
	l.mu.Lock()
	lim := l.byTenant[tenantID]
	if lim == nil {
		// Bursts of up to ten seconds' worth.
		lim = rate.NewLimiter(rate.Limit(l.perMinute/60), max(1, int(math.Ceil(l.perMinute/6))))
		l.byTenant[tenantID] = lim
	}
	l.mu.Unlock()
	r := lim.Reserve()
	d := r.Delay()
	if d > maxWait {
		r.Cancel()
		return false
	}
	if d <= 0 {
		return true
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		r.Cancel()
		return false
	}
}

// Sweep asks for the final summary of every session whose newest message is
// older than IdleAfter (by the worker's clock) and that has messages no
// summary accounts for, at most SweepMax of them, oldest first. With several
// replicas, one sweeps at a time (an advisory lock); the others return at
// once. The requests' dedupe ids make a repeat harmless. It returns how many
// sessions it asked for.
func (w *Worker) Sweep(ctx context.Context) (int, error) {
	if w.pub == nil {
		return 0, errors.New("summarizer: sweep needs JetStream")
	}
	before := w.now().Add(-w.cfg.IdleAfter)
	n, swept, err := w.store.SweepIdleSessions(ctx, before, 500, w.cfg.SweepMax, func(page []store.IdleSession) error {
		reqs := make([]events.SummarizeRequest, len(page))
		for i, s := range page {
			reqs[i] = events.SummarizeRequest{TenantID: s.TenantID, UserID: s.UserID, SessionID: s.SessionID,
				Reason: events.SummarizeIdle, FromCount: s.Summarized, ThroughCount: s.Counted, RequestedAt: s.LastMessageAt}
		}
		if _, err := w.pub.PublishSummarizeRequests(ctx, reqs); err != nil {
			return err
		}
		w.metrics.swept.Add(float64(len(page)))
		return nil
	})
	if err != nil {
		return n, err
	}
	if swept && n > 0 {
		w.log.Info("idle sweep", "sessions", n, "idle_before", before.UTC().Format(time.RFC3339))
	}
	return n, nil
}

// RunSweeper sweeps every SweepInterval until ctx ends (never when the
// interval is 0). A failed sweep is logged and tried again at the next tick.
func (w *Worker) RunSweeper(ctx context.Context) error {
	if w.cfg.SweepInterval <= 0 {
		<-ctx.Done()
		return nil
	}
	t := time.NewTicker(w.cfg.SweepInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			if _, err := w.Sweep(ctx); err != nil && ctx.Err() == nil {
				w.log.Warn("idle sweep failed", "error", err.Error())
			}
		}
	}
}
