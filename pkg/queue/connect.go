package queue

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// NATSConfig is the NATS part of a binary's config.
type NATSConfig struct {
	// URL is the NATS server, or several comma-separated. Unset, `recall run`
	// starts an embedded server instead, and the `recall` tools use the one
	// `recall run` recorded under DATA_DIR, or stop with an error: they never
	// fall back to this default.
	URL string `env:"NATS_URL" envDefault:"nats://127.0.0.1:4222"`
	// CredsFile is an optional NATS credentials file (production clusters).
	CredsFile string `env:"NATS_CREDS_FILE"`
}

// Connect connects to NATS with reconnects that never give up (a worker should
// wait out a NATS restart, not exit) and returns the JetStream handle.
func Connect(ctx context.Context, url, creds, name string, log *slog.Logger) (*nats.Conn, jetstream.JetStream, error) {
	opts := []nats.Option{
		nats.Name(name),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(time.Second),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err != nil {
				log.Warn("nats disconnected", "error", err.Error())
			}
		}),
		nats.ReconnectHandler(func(nc *nats.Conn) { log.Info("nats reconnected", "url", nc.ConnectedUrlRedacted()) }),
	}
	if creds != "" {
		opts = append(opts, nats.UserCredentials(creds))
	}
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		return nil, nil, fmt.Errorf("nats connect %s: %w", url, err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, nil, fmt.Errorf("jetstream: %w", err)
	}
	return nc, js, nil
}

// Ready reports whether the connection is up and JetStream answers, for /readyz.
func Ready(nc *nats.Conn, js jetstream.JetStream) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		if !nc.IsConnected() {
			return fmt.Errorf("nats: %s", nc.Status())
		}
		_, err := js.AccountInfo(ctx)
		return err
	}
}

// Close drains the connection (flushing acks and publishes) and waits for it to
// close, at most timeout.
func Close(nc *nats.Conn, timeout time.Duration) {
	closed := make(chan struct{})
	nc.SetClosedHandler(func(*nats.Conn) { close(closed) })
	if err := nc.Drain(); err != nil {
		nc.Close()
		return
	}
	select {
	case <-closed:
	case <-time.After(timeout):
		nc.Close()
	}
}

// Open connects to NATS and declares the streams: what every binary does first.
// Close the connection with Close.
func Open(ctx context.Context, c NATSConfig, streams StreamConfig, name string, log *slog.Logger) (*nats.Conn, jetstream.JetStream, error) {
	nc, js, err := Connect(ctx, c.URL, c.CredsFile, name, log)
	if err != nil {
		return nil, nil, err
	}
	if err := ensureStreams(ctx, js, streams, DeclareRetryFor, log); err != nil {
		nc.Close()
		return nil, nil, err
	}
	return nc, js, nil
}

// Attach connects to NATS and checks that Recall's streams are there
// (RequireStreams), declaring nothing: what the operator's tools do, so that
// a tool pointed at the wrong server changes nothing on it. Close the
// connection with Close.
func Attach(ctx context.Context, c NATSConfig, name string, log *slog.Logger) (*nats.Conn, jetstream.JetStream, error) {
	nc, js, err := Connect(ctx, c.URL, c.CredsFile, name, log)
	if err != nil {
		return nil, nil, err
	}
	if err := RequireStreams(ctx, js); err != nil {
		nc.Close()
		return nil, nil, err
	}
	return nc, js, nil
}
