package decayer_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/recallhq/recall/pkg/attribute"
	"github.com/recallhq/recall/pkg/queue"
	"github.com/recallhq/recall/pkg/record"

	"github.com/jackc/pgx/v5"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/assemble"
	"github.com/recallhq/recall/pkg/decay"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/seen/retention"
	"github.com/recallhq/recall/pkg/store"
	"github.com/recallhq/recall/pkg/workers/decayer"
)

const day = 24 * time.Hour

var t0 = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

// clock is the controllable time a run takes.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Set(t time.Time) { c.mu.Lock(); c.t = t; c.mu.Unlock() }

type bundle struct {
	db    *testenv.DB
	nats  *testenv.NATS
	clock *clock
	reg   *prometheus.Registry
	d     *decayer.Decayer
	cfg   decayer.Config
}

func setup(t *testing.T, cfg decayer.Config) *bundle {
	t.Helper()
	b := &bundle{db: testenv.NewDB(t), nats: testenv.NewNATS(t), clock: &clock{t: t0}, reg: prometheus.NewRegistry(), cfg: cfg}
	b.d = b.newDecayer(t, b.reg)
	return b
}

func (b *bundle) newDecayer(t *testing.T, reg prometheus.Registerer) *decayer.Decayer {
	t.Helper()
	d, err := decayer.New(decayer.Options{Config: b.cfg, Store: b.db.Store, Publisher: queue.NewRefresher(b.nats.JS, 0),
		Log: testenv.Logger(t), Registry: reg, Now: b.clock.Now})
	require.NoError(t, err)
	return d
}

// runAt runs the decayer once as of at and fails the test on error.
func (b *bundle) runAt(t *testing.T, at time.Time) decayer.Report {
	t.Helper()
	b.clock.Set(at)
	rep, err := b.d.RunOnce(context.Background())
	require.NoError(t, err)
	require.False(t, rep.Skipped)
	return rep
}

// mention records a mention of a fact through the extractor's own path.
func (b *bundle) mention(t *testing.T, user, typ, value string, at time.Time) {
	t.Helper()
	_, err := b.db.Store.RecordMentions(context.Background(), []store.Mention{{
		TenantID: "acme", EventID: fmt.Sprintf("e-%s-%s-%d", user, value, at.UnixNano()), UserID: user, SessionID: "s1",
		Type: typ, Value: value, Display: value, OccurredAt: at, ExpiresAt: at.Add(b.d.Policy().TTL(typ)), Source: "rules",
	}})
	require.NoError(t, err)
}

type row struct {
	record.Fact
	TenantID, UserID string
	Decayed          *float64
	DecayedAt        *time.Time
}

// weightNow is the weight the decayer materialized (the base weight while no
// period has passed).
func (r row) weightNow() float64 {
	if r.Decayed != nil {
		return *r.Decayed
	}
	return r.Weight
}

func (b *bundle) facts(t *testing.T) map[string]row {
	t.Helper()
	rows, err := b.db.Store.Pool().Query(context.Background(), `
		SELECT tenant_id, user_id, type, value, weight, last_mentioned_at, expires_at, status, decayed_weight, decayed_at
		FROM facts`)
	require.NoError(t, err)
	out := map[string]row{}
	var r row
	_, err = pgx.ForEachRow(rows, []any{&r.TenantID, &r.UserID, &r.Type, &r.Value, &r.Weight, &r.LastMentionedAt, &r.ExpiresAt, &r.Status, &r.Decayed, &r.DecayedAt}, func() error {
		out[r.UserID+"/"+r.Type+"/"+r.Value] = r
		return nil
	})
	require.NoError(t, err)
	return out
}

func longTTL() decayer.Config {
	var c decayer.Config
	c.Decay = decay.DefaultConfig
	c.Decay.TTL = 5000 * day
	return c
}

func TestBoundaries(t *testing.T) {
	t.Parallel()
	b := setup(t, longTTL())
	b.mention(t, "u1", "book_title", "三体", t0)
	key := "u1/book_title/三体"
	for _, tc := range []struct {
		day     int
		weight  float64
		decayed int64
	}{
		{29, 1, 0},
		{30, 0.9, 1},
		{59, 0.9, 0},
		{60, 0.81, 1},
	} {
		at := t0.Add(time.Duration(tc.day) * day)
		rep := b.runAt(t, at)
		f := b.facts(t)[key]
		require.InDelta(t, tc.weight, f.weightNow(), 1e-12, "day %d", tc.day)
		require.Equal(t, record.FactActive, f.Status, "day %d", tc.day)
		require.Equal(t, tc.decayed, rep.Count(decayer.StepFacts, decayer.OutcomeDecayed), "day %d", tc.day)
		require.Equal(t, b.d.Policy().DecayedWeight(f.Type, f.Weight, f.LastMentionedAt, at), f.weightNow(), "the decayer and the read path agree")
	}
	// A microsecond before day 30 of a fresh fact, nothing; at day 30, 0.9.
	b.mention(t, "u2", "author", "刘慈欣", t0.Add(100*day))
	b.runAt(t, t0.Add(130*day-time.Microsecond))
	require.Nil(t, b.facts(t)["u2/author/刘慈欣"].Decayed)
	b.runAt(t, t0.Add(130*day))
	require.InDelta(t, 0.9, b.facts(t)["u2/author/刘慈欣"].weightNow(), 1e-12)
}

