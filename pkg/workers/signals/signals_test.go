package signals_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/recallhq/recall/pkg/queue"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/embed"
	"github.com/recallhq/recall/pkg/eventmsg"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/store"
	"github.com/recallhq/recall/pkg/workers/signals"
)

var t0 = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

const dims = 64

type bundle struct {
	db   *testenv.DB
	nats *testenv.NATS
	emb  *embed.Hashing
	w    *signals.Worker
	pub  *queue.Publisher
}

func cfg() signals.Config {
	c := signals.Def.Defaults()
	c.Queue.Consumer = queue.ConsumerConfig{AckWait: 5 * time.Second, MaxDeliver: 5, MaxAckPending: 1000}
	c.Queue.Runner.BatchSize = 50
	c.Queue.Runner.RetryInitial, c.Queue.Runner.RetryMax = 20*time.Millisecond, 100*time.Millisecond
	c.Refresh = queue.RefreshConfig{Bucket: time.Hour}
	c.Embed.Dimensions = dims // the local hashing embedder, as b.emb
	return c
}

// setup starts a database, a JetStream server and a catalog worker (hashing
// embeddings) to call directly; start runs one on the durable consumer.
func setup(t *testing.T) *bundle {
	t.Helper()
	b := &bundle{db: testenv.NewDB(t), nats: testenv.NewNATS(t), emb: embed.NewHashing(dims)}
	b.pub = queue.NewPublisher(b.nats.JS)
	w, _, err := signals.Def.Build(context.Background(), cfg(), testenv.Deps(t, b.nats, b.db))
	require.NoError(t, err)
	b.w = w
	return b
}

func (b *bundle) start(t *testing.T) {
	t.Helper()
	testenv.StartWorker(t, b.nats, b.db, signals.Def, func(c *signals.Config) { *c = cfg() })
}

func (b *bundle) settle(t *testing.T) {
	t.Helper()
	b.nats.WaitSettled(t, queue.SignalsStream, signals.Def.Binding.Durable)
}

func book(id, ref, title string, at time.Time) events.CatalogItem {
	return events.CatalogItem{ID: id, TenantID: "t", OccurredAt: at, Ref: ref, Type: "book", Title: title,
		Attrs: json.RawMessage(`{"author":"Frank Herbert","genres":["science fiction"],"year":1965}`)}
}

func entry(id, user, ref, status string, at time.Time) events.ShelfEntry {
	return events.ShelfEntry{ID: id, TenantID: "t", UserID: user, OccurredAt: at, Ref: ref, Status: status}
}

// tasks returns the profile tasks stored for a user.
func (b *bundle) tasks(t *testing.T, tenant, user string) []events.ProfileTask {
	t.Helper()
	ctx := context.Background()
	cons, err := b.nats.JS.OrderedConsumer(ctx, queue.TasksStream, jetstream.OrderedConsumerConfig{FilterSubjects: []string{events.ProfileTaskSubject(tenant, user)}})
	require.NoError(t, err)
	s, err := b.nats.JS.Stream(ctx, queue.TasksStream)
	require.NoError(t, err)
	info, err := s.Info(ctx, jetstream.WithSubjectFilter(events.ProfileTaskSubject(tenant, user)))
	require.NoError(t, err)
	n := int(info.State.Subjects[events.ProfileTaskSubject(tenant, user)])
	var out []events.ProfileTask
	if n == 0 {
		return out
	}
	batch, err := cons.Fetch(n, jetstream.FetchMaxWait(5*time.Second))
	require.NoError(t, err)
	for m := range batch.Messages() {
		task, err := events.DecodeProfileTask(m.Data(), events.ValidateOptions{Limits: events.DefaultLimits})
		require.NoError(t, err)
		out = append(out, task)
	}
	require.Len(t, out, n)
	return out
}

func TestCatalogStoresItemsShelvesAndAsksForRefresh(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.start(t)
	ctx := context.Background()
	given := make([]float32, dims)
	given[3], given[7] = 3, 4 // stored scaled to unit length
	withVec := book("c1", "/b/1", "Dune", t0)
	withVec.Embedding = given
	_, err := b.pub.PublishCatalogItems(ctx, []events.CatalogItem{withVec, book("c2", "/b/2", "Dune Messiah", t0)})
	require.NoError(t, err)
	_, err = b.pub.PublishShelfEntries(ctx, []events.ShelfEntry{entry("s1", "u1", "/b/1", events.ShelfRead, t0.Add(time.Hour))})
	require.NoError(t, err)
	b.settle(t)

	ten := b.db.Store.Tenant("t")
	it, err := ten.CatalogItem(ctx, "/b/1")
	require.NoError(t, err)
	require.Equal(t, b.emb.Model(), it.EmbeddingModel)
	require.InDelta(t, 0.6, it.Embedding[3], 1e-6)
	require.InDelta(t, 0.8, it.Embedding[7], 1e-6)
	it, err = ten.CatalogItem(ctx, "/b/2")
	require.NoError(t, err)
	requireVector(t, b.emb.Vector("Dune Messiah\nFrank Herbert\nscience fiction"), it.Embedding, "embedded from title and attrs text")
	require.Equal(t, "book", it.Type)
	require.JSONEq(t, `{"author":"Frank Herbert","genres":["science fiction"],"year":1965}`, string(it.Attrs))
	sh, err := ten.Shelf(ctx, "u1")
	require.NoError(t, err)
	require.Len(t, sh, 1)
	require.Equal(t, events.ShelfRead, sh[0].Status)

	tasks := b.tasks(t, "t", "u1")
	require.NotEmpty(t, tasks)
	require.Equal(t, t0.Add(time.Hour), tasks[len(tasks)-1].RequestedAt.UTC(), "as of the shelf entry's event time")
	require.Empty(t, b.nats.DeadLetters(t))
}

