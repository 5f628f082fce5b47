package interests_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/recallhq/recall/pkg/queue"
	"github.com/recallhq/recall/pkg/worker"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/decay"
	"github.com/recallhq/recall/pkg/embed"
	"github.com/recallhq/recall/pkg/eventmsg"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/store"
	"github.com/recallhq/recall/pkg/workers/interests"
	"github.com/recallhq/recall/pkg/workers/signals"
)

var t0 = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

type bundle struct {
	db   *testenv.DB
	nats *testenv.NATS
	emb  *embed.Hashing
	pub  *queue.Publisher
	reg  *prometheus.Registry
	w    *interests.Worker
	o    options
}

type options struct {
	catalog bool
	runner  queue.RunnerConfig
	grace   time.Duration
}

// fast is a worker's queue settings for tests: a small ack wait and quick
// retries.
func fast(q *worker.Queue) {
	q.Consumer = queue.ConsumerConfig{AckWait: 5 * time.Second, MaxDeliver: 5, MaxAckPending: 1000}
	q.Runner.BatchSize = 50
	q.Runner.RetryInitial, q.Runner.RetryMax = 20*time.Millisecond, 100*time.Millisecond
}

// setup starts a database, a JetStream server and a profiler worker to call
// directly (hashing embeddings, small debounce grace). The catalog worker
// runs too when asked, so that signals go through the whole pipeline.
func setup(t *testing.T, o options) *bundle {
	t.Helper()
	b := &bundle{db: testenv.NewDB(t), nats: testenv.NewNATS(t), emb: embed.NewHashing(0), reg: prometheus.NewRegistry(), o: o}
	b.pub = queue.NewPublisher(b.nats.JS)
	w, _, err := interests.Def.Build(context.Background(), b.profilerConfig(), testenv.Deps(t, b.nats, b.db))
	require.NoError(t, err)
	b.w = w
	if o.catalog {
		testenv.StartWorker(t, b.nats, b.db, signals.Def, func(c *signals.Config) {
			fast(&c.Queue)
			c.Refresh = queue.RefreshConfig{Bucket: 200 * time.Millisecond}
		})
	}
	return b
}

func (b *bundle) profilerConfig() interests.Config {
	c := interests.Def.Defaults()
	fast(&c.Queue)
	if b.o.runner.BatchSize > 0 {
		c.Queue.Runner.BatchSize, c.Queue.Runner.Concurrency = b.o.runner.BatchSize, b.o.runner.Concurrency
	}
	c.DebounceGrace = b.o.grace
	return c
}

// startProfiler runs a profiler until the test ends, its metrics on b.reg.
func (b *bundle) startProfiler(t *testing.T) {
	t.Helper()
	testenv.StartWorker(t, b.nats, b.db, interests.Def, func(c *interests.Config) { *c = b.profilerConfig() }, testenv.WithRegistry(b.reg))
}

func book(id, ref, title, author string, genres ...string) events.CatalogItem {
	attrs, _ := json.Marshal(map[string]any{"author": author, "genres": genres})
	return events.CatalogItem{ID: id, TenantID: "t", OccurredAt: t0, Ref: ref, Type: "book", Title: title, Attrs: attrs}
}

func entry(id, user, ref, status string, at time.Time) events.ShelfEntry {
	return events.ShelfEntry{ID: id, TenantID: "t", UserID: user, OccurredAt: at, Ref: ref, Status: status}
}

var shelfBooks = []events.CatalogItem{
	book("c1", "/b/dune", "Dune", "Frank Herbert", "science fiction", "space opera"),
	book("c2", "/b/pride", "Pride and Prejudice", "Jane Austen", "romance", "classic"),
	book("c3", "/b/messiah", "Dune Messiah", "Frank Herbert", "science fiction", "space opera"),
	book("c4", "/b/sense", "Sense and Sensibility", "Jane Austen", "romance", "classic"),
	book("c5", "/b/children", "Children of Dune", "Frank Herbert", "science fiction"),
	book("c6", "/b/emma", "Emma", "Jane Austen", "romance"),
}