func TestRementionResetsWeightAndExpiry(t *testing.T) {
	t.Parallel()
	b := setup(t, decayer.Config{})
	b.mention(t, "u1", "topic", "sf", t0)
	b.mention(t, "u1", "topic", "old", t0)
	b.runAt(t, t0.Add(60*day))
	f := b.facts(t)["u1/topic/sf"]
	require.InDelta(t, 0.81, f.weightNow(), 1e-12)
	require.Equal(t, t0.Add(60*day), f.DecayedAt.UTC())

	b.mention(t, "u1", "topic", "sf", t0.Add(61*day))
	f = b.facts(t)["u1/topic/sf"]
	require.Equal(t, 1.0, f.weightNow(), "a mention resets the weight")
	require.Nil(t, f.DecayedAt)
	require.Equal(t, t0.Add(61*day+90*day), f.ExpiresAt.UTC(), "and the expiry")

	rep := b.runAt(t, t0.Add(90*day))
	require.Equal(t, int64(1), rep.Count(decayer.StepFacts, decayer.OutcomeExpired), "only the fact not mentioned again expires")
	facts := b.facts(t)
	require.Equal(t, record.FactActive, facts["u1/topic/sf"].Status)
	require.Equal(t, 1.0, facts["u1/topic/sf"].weightNow(), "29 days after the new mention, not 90 after the first")
	require.Equal(t, record.FactExpired, facts["u1/topic/old"].Status)

	// An expired fact mentioned again is active again, with a new expiry.
	b.mention(t, "u1", "topic", "old", t0.Add(100*day))
	b.runAt(t, t0.Add(101*day))
	f = b.facts(t)["u1/topic/old"]
	require.Equal(t, record.FactActive, f.Status)
	require.Equal(t, 1.0, f.weightNow())
}

func TestArchiveBelowFloor(t *testing.T) {
	t.Parallel()
	b := setup(t, longTTL())
	b.mention(t, "u1", "genre", "科幻", t0)
	rep := b.runAt(t, t0.Add(21*30*day))
	f := b.facts(t)["u1/genre/科幻"]
	require.Equal(t, record.FactActive, f.Status)
	require.InDelta(t, 0.109, f.weightNow(), 0.001)
	require.Equal(t, int64(0), rep.Count(decayer.StepFacts, decayer.OutcomeArchived))

	rep = b.runAt(t, t0.Add(22*30*day))
	f = b.facts(t)["u1/genre/科幻"]
	require.Equal(t, record.FactArchived, f.Status, "0.9^22 ≈ 0.098 < 0.1")
	require.Less(t, f.weightNow(), 0.1)
	require.Equal(t, int64(1), rep.Count(decayer.StepFacts, decayer.OutcomeArchived))

	// Kept for history, ignored by the reads (which take active facts only).
	active, err := b.db.Store.Tenant("acme").Facts(context.Background(), "u1", []string{record.FactActive}, 10)
	require.NoError(t, err)
	require.Empty(t, active)
	archived, err := b.db.Store.Tenant("acme").Facts(context.Background(), "u1", []string{record.FactArchived}, 10)
	require.NoError(t, err)
	require.Len(t, archived, 1)

	rep = b.runAt(t, t0.Add(40*30*day))
	require.Zero(t, rep.Count(decayer.StepFacts, decayer.OutcomeDecayed), "an archived fact is not rewritten every period")
}

func TestExpiry(t *testing.T) {
	t.Parallel()
	b := setup(t, decayer.Config{})
	b.mention(t, "u1", "author", "Herbert", t0)
	b.runAt(t, t0.Add(90*day-time.Microsecond))
	require.Equal(t, record.FactActive, b.facts(t)["u1/author/Herbert"].Status)
	rep := b.runAt(t, t0.Add(90*day))
	require.Equal(t, record.FactExpired, b.facts(t)["u1/author/Herbert"].Status, "expired at expires_at")
	require.Equal(t, int64(1), rep.Count(decayer.StepFacts, decayer.OutcomeExpired))
	rep = b.runAt(t, t0.Add(900*day))
	require.Zero(t, rep.Count(decayer.StepFacts, "scanned"), "expired facts are not looked at again")
}