func TestCatalogOutOfOrderAndDuplicates(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.start(t)
	ctx := context.Background()
	// The newest event first, then an older one (another id, so JetStream keeps
	// it), then the newest again under a new id (a producer's retry).
	newer := book("c2", "/b/1", "Dune (2nd edition)", t0.Add(time.Hour))
	older := book("c1", "/b/1", "Dune", t0)
	_, err := b.pub.PublishCatalogItems(ctx, []events.CatalogItem{newer})
	require.NoError(t, err)
	_, err = b.pub.PublishShelfEntries(ctx, []events.ShelfEntry{entry("s2", "u1", "/b/1", events.ShelfRead, t0.Add(time.Hour))})
	require.NoError(t, err)
	b.settle(t)
	_, err = b.pub.PublishCatalogItems(ctx, []events.CatalogItem{older})
	require.NoError(t, err)
	_, err = b.pub.PublishShelfEntries(ctx, []events.ShelfEntry{entry("s1", "u1", "/b/1", events.ShelfWant, t0)})
	require.NoError(t, err)
	again := newer
	again.ID = "c2-retry"
	_, err = b.pub.PublishCatalogItems(ctx, []events.CatalogItem{again})
	require.NoError(t, err)
	b.settle(t)

	ten := b.db.Store.Tenant("t")
	it, err := ten.CatalogItem(ctx, "/b/1")
	require.NoError(t, err)
	require.Equal(t, "c2-retry", it.SourceEventID, "same time: the greater id wins, whatever the order")
	require.Equal(t, "Dune (2nd edition)", it.Title)
	requireVector(t, b.emb.Vector(signals.ItemText(newer.Title, newer.Attrs)), it.Embedding)
	sh, err := ten.Shelf(ctx, "u1")
	require.NoError(t, err)
	require.Equal(t, events.ShelfRead, sh[0].Status, "the older entry does not overwrite the newer")
}

// A batch that committed but could not publish its refresh tasks is retried;
// the redelivery finds nothing new in the database and still publishes them.
func TestCatalogRedeliveryPublishesLostRefresh(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	m, err := eventmsg.ShelfEntry(&events.ShelfEntry{ID: "s1", TenantID: "t", UserID: "u1", OccurredAt: t0, Ref: "/b/1", Status: events.ShelfReading})
	require.NoError(t, err)
	msg := queue.Message{Subject: m.Subject, Data: m.Data, Header: m.Header, Deliveries: 1}

	// A worker whose NATS connection is gone: the commit succeeds, the publish fails.
	nc, err := nats.Connect(b.nats.URL)
	require.NoError(t, err)
	deadJS, err := jetstream.New(nc)
	require.NoError(t, err)
	nc.Close()
	d := testenv.Deps(t, b.nats, b.db)
	d.JS = deadJS
	broken, _, err := signals.Def.Build(ctx, cfg(), d)
	require.NoError(t, err)
	errs := broken.Handle(ctx, []queue.Message{msg})
	require.Error(t, errs[0])
	require.False(t, queue.IsPermanent(errs[0]), "retried, not dead-lettered")
	sh, err := b.db.Store.Tenant("t").Shelf(ctx, "u1")
	require.NoError(t, err)
	require.Len(t, sh, 1, "committed before the publish failed")
	require.Empty(t, b.tasks(t, "t", "u1"))

	// The same message again, first delivery: nothing changed, no task.
	require.Nil(t, b.w.Handle(ctx, []queue.Message{msg})[0])
	require.Empty(t, b.tasks(t, "t", "u1"))
	// Redelivered: the task is published although nothing changed.
	msg.Deliveries = 2
	require.Nil(t, b.w.Handle(ctx, []queue.Message{msg})[0])
	tasks := b.tasks(t, "t", "u1")
	require.Len(t, tasks, 1)
	require.Equal(t, t0, tasks[0].RequestedAt.UTC())
}

