package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/recallhq/recall/internal/testkit/pgcluster"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/queue"
)

// The processes of a run, in start order. Each worker runs as its own binary
// (cmd/<name>), as in a deployment; the API too.
var processNames = []string{"api", "ingest", "extractor", "seen", "indexer", "summarizer", "profiler", "decayer", "catalog"}

// turnWorkers are the workers every turn goes through; they get the extra
// kills.
var turnWorkers = []string{"ingest", "extractor", "seen", "indexer", "summarizer"}

// decodingConsumers are the consumers that decode every turn, so each
// dead-letters a poison turn once. (seen acknowledges a turn without a list
// without decoding it.)
var decodingConsumers = []string{"extractor", "indexer", "ingest"}

const poisonID = "poison-1"

// run is one chaos run's state.
type run struct {
	o     Options
	log   *slog.Logger
	dir   string
	bin   string
	rep   *Report
	nats  *natsCluster
	pg    *pgcluster.Cluster
	pgBin string // the PostgreSQL binaries' directory (pg_dump)
	procs map[string]*proc
	order []string // processes running, in start order
	env   map[string]string
	auth  *natsAuth
	start time.Time

	nc  *nats.Conn
	js  jetstream.JetStream
	db  *pgxpool.Pool
	adv *advisories
}

// Run does a whole chaos run: its own NATS server and PostgreSQL cluster,
// the binaries built once, every process started, the workload published
// under faults, the checks, a replay, and everything stopped again (by pid,
// also on error and cancellation). The error is about the harness failing to
// do its job; what Recall did wrong is in the report's checks.
func Run(ctx context.Context, o Options, log *slog.Logger) (*Report, error) {
	r := &run{o: o, log: log, procs: map[string]*proc{}, start: time.Now(),
		rep: &Report{Mode: o.Mode, Seed: o.Seed, Exits: map[string][]procExit{}}}
	reapStale(log)
	pgBin, err := pgcluster.FindBin(o.PGBin)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", runDirPrefix)
	if err != nil {
		return nil, err
	}
	natsBin, err := natsServerBinary(ctx, o, filepath.Join(dir, "bin"))
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	// The cluster's directory inside belongs to the postgres user, who must
	// be able to reach it.
	if err := os.Chmod(dir, 0o755); err != nil {
		return nil, err
	}
	r.dir, r.rep.Dir = dir, dir
	if err := pgcluster.Claim(dir); err != nil {
		return nil, err
	}
	log.Info("chaos run", "mode", o.Mode, "turns", o.Turns, "dir", dir)

	err = r.do(ctx, natsBin, pgBin)
	tstart := time.Now()
	r.teardown()
	r.rep.phase("teardown", tstart)
	switch {
	case o.Keep:
	case err == nil && !r.rep.Failed():
		if rmErr := os.RemoveAll(dir); rmErr == nil {
			r.rep.Dir = dir + " (removed)"
		}
	default:
		// Kept for the logs and the data; the binaries (300 MB) are built
		// again by the next run.
		_ = os.RemoveAll(filepath.Join(dir, "bin"))
		r.rep.Dir = dir + " (kept: logs, nats/, pg/)"
	}
	return r.rep, err
}

// do is the run between its directory and its teardown: set up, publish
// under faults, settle, then the checks, the replay and the forget, each
// timed as a phase of the report.
func (r *run) do(ctx context.Context, natsBin, pgBin string) error {
	r.pgBin = pgBin
	o := r.o
	setup := time.Now()
	mc, err := r.setUp(ctx, natsBin, pgBin)
	if err != nil {
		return err
	}
	r.rep.phase("setup", setup)

	// Publish under faults.
	pstart := time.Now()
	w := newWorkload(o.Turns, o.ChunkSize, 0.3, o.Seed, time.Now())
	forget := markForgotten(w, o.ForgetUsers)
	r.rep.Workload = summarize(w)
	led, err := r.publishUnderFaults(ctx, w)
	if err != nil {
		return err
	}
	r.rep.phase("publish+faults", pstart)

	if err := r.settle(ctx); err != nil {
		return err
	}

	// Checks.
	cstart := time.Now()
	e, err := expectFrom(ctx, w, led.acknowledged(), mc)
	if err != nil {
		return err
	}
	if err := r.checks(ctx, e, led); err != nil {
		return err
	}
	r.rep.phase("checks", cstart)

	// Replay.
	rstart := time.Now()
	if err := r.replayChecks(ctx, e); err != nil {
		return err
	}
	r.rep.phase("replay", rstart)

	// Forget, last: it removes rows the checks above count.
	if len(forget) > 0 {
		fstart := time.Now()
		if err := r.forgetChecks(ctx, forget); err != nil {
			return err
		}
		r.rep.phase("forget", fstart)
	}
	return nil
}