func TestIdempotent(t *testing.T) {
	t.Parallel()
	cfg := longTTL()
	cfg.BatchSize = 7
	b := setup(t, cfg)
	var ms []store.Mention
	for i := range 600 {
		at := t0.Add(time.Duration(i) * day)
		ms = append(ms, store.Mention{TenantID: "acme", EventID: fmt.Sprintf("e%d", i), UserID: fmt.Sprintf("u%d", i%5), SessionID: "s",
			Type: "topic", Value: fmt.Sprintf("v%d", i), Display: "v", OccurredAt: at, ExpiresAt: at.Add(5000 * day), Source: "rules"})
	}
	_, err := b.db.Store.RecordMentions(context.Background(), ms)
	require.NoError(t, err)
	at := t0.Add(700 * day)
	first := b.runAt(t, at)
	require.Positive(t, first.Count(decayer.StepFacts, decayer.OutcomeDecayed)+first.Count(decayer.StepFacts, decayer.OutcomeArchived))
	require.Greater(t, first.Steps[0].Batches, 1, "several batches")
	before := b.facts(t)
	var xmin1 []int64
	require.NoError(t, b.db.Store.Pool().QueryRow(context.Background(), `SELECT array_agg(xmin::text::bigint ORDER BY user_id, value) FROM facts`).Scan(&xmin1))

	for _, again := range []time.Time{at, at.Add(time.Hour)} {
		rep := b.runAt(t, again)
		for _, o := range []string{decayer.OutcomeDecayed, decayer.OutcomeArchived, decayer.OutcomeExpired, decayer.OutcomeUsersRefreshed} {
			require.Zero(t, rep.Count(decayer.StepFacts, o)+rep.Count(decayer.StepRefresh, o), "%s on a second run", o)
		}
	}
	require.Equal(t, before, b.facts(t), "two runs in a row are one run")
	var xmin2 []int64
	require.NoError(t, b.db.Store.Pool().QueryRow(context.Background(), `SELECT array_agg(xmin::text::bigint ORDER BY user_id, value) FROM facts`).Scan(&xmin2))
	require.Equal(t, xmin1, xmin2, "and write nothing")
}

func TestOneRunnerAtATime(t *testing.T) {
	t.Parallel()
	b := setup(t, longTTL())
	b.mention(t, "u1", "topic", "sf", t0)
	b.clock.Set(t0.Add(30 * day))

	// Runner A holds the lock inside its run (a step that waits), B tries.
	a := b.newDecayer(t, nil)
	entered, release := make(chan struct{}), make(chan struct{})
	a.Steps = append([]decayer.Step{{Name: "hold", Run: func(ctx context.Context, _ *decayer.Run, _ *decayer.StepRun) error {
		close(entered)
		<-release
		return nil
	}}}, a.Steps...)
	done := make(chan decayer.Report, 1)
	errc := make(chan error, 1)
	go func() {
		rep, err := a.RunOnce(context.Background())
		errc <- err
		done <- rep
	}()
	<-entered
	repB, err := b.d.RunOnce(context.Background())
	require.NoError(t, err)
	require.True(t, repB.Skipped, "B skips while A runs")
	require.Equal(t, 1.0, b.facts(t)["u1/topic/sf"].weightNow(), "and changes nothing")
	require.Equal(t, 1.0, metricValue(t, b.reg, "recall_decayer_runs_total", map[string]string{"result": "skipped"}))
	close(release)
	require.NoError(t, <-errc)
	repA := <-done
	require.False(t, repA.Skipped)
	require.Equal(t, int64(1), repA.Count(decayer.StepFacts, decayer.OutcomeDecayed))

	// Several runners started together: one runs, the others skip or find
	// nothing left; the result is one run's.
	b.clock.Set(t0.Add(60 * day))
	var wg sync.WaitGroup
	reps, errs := make([]decayer.Report, 4), make([]error, 4)
	for i := range reps {
		d := b.newDecayer(t, nil)
		wg.Add(1)
		go func() {
			defer wg.Done()
			reps[i], errs[i] = d.RunOnce(context.Background())
		}()
	}
	wg.Wait()
	var decayed int64
	for i, r := range reps {
		require.NoError(t, errs[i])
		decayed += r.Count(decayer.StepFacts, decayer.OutcomeDecayed)
	}
	require.Equal(t, int64(1), decayed, "the fact decayed once across all runners")
	require.InDelta(t, 0.81, b.facts(t)["u1/topic/sf"].weightNow(), 1e-12)
}

func TestPerTypeSettings(t *testing.T) {
	t.Parallel()
	cfg := longTTL()
	cfg.Decay.PeriodByType = map[string]time.Duration{"topic": 7 * day}
	cfg.Decay.FactorByType = map[string]float64{"topic": 0.5, "genre": 1}
	cfg.Decay.FloorByType = map[string]float64{"author": 0.5}
	cfg.Decay.TTLByType = map[string]time.Duration{"book_title": 10 * day}
	b := setup(t, cfg)
	for _, typ := range []string{"topic", "genre", "author", "book_title", "person"} {
		b.mention(t, "u1", typ, "x", t0)
	}
	b.runAt(t, t0.Add(14*day))
	f := b.facts(t)
	require.Equal(t, 0.25, f["u1/topic/x"].weightNow(), "×0.5 per week, two weeks")
	require.Equal(t, record.FactActive, f["u1/topic/x"].Status)
	require.Equal(t, record.FactExpired, f["u1/book_title/x"].Status, "book titles live 10 days")
	require.Equal(t, record.FactActive, f["u1/person/x"].Status)
	require.Equal(t, 1.0, f["u1/person/x"].weightNow(), "default: 30-day periods")

	b.runAt(t, t0.Add(7*30*day))
	f = b.facts(t)
	require.Equal(t, record.FactArchived, f["u1/topic/x"].Status)
	require.Equal(t, record.FactArchived, f["u1/author/x"].Status, "0.9^7 ≈ 0.48 is below author's floor 0.5")
	require.Equal(t, record.FactActive, f["u1/person/x"].Status, "0.48 still counts for the default floor")
	require.Equal(t, 1.0, f["u1/genre/x"].weightNow(), "factor 1: no decay")
	require.Equal(t, record.FactActive, f["u1/genre/x"].Status)
}