// waitProfile waits until the user's profile satisfies ok and returns it.
func (b *bundle) waitProfile(t *testing.T, tenant, user string, ok func(store.Profile) bool) store.Profile {
	t.Helper()
	var p store.Profile
	require.Eventually(t, func() bool {
		var err error
		p, err = b.db.Store.Tenant(tenant).Profile(context.Background(), user)
		return err == nil && ok(p)
	}, 20*time.Second, 10*time.Millisecond, "profile of %s/%s", tenant, user)
	return p
}

// embedding is the stored embedding of a catalog item.
func (b *bundle) embedding(t *testing.T, ref string) []float32 {
	t.Helper()
	it, err := b.db.Store.Tenant("t").CatalogItem(context.Background(), ref)
	require.NoError(t, err)
	require.NotNil(t, it.Embedding, ref)
	return it.Embedding
}

// expected is the interest vector computed here from the stored embeddings.
func (b *bundle) expected(t *testing.T, contribs map[string]float64) []float32 {
	t.Helper()
	var cs []embed.Contribution
	for ref, w := range contribs {
		cs = append(cs, embed.Contribution{Source: ref, Weight: w, Vector: b.embedding(t, ref)})
	}
	v, _, ok, err := embed.Combine(b.emb.Dimension(), cs)
	require.NoError(t, err)
	require.True(t, ok)
	return v
}

func requireVector(t *testing.T, want, got []float32) {
	t.Helper()
	require.Len(t, got, len(want))
	for i := range want {
		require.InDelta(t, want[i], got[i], 1e-5, "component %d", i)
	}
}

func refs(recs []store.Recommendation) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r.Ref
	}
	return out
}

