package main

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/recallhq/recall/internal/testkit/pgcluster"
	"github.com/recallhq/recall/pkg/pause"

	"github.com/recallhq/recall/pkg/queue"
)

// faultKind is what a scheduled fault does.
type faultKind int

const (
	faultKill     faultKind = iota // SIGKILL a process; its supervisor restarts it
	faultNATS                      // SIGKILL nats-server, start it again on the same port and store
	faultPostgres                  // pg_ctl restart -m immediate
)

// plannedFault is one entry of the schedule.
type plannedFault struct {
	At      time.Duration // since publishing started
	Kind    faultKind
	Process string // for faultKill
}

// faultSchedule spreads the faults evenly over the first 90% of the publish
// time: every process killed kills times and the turn-stream workers
// extraKills more, natsKills kills of a NATS server and the PostgreSQL
// restart evenly among them (one NATS kill: a third of the way in, the
// restart two thirds in; a cluster's three: at a fifth, two and three
// fifths, the restart at four). The kill next in line is the one of the process
// with the most kills left, then the one killed longest ago, so two kills of
// one process are as far apart as the others allow. Slots are at least
// minGap apart; with the same process's kills len(procs) slots apart and
// that longer than AckWait, a killed worker's messages are back
// (redelivered after AckWait) before it dies again, so with fewer kills per
// worker than MaxDeliver no message loses all its deliveries to kills.
func faultSchedule(procs, extra []string, kills, extraKills, natsKills int, span, minGap time.Duration) []plannedFault {
	left := map[string]int{}
	for _, p := range procs {
		left[p] = kills
	}
	for _, p := range extra {
		left[p] += extraKills
	}
	lastKill := map[string]int{}
	var order []string
	for {
		best := ""
		for _, p := range procs {
			if left[p] == 0 {
				continue
			}
			lp, seen := lastKill[p]
			lb, bseen := lastKill[best]
			switch {
			case best == "",
				left[p] > left[best],
				left[p] == left[best] && !seen && bseen,
				left[p] == left[best] && seen && bseen && lp < lb:
				best = p
			}
		}
		if best == "" {
			break
		}
		lastKill[best] = len(order)
		left[best]--
		order = append(order, best)
	}
	// The NATS kills and the PostgreSQL restart take evenly spaced slots
	// among the process kills: with one NATS kill a third and two thirds
	// of the way in.
	special := map[int]faultKind{}
	total := len(order) + natsKills + 1
	for i := 1; i <= natsKills+1; i++ {
		kind := faultNATS
		if i == natsKills+1 {
			kind = faultPostgres
		}
		special[i*total/(natsKills+2)] = kind
	}
	var out []plannedFault
	k := 0
	for slot := 0; slot < total; slot++ {
		f := plannedFault{}
		if kind, ok := special[slot]; ok {
			f.Kind = kind
		} else {
			f.Kind, f.Process = faultKill, order[k]
			k++
		}
		out = append(out, f)
	}
	gap := max(minGap, span*9/10/time.Duration(total))
	for i := range out {
		out[i].At = span/20 + time.Duration(i)*gap
	}
	return out
}

// faultRecord is what happened, for the report.
type faultRecord struct {
	At     time.Time
	What   string
	Detail string
}

// injector carries out faults against the run's processes and servers.
type injector struct {
	procs map[string]*proc
	nats  *natsCluster
	pg    *pgcluster.Cluster
	// js is the harness's own connection, to find a cluster's leaders.
	js jetstream.JetStream
	// natsKilled are the cluster's servers killed so far, by name.
	natsKilled map[string]bool
	log        *slog.Logger
	start      time.Time
	// restartDelay is how long the NATS server stays down.
	natsDown time.Duration

	mu      sync.Mutex
	records []faultRecord
}

func (in *injector) record(at time.Time, what, detail string) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.records = append(in.records, faultRecord{At: at, What: what, Detail: detail})
	in.log.Info("fault", "at", at.Sub(in.start).Round(10*time.Millisecond).String(), "what", what, "detail", detail)
}

// Records are the faults injected so far, in order.
func (in *injector) Records() []faultRecord {
	in.mu.Lock()
	defer in.mu.Unlock()
	return append([]faultRecord(nil), in.records...)
}

