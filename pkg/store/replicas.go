package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/prometheus/client_golang/prometheus"
)

// ReadConfig is where the API's reads may go besides the primary: streaming
// replicas of DATABASE_URL's server, each used while it keeps up. The API,
// the gateway and `recall run` read it; workers write, and read what they
// are about to write, so they use the primary alone.
type ReadConfig struct {
	// URL is one or more read replicas (physical streaming standbys of
	// DATABASE_URL's server, the same database), comma-separated; a comma
	// inside a password must be written %2C. Empty: every read goes to the
	// primary. The API's reads (context, search, sessions, messages,
	// summaries, profile, attributes, recommendations, the inspector's user
	// routes) go to a usable replica, taken in turn; writes and the reads
	// that must see a write just made (turn dedupe, the list item a number
	// picks, summarize's wait, unseen items, forgetting, deleting a
	// session) stay on the primary. Passwords are masked in the logs.
	URL string `env:"DATABASE_READ_URL"`
	// MaxLag is how far behind the primary a replica may be and still be
	// read: the time since the primary first had WAL the replica has not
	// replayed yet (0 while it has replayed all the primary had at the
	// check, also when the primary is idle). Past it, or when its check
	// fails, the replica is skipped until a check finds it back within the
	// bound; with none usable, reads go to the primary.
	MaxLag time.Duration `env:"DATABASE_READ_MAX_LAG" envDefault:"5s"`
	// MaxLagBytes bounds the same in WAL bytes not yet replayed; 0: no
	// bound in bytes, MaxLag alone.
	MaxLagBytes int64 `env:"DATABASE_READ_MAX_LAG_BYTES" envDefault:"0"`
	// CheckInterval is how often each replica's lag is measured; the time
	// measure is as fine as it. A check may take as long, or a second when
	// that is longer; one that takes longer fails.
	CheckInterval time.Duration `env:"DATABASE_READ_CHECK_INTERVAL" envDefault:"1s"`
	// MaxConns bounds each replica's pool; 0: as DATABASE_MAX_CONNS's
	// default, max(4, CPUs).
	MaxConns int32 `env:"DATABASE_READ_MAX_CONNS" envDefault:"0"`
}

// replicaURLs splits DATABASE_READ_URL into its URLs, blanks left out.
func (c ReadConfig) replicaURLs() []string {
	var out []string
	for _, u := range strings.Split(c.URL, ",") {
		if u = strings.TrimSpace(u); u != "" {
			out = append(out, u)
		}
	}
	return out
}

// primaryTarget is the reads counter's label for reads the primary served.
const primaryTarget = "primary"

// replica is one read replica: its own pool (a Store whose Read is its
// own), and whether the last check found it within the bounds.
type replica struct {
	// name is host:port/database, never the credentials: the metrics'
	// label and what the logs call it.
	name   string
	store  *Store
	usable atomic.Bool
	// reason is why it was last found unusable ("" while usable), so that
	// a change is logged once rather than at every check.
	mu     sync.Mutex
	reason string
}

// readRouter sends the API's reads to usable replicas and measures them.
// Only the primary's Store has one.
type readRouter struct {
	cfg      ReadConfig
	primary  *Store
	replicas []*replica
	next     atomic.Uint64
	log      *slog.Logger
	m        replicaMetrics
	// history is the primary's WAL position at the checks, the checker's
	// own (one goroutine).
	history lsnHistory
	stop    context.CancelFunc
	done    chan struct{}
}

// replicaMetrics are the replicas' gauges and the reads counter.
type replicaMetrics struct {
	lagSeconds, lagBytes, usable *prometheus.GaugeVec
	reads                        *prometheus.CounterVec
}

func newReplicaMetrics(reg prometheus.Registerer) replicaMetrics {
	m := replicaMetrics{
		lagSeconds: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: "recall", Subsystem: "db", Name: "replica_lag_seconds",
			Help: "How long the primary has had WAL the replica has not replayed (0: caught up at the last check), to within DATABASE_READ_CHECK_INTERVAL.",
		}, []string{"replica"}),
		lagBytes: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: "recall", Subsystem: "db", Name: "replica_lag_bytes",
			Help: "WAL bytes the primary had at the last check that the replica had not replayed.",
		}, []string{"replica"}),
		usable: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: "recall", Subsystem: "db", Name: "replica_usable",
			Help: "1 while the replica is read from: its last check passed within DATABASE_READ_MAX_LAG.",
		}, []string{"replica"}),
		reads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "recall", Subsystem: "db", Name: "reads_total",
			Help: "The API's reads by where they ran: primary, or a replica's name.",
		}, []string{"target"}),
	}
	if reg != nil {
		reg.MustRegister(m.lagSeconds, m.lagBytes, m.usable, m.reads)
	}
	return m
}

