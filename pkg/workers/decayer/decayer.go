// Package decayer is the scheduled job that keeps memory in shape: it brings
// interest facts up to date with the decay policy (weight now, archived below
// the floor, expired past their expiry), deletes messages and sessions beyond
// a tenant's retention, derives the usage habits of the users with new
// messages (pkg/habits), and asks for the profiles of the users whose facts
// changed to be recomputed. Facts expired for longer than FACT_PURGE_AFTER are
// deleted with their mentions, so neither table grows without bound.
//
// A run is a list of steps, each working in bounded batches that commit on
// their own. Runs are idempotent (a second run at the same time, or later in
// the same decay period, changes nothing) and serialized across replicas by a
// PostgreSQL advisory lock: a replica that finds the lock taken skips the run.
// Readers never wait for the decayer: they apply the same formula to event
// times, so what they return is exact between runs.
package decayer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"time"

	"github.com/recallhq/recall/pkg/pause"
	"github.com/recallhq/recall/pkg/queue"
	"github.com/recallhq/recall/pkg/service"
	"github.com/recallhq/recall/pkg/worker"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/recallhq/recall/pkg/attribute"
	"github.com/recallhq/recall/pkg/changefeed"
	"github.com/recallhq/recall/pkg/decay"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/store"
)

// Def is the decayer as the registry lists it: a scheduled job that reads no
// stream; `decayer -once` runs one pass for a CronJob.
var Def = worker.Def[Config, *Decayer]{
	Name: "decayer",
	Doc:  "decays, archives, expires and purges facts, applies retention, derives usage habits and prunes seen items, on a schedule",
	// The profile refresh of a user whose facts it changed, and the changes
	// it made (facts archived and expired, habits derived).
	Publishes: []string{events.ProfileTaskSubjects, events.ChangeSubjects},
	New: func(_ context.Context, cfg Config, d *worker.Deps) (*Decayer, error) {
		return New(Options{Config: cfg, Store: d.Store, Publisher: queue.NewRefresher(d.JS, cfg.Refresh.Bucket),
			Changes: changefeed.NewPublisher(d.JS), Log: d.Log, Registry: d.Registry})
	},
}

// Periodic is the schedule: a run at start, then every DECAYER_INTERVAL.
func (d *Decayer) Periodic() []service.Task { return []service.Task{d.Loop} }

// Once runs one pass (done, or skipped because another decayer held the lock).
func (d *Decayer) Once(ctx context.Context) error {
	_, err := d.RunOnce(ctx)
	return err
}

// LockKey is the advisory lock a run holds ("recalldc").
const LockKey int64 = 0x7265_6361_6c6c_6463

// Publisher publishes profile refresh tasks (queue.Refresher does).
type Publisher interface {
	Publish(ctx context.Context, tasks []events.ProfileTask) ([]queue.PublishResult, error)
}

// Step is one part of a run. Run does its work in batches, calling
// StepRun.Batch after each one (which counts it, logs progress, pauses and
// stops on cancellation) and StepRun.Add for what it did. Steps run in order;
// one failing does not stop the next (they are independent), but fails the run.
type Step struct {
	Name string
	Run  func(ctx context.Context, r *Run, s *StepRun) error
}

// Options are the decayer's dependencies.
type Options struct {
	Config Config
	Store  *store.Store
	// Publisher publishes profile refreshes; nil leaves them owed in the
	// outbox (a later run with a publisher sends them).
	Publisher Publisher
	// Changes publishes the change feed's news of what a run changed;
	// nil publishes none.
	Changes *changefeed.Publisher
	Log     *slog.Logger
	// Registry receives the metrics; nil for none.
	Registry prometheus.Registerer
	// Now is the clock a run takes its time from; nil means time.Now.
	Now func() time.Time
}

// Decayer runs the steps.
type Decayer struct {
	cfg     Config
	store   *store.Store
	policy  *decay.Policy
	rules   []store.FactDecayRule // the policy as the store applies it
	pub     Publisher
	changes *changefeed.Publisher
	log     *slog.Logger
	now     func() time.Time
	metrics *metrics
	// schemas are the attributes' keys, per tenant, habits are derived into.
	schemas *attribute.Schemas
	// Steps are run in order. New sets facts, purge, retention, habits,
	// seen and refresh; a new kind of clean-up is one more Step (before
	// refresh if it changes facts).
	Steps []Step
}

