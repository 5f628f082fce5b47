// Package interests is the worker that keeps each user's interest vector,
// registered as "profiler" (its binary cmd/profiler, its durable consumer, NATS
// user and metrics keep that name); the vector arithmetic is package embed's.
// On a refresh task it reads the user's shelf (with the catalog's embeddings)
// and active interest facts, and stores the normalised weighted sum with what
// went into it.
//
// Tasks are debounced twice. Publishers fold the tasks of one user within a
// bucket of publish time into one stored task (eventmsg.ProfileTask), and
// this worker holds such a task until its bucket has closed, so that the
// changes behind the folded tasks are committed before it reads. Then a task
// whose changes and event time the stored profile already covers is acked
// without work, so that a backlog of tasks for one user costs one recompute.
package interests

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"time"

	"github.com/recallhq/recall/pkg/pause"
	"github.com/recallhq/recall/pkg/queue"
	"github.com/recallhq/recall/pkg/record"
	"github.com/recallhq/recall/pkg/worker"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/recallhq/recall/pkg/assemble"
	"github.com/recallhq/recall/pkg/decay"
	"github.com/recallhq/recall/pkg/embed"
	"github.com/recallhq/recall/pkg/eventmsg"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/store"
)

// Def is the profiler as the registry lists it.
var Def = worker.Def[Config, *Worker]{
	Name:    "profiler",
	Doc:     "recomputes a user's interest vector from their shelf and facts on each refresh task",
	Binding: queue.Binding{Durable: "profiler", Stream: queue.TasksStream, Filters: []string{events.ProfileTaskSubjects}},
	// Tasks of one user in a batch are served by one recompute, so batches are
	// large; several run at once because a batch may be held for the debounce
	// bucket.
	BatchSize: 200, Concurrency: 4,
	Queue: func(c *Config) *worker.Queue { return &c.Queue },
	New:   New,
}

// Config is the profiler's part of the config.
type Config struct {
	Queue worker.Queue `envPrefix:"PROFILER_"`
	// MaxFacts bounds the facts read per user, newest mention first; older
	// ones have decayed the most and count the least.
	MaxFacts int `env:"PROFILER_MAX_FACTS" envDefault:"500"`
	// DebounceGrace is added to a task's debounce bucket end (and to its
	// publish time) before the inputs are read: room for clock skew between
	// the publishers, the NATS server and the profiler.
	DebounceGrace time.Duration `env:"PROFILER_DEBOUNCE_GRACE" envDefault:"1s"`
	// MaxHold bounds how long a task is held, whatever its header says.
	MaxHold time.Duration `env:"PROFILER_MAX_HOLD" envDefault:"30s"`
	// Decay is the facts' decay policy, the decayer's: facts count in the
	// vector by their weight as of the profile's time.
	Decay decay.Config
	// Embed is the embedder facts are embedded with (EMBED_*): the catalog
	// worker's, since shelf items' vectors are summed with them.
	Embed embed.Config
}

// Outcomes of a refresh.
const (
	// Computed: a new profile was stored.
	Computed = "computed"
	// Skipped: the stored profile already covered the task.
	Skipped = "skipped"
	// Superseded: another profiler stored a newer profile meanwhile.
	Superseded = "superseded"
)

// Worker recomputes interest vectors.
type Worker struct {
	cfg     Config
	store   *store.Store
	emb     embed.Embedder
	policy  *decay.Policy
	dims    int
	limits  events.Limits
	log     *slog.Logger
	now     func() time.Time
	metrics *prometheus.CounterVec
}

// New returns the worker, embedding facts with the process's embedder for
// cfg.Embed, which must be the one the catalog worker embeds items with (same
// model, same dimension); shelf items embedded by another model are left out
// of the vectors.
func New(ctx context.Context, cfg Config, d *worker.Deps) (*Worker, error) {
	policy, err := cfg.Decay.Policy()
	if err != nil {
		return nil, err
	}
	emb, err := d.Embedder(cfg.Embed)
	if err != nil {
		return nil, err
	}
	dims, err := embed.ProbeDimension(ctx, emb)
	if err != nil {
		return nil, err
	}
	m := prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "recall", Subsystem: "profiler", Name: "refreshes_total",
		Help: "Profile refreshes by outcome: computed, skipped (already covered), superseded (a newer one was stored meanwhile).",
	}, []string{"outcome"})
	if d.Registry != nil {
		d.Registry.MustRegister(m)
	}
	return &Worker{cfg: cfg, store: d.Store, emb: emb, policy: policy, dims: dims, limits: d.Limits, log: d.Log, now: time.Now, metrics: m}, nil
}