// setUp starts what the run runs on, as a deployment has it: NATS, each
// process logging in as its own user, and PostgreSQL, then the schema, the
// harness's own connections, the streams (clustered) and every process. It
// returns the rules' mention counter, which the expectations are made with.
func (r *run) setUp(ctx context.Context, natsBin, pgBin string) (*mentionCounter, error) {
	o := r.o
	// NATS takes a client port per server and, clustered, a route port
	// each; then PostgreSQL, the API and every process's ops port.
	natsPorts := 1
	if o.Servers > 1 {
		natsPorts = 2 * o.Servers
	}
	ports, err := pgcluster.FreePorts(natsPorts + 1 + 1 + len(processNames))
	if err != nil {
		return nil, err
	}
	if r.nats, err = newNATSCluster(ctx, natsBin, r.dir, o.Servers, ports[:natsPorts]); err != nil {
		return nil, err
	}
	// Every process logs in as its own user of the production layout.
	if r.auth, err = newNATSAuth(r.dir); err != nil {
		return nil, err
	}
	r.nats.SetAuth(r.auth)
	// From here ports[1] is PostgreSQL's and ports[2:] the processes'.
	ports = ports[natsPorts-1:]
	r.rep.NATSServer = r.nats.version.String() + " (" + natsBin + ")"
	if r.nats.Clustered() {
		r.rep.NATSServer += "; a cluster of " + strconv.Itoa(len(r.nats.servers)) + ": " + r.nats.Describe()
	}
	if r.pg, err = pgcluster.New(ctx, pgBin, filepath.Join(r.dir, "pg"), ports[1]); err != nil {
		return nil, err
	}
	r.rep.PostgreSQL = r.pg.Version
	mc, err := r.startInfrastructure(ctx)
	if err != nil {
		return nil, err
	}
	r.log.Info("infrastructure up", "nats", r.nats.URL(), "nats_version", r.nats.version.String(), "postgres", r.pg.URL("recall"))

	r.env = r.childEnv()
	if err := r.migrate(ctx); err != nil {
		return nil, err
	}
	if err := r.connect(ctx); err != nil {
		return nil, err
	}
	if r.nats.Clustered() {
		if err := r.declareStreams(ctx); err != nil {
			return nil, err
		}
	}
	if err := r.startProcesses(ctx, ports[2:]); err != nil {
		return nil, err
	}
	return mc, nil
}

// startInfrastructure builds the binaries, makes the cluster, starts the
// NATS servers and reads the rules (for the expected mentions) at once: they
// take seconds each.
func (r *run) startInfrastructure(ctx context.Context) (*mentionCounter, error) {
	var (
		wg                              sync.WaitGroup
		buildErr, pgErr, natsErr, mcErr error
		mc                              *mentionCounter
	)
	timed := func(name string, f func() error) func() error {
		return func() error {
			t := time.Now()
			err := f()
			r.log.Info("set up", "step", name, "took", time.Since(t).Round(time.Millisecond))
			return err
		}
	}
	wg.Add(4)
	go func() { defer wg.Done(); buildErr = timed("build", func() error { return r.build(ctx) })() }()
	go func() { defer wg.Done(); pgErr = timed("postgres", func() error { return r.pg.Init(ctx, "recall") })() }()
	go func() { defer wg.Done(); natsErr = timed("nats", func() error { return r.nats.Start(ctx) })() }()
	go func() {
		defer wg.Done()
		mcErr = timed("rules", func() (err error) { mc, err = newMentionCounter(); return err })()
	}()
	wg.Wait()
	if err := errors.Join(buildErr, pgErr, natsErr, mcErr); err != nil {
		return nil, err
	}
	return mc, nil
}