func index(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

func TestShelfChangesRefreshProfile(t *testing.T) {
	t.Parallel()
	b := setup(t, options{catalog: true, grace: 20 * time.Millisecond})
	b.startProfiler(t)
	ctx := context.Background()
	_, err := b.pub.PublishCatalogItems(ctx, shelfBooks)
	require.NoError(t, err)
	_, err = b.pub.PublishShelfEntries(ctx, []events.ShelfEntry{
		entry("s1", "u", "/b/dune", events.ShelfRead, t0.Add(time.Hour)),
		entry("s2", "u", "/b/pride", events.ShelfAbandoned, t0.Add(2*time.Hour)),
	})
	require.NoError(t, err)

	p := b.waitProfile(t, "t", "u", func(p store.Profile) bool { return p.Sources["shelf"] == 2 })
	require.Equal(t, b.emb.Model(), p.Model)
	require.Equal(t, b.emb.Dimension(), p.Dims)
	require.Equal(t, t0.Add(2*time.Hour), p.ComputedFrom, "the newest event that went in")
	requireVector(t, b.expected(t, map[string]float64{"/b/dune": 1.0, "/b/pride": -0.2}), p.Vector)
	require.Greater(t, embed.Cosine(p.Vector, b.embedding(t, "/b/dune")), embed.Cosine(p.Vector, b.embedding(t, "/b/pride")))

	recs, err := b.db.Store.Tenant("t").Recommend(ctx, "u", p.Vector, p.Model, 10)
	require.NoError(t, err)
	got := refs(recs)
	require.Len(t, got, 4, "the shelf's two books are never recommended")
	require.NotContains(t, got, "/b/dune")
	require.NotContains(t, got, "/b/pride")
	require.Less(t, index(got, "/b/messiah"), index(got, "/b/sense"), "closer to what was read than to what was abandoned: %v", got)
	require.Less(t, index(got, "/b/children"), index(got, "/b/emma"), "%v", got)

	// Tastes change: Dune comes off the shelf, Pride and Prejudice is read after all.
	_, err = b.pub.PublishShelfEntries(ctx, []events.ShelfEntry{
		entry("s3", "u", "/b/dune", events.ShelfRemoved, t0.Add(3*time.Hour)),
		entry("s4", "u", "/b/pride", events.ShelfRead, t0.Add(3*time.Hour)),
	})
	require.NoError(t, err)
	p2 := b.waitProfile(t, "t", "u", func(p store.Profile) bool { return p.ComputedFrom.Equal(t0.Add(3 * time.Hour)) })
	require.Greater(t, p2.Revision, p.Revision)
	require.Equal(t, 1, p2.Sources["shelf"])
	requireVector(t, b.embedding(t, "/b/pride"), p2.Vector)
	recs, err = b.db.Store.Tenant("t").Recommend(ctx, "u", p2.Vector, p2.Model, 10)
	require.NoError(t, err)
	got = refs(recs)
	require.Contains(t, got, "/b/dune", "off the shelf: recommendable again")
	require.Less(t, index(got, "/b/sense"), index(got, "/b/messiah"), "%v", got)
	require.Empty(t, b.nats.DeadLetters(t))
}

// An item that reaches the catalog after the shelf entry naming it still gets
// into the vector: the catalog worker refreshes the item's holders.
func TestLateCatalogItemRefreshesHolders(t *testing.T) {
	t.Parallel()
	b := setup(t, options{catalog: true, grace: 20 * time.Millisecond})
	b.startProfiler(t)
	ctx := context.Background()
	_, err := b.pub.PublishShelfEntries(ctx, []events.ShelfEntry{entry("s1", "u", "/b/dune", events.ShelfRead, t0)})
	require.NoError(t, err)
	p := b.waitProfile(t, "t", "u", func(store.Profile) bool { return true })
	require.Nil(t, p.Vector, "nothing with a direction yet: stored without a vector, not an error")
	require.Equal(t, map[string]int{"shelf": 0, "facts": 0, "shelf_without_vector": 1}, p.Sources)

	_, err = b.pub.PublishCatalogItems(ctx, shelfBooks[:1])
	require.NoError(t, err)
	p = b.waitProfile(t, "t", "u", func(p store.Profile) bool { return p.Vector != nil })
	require.Equal(t, 1, p.Sources["shelf"])
	requireVector(t, b.embedding(t, "/b/dune"), p.Vector)
}

func TestProfileFactsDecayAsOfRequestedAt(t *testing.T) {
	t.Parallel()
	b := setup(t, options{grace: 20 * time.Millisecond})
	b.startProfiler(t)
	ctx := context.Background()
	mention := func(event, typ, value string, at, expires time.Time) store.Mention {
		return store.Mention{TenantID: "t", EventID: event, UserID: "u", SessionID: "s", Type: typ, Value: value,
			Display: value, OccurredAt: at, ExpiresAt: expires, Source: "rules"}
	}
	asOf := t0.Add(100 * 24 * time.Hour)
	_, err := b.db.Store.RecordMentions(ctx, []store.Mention{
		mention("e1", "genre", "science fiction", t0.Add(70*24*time.Hour), asOf.Add(time.Hour)),           // 30 days old: 0.9
		mention("e2", "author", "Frank Herbert", t0.Add(10*24*time.Hour), asOf.Add(time.Hour)),            // 90 days old: 0.729
		mention("e3", "topic", "gardening", t0.Add(90*24*time.Hour), asOf.Add(-time.Hour)),                // expired by then
		mention("e4", "book_title", "Old Forgotten Book", t0.Add(-900*24*time.Hour), asOf.Add(time.Hour)), // decayed below the floor
	})
	require.NoError(t, err)
	require.NoError(t, queue.PublishProfileRefresh(ctx, b.nats.JS, "t", "u", asOf))

	p := b.waitProfile(t, "t", "u", func(store.Profile) bool { return true })
	require.Equal(t, asOf, p.ComputedFrom)
	require.Equal(t, 2, p.Sources["facts"])
	want, _, ok, err := embed.Combine(b.emb.Dimension(), []embed.Contribution{
		{Weight: decay.DefaultPolicy.DecayedWeight("", 1, t0.Add(70*24*time.Hour), asOf), Vector: b.emb.Vector("science fiction")},
		{Weight: decay.DefaultPolicy.DecayedWeight("", 1, t0.Add(10*24*time.Hour), asOf), Vector: b.emb.Vector("Frank Herbert")},
	})
	require.NoError(t, err)
	require.True(t, ok)
	requireVector(t, want, p.Vector)
}

// Refresh's debounce rule, step by step: a task is skipped only when the stored
// profile read its inputs after the task's changes (due) and is at least as new
// in event time (at); a profile never goes back in event time.
func TestRefreshSkipsWhatIsCovered(t *testing.T) {
	t.Parallel()
	b := setup(t, options{})
	ctx := context.Background()
	_, err := b.db.Store.ApplySignals(ctx, nil, []store.ShelfUpsert{{TenantID: "t", UserID: "u", Ref: "/b/1", Status: "read", EventID: "s1", OccurredAt: t0}})
	require.NoError(t, err)
	before := time.Now().Truncate(time.Microsecond)
	out, err := b.w.Refresh(ctx, "t", "u", t0, before)
	require.NoError(t, err)
	require.Equal(t, interests.Computed, out)

	out, err = b.w.Refresh(ctx, "t", "u", t0, before)
	require.NoError(t, err)
	require.Equal(t, interests.Skipped, out, "covered: same time, changes read")
	out, err = b.w.Refresh(ctx, "t", "u", t0.Add(-time.Hour), before.Add(-time.Hour))
	require.NoError(t, err)
	require.Equal(t, interests.Skipped, out, "older in both respects")

	out, err = b.w.Refresh(ctx, "t", "u", t0, time.Now())
	require.NoError(t, err)
	require.Equal(t, interests.Computed, out, "changes after the last read")
	out, err = b.w.Refresh(ctx, "t", "u", t0.Add(time.Hour), before)
	require.NoError(t, err)
	require.Equal(t, interests.Computed, out, "a later event time: facts decay further")
	out, err = b.w.Refresh(ctx, "t", "u", t0, time.Now())
	require.NoError(t, err)
	require.Equal(t, interests.Computed, out)
	p, err := b.db.Store.Tenant("t").Profile(ctx, "u")
	require.NoError(t, err)
	require.Equal(t, t0.Add(time.Hour), p.ComputedFrom, "never back in event time")
	require.EqualValues(t, 4, p.Revision)
}

// Many tasks for one user while the profiler is away: one recompute, and the
// same vector as a single task would give.
func TestManyTasksOneRecompute(t *testing.T) {
	t.Parallel()
	// No grace: the tasks are all published (on this machine's clock) before
	// the profiler starts, so the first recompute reads after all of them.
	b := setup(t, options{runner: queue.RunnerConfig{BatchSize: 1, Concurrency: 1}})
	ctx := context.Background()
	var items []store.CatalogUpsert
	var shelf []store.ShelfUpsert
	for i, bk := range shelfBooks {
		items = append(items, store.CatalogUpsert{TenantID: "t", Ref: bk.Ref, Type: "book", Title: bk.Title,
			Embedding: b.emb.Vector(signals.ItemText(bk.Title, bk.Attrs)), EmbeddingModel: b.emb.Model(), EventID: bk.ID, OccurredAt: t0})
		status := []string{events.ShelfRead, events.ShelfReading, events.ShelfWant}[i%3]
		shelf = append(shelf, store.ShelfUpsert{TenantID: "t", UserID: "u", Ref: bk.Ref, Status: status, EventID: fmt.Sprint("s", i), OccurredAt: t0.Add(time.Duration(i) * time.Minute)})
	}
	_, err := b.db.Store.ApplySignals(ctx, items, shelf)
	require.NoError(t, err)

	// Each shelf change asked for a refresh (no publish-side debounce here, so
	// every one is stored), some of them twice.
	r := queue.NewRefresher(b.nats.JS, 0)
	var tasks []events.ProfileTask
	for _, s := range shelf {
		tasks = append(tasks, events.ProfileTask{TenantID: "t", UserID: "u", RequestedAt: s.OccurredAt}, events.ProfileTask{TenantID: "t", UserID: "u", RequestedAt: s.OccurredAt})
	}
	res, err := r.Publish(ctx, tasks)
	require.NoError(t, err)
	stored := 0
	for _, x := range res {
		if !x.Duplicate {
			stored++
		}
	}
	require.Equal(t, len(shelf), stored, "repeats of a task dedupe")

	// One task at a time, so that the skip rule (not batching) does the work
	// (concurrent handlers could each recompute before either has stored).
	b.startProfiler(t)
	b.nats.WaitSettled(t, queue.TasksStream, interests.Def.Binding.Durable)
	p, err := b.db.Store.Tenant("t").Profile(ctx, "u")
	require.NoError(t, err)
	require.EqualValues(t, 1, p.Revision, "one recompute for %d tasks", stored)
	require.Equal(t, 1.0, counter(t, b.reg, interests.Computed))
	// The task stream kept only the newest task of the user, so the others
	// never reached the profiler.
	require.Zero(t, counter(t, b.reg, interests.Skipped))

	weights := map[string]float64{}
	for _, s := range shelf {
		weights[s.Ref], _ = embed.ShelfWeight(s.Status)
	}
	requireVector(t, b.expected(t, weights), p.Vector)
}

func counter(t *testing.T, reg *prometheus.Registry, outcome string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	require.NoError(t, err)
	for _, mf := range mfs {
		if mf.GetName() != "recall_profiler_refreshes_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "outcome" && l.GetValue() == outcome {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}

// A change whose task was folded into one already stored is not lost: the
// profiler holds the stored task until its debounce bucket has closed, and
// reads the change then.
func TestDebouncedChangeIsNotLost(t *testing.T) {
	t.Parallel()
	b := setup(t, options{grace: 20 * time.Millisecond})
	b.startProfiler(t)
	ctx := context.Background()
	var items []store.CatalogUpsert
	for _, bk := range shelfBooks[:2] {
		items = append(items, store.CatalogUpsert{TenantID: "t", Ref: bk.Ref, Type: "book", Title: bk.Title,
			Embedding: b.emb.Vector(bk.Title), EmbeddingModel: b.emb.Model(), EventID: bk.ID, OccurredAt: t0})
	}
	_, err := b.db.Store.ApplySignals(ctx, items, []store.ShelfUpsert{{TenantID: "t", UserID: "u", Ref: "/b/dune", Status: "read", EventID: "s1", OccurredAt: t0}})
	require.NoError(t, err)

	// Both publishes fall in one bucket that ends at least a second from now.
	const bucket = time.Second
	publishAt := time.Now().Add(bucket)
	publish := func(at time.Time) *jetstream.PubAck {
		m, err := eventmsg.ProfileTask(&events.ProfileTask{TenantID: "t", UserID: "u", RequestedAt: at}, publishAt, bucket)
		require.NoError(t, err)
		ack, err := b.nats.JS.PublishMsg(ctx, m)
		require.NoError(t, err)
		return ack
	}
	require.False(t, publish(t0).Duplicate)
	_, err = b.db.Store.ApplySignals(ctx, nil, []store.ShelfUpsert{{TenantID: "t", UserID: "u", Ref: "/b/pride", Status: "read", EventID: "s2", OccurredAt: t0.Add(time.Minute)}})
	require.NoError(t, err)
	require.True(t, publish(t0.Add(time.Minute)).Duplicate, "folded into the first task")

	b.nats.WaitSettled(t, queue.TasksStream, interests.Def.Binding.Durable)
	p, err := b.db.Store.Tenant("t").Profile(ctx, "u")
	require.NoError(t, err)
	require.Equal(t, 2, p.Sources["shelf"], "the folded change is in the vector")
	require.EqualValues(t, 1, p.Revision)
	require.False(t, p.SnapshotAt.Before(publishAt.Truncate(bucket).Add(bucket)), "inputs read after the bucket closed")
}

func TestInvalidTasksDeadLettered(t *testing.T) {
	t.Parallel()
	b := setup(t, options{})
	b.startProfiler(t)
	ctx := context.Background()
	_, err := b.nats.JS.Publish(ctx, events.ProfileTaskSubject("t", "u"), []byte(`{"tenant_id":"t","user_id":"u","requested_at":"later"}`))
	require.NoError(t, err)
	// Another user's subject: the task stream keeps one task per subject.
	_, err = b.nats.JS.Publish(ctx, events.ProfileTaskSubject("t", "u2"), []byte(`{"tenant_id":"t","user_id":"someone-else","requested_at":"2026-05-01T12:00:00Z"}`))
	require.NoError(t, err)
	b.nats.WaitSettled(t, queue.TasksStream, interests.Def.Binding.Durable)
	dl := b.nats.DeadLetters(t)
	require.Len(t, dl, 2)
	reasons := dl[0].Header.Get(queue.HeaderReason) + "\n" + dl[1].Header.Get(queue.HeaderReason)
	require.Contains(t, reasons, "requested_at: want an RFC 3339 time")
	require.Contains(t, reasons, `user_id: body says "someone-else" but the subject is for user "u2"`)
	_, err = b.db.Store.Tenant("t").Profile(ctx, "someone-else")
	require.ErrorIs(t, err, store.ErrNotFound)
}