// TestGoAndSQLAgree is the proof that the decay formula is one formula: on the
// same rows (types with their own rules, random base weights, last mentions
// and expiries, to the microsecond, some on period boundaries), the weight and
// status the decayer's SQL writes equal what decay.Policy computes in Go, bit
// for bit, and what the read path (assemble.TopFacts) shows.
func TestGoAndSQLAgree(t *testing.T) {
	t.Parallel()
	cfg := decayer.Config{BatchSize: 500}
	cfg.Decay = decay.DefaultConfig
	cfg.Decay.PeriodByType = map[string]time.Duration{"topic": time.Hour, "genre": 7*day + 3*time.Second + 7*time.Microsecond}
	cfg.Decay.FactorByType = map[string]float64{"topic": 0.97, "genre": 0.5, "author": 1}
	cfg.Decay.FloorByType = map[string]float64{"topic": 0.01, "person": 0.3}
	b := setup(t, cfg)
	p := b.d.Policy()
	types := []string{"book_title", "author", "topic", "genre", "person", "film"}
	rng := rand.New(rand.NewPCG(1, 2))
	base := t0.Add(3000 * day)
	const n = 4000
	tenant, user, typ, value := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	weight := make([]float64, n)
	last, expires := make([]time.Time, n), make([]time.Time, n)
	for i := range n {
		tenant[i], user[i], typ[i], value[i] = "acme", fmt.Sprintf("u%d", i%97), types[i%len(types)], fmt.Sprintf("v%d", i)
		weight[i] = rng.Float64()
		if i%5 == 0 {
			weight[i] = 1
		}
		r := p.Rule(typ[i])
		k := rng.Int64N(40)
		switch i % 4 {
		case 0: // exactly on a period boundary, or a microsecond either side
			last[i] = base.Add(-time.Duration(k)*r.Period + time.Duration(rng.IntN(3)-1)*time.Microsecond)
		case 1: // anywhere within ten years before, to the microsecond
			last[i] = base.Add(-time.Duration(rng.Int64N(int64(3650*day)) / 1000 * 1000))
		case 2: // after the run's time: not decayed
			last[i] = base.Add(time.Duration(rng.Int64N(int64(day))) / 1000 * 1000)
		case 3: // long ago
			last[i] = base.Add(-time.Duration(k) * 400 * day)
		}
		expires[i] = last[i].Add(time.Duration(rng.Int64N(int64(2000*day))) / 1000 * 1000)
		if i%7 == 0 {
			expires[i] = base // expiring exactly at the run's time
		}
	}
	_, err := b.db.Store.Pool().Exec(context.Background(), `
		INSERT INTO facts (tenant_id, user_id, type, value, display, weight, mention_count, first_seen_at, last_mentioned_at, expires_at, status, source)
		SELECT t, u, ty, v, v, w, 1, l, l, e, 'active', 'test'
		FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::float8[], $6::timestamptz[], $7::timestamptz[]) AS x(t, u, ty, v, w, l, e)`,
		tenant, user, typ, value, weight, last, expires)
	require.NoError(t, err)

	for _, at := range []time.Time{base, base.Add(-45 * day), base.Add(13*time.Hour + 17*time.Microsecond)} {
		_, err := b.db.Store.Pool().Exec(context.Background(), `UPDATE facts SET status = 'active', decayed_weight = NULL, decayed_at = NULL`)
		require.NoError(t, err)
		b.runAt(t, at)
		got := b.facts(t)
		require.Len(t, got, n)
		statuses := map[string]int{}
		for k, r := range got {
			w, status := p.Assess(r.Type, r.Weight, r.LastMentionedAt, r.ExpiresAt, at)
			require.Equal(t, status, r.Status, "%s at %s: status", k, at)
			require.Equal(t, w, r.weightNow(), "%s at %s: weight, bit for bit", k, at)
			statuses[status]++
			if status == record.FactActive {
				shown := assemble.TopFacts(p, []record.Fact{r.Fact}, at, -1).Facts
				require.Len(t, shown, 1)
				require.Equal(t, w, shown[0].Weight, "%s: the read path shows the same weight", k)
			}
		}
		for _, s := range []string{record.FactActive, record.FactArchived, record.FactExpired} {
			require.Positive(t, statuses[s], "the rows cover status %s at %s", s, at)
		}
	}
}

// TestStatusesAreTheStores holds the policy's words for a fact's status to the
// ones the store keeps and the decayer's SQL writes.
func TestStatusesAreTheStores(t *testing.T) {
	t.Parallel()
	require.Equal(t, record.FactActive, decay.Active)
	require.Equal(t, record.FactArchived, decay.Archived)
	require.Equal(t, record.FactExpired, decay.Expired)
}

