package recallrun

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/recallhq/recall/pkg/pause"
	"github.com/recallhq/recall/pkg/queue"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// SettleOptions bound the wait for the pipeline.
type SettleOptions struct {
	// NATS is the system's NATS server and how to log in to it; without a
	// URL only the sessions' message counts are checked.
	NATS    queue.NATSConfig
	Quiet   time.Duration // how long everything must stay caught up
	Timeout time.Duration
	Poll    time.Duration
	// Since is when the work waited for began (the first turn posted), what
	// each consumer's busy time is counted from; zero: when Settle starts.
	Since time.Time
}

// Settled is what the wait found.
type Settled struct {
	Stored    int64         // messages the sessions hold
	Consumers []string      // durable consumers waited for
	Took      time.Duration // until the pipeline was seen caught up for good
	// Drains are the consumers' own: how much each handled and when it was
	// last seen with work, for each worker's rate.
	Drains []Drain
}

// Drain is one durable consumer's part of the wait.
type Drain struct {
	Consumer string // stream/name
	Acked    uint64 // deliveries finished when the pipeline settled
	// Busy is from SettleOptions.Since to the last poll that saw it with
	// work; 0 when no poll did (it was done before the wait began).
	Busy time.Duration
}

// Rate is the consumer's deliveries a second over its busy time (0 without
// one).
func (d Drain) Rate() float64 {
	if d.Busy <= 0 {
		return 0
	}
	return float64(d.Acked) / d.Busy.Seconds()
}

// Counter says how many of the posted turns are stored so far.
type Counter func(ctx context.Context) (int64, error)

// SessionCounter counts the stored turns of the given sessions (id to the
// number of turns posted) through the API, asking only about the sessions
// not complete yet.
func SessionCounter(c *Client, want map[string]int64) Counter {
	return incomplete("session", want, c.SessionCount)
}

// UserCounter counts the stored turns of the given users (id to the number
// of turns posted) through the API, asking only about the users not
// complete yet: one request a user where SessionCounter makes one a session,
// for histories of many sessions each (LongMemEval's forty), whose thousands
// of requests a pass would compete with the workers it waits for.
func UserCounter(c *Client, want map[string]int64) Counter {
	return incomplete("user", want, c.UserMessageCount)
}

// incomplete counts the stored turns of the given sessions or users (id to
// the number of turns posted) by asking count about those not complete yet;
// more stored than posted is an error.
func incomplete(kind string, want map[string]int64, count func(ctx context.Context, id string) (int64, error)) Counter {
	have := map[string]int64{}
	return func(ctx context.Context) (int64, error) {
		var stored int64
		for id, n := range want {
			if have[id] < n {
				got, err := count(ctx, id)
				if err != nil {
					return 0, fmt.Errorf("%s %s: %w", kind, id, err)
				}
				if got > n {
					return 0, fmt.Errorf("%s %s holds %d messages, %d were posted", kind, id, got, n)
				}
				have[id] = got
			}
			stored += have[id]
		}
		return stored, nil
	}
}

// Settle waits until total turns are stored (count) and every durable
// consumer of every stream has nothing pending or unacknowledged,
// and both have stayed so for Quiet: a worker that finishes publishes work
// for the next one (ingest asks for summaries, the extractor for profile
// refreshes, the idle sweep for final summaries), so one idle moment is not
// the end.
func Settle(ctx context.Context, count Counter, total int64, o SettleOptions, log *slog.Logger) (Settled, error) {
	start := time.Now()
	var res Settled
	var js jetstream.JetStream
	if o.NATS.URL != "" {
		login, err := o.NATS.Options()
		if err != nil {
			return res, err
		}
		nc, err := nats.Connect(o.NATS.URL, append(login, nats.Name("recall-settle"))...)
		if err != nil {
			return res, fmt.Errorf("connect to NATS %s with %s: %w", o.NATS.URL, o.NATS.Login(), err)
		}
		defer nc.Close()
		if js, err = jetstream.New(nc); err != nil {
			return res, fmt.Errorf("jetstream: %w", err)
		}
	} else {
		log.Warn("no NATS URL: waiting for the sessions' message counts only, not for the workers")
	}

	since := o.Since
	if since.IsZero() {
		since = start
	}
	drains := map[string]*Drain{}
	var quietSince time.Time
	lastReport := time.Time{}
	for {
		stored, err := count(ctx)
		if err != nil {
			return res, err
		}
		if stored > total {
			return res, fmt.Errorf("%d messages stored, %d were posted", stored, total)
		}
		res.Stored = stored
		caughtUp := stored == total

		var lags []queue.ConsumerLag
		if js != nil {
			var err error
			if lags, err = queue.ConsumerLags(ctx, js); err != nil {
				return res, err
			}
			if len(lags) == 0 {
				return res, fmt.Errorf("no durable consumer on %s: is it the NATS of this Recall?", o.NATS.URL)
			}
			res.Consumers = res.Consumers[:0]
			for _, l := range lags {
				name := l.Stream + "/" + l.Name
				res.Consumers = append(res.Consumers, name)
				caughtUp = caughtUp && l.Idle()
				d := drains[name]
				if d == nil {
					d = &Drain{Consumer: name}
					drains[name] = d
				}
				d.Acked = l.Acked
				if !l.Idle() {
					d.Busy = time.Since(since)
				}
			}
		}

		now := time.Now()
		switch {
		case !caughtUp:
			quietSince = time.Time{}
		case quietSince.IsZero():
			quietSince = now
		case now.Sub(quietSince) >= o.Quiet:
			res.Took = quietSince.Sub(start)
			for _, name := range res.Consumers {
				res.Drains = append(res.Drains, *drains[name])
			}
			log.Info("pipeline caught up", "stored", stored, "consumers", len(lags), "took", res.Took.Round(time.Millisecond))
			return res, nil
		}
		if now.Sub(lastReport) >= 5*time.Second {
			lastReport = now
			log.Info("waiting for the pipeline", "stored", fmt.Sprintf("%d/%d", stored, total), "pending+unacked", queue.FormatLags(lags))
		}
		if now.Sub(start) > o.Timeout {
			return res, fmt.Errorf("pipeline not caught up after %s: %d of %d messages stored; consumers %s", o.Timeout, stored, total, queue.FormatLags(lags))
		}
		if !pause.For(ctx, o.Poll) {
			return res, ctx.Err()
		}
	}
}