func TestCatalogInvalidEventsDeadLettered(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.start(t)
	ctx := context.Background()
	publish := func(subject, body string) {
		t.Helper()
		_, err := b.nats.JS.Publish(ctx, subject, []byte(body))
		require.NoError(t, err)
	}
	publish(events.CatalogSubject("t"), `{"id":`)
	publish(events.ShelfSubject("t", "u1"), `{"id":"s1","tenant_id":"t","user_id":"u1","occurred_at":"2026-05-01T12:00:00Z","ref":"/b/1","status":"finished"}`)
	// A body that claims another tenant than its subject.
	publish(events.CatalogSubject("mallory"), `{"id":"c1","tenant_id":"t","occurred_at":"2026-05-01T12:00:00Z","ref":"/b/1","type":"book","title":"x"}`)
	_, err := b.pub.PublishShelfEntries(ctx, []events.ShelfEntry{entry("ok", "u1", "/b/2", events.ShelfWant, t0)})
	require.NoError(t, err)
	b.settle(t)

	dl := b.nats.DeadLetters(t)
	require.Len(t, dl, 3)
	reasons := map[string]string{}
	for _, m := range dl {
		reasons[m.Header.Get(queue.HeaderSubject)] = m.Header.Get(queue.HeaderReason)
		require.Equal(t, signals.Def.Binding.Durable, m.Header.Get(queue.HeaderConsumer))
	}
	require.Contains(t, reasons[events.CatalogSubject("t")], "malformed JSON")
	require.Contains(t, reasons[events.ShelfSubject("t", "u1")], "status: unknown status")
	require.Contains(t, reasons[events.CatalogSubject("mallory")], "tenant_id")
	_, err = b.db.Store.Tenant("t").CatalogItem(ctx, "/b/1")
	require.ErrorIs(t, err, store.ErrNotFound, "nothing of a rejected event is stored")
	sh, err := b.db.Store.Tenant("t").Shelf(ctx, "u1")
	require.NoError(t, err)
	require.Len(t, sh, 1, "the valid event flows on")
}

func TestCatalogEmbeddingChoice(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	good := make([]float32, dims)
	good[0] = 2
	cases := []struct {
		name      string
		embedding []float32
		model     string
		given     bool
	}{
		{"matching dimension", good, "", true},
		{"matching dimension and model", good, b.emb.Model(), true},
		{"another dimension", []float32{1, 2, 3}, "", false},
		{"another model", good, "text-embedding-3-small", false},
		{"no direction", make([]float32, dims), "", false},
	}
	var msgs []queue.Message
	for i, tc := range cases {
		it := book("c", "/b/"+tc.name, "Title "+tc.name, t0)
		it.ID = tc.name
		it.Embedding, it.EmbeddingModel = tc.embedding, tc.model
		m, err := eventmsg.CatalogItem(&it)
		require.NoError(t, err)
		msgs = append(msgs, queue.Message{Subject: m.Subject, Data: m.Data, Header: m.Header, Deliveries: 1, Seq: uint64(i + 1)})
	}
	for i, err := range b.w.Handle(ctx, msgs) {
		require.NoError(t, err, cases[i].name)
	}
	for _, tc := range cases {
		it, err := b.db.Store.Tenant("t").CatalogItem(ctx, "/b/"+tc.name)
		require.NoError(t, err)
		require.Equal(t, b.emb.Model(), it.EmbeddingModel, tc.name)
		if tc.given {
			require.InDelta(t, 1.0, it.Embedding[0], 1e-6, tc.name)
			continue
		}
		requireVector(t, b.emb.Vector(signals.ItemText("Title "+tc.name, json.RawMessage(`{"author":"Frank Herbert","genres":["science fiction"],"year":1965}`))), it.Embedding, tc.name)
	}
}

func TestItemText(t *testing.T) {
	t.Parallel()
	cases := []struct {
		title, attrs, want string
	}{
		{"三体", ``, "三体"},
		{"三体", `{"author":"刘慈欣","genres":["科幻","硬科幻"],"rating":9.3}`, "三体\n刘慈欣\n科幻\n硬科幻"},
		{"Dune", `{"z":"last","a":"first","nested":{"k":" inner "},"empty":"","flag":true}`, "Dune\nfirst\ninner\nlast"},
		{"Dune", `null`, "Dune"},
		{"Dune", `not json`, "Dune"},
	}
	for _, tc := range cases {
		require.Equal(t, tc.want, signals.ItemText(tc.title, json.RawMessage(tc.attrs)), tc.attrs)
	}
}

// requireVector compares vectors up to float32 rounding: stored vectors are
// re-normalised.
func requireVector(t *testing.T, want, got []float32, msgAndArgs ...any) {
	t.Helper()
	require.Len(t, got, len(want), msgAndArgs...)
	for i := range want {
		require.InDelta(t, want[i], got[i], 1e-6, msgAndArgs...)
	}
}