// publishUnderFaults publishes the workload while the fault schedule kills
// the processes, NATS and PostgreSQL (and, with StallKill, stalls ingest
// until turns run out of deliveries), and returns the ledger of what was
// acknowledged. Either side failing stops the other.
func (r *run) publishUnderFaults(ctx context.Context, w *workload) (*ledger, error) {
	o := r.o
	led := newLedger()
	pub := &publisher{js: r.js, apiURL: "http://" + r.env["API_ADDR"], http: &http.Client{Timeout: 10 * time.Second}, ledger: led}
	in := &injector{procs: r.procs, nats: r.nats, js: r.js, pg: r.pg, log: r.log, start: time.Now(), natsDown: time.Second}
	r.rep.PublishStart = in.start
	var extra []string
	for _, n := range turnWorkers {
		if r.procs[n] != nil {
			extra = append(extra, n)
		}
	}
	plan := faultSchedule(r.order, extra, o.KillsPerProcess, o.ExtraKills, len(r.nats.servers), o.Publish, (o.AckWait+time.Second)/time.Duration(len(r.order)))
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg               sync.WaitGroup
		pubErr, faultErr error
	)
	wg.Add(2)
	go func() {
		defer wg.Done()
		pubErr = publishPlan(pctx, pub, w, o, o.Seed, r.log)
		if pubErr != nil {
			cancel()
		}
	}()
	go func() {
		defer wg.Done()
		faultErr = in.Run(pctx, plan)
		if faultErr == nil && o.StallKill {
			faultErr = in.stallKill(pctx, r.pg.URL("recall"), r.js, o.MaxDeliver, o.AckWait)
		}
		if faultErr != nil {
			cancel()
		}
	}()
	wg.Wait()
	r.rep.Faults = in.Records()
	r.rep.Publish = led.stats
	if err := errors.Join(pubErr, faultErr); err != nil {
		return nil, fmt.Errorf("publish under faults: %w", err)
	}
	return led, nil
}

// settle waits until the pipeline has settled. The stall-kill's turns ran
// out of deliveries on purpose and are in RECALL_DLQ, not lost; once the
// stall is over an operator re-drives them, as here, and the checks expect
// every one stored.
func (r *run) settle(ctx context.Context) error {
	o := r.o
	sstart := time.Now()
	res := waitSettled(ctx, r.js, r.db, o.Quiet, o.SettleTimeout, r.log)
	r.rep.add(settleRow("pipeline settled (every consumer 0 pending, 0 unacked; summaries caught up)", res))
	r.rep.phase("settle", sstart)
	if !o.StallKill {
		return nil
	}
	dstart := time.Now()
	if err := r.redriveStalled(ctx); err != nil {
		return err
	}
	res = waitSettled(ctx, r.js, r.db, o.Quiet, o.SettleTimeout, r.log)
	r.rep.add(settleRow("settled after the re-drive", res))
	r.rep.phase("re-drive", dstart)
	return nil
}

func summarize(w *workload) workloadSummary {
	s := workloadSummary{Tenants: len(w.Tenants), Users: w.Users, Sessions: w.Sessions, Turns: len(w.Turns)}
	for _, t := range w.Turns {
		if t.Turn.Role == "system" {
			s.System++
		}
		if t.Refs > 0 {
			s.Lists++
		}
	}
	return s
}

func settleRow(name string, res settleResult) checkRow {
	row := checkRow{Name: name, Expected: "settled", Status: statusPass,
		Got: fmt.Sprintf("settled after %s", fmtDur(res.Took))}
	if !res.Settled {
		row.Status = statusFail
		row.Got = fmt.Sprintf("not after %s", fmtDur(res.Took))
		var busy []string
		for _, l := range res.Consumers {
			if !l.Idle() {
				busy = append(busy, fmt.Sprintf("%s/%s %d pending %d unacked", l.Stream, l.Name, l.Pending, l.AckPending))
			}
		}
		row.Evidence = fmt.Sprintf("consumers: %s; sessions behind on summaries: %d", strings.Join(busy, ", "), res.Behind)
		if res.Err != nil {
			row.Evidence += "; last error: " + res.Err.Error()
		}
	}
	return row
}

// build compiles every binary once.
func (r *run) build(ctx context.Context) error {
	if r.o.BinDir != "" {
		r.bin = r.o.BinDir
		return nil
	}
	r.bin = filepath.Join(r.dir, "bin")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", r.bin+string(filepath.Separator), "./cmd/...")
	cmd.Dir = r.o.Root
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build ./cmd/...: %w\n%s", err, out)
	}
	return nil
}