func TestRefreshEvents(t *testing.T) {
	t.Parallel()
	b := setup(t, longTTL())
	b.mention(t, "old", "topic", "a", t0)
	b.mention(t, "old", "topic", "b", t0)
	b.mention(t, "fresh", "topic", "c", t0.Add(20*day))
	at := t0.Add(30 * day)
	rep := b.runAt(t, at)
	require.Equal(t, int64(1), rep.Count(decayer.StepRefresh, decayer.OutcomeUsersRefreshed), "one user, once")

	tasks := profileTasks(t, b.nats)
	require.Len(t, tasks, 1)
	require.Equal(t, events.ProfileTask{V: 1, TenantID: "acme", UserID: "old", RequestedAt: at}, tasks[0], "as of the run's time")
	require.Equal(t, 1.0, metricValue(t, b.reg, "recall_decayer_rows_total", map[string]string{"step": decayer.StepRefresh, "outcome": decayer.OutcomeUsersRefreshed}))
	require.Equal(t, 2.0, metricValue(t, b.reg, "recall_decayer_rows_total", map[string]string{"step": decayer.StepFacts, "outcome": decayer.OutcomeDecayed}))
	require.Equal(t, 1.0, metricValue(t, b.reg, "recall_decayer_runs_total", map[string]string{"result": "ok"}))
}

func TestRefreshSurvivesAFailedPublish(t *testing.T) {
	t.Parallel()
	b := setup(t, longTTL())
	b.mention(t, "u1", "topic", "a", t0)

	// A publisher whose connection is gone: the run fails, the refresh stays owed.
	nc, err := nats.Connect(b.nats.URL)
	require.NoError(t, err)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	nc.Close()
	broken, err := decayer.New(decayer.Options{Config: b.cfg, Store: b.db.Store, Publisher: queue.NewRefresher(js, 0), Log: testenv.Logger(t), Now: b.clock.Now})
	require.NoError(t, err)
	b.clock.Set(t0.Add(30 * day))
	rep, err := broken.RunOnce(context.Background())
	require.ErrorContains(t, err, "step refresh")
	require.Equal(t, int64(1), rep.Count(decayer.StepFacts, decayer.OutcomeDecayed), "the other steps still ran")
	require.Empty(t, profileTasks(t, b.nats))

	// The next run has nothing to decay, but sends the refresh it owes.
	rep = b.runAt(t, t0.Add(31*day))
	require.Zero(t, rep.Count(decayer.StepFacts, decayer.OutcomeDecayed))
	require.Equal(t, int64(1), rep.Count(decayer.StepRefresh, decayer.OutcomeUsersRefreshed))
	tasks := profileTasks(t, b.nats)
	require.Len(t, tasks, 1)
	require.Equal(t, t0.Add(30*day), tasks[0].RequestedAt, "as of the run that changed the facts")

	// Both runs are kept for operators: the last one, and the failure before.
	runs, err := b.db.Store.DecayerRuns(context.Background())
	require.NoError(t, err)
	require.Len(t, runs, 2)
	require.Equal(t, store.DecayerRunOK, runs[0].Result)
	require.Equal(t, t0.Add(31*day), runs[0].At)
	require.Equal(t, int64(1), stepCounts(runs[0], decayer.StepRefresh)[decayer.OutcomeUsersRefreshed])
	require.Equal(t, store.DecayerRunFailed, runs[1].Result)
	require.Contains(t, runs[1].Error, "step refresh")
	require.Equal(t, int64(1), stepCounts(runs[1], decayer.StepFacts)[decayer.OutcomeDecayed])
	for _, st := range runs[1].Steps {
		require.Equal(t, st.Name == decayer.StepRefresh, st.Error != "", "only the refresh step failed: %+v", st)
	}
}

// stepCounts are the counts a kept run has for one step.
func stepCounts(r store.DecayerRun, step string) map[string]int64 {
	for _, s := range r.Steps {
		if s.Name == step {
			return s.Counts
		}
	}
	return nil
}

// profileTasks reads every profile task on the signal stream.
func profileTasks(t *testing.T, n *testenv.NATS) []events.ProfileTask {
	t.Helper()
	ctx := context.Background()
	s, err := n.JS.Stream(ctx, queue.TasksStream)
	require.NoError(t, err)
	info, err := s.Info(ctx)
	require.NoError(t, err)
	var out []events.ProfileTask
	for seq := info.State.FirstSeq; info.State.Msgs > 0 && seq <= info.State.LastSeq; seq++ {
		m, err := s.GetMsg(ctx, seq)
		require.NoError(t, err)
		task, err := events.DecodeProfileTask(m.Data, events.ValidateOptions{})
		require.NoError(t, err)
		require.NoError(t, events.CheckProfileTaskSubject(m.Subject, &task))
		out = append(out, task)
	}
	return out
}