// New validates the config and returns a Decayer with the default steps.
func New(o Options) (*Decayer, error) {
	cfg := o.Config.withDefaults()
	policy, err := cfg.Decay.Policy()
	if err != nil {
		return nil, err
	}
	if cfg.PurgeAfter < 0 {
		return nil, fmt.Errorf("FACT_PURGE_AFTER: %s is negative; 0 keeps expired facts", cfg.PurgeAfter)
	}
	if cfg.Habits.Derive {
		if err := cfg.Habits.Check(); err != nil {
			return nil, err
		}
	}
	schemas, err := cfg.Attributes.Schemas()
	if err != nil {
		return nil, err
	}
	d := &Decayer{cfg: cfg, store: o.Store, policy: policy, rules: factDecayRules(policy), pub: o.Publisher, changes: o.Changes, log: o.Log, now: o.Now,
		metrics: newMetrics(o.Registry), schemas: schemas}
	if d.log == nil {
		d.log = slog.New(slog.DiscardHandler)
	}
	if d.now == nil {
		d.now = time.Now
	}
	d.Steps = []Step{
		{Name: StepFacts, Run: d.decayFacts},
		{Name: StepPurge, Run: d.purgeFacts},
		{Name: StepRetention, Run: d.retention},
		{Name: StepHabits, Run: d.deriveHabits},
		{Name: StepSeen, Run: d.pruneSeen},
		{Name: StepRefresh, Run: d.refresh},
	}
	return d, nil
}

// Policy is the decay policy the decayer applies.
func (d *Decayer) Policy() *decay.Policy { return d.policy }

// Report is what a run did.
type Report struct {
	// Skipped: another process held the lock; nothing was done.
	Skipped  bool
	At       time.Time
	Duration time.Duration
	Steps    []StepReport
}

// StepReport is what one step did.
type StepReport struct {
	Name     string
	Counts   map[string]int64
	Batches  int
	Duration time.Duration
	Err      error
}

// Count returns a step's count of an outcome (0 when the step did not run).
func (r Report) Count(step, outcome string) int64 {
	for _, s := range r.Steps {
		if s.Name == step {
			return s.Counts[outcome]
		}
	}
	return 0
}

// RunOnce runs every step once, as of the clock's time now, unless another
// process is running: then it returns a skipped report and no error. It
// returns an error when a step failed (the others still ran) or ctx ended.
func (d *Decayer) RunOnce(ctx context.Context) (Report, error) {
	start := time.Now()
	unlock, ok, err := d.store.TryAdvisoryLock(ctx, LockKey)
	if err != nil {
		d.metrics.runs.WithLabelValues("failed").Inc()
		return Report{}, err
	}
	if !ok {
		d.metrics.runs.WithLabelValues("skipped").Inc()
		d.log.Info("decay run skipped: another decayer holds the lock")
		return Report{Skipped: true}, nil
	}
	defer unlock()

	// One time for the whole run, to the microsecond PostgreSQL keeps, so
	// that every step and every batch judges by the same moment.
	r := &Run{At: d.now().UTC().Truncate(time.Microsecond), Policy: d.policy, Store: d.store, Config: d.cfg, log: d.log, metrics: d.metrics}
	rep := Report{At: r.At}
	d.log.Info("decay run started", "at", r.At, "policy", d.policy.String())
	var errs []error
	for _, step := range d.Steps {
		if ctx.Err() != nil {
			break
		}
		s := &StepRun{name: step.Name, run: r, counts: map[string]int64{}, started: time.Now()}
		s.lastLog = s.started
		err := step.Run(ctx, r, s)
		sr := StepReport{Name: step.Name, Counts: s.counts, Batches: s.batches, Duration: time.Since(s.started), Err: err}
		rep.Steps = append(rep.Steps, sr)
		d.metrics.duration.WithLabelValues(step.Name).Observe(sr.Duration.Seconds())
		attrs := []any{"step", step.Name, "batches", sr.Batches, "duration_ms", sr.Duration.Milliseconds()}
		for _, k := range slices.Sorted(maps.Keys(s.counts)) {
			attrs = append(attrs, k, s.counts[k])
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("step %s: %w", step.Name, err))
			d.log.Error("decay step failed", append(attrs, "error", err.Error())...)
			continue
		}
		d.log.Info("decay step done", attrs...)
	}
	if ctx.Err() != nil {
		errs = append(errs, ctx.Err())
	}
	rep.Duration = time.Since(start)
	d.metrics.duration.WithLabelValues("run").Observe(rep.Duration.Seconds())
	attrs := []any{"at", rep.At, "duration_ms", rep.Duration.Milliseconds()}
	for _, s := range rep.Steps {
		attrs = append(attrs, s.Name+"_batches", s.Batches)
		for _, k := range slices.Sorted(maps.Keys(s.Counts)) {
			attrs = append(attrs, k, s.Counts[k])
		}
	}
	err = errors.Join(errs...)
	d.record(rep, start, err)
	if err != nil {
		d.metrics.runs.WithLabelValues("failed").Inc()
		d.log.Error("decay run failed", append(attrs, "error", err.Error())...)
		return rep, err
	}
	d.metrics.runs.WithLabelValues("ok").Inc()
	d.metrics.lastSuccess.Set(float64(time.Now().Unix()))
	d.log.Info("decay run done", attrs...)
	return rep, nil
}