// childEnv is the environment every Recall process of the run shares: its
// own NATS and PostgreSQL, a short duplicate window, and each worker's
// consumer and retry settings. Nothing else is inherited, so a developer's
// NATS_URL, LLM_MODEL or API_KEYS never reach the run.
func (r *run) childEnv() map[string]string {
	o := r.o
	env := map[string]string{
		"NATS_URL":                r.nats.URL(),
		"DATABASE_URL":            r.pg.URL("recall"),
		"LOG_LEVEL":               "info",
		"STREAM_DUPLICATE_WINDOW": o.DuplicateWindow.String(),
		// Profile refresh debouncing must stay below the duplicate window.
		"PROFILE_REFRESH_BUCKET": (o.DuplicateWindow / 2).String(),
		// The sessions are hours old: the sweep asks for their last
		// summaries as soon as they are stored.
		"SUMMARY_SWEEP_INTERVAL": "1s",
		"SHUTDOWN_TIMEOUT":       "10s",
		// One replica per server: 3 in the cluster mode.
		"STREAM_REPLICAS": strconv.Itoa(len(r.nats.servers)),
	}
	for _, p := range []string{"INGEST_", "EXTRACTOR_", "SEEN_", "INDEXER_", "SUMMARIZER_", "PROFILER_", "CATALOG_"} {
		env[p+"CONSUMER_ACK_WAIT"] = o.AckWait.String()
		env[p+"CONSUMER_MAX_DELIVER"] = strconv.Itoa(o.MaxDeliver)
		env[p+"RETRY_INITIAL"] = o.RetryInitial.String()
		env[p+"RETRY_MAX"] = o.RetryMax.String()
		env[p+"DRAIN_TIMEOUT"] = "5s"
		// A handler stuck past this (a lock, a connection the PostgreSQL
		// restart left dead) is cut off and retried within the run.
		env[p+"HANDLE_TIMEOUT"] = "20s"
	}
	return env
}

func envList(set map[string]string, extra ...string) []string {
	var env []string
	for _, k := range []string{"PATH", "HOME", "TMPDIR", "TZ"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		env = append(env, k+"="+set[k])
	}
	return append(env, extra...)
}

func (r *run) migrate(ctx context.Context) error {
	cmd := exec.CommandContext(ctx, filepath.Join(r.bin, "recall"), "migrate")
	cmd.Env = envList(r.env)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("recall migrate: %w (is pgvector installed for %s? run make deps, which runs scripts/ensure-pgvector.sh)\n%s", err, r.pg.Version, out)
	}
	return nil
}

// startProcesses starts the API and every worker and waits until each
// answers /readyz. The catalog worker needs nats-server 2.10 (a consumer
// with two filter subjects); on an older server it cannot start, which is
// reported and the run goes on without it.
func (r *run) startProcesses(ctx context.Context, ports []int) error {
	r.env["API_ADDR"] = "127.0.0.1:" + strconv.Itoa(ports[0])
	for i, name := range processNames {
		ops := "127.0.0.1:" + strconv.Itoa(ports[1+i])
		extra := append([]string{"OPS_ADDR=" + ops}, r.auth.Env("recall-"+name)...)
		p := &proc{
			name: name, path: filepath.Join(r.bin, name), env: envList(r.env, extra...),
			logPath: filepath.Join(r.dir, name+".log"), opsURL: "http://" + ops,
			delay: 300 * time.Millisecond, log: r.log,
		}
		if err := p.Run(ctx); err != nil {
			return err
		}
		r.procs[name] = p
		r.order = append(r.order, name)
	}
	var wg sync.WaitGroup
	errs := make([]error, len(processNames))
	for i, name := range processNames {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = r.procs[name].WaitReady(ctx, 90*time.Second, true)
			if errs[i] != nil {
				r.procs[name].Stop(5 * time.Second)
			}
		}()
	}
	wg.Wait()
	var failed []error
	for i, name := range processNames {
		err := errs[i]
		if err == nil {
			continue
		}
		if name == "catalog" {
			r.rep.Exits[name] = r.procs[name].Exits()
			delete(r.procs, name)
			r.order = removeString(r.order, name)
			row := checkRow{Name: "catalog worker starts", Expected: "ready", Got: "exits at start", Status: statusFail, Evidence: err.Error()}
			if !r.nats.version.AtLeast(2, 10) && strings.Contains(err.Error(), "multiple consumer filter subjects") {
				row.Status = statusWarn
				r.rep.Notes = append(r.rep.Notes, fmt.Sprintf("catalog not run: its consumer has two filter subjects, which needs nats-server 2.10 (this one is %s)", r.nats.version))
			}
			r.rep.add(row)
			continue
		}
		failed = append(failed, err)
	}
	if len(failed) > 0 {
		return errors.Join(failed...)
	}
	if r.procs["catalog"] != nil {
		r.rep.add(checkRow{Name: "catalog worker starts", Expected: "ready", Got: "ready", Status: statusPass})
	}
	r.rep.Processes = append([]string(nil), r.order...)
	for i, name := range r.rep.Processes {
		r.rep.Processes[i] = fmt.Sprintf("%s (pid %d)", name, r.procs[name].Pid())
	}
	r.log.Info("processes ready", "processes", strings.Join(r.order, ","))
	return nil
}

