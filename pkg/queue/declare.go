package queue

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// DeclareRetryFor bounds how long a binary keeps declaring its streams and
// its consumer at start while JetStream cannot answer yet: a cluster that
// is electing its meta leader, or that has just lost a server, or many
// processes declaring three-replica streams at once (each creation is a
// Raft proposal across the cluster, and the chaos run's cluster mode saw
// every one of nine processes time out after five seconds). Past it the
// error is returned, and the binary exits, as before, for its supervisor to
// start it again.
const DeclareRetryFor = time.Minute

// transientDeclareError reports whether a stream or consumer declaration
// failed for want of an answer rather than for what it asked (a timeout, no
// responders, JetStream not up yet or the cluster not ready: 503), so that
// asking again can succeed. A refusal of the configuration itself (subjects
// that overlap another stream's, a setting that cannot change) is not.
func transientDeclareError(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout) || errors.Is(err, nats.ErrNoResponders) ||
		errors.Is(err, jetstream.ErrJetStreamNotEnabled) || errors.Is(err, nats.ErrConnectionClosed) || errors.Is(err, nats.ErrConnectionReconnecting) {
		return true
	}
	var apiErr *jetstream.APIError
	return errors.As(err, &apiErr) && apiErr.Code == http.StatusServiceUnavailable
}

// declare runs fn, and again with backoff for up to retryFor while it fails
// transiently (transientDeclareError) and ctx lasts; what is declared is
// named in the log. It returns fn's last error.
func declare(ctx context.Context, what string, retryFor time.Duration, log *slog.Logger, fn func(context.Context) error) error {
	b := backoff.NewExponentialBackOff()
	b.InitialInterval, b.MaxInterval, b.MaxElapsedTime = 250*time.Millisecond, 5*time.Second, retryFor
	return backoff.Retry(func() error {
		err := fn(ctx)
		if err == nil || ctx.Err() != nil || !transientDeclareError(err) {
			return backoff.Permanent(err)
		}
		if log != nil {
			log.Warn("declaring failed, trying again", "what", what, "err", err)
		}
		return err
	}, backoff.WithContext(b, ctx))
}
