package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/recallhq/recall/pkg/pause"
	"github.com/recallhq/recall/pkg/queue"
)

// natsCluster is the run's NATS: one server (the short and full modes), or
// several clustered on loopback ports (the cluster mode), each with its own
// store directory, every stream and consumer replicated on all of them.
type natsCluster struct {
	servers []*natsServer
	version serverVersion
}

// newNATSCluster prepares n servers of bin in dir. One server keeps the
// single-server layout (store dir/nats, log dir/nats-server.log, no route
// port); n > 1 are named recall-chaos-1..n, store in dir/nats-i, log to
// dir/nats-i.log, and take their client ports from ports[:n] and their route
// ports from ports[n:2n].
func newNATSCluster(ctx context.Context, bin, dir string, n int, ports []int) (*natsCluster, error) {
	if n <= 1 {
		s, err := newNATSServer(ctx, bin, filepath.Join(dir, "nats"), filepath.Join(dir, "nats-server.log"), ports[0])
		if err != nil {
			return nil, err
		}
		return &natsCluster{servers: []*natsServer{s}, version: s.version}, nil
	}
	if len(ports) < 2*n {
		return nil, fmt.Errorf("a cluster of %d servers needs %d ports, got %d", n, 2*n, len(ports))
	}
	c := &natsCluster{}
	var routes []string
	for i := range n {
		routes = append(routes, "nats://127.0.0.1:"+strconv.Itoa(ports[n+i]))
	}
	for i := range n {
		name := "nats-" + strconv.Itoa(i+1)
		s, err := newNATSServer(ctx, bin, filepath.Join(dir, name), filepath.Join(dir, name+".log"), ports[i])
		if err != nil {
			return nil, err
		}
		s.name = "recall-chaos-" + strconv.Itoa(i+1)
		s.cluster, s.routes = ports[n+i], routes
		c.servers = append(c.servers, s)
		c.version = s.version
	}
	return c, nil
}

// SetAuth has every server started with the run's users, and asked
// whether it is up as the harness.
func (c *natsCluster) SetAuth(a *natsAuth) {
	for _, s := range c.servers {
		s.conf, s.login = a.Conf, []nats.Option{a.Harness()}
	}
}

// Clustered reports whether the run has more than one server.
func (c *natsCluster) Clustered() bool { return len(c.servers) > 1 }

// URL is every server's client URL, comma-separated, as NATS_URL takes
// them: a client connects to any and fails over to the others.
func (c *natsCluster) URL() string {
	urls := make([]string, len(c.servers))
	for i, s := range c.servers {
		urls[i] = s.URL()
	}
	return strings.Join(urls, ",")
}