func removeString(xs []string, s string) []string {
	out := xs[:0]
	for _, x := range xs {
		if x != s {
			out = append(out, x)
		}
	}
	return out
}

// connect opens the harness's own NATS connection (reconnecting forever:
// the server is killed during the run), its JetStream handle, the
// max-deliveries advisory watch and a database pool for the checks.
func (r *run) connect(ctx context.Context) error {
	nc, err := nats.Connect(r.nats.URL(), r.auth.Harness(), nats.Name("recall-chaos"), nats.MaxReconnects(-1), nats.ReconnectWait(250*time.Millisecond))
	if err != nil {
		return fmt.Errorf("nats: %w", err)
	}
	r.nc = nc
	if r.js, err = jetstream.New(nc); err != nil {
		return err
	}
	if r.adv, err = watchAdvisories(nc); err != nil {
		return err
	}
	if r.db, err = pgxpool.New(ctx, r.pg.URL("recall")); err != nil {
		return err
	}
	return nil
}

// checks compares what was published with the database and the streams.
func (r *run) checks(ctx context.Context, e *expected, led *ledger) error {
	rows, err := dbChecks(ctx, r.db, tenants, e)
	if err != nil {
		return err
	}
	missing, err := missingIDs(ctx, r.db, e)
	if err != nil {
		return err
	}
	dlq, err := readDLQ(ctx, r.js)
	if err != nil {
		return err
	}
	advs := r.adv.List()
	silent := silentlyDropped(advs, dlq)
	if len(missing) > 0 {
		ev := lostEvidence(missing, led, silent, dlq)
		for i := range rows {
			if strings.HasPrefix(rows[i].Name, "messages rows") && rows[i].Status == statusFail && strings.HasSuffix(rows[i].Name, "[all]") {
				rows[i].Evidence = ev
			}
		}
	}
	r.rep.add(rows...)
	lost := countRow("acknowledged turns not stored (lost)", 0, int64(len(missing)))
	if len(missing) > 0 {
		lost.Evidence = lostEvidence(missing, led, silent, dlq)
	}
	dups, err := scalar(ctx, r.db, qDuplicated)
	if err != nil {
		return err
	}
	r.rep.add(lost, countRow("turns stored more than once (duplicated)", 0, dups))
	sums, err := summaryChecks(ctx, r.db)
	if err != nil {
		return err
	}
	r.rep.add(sums...)

	// Max deliveries reached with no dead letter: the runner never saw the
	// last delivery (it died holding it), and the server dropped it.
	row := countRow("messages that reached MaxDeliver without a dead letter", 0, int64(len(silent)))
	if len(silent) > 0 {
		row.Evidence = advisoryEvidence(silent)
	}
	r.rep.add(row)
	r.rep.add(dlqRows(dlq, r.o.Poison, r.nats.version)...)

	if r.nats.Clustered() {
		r.rep.add(r.replicaRows(ctx)...)
	}

	sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if st, err := r.js.Stream(sctx, queue.TurnsStream); err == nil {
		if info, err := st.Info(sctx); err == nil {
			r.rep.StreamTurns = info.State.Msgs
		}
	}
	if !r.nats.version.AtLeast(2, 10) {
		r.rep.Notes = append(r.rep.Notes, fmt.Sprintf("nats-server %s is older than the 2.10 Recall is built for (deploy/compose.yaml runs 2.10): it ignores the runner's Term with a reason, so a dead-lettered message is delivered again after AckWait until MaxDeliver", r.nats.version))
	}
	return nil
}