// metricValue is the value of the counter (or gauge) with exactly these
// labels; 0 when there is none yet.
func metricValue(t *testing.T, reg *prometheus.Registry, name string, labels map[string]string) float64 {
	mfs, err := reg.Gather()
	if err != nil {
		t.Error(err)
		return 0
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	metrics:
		for _, m := range mf.GetMetric() {
			if len(m.GetLabel()) != len(labels) {
				continue
			}
			for _, l := range m.GetLabel() {
				if labels[l.GetName()] != l.GetValue() {
					continue metrics
				}
			}
			if m.GetCounter() != nil {
				return m.GetCounter().GetValue()
			}
			return m.GetGauge().GetValue()
		}
	}
	return 0 // not there yet: nothing counted
}

func TestRetention(t *testing.T) {
	t.Parallel()
	for _, batch := range []int{1, 3, 10000} {
		t.Run(fmt.Sprintf("batch %d", batch), func(t *testing.T) {
			t.Parallel()
			cfg := decayer.Config{BatchSize: batch, RetentionDefault: decayer.Retention(60 * day)}
			require.NoError(t, cfg.RetentionByTenant.UnmarshalText([]byte("acme=30d,beta=0")))
			b := setup(t, cfg)
			var turns []store.StoredTurn
			add := func(tenant, session, role string, age time.Duration) {
				turns = append(turns, store.StoredTurn{Turn: events.Turn{ID: fmt.Sprintf("%s-%d", session, len(turns)), TenantID: tenant, UserID: "u1",
					SessionID: session, OccurredAt: t0.Add(-age), Role: role, Content: "hello"}})
			}
			add("acme", "s-old", "user", 40*day)
			add("acme", "s-old", "assistant", 36*day)
			add("acme", "s-old", "user", 35*day)
			add("acme", "s-mixed", "user", 40*day)
			add("acme", "s-mixed", "system", 35*day)
			add("acme", "s-mixed", "user", 10*day)
			add("acme", "s-mixed", "assistant", day)
			add("acme", "s-new", "user", 5*day)
			add("beta", "s-old", "user", 400*day)
			add("gamma", "s1", "user", 70*day)
			add("gamma", "s1", "user", 50*day)
			_, err := b.db.Store.InsertTurns(context.Background(), turns)
			require.NoError(t, err)
			// What the user said of themselves in an old turn goes with it;
			// a value set explicitly, and one from a turn kept, stay.
			attr := func(event, key, value, source, session string, age time.Duration) store.AssertionRow {
				a := attribute.Assertion{Key: key, Value: value, Op: attribute.Put, Source: source, EventID: event,
					SessionID: session, Confidence: 1, At: t0.Add(-age)}
				require.NoError(t, attribute.Normalize(attribute.Default(), &a))
				return store.AssertionRow{TenantID: "acme", UserID: "u1", Assertion: a}
			}
			_, err = b.db.Store.RecordAssertions(context.Background(), []store.AssertionRow{
				attr("s-old-0", "location", "Paris", attribute.Stated, "s-old", 40*day),
				attr("s-mixed-6", "diet", "vegetarian", attribute.Stated, "s-mixed", 10*day),
				attr("edit-1", "name", "Ann", attribute.Explicit, "", 50*day),
			})
			require.NoError(t, err)

			rep := b.runAt(t, t0)
			require.Equal(t, int64(6), rep.Count(decayer.StepRetention, decayer.OutcomeMessagesDeleted))
			require.Equal(t, int64(1), rep.Count(decayer.StepRetention, decayer.OutcomeAttributesDeleted))
			left, err := b.db.Store.Tenant("acme").Assertions(context.Background(), "u1")
			require.NoError(t, err)
			require.Len(t, left, 2)
			for _, a := range left {
				require.NotEqual(t, "Paris", a.Value)
			}
			require.Equal(t, int64(1), rep.Count(decayer.StepRetention, decayer.OutcomeSessionsDeleted))

			ctx := context.Background()
			acme := b.db.Store.Tenant("acme")
			_, err = acme.Session(ctx, "s-old")
			require.ErrorIs(t, err, store.ErrNotFound, "a session all beyond retention goes whole")
			mixed, err := acme.Session(ctx, "s-mixed")
			require.NoError(t, err)
			require.Equal(t, int64(2), mixed.MessageCount)
			require.Equal(t, int64(0), mixed.SystemCount)
			require.Equal(t, t0.Add(-10*day), mixed.FirstMessageAt, "first message read again from what is left")
			require.Equal(t, t0.Add(-day), mixed.LastMessageAt)
			_, msgs, err := acme.SessionWithRecent(ctx, "s-mixed", time.Time{}, 10, true)
			require.NoError(t, err)
			require.Len(t, msgs, 2)
			for _, s := range []struct{ tenant, session string }{{"acme", "s-new"}, {"beta", "s-old"}, {"gamma", "s1"}} {
				_, err := b.db.Store.Tenant(s.tenant).Session(ctx, s.session)
				require.NoError(t, err, "%s/%s kept", s.tenant, s.session)
			}
			gamma, err := b.db.Store.Tenant("gamma").Session(ctx, "s1")
			require.NoError(t, err)
			require.Equal(t, int64(1), gamma.MessageCount, "the default retention (60 days) applies to tenants not named")

			rep = b.runAt(t, t0.Add(time.Hour))
			require.Zero(t, rep.Count(decayer.StepRetention, decayer.OutcomeMessagesDeleted), "a second run deletes nothing")
			require.Zero(t, rep.Count(decayer.StepRetention, decayer.OutcomeSessionsDeleted))
		})
	}
}