// Handle is the batch handler. Invalid tasks fail permanently. The tasks of one
// user are served together: each user is refreshed once, as of the newest
// requested time among them, once the latest of their holds has passed.
func (w *Worker) Handle(ctx context.Context, msgs []queue.Message) []error {
	errs := make([]error, len(msgs))
	type group struct {
		ref store.UserRef
		at  time.Time
		due time.Time
		idx []int
	}
	groups := map[store.UserRef]*group{}
	holdLimit := w.now().Add(w.cfg.MaxHold)
	for i, m := range msgs {
		task, err := queue.ProfileTaskEnvelope.Read(m, w.limits)
		if err != nil {
			errs[i] = err
			continue
		}
		due := w.due(m)
		if due.After(holdLimit) {
			due = holdLimit
		}
		k := store.UserRef{TenantID: task.TenantID, UserID: task.UserID}
		g := groups[k]
		if g == nil {
			g = &group{ref: k, at: task.RequestedAt, due: due}
			groups[k] = g
		}
		if task.RequestedAt.After(g.at) {
			g.at = task.RequestedAt
		}
		if due.After(g.due) {
			g.due = due
		}
		g.idx = append(g.idx, i)
	}
	ordered := make([]*group, 0, len(groups))
	for _, g := range groups {
		ordered = append(ordered, g)
	}
	sort.Slice(ordered, func(i, j int) bool { return ordered[i].due.Before(ordered[j].due) })
	for n, g := range ordered {
		if err := w.hold(ctx, g.due); err != nil {
			for _, rest := range ordered[n:] {
				for _, i := range rest.idx {
					errs[i] = err
				}
			}
			break
		}
		_, err := w.Refresh(ctx, g.ref.TenantID, g.ref.UserID, g.at, g.due)
		for _, i := range g.idx {
			errs[i] = err
		}
	}
	return errs
}

// due is the earliest time a task may be served: after every change it
// stands for was committed. Those were committed before it was published, and,
// when it was debounced, before its bucket ended; the grace covers clock skew.
func (w *Worker) due(m queue.Message) time.Time {
	due := m.Published
	if until, ok := eventmsg.DebounceUntil(m.Header); ok && until.After(due) {
		due = until
	}
	return due.Add(w.cfg.DebounceGrace)
}

// hold waits until t, or returns the context's error.
func (w *Worker) hold(ctx context.Context, t time.Time) error {
	d := t.Sub(w.now())
	if d <= 0 {
		return ctx.Err()
	}
	if !pause.For(ctx, d) {
		return fmt.Errorf("hold profile task: %w", ctx.Err())
	}
	return nil
}

