package main

import (
	"fmt"
	"time"
)

// Options say how big the run is and how hard it hits. Three modes fill
// them: short (about a minute, run by `go test`), full (`make chaos`) and
// cluster (`make chaos-cluster`: three nats-servers, everything at three
// replicas).
type Options struct {
	Mode string
	// Servers is how many nats-servers run: 1, or a cluster of 3 whose
	// streams and consumers have a replica on each (STREAM_REPLICAS=3).
	// Each server is then killed with SIGKILL in turn, the turn stream's
	// leader first.
	Servers int
	// ForgetUsers is how many users are forgotten once the checks are done
	// (their user turns carry a text unique to them), after which no
	// server's store directory may hold that text.
	ForgetUsers int
	// Turns is how many distinct turns are published.
	Turns int
	// Seed makes the workload and the fault schedule reproducible.
	Seed uint64
	// Publish is how long publishing is spread over; the faults happen
	// inside it.
	Publish time.Duration
	// ChunkSize is how many turns one paced step publishes.
	ChunkSize int
	// KillsPerProcess is how often each worker process (and the API) is
	// killed with SIGKILL and restarted while turns are published.
	KillsPerProcess int
	// ExtraKills are more kills of the turn-stream workers, the ones every
	// turn goes through.
	ExtraKills int
	// StallKill kills the ingest worker once per allowed delivery
	// (MaxDeliver times) while PostgreSQL holds its inserts: every message
	// it holds dies with it each time.
	StallKill bool
	// Poison publishes one turn whose body can never be stored.
	Poison bool
	// DuplicateWindow is STREAM_DUPLICATE_WINDOW for the run: repeats after
	// it reach the stream and must be dropped by the database.
	DuplicateWindow time.Duration
	// AckWait, MaxDeliver, RetryInitial and RetryMax are every worker's
	// consumer and retry settings.
	AckWait      time.Duration
	MaxDeliver   int
	RetryInitial time.Duration
	RetryMax     time.Duration
	// Quiet is how long every consumer must stay caught up to count as
	// settled; SettleTimeout bounds the wait.
	Quiet         time.Duration
	SettleTimeout time.Duration

	// NATSServer is the nats-server binary (empty: the release go.mod pins,
	// built into the run's directory when Root is set; else from PATH or
	// /usr/sbin/nats-server). PGBin is the PostgreSQL server's bin directory
	// (empty: /usr/lib/postgresql/15/bin, else the newest installed).
	NATSServer string
	PGBin      string
	// BinDir holds prebuilt binaries (empty: go build ./cmd/... into the
	// run's directory). Root is the repository, for the build.
	BinDir string
	Root   string
	// Keep leaves the run's whole directory (binaries, logs, data) behind;
	// its logs and data are also kept when a check fails or the run does not
	// finish.
	Keep bool
}

// ModeOptions are the defaults of a mode.
func ModeOptions(mode string) (Options, error) {
	o := Options{
		Mode:            mode,
		Servers:         1,
		Seed:            1,
		Poison:          true,
		DuplicateWindow: 2 * time.Second,
		// A killed worker's messages come back after AckWait: short, so the
		// run is not mostly waiting.
		AckWait:    3 * time.Second,
		MaxDeliver: 5,
		// 500ms doubling gives 0.5+1+2+4 = 7.5s (6s with the jitter) before
		// a message's fifth and last delivery: longer than PostgreSQL's
		// immediate restart or the NATS outage here (1-2s), with a delivery
		// or two to spare for a kill landing on the same message. 100ms
		// would exhaust MaxDeliver within 1.5s of failures and dead-letter
		// turns during a database restart.
		RetryInitial: 500 * time.Millisecond,
		RetryMax:     5 * time.Second,
	}
	switch mode {
	case "short":
		o.Turns = 3000
		o.Publish = 24 * time.Second
		o.ChunkSize = 30
		o.KillsPerProcess = 1
		o.ExtraKills = 1
		o.Quiet = 3 * time.Second
		o.SettleTimeout = 90 * time.Second
	case "full":
		o.Turns = 30000
		o.Publish = 120 * time.Second
		o.ChunkSize = 100
		o.KillsPerProcess = 4
		o.ExtraKills = 2
		o.StallKill = true
		o.Quiet = 5 * time.Second
		o.SettleTimeout = 5 * time.Minute
	case "cluster":
		// The short mode's load and kills, against three servers each
		// killed once (a third of the way in, then every sixth of the
		// publishing), and a forget at the end.
		o.Turns = 4000
		o.Publish = 40 * time.Second
		o.ChunkSize = 40
		o.KillsPerProcess = 1
		o.ExtraKills = 1
		o.Servers = 3
		o.ForgetUsers = 2
		o.Quiet = 3 * time.Second
		o.SettleTimeout = 3 * time.Minute
	default:
		return o, fmt.Errorf("mode %q: want short, full or cluster", mode)
	}
	return o, nil
}