// silentlyDropped are the max-deliveries advisories of messages the
// consumer did not dead-letter.
func silentlyDropped(advs []maxDelivery, dlq []deadLetter) []maxDelivery {
	dead := map[string]bool{}
	for _, d := range dlq {
		dead[d.Consumer+"/"+strconv.FormatUint(d.StreamSeq, 10)] = true
	}
	var out []maxDelivery
	seen := map[string]bool{}
	for _, a := range advs {
		k := a.Consumer + "/" + strconv.FormatUint(a.StreamSeq, 10)
		if dead[k] || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Consumer != out[j].Consumer {
			return out[i].Consumer < out[j].Consumer
		}
		return out[i].StreamSeq < out[j].StreamSeq
	})
	return out
}

func advisoryEvidence(silent []maxDelivery) string {
	by := map[string][]maxDelivery{}
	for _, a := range silent {
		by[a.Stream+"/"+a.Consumer] = append(by[a.Stream+"/"+a.Consumer], a)
	}
	var parts []string
	for k, as := range by {
		parts = append(parts, fmt.Sprintf("%s: %d advisories $JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES (stream seq %d..%d, %d deliveries each), none in RECALL_DLQ",
			k, len(as), as[0].StreamSeq, as[len(as)-1].StreamSeq, as[0].Deliveries))
	}
	sort.Strings(parts)
	return strings.Join(parts, "; ")
}

// lostEvidence says which acknowledged turns the database lacks and what
// the server said about them.
func lostEvidence(missing []turnKey, led *ledger, silent []maxDelivery, dlq []deadLetter) string {
	advised := map[uint64]maxDelivery{}
	for _, a := range silent {
		if a.Stream == queue.TurnsStream && a.Consumer == "ingest" {
			advised[a.StreamSeq] = a
		}
	}
	inDLQ := map[string]bool{}
	for _, d := range dlq {
		inDLQ[d.MsgID] = true
	}
	led.mu.Lock()
	defer led.mu.Unlock()
	withAdv, dead := 0, 0
	var examples []string
	for _, k := range missing {
		var seqs []string
		hit := false
		for _, s := range led.seqs[k] {
			seqs = append(seqs, strconv.FormatUint(s, 10))
			if _, ok := advised[s]; ok {
				hit = true
			}
		}
		if hit {
			withAdv++
		}
		if inDLQ[events.MsgID(k.Tenant, k.ID)] {
			dead++
		}
		if len(examples) < 5 {
			examples = append(examples, fmt.Sprintf("%s/%s (stream seq %s)", k.Tenant, k.ID, strings.Join(seqs, ",")))
		}
	}
	return fmt.Sprintf("%d acknowledged turns are not in messages, e.g. %s; %d of them were stored at a stream sequence the server reported as having reached MaxDeliver on ingest; %d are in RECALL_DLQ",
		len(missing), strings.Join(examples, ", "), withAdv, dead)
}

// dlqRows check the dead-letter stream: nothing but the poison, which
// every consumer that decodes turns dead-letters once.
func dlqRows(dlq []deadLetter, poison bool, v serverVersion) []checkRow {
	var other []string
	consumers := map[string]bool{}
	perLetter := map[string]int{}
	for _, d := range dlq {
		if poison && d.MsgID == poisonMsgID() {
			consumers[d.Consumer] = true
			perLetter[d.Consumer+"/"+strconv.FormatUint(d.StreamSeq, 10)]++
			continue
		}
		other = append(other, fmt.Sprintf("#%d %s %s: %s", d.Seq, d.Consumer, d.MsgID, d.Reason))
	}
	row := countRow("dead letters other than the poison", 0, int64(len(other)))
	row.Evidence = firstN(other, 5)
	out := []checkRow{row}
	if !poison {
		return out
	}
	var got []string
	for c := range consumers {
		got = append(got, c)
	}
	sort.Strings(got)
	want := strings.Join(decodingConsumers, ", ")
	pr := checkRow{Name: "poison dead-lettered by", Expected: want, Got: strings.Join(got, ", "), Status: statusPass}
	if pr.Got != want {
		pr.Status = statusFail
	}
	out = append(out, pr)
	most := 0
	for _, n := range perLetter {
		most = max(most, n)
	}
	er := countRow("RECALL_DLQ entries per dead letter (most)", 1, int64(most))
	if er.Status == statusFail && !v.AtLeast(2, 10) {
		er.Status = statusWarn
		er.Evidence = fmt.Sprintf("nats-server %s ignores Term with a reason (2.10 reads it): the poison came back after each AckWait until MaxDeliver and was dead-lettered each time; the DLQ's dedupe id repeats, but the duplicate window here is shorter than AckWait", v)
	}
	return append(out, er)
}

