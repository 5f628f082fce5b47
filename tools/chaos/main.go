// Command chaos runs Recall the way it is deployed, every worker its own
// process against a real NATS server and PostgreSQL, and does its worst
// while turns are published: kill -9 of every worker and of the API, over
// and over, a kill -9 of the NATS server and an immediate restart of
// PostgreSQL, repeats of turns inside and after the stream's duplicate
// window, and a poison turn. Then it waits until every consumer has settled
// and checks exactly what must hold: every published turn stored once, the
// sessions' counts, every fact mention once, summaries without gaps, an
// empty dead-letter stream but for the poison, and a replay that adds
// nothing. It prints a table of the checks, the faults with their times and
// the turn counts, and exits 1 when a check fails.
//
// Usage, from the repository root:
//
//	go run ./tools/chaos [-mode short|full|cluster] [-turns N] [-seed N] [-keep]
//	    [-nats-server PATH] [-pg-bin DIR] [-bin DIR]
//
// It starts its own infrastructure on free ports and never touches the
// machine's own servers: nats-server (`-a 127.0.0.1 -p <free> -js -sd <dir>`;
// the release go.mod pins, built for the run) and a PostgreSQL cluster made by initdb in a
// temporary directory (as the postgres OS user when run as root; pgvector
// must be installed for that server: make deps). Every process is stopped
// by its pid at the end, also on failure and on Ctrl-C. The directory with
// every process's log is removed after a clean run; when a check fails or
// the run does not finish, its logs and data are kept (everything with
// -keep).
//
// The short mode (about a minute) is TestChaosShort in `go test`; the full
// mode is `make chaos`. The cluster mode (`make chaos-cluster`) runs three
// nats-servers clustered on loopback ports, every stream and consumer at
// three replicas, kills each server in turn (the turn stream's leader
// first), and at the end forgets two users and greps every server's store
// directory, Raft logs included, for their text.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	mode := flag.String("mode", "full", "short (about a minute), full, or cluster (three nats-servers at three replicas, about 5 minutes)")
	turns := flag.Int("turns", 0, "distinct turns to publish (0: the mode's default: short 3000, full 30000, cluster 4000)")
	seed := flag.Uint64("seed", 1, "seed of the workload")
	keep := flag.Bool("keep", false, "keep the run's directory (logs, data) even when every check passes")
	natsServer := flag.String("nats-server", "", "nats-server binary (default: the release go.mod pins, built for the run)")
	pgBin := flag.String("pg-bin", "", "PostgreSQL bin directory with initdb and pg_ctl (default: /usr/lib/postgresql/15/bin)")
	binDir := flag.String("bin", "", "directory of prebuilt Recall binaries (default: go build ./cmd/... into the run's directory)")
	flag.Parse()

	o, err := ModeOptions(*mode)
	if err != nil {
		fmt.Fprintln(os.Stderr, "chaos:", err)
		os.Exit(2)
	}
	if *turns > 0 {
		o.Turns = *turns
	}
	o.Seed, o.Keep, o.NATSServer, o.PGBin, o.BinDir = *seed, *keep, *natsServer, *pgBin, *binDir
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	os.Exit(realMain(o, log))
}

// realMain returns the exit status; returning, never exiting, lets Run stop
// everything it started on every path.
func realMain(o Options, log *slog.Logger) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root, err := repoRoot()
	if err != nil && o.BinDir == "" {
		fmt.Fprintln(os.Stderr, "chaos:", err)
		return 2
	}
	o.Root = root
	rep, err := Run(ctx, o, log)
	if rep != nil && (len(rep.Checks) > 0 || len(rep.Faults) > 0) {
		rep.Render(os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "chaos:", err)
		return 2
	}
	if rep.Failed() {
		return 1
	}
	return 0
}