// record keeps what the run did for operators (store.DecayerRun), who read
// it through the API. Failing to keep it is logged: the run itself is done.
func (d *Decayer) record(rep Report, start time.Time, err error) {
	run := store.DecayerRun{Result: store.DecayerRunOK, At: rep.At, StartedAt: start.UTC(), FinishedAt: start.Add(rep.Duration).UTC()}
	if err != nil {
		run.Result, run.Error = store.DecayerRunFailed, err.Error()
	}
	for _, s := range rep.Steps {
		st := store.DecayerStep{Name: s.Name, Batches: s.Batches, DurationMS: s.Duration.Milliseconds(), Counts: s.Counts}
		if s.Err != nil {
			st.Error = s.Err.Error()
		}
		run.Steps = append(run.Steps, st)
	}
	// The run's context may have ended (a shutdown mid-run): the record is
	// still written, briefly.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if serr := d.store.SaveDecayerRun(ctx, run); serr != nil {
		d.log.Warn("decay run not recorded", "error", serr.Error())
	}
}

// Loop runs at once and then every Interval (after a failure, RetryAfter if
// shorter) until ctx ends. A failed run is logged and retried; only the end
// of ctx ends the loop. It is a service.Task.
func (d *Decayer) Loop(ctx context.Context) error {
	for {
		_, err := d.RunOnce(ctx)
		if ctx.Err() != nil {
			return nil
		}
		wait := d.cfg.Interval
		if err != nil {
			wait = min(wait, d.cfg.RetryAfter)
		}
		d.log.Info("next decay run", "in", wait.String())
		if !pause.For(ctx, wait) {
			return nil
		}
	}
}

// Run is one run in progress, as the steps see it.
type Run struct {
	// At is the run's time (UTC, microseconds): every rule is judged as of it.
	At     time.Time
	Policy *decay.Policy
	Store  *store.Store
	Config Config

	log     *slog.Logger
	metrics *metrics
}

// StepRun is a step's progress within a run.
type StepRun struct {
	name    string
	run     *Run
	counts  map[string]int64
	batches int
	started time.Time
	lastLog time.Time
}

// progressEvery is how often a long step logs its progress.
const progressEvery = 10 * time.Second

// Add counts n rows of an outcome (decayed, archived, messages_deleted...).
func (s *StepRun) Add(outcome string, n int64) {
	if n == 0 {
		return
	}
	s.counts[outcome] += n
	s.run.metrics.rows.WithLabelValues(s.name, outcome).Add(float64(n))
}

// Batch counts a finished batch, logs progress now and then, and pauses for
// BatchPause. It returns ctx's error once ctx has ended.
func (s *StepRun) Batch(ctx context.Context, progress ...any) error {
	s.batches++
	s.run.metrics.batches.WithLabelValues(s.name).Inc()
	if now := time.Now(); now.Sub(s.lastLog) >= progressEvery {
		s.lastLog = now
		attrs := append([]any{"step", s.name, "batches", s.batches, "elapsed_ms", now.Sub(s.started).Milliseconds()}, progress...)
		for _, k := range slices.Sorted(maps.Keys(s.counts)) {
			attrs = append(attrs, k, s.counts[k])
		}
		s.run.log.Info("decay step progress", attrs...)
	}
	pause.For(ctx, s.run.Config.BatchPause)
	return ctx.Err()
}