// Run carries out the schedule.
func (in *injector) Run(ctx context.Context, plan []plannedFault) error {
	for _, f := range plan {
		if !pause.Until(ctx, in.start.Add(f.At)) {
			return ctx.Err()
		}
		var err error
		switch f.Kind {
		case faultKill:
			err = in.kill(ctx, f.Process)
		case faultNATS:
			err = in.killNATS(ctx)
		case faultPostgres:
			err = in.restartPostgres(ctx)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (in *injector) kill(ctx context.Context, name string) error {
	p := in.procs[name]
	at := time.Now()
	pid, started, err := p.Kill9()
	if err != nil {
		// Between a death and its restart: the supervisor brings it back.
		in.record(at, "kill -9 "+name, "skipped: "+err.Error())
		return nil
	}
	select {
	case <-started:
		in.record(at, "kill -9 "+name, fmt.Sprintf("pid %d; restarted as pid %d after %s", pid, p.Pid(), time.Since(at).Round(time.Millisecond)))
	case <-time.After(10 * time.Second):
		in.record(at, "kill -9 "+name, fmt.Sprintf("pid %d; not restarted within 10s", pid))
	case <-ctx.Done():
		return ctx.Err()
	}
	return nil
}

func (in *injector) killNATS(ctx context.Context) error {
	if in.nats.Clustered() {
		return in.killClusterServer(ctx)
	}
	s := in.nats.servers[0]
	at := time.Now()
	pid, err := in.bounce(ctx, s)
	if err != nil {
		return err
	}
	in.record(at, "kill -9 nats-server", fmt.Sprintf("pid %d; same port and store; restarted as pid %d, JetStream up after %s", pid, s.Pid(), time.Since(at).Round(time.Millisecond)))
	return nil
}

// bounce kills s with SIGKILL, leaves it down for natsDown and starts it
// again on the same ports and store; it returns the killed pid.
func (in *injector) bounce(ctx context.Context, s *natsServer) (int, error) {
	pid, err := s.Kill()
	if err != nil {
		return pid, err
	}
	if !pause.For(ctx, in.natsDown) {
		return pid, ctx.Err()
	}
	if err := s.Start(ctx); err != nil {
		return pid, fmt.Errorf("restart nats-server %s: %w", s.name, err)
	}
	return pid, nil
}

// killClusterServer kills one server of the cluster with SIGKILL and starts
// it again on the same ports and store: the current leader of the turn
// stream when it has not been killed yet (the first kill always finds it),
// else the next server not yet killed, so that the cluster's kills take
// each server in turn. It then waits until every stream and consumer has
// all its replicas current again, so that the next kill never takes a
// quorum away; the schedule's later faults wait for that.
func (in *injector) killClusterServer(ctx context.Context) error {
	if in.natsKilled == nil {
		in.natsKilled = map[string]bool{}
	}
	leader, lerr := streamLeader(ctx, in.js, queue.TurnsStream)
	var s *natsServer
	role := "a follower of " + queue.TurnsStream
	if l := in.nats.Server(leader); l != nil && !in.natsKilled[leader] {
		s, role = l, "leader of "+queue.TurnsStream
	} else {
		for _, c := range in.nats.servers {
			if !in.natsKilled[c.name] {
				s = c
				break
			}
		}
		if s == nil {
			s = in.nats.servers[0]
		}
		if s.name == leader {
			role = "leader of " + queue.TurnsStream
		}
	}
	if lerr != nil {
		role = "leader of " + queue.TurnsStream + " unknown: " + lerr.Error()
	}
	in.natsKilled[s.name] = true
	at := time.Now()
	pid, err := in.bounce(ctx, s)
	if err != nil {
		return err
	}
	up := time.Since(at)
	took, bad, herr := waitClusterHealthy(ctx, in.js, len(in.nats.servers), 60*time.Second)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	newLeader, _ := streamLeader(ctx, in.js, queue.TurnsStream)
	detail := fmt.Sprintf("%s (%s), pid %d; same ports and store; restarted as pid %d, JetStream up after %s; %s leader now %s",
		s.name, role, pid, s.Pid(), up.Round(time.Millisecond), queue.TurnsStream, newLeader)
	switch {
	case herr != nil:
		detail += "; replicas not checked: " + herr.Error()
	case len(bad) > 0:
		detail += fmt.Sprintf("; %d groups still not current after %s: %s", len(bad), took.Round(time.Millisecond), bad[0])
	default:
		detail += fmt.Sprintf("; every stream and consumer with all %d replicas current %s after the restart", len(in.nats.servers), took.Round(time.Millisecond))
	}
	in.record(at, "kill -9 "+s.name, detail)
	return nil
}

func (in *injector) restartPostgres(ctx context.Context) error {
	at := time.Now()
	pid := in.pg.Pid()
	if err := in.pg.RestartImmediate(ctx); err != nil {
		return err
	}
	in.record(at, "pg_ctl restart -m immediate", fmt.Sprintf("postmaster %d; back as %d, accepting connections after %s", pid, in.pg.Pid(), time.Since(at).Round(time.Millisecond)))
	return nil
}

// stallKill is the known way to lose a turn: PostgreSQL stalls the ingest
// worker's inserts (a lock on messages held by the harness, as a long
// migration or a stuck vacuum would), so the turns ingest has pulled stay
// unacknowledged, kept alive by its InProgress heartbeats; the worker is
// then killed once per allowed delivery. Each restart is handed the same
// turns again after AckWait and dies holding them. After the last one the
// server stops redelivering those turns; the runner never saw a last
// delivery fail, so nothing is dead-lettered.
func (in *injector) stallKill(ctx context.Context, dbURL string, js jetstream.JetStream, maxDeliver int, ackWait time.Duration) error {
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return fmt.Errorf("stall: connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	tx, err := conn.Begin(ctx)
	if err != nil {
		return fmt.Errorf("stall: begin: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if _, err := tx.Exec(ctx, "LOCK TABLE messages IN SHARE MODE"); err != nil {
		return fmt.Errorf("stall: lock: %w", err)
	}
	at := time.Now()
	in.record(at, "stall ingest", "LOCK TABLE messages IN SHARE MODE held by the harness: inserts wait")
	p := in.procs["ingest"]
	for i := 1; i <= maxDeliver; i++ {
		// Let the running ingest be handed the turns: the first one new
		// turns, each later one the turns its predecessor died holding,
		// redelivered after AckWait.
		if !pause.For(ctx, ackWait+time.Second) {
			return ctx.Err()
		}
		held, err := ackPending(ctx, js, "RECALL_TURNS", "ingest")
		if err != nil || held.NumAckPending == 0 || i > 1 && held.NumRedelivered == 0 {
			detail := "nothing held"
			if err != nil {
				detail = err.Error()
			}
			in.record(time.Now(), fmt.Sprintf("stall-kill ingest %d/%d", i, maxDeliver), "gave up: "+detail)
			break
		}
		kat := time.Now()
		pid, started, err := p.Kill9()
		if err != nil {
			in.record(kat, fmt.Sprintf("stall-kill ingest %d/%d", i, maxDeliver), "skipped: "+err.Error())
			continue
		}
		select {
		case <-started:
		case <-time.After(10 * time.Second):
		case <-ctx.Done():
			return ctx.Err()
		}
		in.record(kat, fmt.Sprintf("stall-kill ingest %d/%d", i, maxDeliver),
			fmt.Sprintf("pid %d held %d unacknowledged turns (%d of them redelivered); restarted as pid %d", pid, held.NumAckPending, held.NumRedelivered, p.Pid()))
	}
	// Past the last kill's AckWait, the server has given up on those turns.
	if !pause.For(ctx, ackWait+time.Second) {
		return ctx.Err()
	}
	if err := tx.Rollback(ctx); err != nil {
		return fmt.Errorf("stall: unlock: %w", err)
	}
	in.record(time.Now(), "stall released", fmt.Sprintf("lock held %s", time.Since(at).Round(time.Millisecond)))
	return nil
}

// ackPending is the consumer's state.
func ackPending(ctx context.Context, js jetstream.JetStream, stream, consumer string) (*jetstream.ConsumerInfo, error) {
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	c, err := js.Consumer(cctx, stream, consumer)
	if err != nil {
		return nil, err
	}
	return c.Info(cctx)
}