// Refresh recomputes a user's profile as of at (event time), for a task that
// must see every change committed before due. It does nothing when the stored
// profile already does: inputs read at or after due, event time at or after at,
// same model. A profile never goes back in event time: it is computed as of the
// newest of at, the stored profile's time and its inputs' event times, and fact
// weights are decayed up to that time (decay.Policy.DecayedWeight).
func (w *Worker) Refresh(ctx context.Context, tenantID, userID string, at, due time.Time) (string, error) {
	// PostgreSQL keeps microseconds. Truncating here (down: the snapshot is
	// then no later than the real one) makes what is stored exactly what is
	// compared, so a repeated task compares equal instead of newer.
	snapshot := w.now().Truncate(time.Microsecond)
	at = at.Truncate(time.Microsecond)
	t := w.store.Tenant(tenantID)
	stored, err := t.Profile(ctx, userID)
	found := err == nil
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return "", err
	}
	if found && stored.Model == w.emb.Model() && !at.After(stored.ComputedFrom) && !due.After(stored.SnapshotAt) {
		w.metrics.WithLabelValues(Skipped).Inc()
		return Skipped, nil
	}
	if found && stored.ComputedFrom.After(at) {
		at = stored.ComputedFrom
	}
	shelf, err := t.Shelf(ctx, userID)
	if err != nil {
		return "", err
	}
	facts, err := t.Facts(ctx, userID, []string{record.FactActive}, w.cfg.MaxFacts)
	if err != nil {
		return "", err
	}
	for _, s := range shelf {
		if s.OccurredAt.After(at) {
			at = s.OccurredAt
		}
	}
	for _, f := range facts {
		if f.LastMentionedAt.After(at) {
			at = f.LastMentionedAt
		}
	}
	contribs, sources, err := w.contributions(ctx, shelf, facts, at)
	if err != nil {
		return "", err
	}
	vec, _, ok, err := embed.Combine(w.dims, contribs)
	if err != nil {
		return "", queue.Permanent(fmt.Errorf("profile of %s/%s: %w", tenantID, userID, err))
	}
	if !ok {
		vec = nil
	}
	p := store.Profile{UserID: userID, Vector: vec, Model: w.emb.Model(), Dims: w.dims, Sources: sources, ComputedFrom: at, SnapshotAt: snapshot}
	written, err := t.SaveProfile(ctx, p)
	if err != nil {
		return "", err
	}
	if written {
		w.metrics.WithLabelValues(Computed).Inc()
		return Computed, nil
	}
	// Another profiler stored one meanwhile. Fine if it covers this one;
	// otherwise (newer in one respect, older in the other) try again, and the
	// retry starts from the stored profile's time.
	cur, err := t.Profile(ctx, userID)
	if err != nil {
		return "", err
	}
	if !cur.SnapshotAt.Before(snapshot) && !cur.ComputedFrom.Before(at) {
		w.metrics.WithLabelValues(Superseded).Inc()
		return Superseded, nil
	}
	return "", fmt.Errorf("profile of %s/%s: a concurrent refresh stored a profile that covers part of this one; retrying", tenantID, userID)
}

// contributions turns the shelf and the facts into weighted vectors: shelf
// items by embed.ShelfWeight of their status, facts by their weight decayed up
// to at (decay.Policy.DecayedWeight). Shelf items without an embedding of this
// model (the catalog does not have them yet), and facts expired or archived by
// at, are left out. sources counts what went in.
func (w *Worker) contributions(ctx context.Context, shelf []store.ShelfVector, facts []record.Fact, at time.Time) ([]embed.Contribution, map[string]int, error) {
	sources := map[string]int{"shelf": 0, "facts": 0, "shelf_without_vector": 0}
	var out []embed.Contribution
	for _, s := range shelf {
		weight, ok := embed.ShelfWeight(s.Status)
		if !ok {
			continue
		}
		if s.Embedding == nil || s.Model != w.emb.Model() || len(s.Embedding) != w.dims {
			sources["shelf_without_vector"]++
			continue
		}
		out = append(out, embed.Contribution{Source: "shelf " + s.Ref, Weight: weight, Vector: s.Embedding})
		sources["shelf"]++
	}
	// The facts that count at time at, with their weight then: the same rule
	// the context uses (expired and faded facts left out).
	live := assemble.TopFacts(w.policy, facts, at, -1).Facts
	texts, weights, names := make([]string, len(live)), make([]float64, len(live)), make([]string, len(live))
	for i, f := range live {
		texts[i], weights[i], names[i] = f.Display, f.Weight, f.Type+" "+f.Value
	}
	if len(texts) == 0 {
		return out, sources, nil
	}
	vecs, err := w.emb.Embed(ctx, texts)
	if err != nil {
		return nil, nil, fmt.Errorf("embed %d facts: %w", len(texts), err)
	}
	if len(vecs) != len(texts) {
		return nil, nil, fmt.Errorf("embed %d facts: %d vectors: %w", len(texts), len(vecs), embed.ErrBadResponse)
	}
	for i, v := range vecs {
		out = append(out, embed.Contribution{Source: "fact " + names[i], Weight: weights[i], Vector: v})
		sources["facts"]++
	}
	return out, sources, nil
}