// replayChecks replays the turn-stream workers over the whole stream and
// checks that nothing changed.
func (r *run) replayChecks(ctx context.Context, e *expected) error {
	before, err := snapshot(ctx, r.db)
	if err != nil {
		return err
	}
	lostBefore, err := missingIDs(ctx, r.db, e)
	if err != nil {
		return err
	}
	dlqBefore, err := readDLQ(ctx, r.js)
	if err != nil {
		return err
	}
	// The replays run side by side: each reads the whole stream through
	// its own ephemeral consumer and writes only its own worker's tables.
	workers := []string{"ingest", "extractor", "seen"}
	errs := make([]error, len(workers))
	var wg sync.WaitGroup
	for i, w := range workers {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = r.replay(ctx, w) }()
	}
	wg.Wait()
	for i, w := range workers {
		if errs[i] != nil {
			r.rep.add(checkRow{Name: "recall replay -worker " + w, Expected: "exit 0", Got: "failed", Status: statusFail, Evidence: errs[i].Error()})
		}
	}
	res := waitSettled(ctx, r.js, r.db, r.o.Quiet, r.o.SettleTimeout, r.log)
	if !res.Settled {
		r.rep.add(settleRow("settled after the replay", res))
	}
	after, err := snapshot(ctx, r.db)
	if err != nil {
		return err
	}
	lostAfter, err := missingIDs(ctx, r.db, e)
	if err != nil {
		return err
	}
	for _, q := range snapshotQueries {
		row := countRow(fmt.Sprintf("replay (%s) adds nothing: %s", strings.Join(workers, ", "), q.name), before[q.name], after[q.name])
		if row.Status == statusFail && len(lostBefore) > len(lostAfter) {
			// What the live workers lost, the replay finds in the stream;
			// the summarizer then summarizes it.
			row.Evidence = fmt.Sprintf("the replay stored %d of the %d acknowledged turns missing before it", len(lostBefore)-len(lostAfter), len(lostBefore))
			if q.name != "messages" {
				row.Evidence += "; this follows from them"
			}
		}
		r.rep.add(row)
	}
	dlqAfter, err := readDLQ(ctx, r.js)
	if err != nil {
		return err
	}
	var added []string
	for _, d := range dlqAfter[len(dlqBefore):] {
		if d.MsgID != poisonMsgID() {
			added = append(added, fmt.Sprintf("#%d %s %s: %s", d.Seq, d.Consumer, d.MsgID, d.Reason))
		}
	}
	row := countRow("replay dead-letters nothing but the poison", 0, int64(len(added)))
	row.Evidence = firstN(added, 5)
	r.rep.add(row)
	return nil
}