// Start starts every server, then waits until JetStream answers on each:
// a cluster's servers must all be up before any has a JetStream quorum.
func (c *natsCluster) Start(ctx context.Context) error {
	for _, s := range c.servers {
		if err := s.spawn(); err != nil {
			return err
		}
	}
	errs := make([]error, len(c.servers))
	var wg sync.WaitGroup
	for i, s := range c.servers {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = s.waitReady(ctx, 60*time.Second) }()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Stop stops every server by its pid.
func (c *natsCluster) Stop(timeout time.Duration) {
	var wg sync.WaitGroup
	for _, s := range c.servers {
		wg.Add(1)
		go func() { defer wg.Done(); s.Stop(timeout) }()
	}
	wg.Wait()
}

// Server is the server of that server_name, or nil.
func (c *natsCluster) Server(name string) *natsServer {
	for _, s := range c.servers {
		if s.name == name {
			return s
		}
	}
	return nil
}

// Describe is the servers for the report: names, client and route ports,
// pids.
func (c *natsCluster) Describe() string {
	var parts []string
	for _, s := range c.servers {
		p := fmt.Sprintf("%s :%d", s.name, s.port)
		if s.cluster != 0 {
			p += fmt.Sprintf(" (routes :%d)", s.cluster)
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, ", ")
}

// streamLeader is the server_name of the stream's current leader ("" while
// it has none).
func streamLeader(ctx context.Context, js jetstream.JetStream, stream string) (string, error) {
	sctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	st, err := js.Stream(sctx, stream)
	if err != nil {
		return "", err
	}
	info, err := st.Info(sctx)
	if err != nil {
		return "", err
	}
	if info.Cluster == nil {
		return "", nil
	}
	return info.Cluster.Leader, nil
}

// groupHealth is one replicated group, a stream or a durable consumer, as
// its leader reports it.
type groupHealth struct {
	Name string // "RECALL_TURNS" or "RECALL_TURNS/ingest"
	// Configured is the replicas its config asks for; 0 for a consumer
	// means the stream's.
	Configured int
	Leader     string
	// Peers are the servers holding it, the leader included; Current are
	// those up to date with the leader (the leader is).
	Peers   int
	Current int
	// Behind are the followers that are not current, with their state.
	Behind []string
}

// Healthy reports whether the group has a leader and replicas on want
// servers, every one of them current.
func (g groupHealth) Healthy(want int) bool {
	return g.Leader != "" && g.Peers == want && g.Current == want
}

func (g groupHealth) String() string {
	s := fmt.Sprintf("%s: leader %q, %d of %d replicas current", g.Name, g.Leader, g.Current, g.Peers)
	if len(g.Behind) > 0 {
		s += " (" + strings.Join(g.Behind, ", ") + ")"
	}
	return s
}

// healthOf reads a group's cluster info.
func healthOf(name string, configured int, ci *jetstream.ClusterInfo) groupHealth {
	g := groupHealth{Name: name, Configured: configured}
	if ci == nil {
		return g
	}
	g.Leader = ci.Leader
	if g.Leader != "" {
		g.Peers, g.Current = 1, 1
	}
	for _, p := range ci.Replicas {
		g.Peers++
		if p.Current && !p.Offline {
			g.Current++
			continue
		}
		g.Behind = append(g.Behind, fmt.Sprintf("%s current=%t offline=%t lag=%d", p.Name, p.Current, p.Offline, p.Lag))
	}
	return g
}

// clusterHealth is every stream and every durable consumer with its
// replicas, in name order.
func clusterHealth(ctx context.Context, js jetstream.JetStream) ([]groupHealth, error) {
	hctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var out []groupHealth
	var names []string
	streams := js.ListStreams(hctx)
	for si := range streams.Info() {
		names = append(names, si.Config.Name)
		out = append(out, healthOf(si.Config.Name, si.Config.Replicas, si.Cluster))
	}
	if err := streams.Err(); err != nil {
		return nil, fmt.Errorf("list streams: %w", err)
	}
	for _, name := range names {
		st, err := js.Stream(hctx, name)
		if err != nil {
			return nil, fmt.Errorf("stream %s: %w", name, err)
		}
		cons := st.ListConsumers(hctx)
		for ci := range cons.Info() {
			if ci.Config.Durable == "" {
				continue
			}
			out = append(out, healthOf(name+"/"+ci.Name, ci.Config.Replicas, ci.Cluster))
		}
		if err := cons.Err(); err != nil {
			return nil, fmt.Errorf("list consumers of %s: %w", name, err)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// unhealthy are the groups not at want replicas all current.
func unhealthy(gs []groupHealth, want int) []groupHealth {
	var out []groupHealth
	for _, g := range gs {
		if !g.Healthy(want) {
			out = append(out, g)
		}
	}
	return out
}

// waitClusterHealthy polls until every stream and durable consumer has a
// leader and want replicas, all current, and returns how long that took and
// the groups still short of it when timeout passed.
func waitClusterHealthy(ctx context.Context, js jetstream.JetStream, want int, timeout time.Duration) (time.Duration, []groupHealth, error) {
	start := time.Now()
	for {
		gs, err := clusterHealth(ctx, js)
		if err == nil && len(gs) > 0 {
			if bad := unhealthy(gs, want); len(bad) == 0 {
				return time.Since(start), nil, nil
			} else if time.Since(start) > timeout {
				return time.Since(start), bad, nil
			}
		} else if time.Since(start) > timeout {
			if err == nil {
				err = errors.New("no streams")
			}
			return time.Since(start), nil, fmt.Errorf("cluster health: %w", err)
		}
		if !pause.For(ctx, 250*time.Millisecond) {
			return time.Since(start), nil, ctx.Err()
		}
	}
}

// replicaRows check the cluster once the pipeline has settled: every
// stream declared with one replica per server, every durable consumer
// inheriting that or asking for it, and each of them placed on every server
// with a leader and all replicas current (after a kill -9 of each server in
// turn, a restarted server must have caught up on every group).
func (r *run) replicaRows(ctx context.Context) []checkRow {
	want := len(r.nats.servers)
	took, bad, err := waitClusterHealthy(ctx, r.js, want, 30*time.Second)
	gs, lerr := clusterHealth(ctx, r.js)
	if err == nil {
		err = lerr
	}
	var streams, consumers, misconfigured []string
	for _, g := range gs {
		isConsumer := strings.Contains(g.Name, "/")
		if isConsumer {
			consumers = append(consumers, g.Name)
		} else {
			streams = append(streams, g.Name)
		}
		if g.Configured != want && !(isConsumer && g.Configured == 0) {
			misconfigured = append(misconfigured, fmt.Sprintf("%s: replicas %d", g.Name, g.Configured))
		}
	}
	conf := countRow(fmt.Sprintf("streams and durable consumers declared with other than %d replicas", want), 0, int64(len(misconfigured)))
	conf.Evidence = strings.Join(misconfigured, "; ")
	name := fmt.Sprintf("streams and durable consumers on all %d servers, every replica current", want)
	row := checkRow{Name: name, Expected: "all", Status: statusPass,
		Got: fmt.Sprintf("%d streams, %d consumers (after %s)", len(streams), len(consumers), took.Round(time.Millisecond))}
	switch {
	case err != nil:
		row.Status, row.Got, row.Evidence = statusFail, "unknown", err.Error()
	case len(bad) > 0:
		row.Status = statusFail
		row.Got = fmt.Sprintf("%d of %d groups short", len(bad), len(gs))
		var ev []string
		for _, g := range bad {
			ev = append(ev, g.String())
		}
		row.Evidence = firstN(ev, 5)
	case len(streams) == 0 || len(consumers) == 0:
		row.Status, row.Got = statusFail, fmt.Sprintf("%d streams, %d consumers", len(streams), len(consumers))
	}
	r.rep.Notes = append(r.rep.Notes, fmt.Sprintf("replicated groups at the end (%d servers each): streams %s; consumers %s",
		want, strings.Join(streams, ", "), strings.Join(consumers, ", ")))
	return []checkRow{conf, row}
}

// declareStreams declares the streams once, as the processes will (the
// same config: STREAM_REPLICAS and the run's duplicate window), before any
// process starts: on a cluster, nine processes declaring a new replicated
// stream at the same moment all waited out the client's 5 s timeout and
// exited, where one declaration answers in a fraction of a second and the
// processes' own declarations then change nothing.
func (r *run) declareStreams(ctx context.Context) error {
	sc := queue.DefaultStreamConfig
	sc.Replicas = len(r.nats.servers)
	sc.DuplicateWindow = r.o.DuplicateWindow
	start := time.Now()
	dctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := queue.EnsureStreams(dctx, r.js, sc); err != nil {
		return fmt.Errorf("declare the streams at %d replicas: %w", sc.Replicas, err)
	}
	r.log.Info("streams declared", "replicas", sc.Replicas, "took", time.Since(start).Round(time.Millisecond))
	return nil
}