func TestRetentionConfig(t *testing.T) {
	t.Parallel()
	var tr decayer.TenantRetention
	require.NoError(t, tr.UnmarshalText([]byte("acme=90d, beta=720h,gamma=0")))
	require.Equal(t, decayer.TenantRetention{"acme": 90 * day, "beta": 30 * day, "gamma": 0}, tr)
	require.Equal(t, "acme=90d,beta=30d,gamma=keep", tr.String())
	for _, bad := range []string{"acme", "acme=ninety", "=30d", "acme=-1d", "acme=1d,acme=2d"} {
		require.Error(t, tr.UnmarshalText([]byte(bad)), bad)
	}
	cfg := decayer.Config{RetentionDefault: decayer.Retention(7 * day), RetentionByTenant: decayer.TenantRetention{"acme": 0}}
	require.Equal(t, time.Duration(0), cfg.RetentionFor("acme"), "0 keeps, overriding the default")
	require.Equal(t, 7*day, cfg.RetentionFor("other"))
}

func TestLoopRunsOnScheduleAndStops(t *testing.T) {
	t.Parallel()
	cfg := longTTL()
	cfg.Interval = 50 * time.Millisecond
	b := setup(t, cfg)
	b.mention(t, "u1", "topic", "sf", t0)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- b.d.Loop(ctx) }()
	require.Eventually(t, func() bool {
		return metricValue(t, b.reg, "recall_decayer_runs_total", map[string]string{"result": "ok"}) >= 3
	}, 10*time.Second, 10*time.Millisecond, "a run at start, then every interval")
	b.clock.Set(t0.Add(30 * day))
	require.Eventually(t, func() bool { return b.facts(t)["u1/topic/sf"].Decayed != nil }, 10*time.Second, 10*time.Millisecond)
	cancel()
	require.NoError(t, <-done, "the end of the context ends the loop without error")
}

// TestRetriesADeadlock: a writer that holds a fact the decayer needs and then
// waits for one the decayer holds makes a cycle; PostgreSQL aborts the decayer's
// batch (it waited first), and the batch runs again.
func TestRetriesADeadlock(t *testing.T) {
	t.Parallel()
	b := setup(t, longTTL())
	var ms []store.Mention
	for _, v := range []string{"a", "m", "z"} {
		ms = append(ms, store.Mention{TenantID: "acme", EventID: "e-" + v, UserID: "u1", SessionID: "s", Type: "topic", Value: v, Display: v,
			OccurredAt: t0, ExpiresAt: t0.Add(5000 * day), Source: "rules"})
	}
	_, err := b.db.Store.RecordMentions(context.Background(), ms)
	require.NoError(t, err)

	ctx := context.Background()
	tx, err := b.db.Store.Pool().Begin(ctx)
	require.NoError(t, err)
	defer tx.Rollback(ctx)
	_, err = tx.Exec(ctx, `UPDATE facts SET display = display WHERE value = 'z'`)
	require.NoError(t, err)

	b.clock.Set(t0.Add(30 * day))
	type result struct {
		rep decayer.Report
		err error
	}
	done := make(chan result, 1)
	go func() {
		rep, err := b.d.RunOnce(ctx)
		done <- result{rep, err}
	}()
	require.Eventually(t, func() bool {
		var waiting bool
		err := b.db.Store.Pool().QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%Brings the facts%')`).Scan(&waiting)
		return err == nil && waiting
	}, 10*time.Second, 5*time.Millisecond, "the decayer waits for the row the writer holds")
	// Now the writer waits for a row the decayer holds: a cycle.
	_, err = tx.Exec(ctx, `UPDATE facts SET display = display WHERE value = 'a'`)
	if err == nil {
		require.NoError(t, tx.Commit(ctx))
	}
	res := <-done
	require.NoError(t, res.err)
	require.Equal(t, int64(3), res.rep.Count(decayer.StepFacts, decayer.OutcomeDecayed), "every fact decayed, after the retry")
}