// OpenReplicas connects the read replicas c names (none when c.URL is
// empty), checks them once, and keeps checking them every CheckInterval
// until s is closed. A replica down at start does not fail it: it is
// skipped until a check finds it. Call it once, before s serves reads; the
// metrics go to reg (none when nil).
func (s *Store) OpenReplicas(ctx context.Context, c ReadConfig, reg prometheus.Registerer, log *slog.Logger) error {
	urls := c.replicaURLs()
	if len(urls) == 0 {
		return nil
	}
	if s.reads != nil {
		return errors.New("read replicas: already open")
	}
	if c.MaxLag <= 0 {
		return fmt.Errorf("DATABASE_READ_MAX_LAG: want a positive duration, not %s", c.MaxLag)
	}
	if c.CheckInterval <= 0 {
		return fmt.Errorf("DATABASE_READ_CHECK_INTERVAL: want a positive duration, not %s", c.CheckInterval)
	}
	if c.MaxLagBytes < 0 {
		return fmt.Errorf("DATABASE_READ_MAX_LAG_BYTES: want 0 or more, not %d", c.MaxLagBytes)
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	rt := &readRouter{cfg: c, primary: s, log: log, m: newReplicaMetrics(reg), done: make(chan struct{})}
	names := map[string]int{}
	for i, u := range urls {
		pool, err := newPool(ctx, u, c.MaxConns)
		if err != nil {
			rt.close()
			return fmt.Errorf("DATABASE_READ_URL (replica %d): %w", i+1, err)
		}
		cc := pool.Config().ConnConfig
		name := cc.Host + ":" + strconv.Itoa(int(cc.Port)) + "/" + cc.Database
		if names[name]++; names[name] > 1 {
			name += "#" + strconv.Itoa(names[name])
		}
		rt.replicas = append(rt.replicas, &replica{name: name, store: &Store{pool: pool}, reason: "not checked yet"})
		rt.m.usable.WithLabelValues(name).Set(0)
	}
	rt.check(ctx)
	cctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	rt.stop = cancel
	go rt.run(cctx)
	s.reads = rt
	return nil
}

// Read runs fn with the store the API's reads go to: a usable replica, in
// turn, else the primary (s itself; so too when s has no replicas). When fn
// fails on a replica for want of the replica (its connection lost or
// refused, or a query cancelled by a conflict with its recovery), the
// replica is skipped from then on until a check finds it back, and fn runs
// again on the primary: a replica that goes away costs a request time, not
// an error. fn may thus run twice, so it must set its results rather than
// add to them. Writes, and reads that must see a write just made, use s
// directly instead.
func (s *Store) Read(ctx context.Context, fn func(r *Store) error) error {
	rt := s.reads
	if rt == nil {
		return fn(s)
	}
	rep := rt.pick()
	if rep == nil {
		rt.m.reads.WithLabelValues(primaryTarget).Inc()
		return fn(s)
	}
	rt.m.reads.WithLabelValues(rep.name).Inc()
	err := fn(rep.store)
	if err == nil || ctx.Err() != nil || !replicaFailure(err) {
		return err
	}
	rt.setUsable(rep, false, "read failed: "+err.Error())
	rt.m.reads.WithLabelValues(primaryTarget).Inc()
	return fn(s)
}

// pick is the next usable replica in turn, nil when none is.
func (rt *readRouter) pick() *replica {
	n := uint64(len(rt.replicas))
	start := rt.next.Add(1)
	for i := range n {
		if r := rt.replicas[(start+i)%n]; r.usable.Load() {
			return r
		}
	}
	return nil
}

// replicaFailure reports whether a read's error is the replica's rather
// than the read's: the connection refused, lost or timed out, the server
// shutting down or not yet accepting connections (SQLSTATE class 08,
// 57P01–57P03), or a query a standby cancelled because replay needed what
// it held (40001). A query's own error (not found, a bad argument) is not,
// and would fail on the primary too.
func replicaFailure(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		c := pgErr.Code
		return strings.HasPrefix(c, "08") || c == "57P01" || c == "57P02" || c == "57P03" || c == "40001"
	}
	var connErr *pgconn.ConnectError
	var netErr net.Error
	return errors.As(err, &connErr) || errors.As(err, &netErr) || errors.Is(err, pgconn.ErrConnClosed) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || pgconn.SafeToRetry(err) || pgconn.Timeout(err)
}

// run checks the replicas every CheckInterval until ctx ends.
func (rt *readRouter) run(ctx context.Context) {
	defer close(rt.done)
	tick := time.NewTicker(rt.cfg.CheckInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			rt.check(ctx)
		}
	}
}