// redriveStalled re-drives every dead letter but the poison with `recall
// dlq redrive`, as an operator would, and reports how many there were: the
// turns the stall-kill made run out of deliveries (none is a failure: the
// stall then proved nothing).
func (r *run) redriveStalled(ctx context.Context) error {
	dlq, err := readDLQ(ctx, r.js)
	if err != nil {
		return err
	}
	var seqs []string
	consumers := map[string]int{}
	for _, d := range dlq {
		if d.MsgID == poisonMsgID() {
			continue
		}
		seqs = append(seqs, strconv.FormatUint(d.Seq, 10))
		consumers[d.Consumer]++
	}
	row := checkRow{Name: "stall-kill: turns out of deliveries dead-lettered, then re-driven (recall dlq redrive)",
		Expected: "> 0", Got: strconv.Itoa(len(seqs)), Status: statusPass}
	if len(seqs) == 0 {
		row.Status = statusFail
		row.Evidence = "no dead letter besides the poison: the stall-kill exhausted no delivery"
		r.rep.add(row)
		return nil
	}
	var by []string
	for c, n := range consumers {
		by = append(by, fmt.Sprintf("%s %d", c, n))
	}
	sort.Strings(by)
	row.Evidence = "by consumer: " + strings.Join(by, ", ")
	// The re-driven turns' ids are new to the stream only once its
	// duplicate window has passed since they were first stored.
	time.Sleep(r.o.DuplicateWindow)
	rctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(rctx, filepath.Join(r.bin, "recall"), append([]string{"dlq", "redrive"}, seqs...)...)
	cmd.Env = envList(r.env, r.auth.Env(opsUser)...)
	cmd.SysProcAttr = childProcAttr()
	if out, err := cmd.CombinedOutput(); err != nil {
		row.Status = statusFail
		row.Evidence = fmt.Sprintf("recall dlq redrive: %v: %s", err, lastLine(string(out)))
	}
	r.rep.add(row)
	return nil
}

// poisonMsgID is the poison turn's dedupe id.
func poisonMsgID() string { return events.MsgID("acme", poisonID) }

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	return s[strings.LastIndexByte(s, '\n')+1:]
}

func (r *run) replay(ctx context.Context, worker string) error {
	lf, err := os.OpenFile(filepath.Join(r.dir, "replay-"+worker+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer lf.Close()
	rctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(rctx, filepath.Join(r.bin, "recall"), "replay", "-worker", worker)
	// A replay waits for every message it was handed to be settled. On a
	// nats-server that ignores Term (< 2.10) the poison comes back after
	// each AckWait until MaxDeliver; a short AckWait keeps that wait to
	// seconds. Slow batches keep theirs with heartbeats (every AckWait/3).
	env := map[string]string{}
	for k, v := range r.env {
		env[k] = v
	}
	env[strings.ToUpper(worker)+"_CONSUMER_ACK_WAIT"] = "1s"
	cmd.Env = envList(env, r.auth.Env(opsUser)...)
	cmd.Stdout, cmd.Stderr = lf, lf
	cmd.SysProcAttr = childProcAttr()
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("recall replay -worker %s: %w: %s", worker, err, lastLogLine(lf.Name()))
	}
	r.log.Info("replayed", "worker", worker, "took", time.Since(start).Round(time.Millisecond))
	return nil
}

// teardown stops every process, the NATS server and the cluster, each by
// its pid. It runs on every path, with a context of its own.
func (r *run) teardown() {
	if r.db != nil {
		r.db.Close()
	}
	if r.nc != nil {
		r.nc.Close()
	}
	var wg sync.WaitGroup
	for _, p := range r.procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.Stop(10 * time.Second)
		}()
	}
	wg.Wait()
	for name, p := range r.procs {
		if ex := p.Exits(); len(ex) > 0 {
			r.rep.Exits[name] = ex
		}
	}
	if r.nats != nil {
		r.nats.Stop(10 * time.Second)
	}
	if r.pg != nil {
		r.pg.Stop()
	}
	r.log.Info("stopped everything")
}

// runDirPrefix names the runs' directories under the temp dir; each holds
// the pid of the harness that made it (pgcluster.Claim).
const runDirPrefix = "recall-chaos-"

// reapStale stops the PostgreSQL clusters that earlier runs left running
// because their harness died without stopping them (killed, or a test
// binary's -timeout): the NATS server and the Recall processes die with the
// harness (Pdeathsig), but pg_ctl's server is a daemon. Only directories
// this harness made are looked at, only when their harness's pid is gone
// (pgcluster.ReapStale); their binaries are removed too (logs and data stay).
func reapStale(log *slog.Logger) {
	for _, dir := range pgcluster.ReapStale(filepath.Join(os.TempDir(), runDirPrefix+"*")) {
		log.Warn("cleaned up after an earlier run whose harness died", "dir", dir)
		_ = os.RemoveAll(filepath.Join(dir, "bin"))
	}
}

// repoRoot is the directory holding the module's go.mod, found upwards
// from the working directory.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && strings.Contains(string(b), "module github.com/recallhq/recall\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("not inside the recall repository (no go.mod of github.com/recallhq/recall above the working directory)")
		}
		dir = parent
	}
}
