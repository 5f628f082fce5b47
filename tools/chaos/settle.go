package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/recallhq/recall/pkg/pause"
	"github.com/recallhq/recall/pkg/queue"
)

// settleResult is what the wait saw last.
type settleResult struct {
	Settled   bool
	Took      time.Duration
	Consumers []queue.ConsumerLag
	Behind    int64 // sessions with messages no summary accounts for
	Err       error
}

// waitSettled waits until every consumer of every stream has nothing
// pending and nothing unacknowledged, and every session's summaries account
// for all its messages (the summarizer's idle sweep asks for the last ones),
// and both have held for quiet: one worker's work makes work for the next
// (ingest asks for summaries, the extractor for profile refreshes), so one
// idle moment is not the end.
func waitSettled(ctx context.Context, js jetstream.JetStream, db *pgxpool.Pool, quiet, timeout time.Duration, log *slog.Logger) settleResult {
	start := time.Now()
	var res settleResult
	var quietSince, lastReport time.Time
	for {
		lctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		lags, err := queue.ConsumerLags(lctx, js)
		cancel()
		done := err == nil && len(lags) > 0
		if err == nil {
			res.Consumers = lags
			for _, l := range lags {
				done = done && l.Idle()
			}
		}
		var behind int64
		qerr := db.QueryRow(ctx, `SELECT count(*) FROM sessions WHERE message_count - system_count > summarized_count`).Scan(&behind)
		res.Behind = behind
		done = done && qerr == nil && behind == 0
		res.Err = errors.Join(err, qerr)

		now := time.Now()
		switch {
		case !done:
			quietSince = time.Time{}
		case quietSince.IsZero():
			quietSince = now
		case now.Sub(quietSince) >= quiet:
			res.Settled, res.Took = true, quietSince.Sub(start)
			return res
		}
		if now.Sub(lastReport) >= 5*time.Second {
			lastReport = now
			log.Info("waiting to settle", "consumers (pending+unacked)", queue.FormatLags(lags), "sessions_behind", behind)
		}
		if now.Sub(start) > timeout || !pause.For(ctx, 250*time.Millisecond) {
			res.Took = time.Since(start)
			return res
		}
	}
}

// deadLetter is one entry of RECALL_DLQ.
type deadLetter struct {
	Seq        uint64
	Consumer   string
	StreamSeq  uint64
	MsgID      string
	Deliveries string
	Reason     string
}

// readDLQ reads every entry of the dead-letter stream.
func readDLQ(ctx context.Context, js jetstream.JetStream) ([]deadLetter, error) {
	st, err := js.Stream(ctx, queue.DLQStream)
	if err != nil {
		return nil, fmt.Errorf("dlq stream: %w", err)
	}
	info, err := st.Info(ctx)
	if err != nil {
		return nil, err
	}
	var out []deadLetter
	if info.State.Msgs == 0 {
		return nil, nil
	}
	for seq := info.State.FirstSeq; seq <= info.State.LastSeq; seq++ {
		m, err := st.GetMsg(ctx, seq)
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("dlq message %d: %w", seq, err)
		}
		ss, _ := strconv.ParseUint(m.Header.Get(queue.HeaderStreamSeq), 10, 64)
		out = append(out, deadLetter{
			Seq: seq, Consumer: m.Header.Get(queue.HeaderConsumer), StreamSeq: ss,
			MsgID: m.Header.Get(queue.HeaderOriginalMsgID), Deliveries: m.Header.Get(queue.HeaderDeliveries),
			Reason: m.Header.Get(queue.HeaderReason),
		})
	}
	return out, nil
}

// maxDelivery is a server advisory: a message reached its consumer's
// MaxDeliver without being acknowledged or terminated. The server then stops
// delivering it.
type maxDelivery struct {
	Stream     string `json:"stream"`
	Consumer   string `json:"consumer"`
	StreamSeq  uint64 `json:"stream_seq"`
	Deliveries uint64 `json:"deliveries"`
	At         time.Time
}

// advisories collects the server's max-deliveries advisories over the run.
type advisories struct {
	mu  sync.Mutex
	all []maxDelivery
	sub *nats.Subscription
}

func watchAdvisories(nc *nats.Conn) (*advisories, error) {
	a := &advisories{}
	sub, err := nc.Subscribe("$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.>", func(m *nats.Msg) {
		var md maxDelivery
		if json.Unmarshal(m.Data, &md) != nil {
			return
		}
		md.At = time.Now()
		a.mu.Lock()
		a.all = append(a.all, md)
		a.mu.Unlock()
	})
	if err != nil {
		return nil, fmt.Errorf("subscribe to advisories: %w", err)
	}
	a.sub = sub
	return a, nil
}

func (a *advisories) List() []maxDelivery {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]maxDelivery(nil), a.all...)
}