// check measures every replica against the primary's WAL position now.
//
// The lag is measured in WAL, not with pg_last_xact_replay_timestamp(): that
// is the commit time of the last transaction replayed, so an idle primary
// makes a replica that is fully caught up look ever further behind. Instead
// the primary's pg_current_wal_lsn() is read first, then each replica's
// pg_last_wal_replay_lsn(): the difference is the bytes lag, and the time
// lag is how long ago the checks first saw the primary past the replica's
// position (lsnHistory.since): 0 when the replica has replayed all the
// primary had at this check. Both are measured at the checks, so the time
// lag can be short by up to one CheckInterval.
func (rt *readRouter) check(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, max(rt.cfg.CheckInterval, time.Second))
	defer cancel()
	var primaryLSN, primaryID int64
	err := rt.primary.pool.QueryRow(ctx, `SELECT (pg_current_wal_lsn() - '0/0'::pg_lsn)::bigint,
		(SELECT system_identifier FROM pg_control_system())`).Scan(&primaryLSN, &primaryID)
	if err != nil {
		// Without the primary's position no lag can be bounded.
		for _, r := range rt.replicas {
			rt.setUsable(r, false, "primary's WAL position unknown: "+err.Error())
		}
		return
	}
	now := time.Now()
	rt.history.add(now, primaryLSN, max(2*rt.cfg.MaxLag, time.Minute))
	var wg sync.WaitGroup
	for _, r := range rt.replicas {
		wg.Go(func() { rt.checkReplica(ctx, r, primaryLSN, primaryID) })
	}
	wg.Wait()
}

// checkReplica measures one replica against the primary's position. A
// replica of another server than the primary (its system identifier, the
// same for a cluster and every standby copied from it, differs: a URL
// pointing at the wrong standby) is never read: its WAL positions say
// nothing about the primary's.
func (rt *readRouter) checkReplica(ctx context.Context, r *replica, primaryLSN, primaryID int64) {
	var (
		recovering bool
		replay     *int64
		id         int64
	)
	err := r.store.pool.QueryRow(ctx, `SELECT pg_is_in_recovery(), (pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::bigint,
		(SELECT system_identifier FROM pg_control_system())`).Scan(&recovering, &replay, &id)
	switch {
	case err != nil:
		rt.setUsable(r, false, "check failed: "+err.Error())
		return
	case !recovering || replay == nil:
		// A promoted standby, or the URL of a server that is no standby:
		// what it holds cannot be bounded by the primary's WAL.
		rt.setUsable(r, false, "not a standby in recovery")
		return
	case id != primaryID:
		rt.setUsable(r, false, fmt.Sprintf("not a standby of DATABASE_URL's server: system identifier %d, the primary's %d", id, primaryID))
		return
	}
	lagBytes := max(primaryLSN-*replay, 0)
	lag := rt.history.since(*replay, time.Now())
	rt.m.lagBytes.WithLabelValues(r.name).Set(float64(lagBytes))
	rt.m.lagSeconds.WithLabelValues(r.name).Set(lag.Seconds())
	switch {
	case lag > rt.cfg.MaxLag:
		rt.setUsable(r, false, fmt.Sprintf("lag %s past DATABASE_READ_MAX_LAG %s", lag.Round(time.Millisecond), rt.cfg.MaxLag))
	case rt.cfg.MaxLagBytes > 0 && lagBytes > rt.cfg.MaxLagBytes:
		rt.setUsable(r, false, fmt.Sprintf("lag %d bytes past DATABASE_READ_MAX_LAG_BYTES %d", lagBytes, rt.cfg.MaxLagBytes))
	default:
		rt.setUsable(r, true, "")
	}
}

// setUsable records a check's verdict, and logs it when it changes.
func (rt *readRouter) setUsable(r *replica, usable bool, reason string) {
	r.usable.Store(usable)
	v := 0.0
	if usable {
		v = 1
	}
	rt.m.usable.WithLabelValues(r.name).Set(v)
	r.mu.Lock()
	was := r.reason
	r.reason = reason
	r.mu.Unlock()
	switch {
	case usable && was != "":
		rt.log.Info("read replica usable", "replica", r.name)
	case !usable && was == "":
		rt.log.Warn("read replica skipped", "replica", r.name, "reason", reason)
	}
}

// close stops the checks and closes the replicas' pools.
func (rt *readRouter) close() {
	if rt.stop != nil {
		rt.stop()
		<-rt.done
	}
	for _, r := range rt.replicas {
		r.store.pool.Close()
	}
}

// lsnHistory is the primary's WAL position as the checks saw it, oldest
// first: each position with the first check that saw it.
type lsnHistory []lsnSample

type lsnSample struct {
	at  time.Time
	lsn int64
}

// add records the primary's position at a check; a position already
// recorded keeps its first time. Samples older than keep go, but the last
// of them stays: it says since when the primary has been where it is.
func (h *lsnHistory) add(at time.Time, lsn int64, keep time.Duration) {
	if n := len(*h); n == 0 || (*h)[n-1].lsn != lsn {
		*h = append(*h, lsnSample{at: at, lsn: lsn})
	}
	drop := 0
	for drop+1 < len(*h) && (*h)[drop+1].at.Before(at.Add(-keep)) {
		drop++
	}
	*h = append((*h)[:0], (*h)[drop:]...)
}

// since is how long the primary has had WAL past replay: from the first
// sample past it to now, 0 when no sample is (the replica has replayed all
// the primary had at the last check).
func (h lsnHistory) since(replay int64, now time.Time) time.Duration {
	for _, s := range h {
		if s.lsn > replay {
			return max(now.Sub(s.at), 0)
		}
	}
	return 0
}