// The seen-item registry is cleaned by age (event time of the last showing):
// an item shown again recently stays.
func TestSeenItemsPrunedByAge(t *testing.T) {
	t.Parallel()
	b := setup(t, decayer.Config{Seen: retention.Policy{MaxAge: 90 * 24 * time.Hour}})
	ctx := context.Background()
	list := func(id string, at time.Time, refs ...string) events.Turn {
		var items []events.Item
		for _, r := range refs {
			items = append(items, events.Item{Ref: r, Title: r})
		}
		return events.Turn{V: events.Version, ID: id, TenantID: "acme", UserID: "u1", SessionID: "s1", OccurredAt: at, Role: events.RoleAssistant, Items: items}
	}
	_, err := b.db.Store.RecordSeen(ctx, []events.Turn{
		list("old", t0, "/mv/1", "/mv/2"),
		list("new", t0.Add(80*24*time.Hour), "/mv/2"),
	}, 0)
	require.NoError(t, err)
	count := func() (n int) {
		require.NoError(t, b.db.Store.Pool().QueryRow(ctx, `SELECT count(*) FROM seen_items`).Scan(&n))
		return n
	}
	require.Equal(t, 2, count())
	b.runAt(t, t0.Add(89*24*time.Hour))
	require.Equal(t, 2, count(), "nothing is 90 days old yet")
	rep := b.runAt(t, t0.Add(91*24*time.Hour))
	require.Equal(t, 1, count(), "/mv/1 was last shown 91 days ago; /mv/2 again 11 days ago")
	require.Equal(t, int64(1), rep.Count(decayer.StepSeen, "deleted"))
}

// Facts expired for longer than PurgeAfter are deleted with their mentions;
// those expired more recently, still active, or mentioned again are kept.
func TestPurgeExpiredFacts(t *testing.T) {
	t.Parallel()
	b := setup(t, decayer.Config{PurgeAfter: 30 * day, BatchSize: 2})
	b.mention(t, "u1", "author", "Herbert", t0)
	b.mention(t, "u1", "author", "Herbert", t0.Add(time.Hour))
	b.mention(t, "u1", "topic", "jazz", t0.Add(60*day))
	b.mention(t, "u2", "author", "Herbert", t0)
	b.mention(t, "u2", "author", "Herbert", t0.Add(100*day)) // active again until day 190
	// Enough long-expired facts to fill several heap pages, so several batches.
	var films []store.Mention
	for i := range 300 {
		at := t0.Add(-time.Duration(10+i%5) * day)
		films = append(films, store.Mention{TenantID: "acme", EventID: fmt.Sprintf("f%d", i), UserID: fmt.Sprintf("x%d", i), SessionID: "s",
			Type: "film", Value: "Dune", Display: "Dune", OccurredAt: at, ExpiresAt: at.Add(90 * day), Source: "rules"})
	}
	_, err := b.db.Store.RecordMentions(context.Background(), films)
	require.NoError(t, err)
	mentions := func(user, value string) int {
		var n int
		require.NoError(t, b.db.Store.Pool().QueryRow(context.Background(),
			`SELECT count(*) FROM fact_mentions WHERE user_id = $1 AND value = $2`, user, value).Scan(&n))
		return n
	}
	expiry := t0.Add(time.Hour + 90*day) // u1's Herbert

	rep := b.runAt(t, expiry.Add(30*day))
	require.Equal(t, record.FactExpired, b.facts(t)["u1/author/Herbert"].Status, "expired exactly PurgeAfter ago: kept")
	require.Equal(t, int64(300), rep.Count(decayer.StepPurge, decayer.OutcomeFactsPurged), "only the films, expired longer ago")
	require.Equal(t, int64(300), rep.Count(decayer.StepPurge, decayer.OutcomeMentionsPurged))
	require.Greater(t, rep.Steps[1].Batches, 1, "in several batches")

	rep = b.runAt(t, expiry.Add(30*day+time.Microsecond))
	require.Equal(t, int64(1), rep.Count(decayer.StepPurge, decayer.OutcomeFactsPurged))
	require.Equal(t, int64(2), rep.Count(decayer.StepPurge, decayer.OutcomeMentionsPurged))
	facts := b.facts(t)
	require.NotContains(t, facts, "u1/author/Herbert")
	require.Zero(t, mentions("u1", "Herbert"))
	require.Equal(t, record.FactActive, facts["u1/topic/jazz"].Status)
	require.Equal(t, 1, mentions("u1", "jazz"))
	require.Equal(t, record.FactActive, facts["u2/author/Herbert"].Status, "mentioned again: active, kept")
	require.Equal(t, 2, mentions("u2", "Herbert"))
	require.Len(t, facts, 2)

	rep = b.runAt(t, expiry.Add(31*day))
	require.Zero(t, rep.Count(decayer.StepPurge, decayer.OutcomeFactsPurged), "a second run purges nothing")

	// Mentioned again after the purge, it starts over.
	b.mention(t, "u1", "author", "Herbert", expiry.Add(40*day))
	require.Equal(t, record.FactActive, b.facts(t)["u1/author/Herbert"].Status)
	require.Equal(t, 1, mentions("u1", "Herbert"))
}

func TestPurgeOffAndInvalid(t *testing.T) {
	t.Parallel()
	b := setup(t, decayer.Config{})
	b.mention(t, "u1", "author", "Herbert", t0)
	rep := b.runAt(t, t0.Add(5000*day))
	require.Zero(t, rep.Count(decayer.StepPurge, decayer.OutcomeFactsPurged))
	require.Contains(t, b.facts(t), "u1/author/Herbert", "PurgeAfter 0 keeps expired facts")

	_, err := decayer.New(decayer.Options{Config: decayer.Config{PurgeAfter: -time.Hour}, Store: b.db.Store})
	require.ErrorContains(t, err, "FACT_PURGE_AFTER")
}
