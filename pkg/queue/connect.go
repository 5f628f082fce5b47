package queue

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/recallhq/recall/pkg/service"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// NATSConfig is the NATS part of a binary's config: where the server is
// and how to log in to it. At most one way of logging in is set (a user and
// password, a token, an NKey seed file or a credentials file); TLS goes with
// any of them, or is the login itself when the server maps client
// certificates to users.
type NATSConfig struct {
	// URL is the NATS server, or several comma-separated. Unset, `recall run`
	// starts an embedded server instead, and the `recall` tools use the one
	// `recall run` recorded under DATA_DIR, or stop with an error: they never
	// fall back to this default.
	URL string `env:"NATS_URL" envDefault:"nats://127.0.0.1:4222" secret:"url"`
	// User is the user name to log in with, with NATS_PASSWORD.
	User string `env:"NATS_USER"`
	// Password is NATS_USER's password.
	Password string `env:"NATS_PASSWORD" secret:"true"`
	// Token is the token to log in with, for a server whose authorization
	// is a token.
	Token string `env:"NATS_TOKEN" secret:"true"`
	// NKeyFile is a file holding the NKey seed to log in with (a user's
	// seed, SU…): the server knows only the public key. `recall run` makes
	// one for its embedded server (DATA_DIR/nats.nk), and the tools use it
	// when NATS_URL is unset.
	NKeyFile string `env:"NATS_NKEY_FILE" secret:"false"`
	// CredsFile is a NATS credentials file (a user JWT and its NKey seed, as
	// `nsc` writes them), for servers run in operator mode.
	CredsFile string `env:"NATS_CREDS_FILE"`
	// TLSCAFile is the CA certificate (PEM) the server's certificate is
	// checked against; set, the connection is TLS.
	TLSCAFile string `env:"NATS_TLS_CA_FILE"`
	// TLSCertFile is the client certificate (PEM) shown to a server that
	// asks for one, with NATS_TLS_KEY_FILE.
	TLSCertFile string `env:"NATS_TLS_CERT_FILE"`
	// TLSKeyFile is NATS_TLS_CERT_FILE's private key (PEM).
	TLSKeyFile string `env:"NATS_TLS_KEY_FILE" secret:"false"`
}

// Options are the nats.go options that log in as c says, and its TLS. It
// is an error to set two ways of logging in, a password without a user, or
// a client certificate without its key; a seed file that cannot be read is
// named.
func (c NATSConfig) Options() ([]nats.Option, error) {
	var set []string
	if c.User != "" || c.Password != "" {
		if c.User == "" {
			return nil, errors.New("NATS_PASSWORD is set without NATS_USER")
		}
		set = append(set, "NATS_USER")
	}
	for _, v := range []struct{ name, value string }{{"NATS_TOKEN", c.Token}, {"NATS_NKEY_FILE", c.NKeyFile}, {"NATS_CREDS_FILE", c.CredsFile}} {
		if v.value != "" {
			set = append(set, v.name)
		}
	}
	if len(set) > 1 {
		return nil, fmt.Errorf("NATS: set one way to log in, not %s", strings.Join(set, " and "))
	}
	if (c.TLSCertFile == "") != (c.TLSKeyFile == "") {
		return nil, errors.New("NATS_TLS_CERT_FILE and NATS_TLS_KEY_FILE go together")
	}
	var opts []nats.Option
	switch {
	case c.User != "":
		opts = append(opts, nats.UserInfo(c.User, c.Password))
	case c.Token != "":
		opts = append(opts, nats.Token(c.Token))
	case c.NKeyFile != "":
		o, err := nats.NkeyOptionFromSeed(c.NKeyFile)
		if err != nil {
			return nil, fmt.Errorf("NATS_NKEY_FILE %s: %w", c.NKeyFile, err)
		}
		opts = append(opts, o)
	case c.CredsFile != "":
		if _, err := os.Stat(c.CredsFile); err != nil {
			return nil, fmt.Errorf("NATS_CREDS_FILE: %w", err)
		}
		opts = append(opts, nats.UserCredentials(c.CredsFile))
	}
	if c.TLSCAFile != "" {
		opts = append(opts, nats.RootCAs(c.TLSCAFile))
	}
	if c.TLSCertFile != "" {
		opts = append(opts, nats.ClientCert(c.TLSCertFile, c.TLSKeyFile))
	}
	return opts, nil
}

// Login says how c logs in, for errors and logs, naming no secret: `user
// "recall-api" and a password`, `the NKey seed in /run/nats/seed`, `no
// credentials`, each followed by `, over TLS with the client certificate …`
// when it is set.
func (c NATSConfig) Login() string {
	var s string
	switch {
	case c.User != "" && c.Password == "":
		s = fmt.Sprintf("user %q and no password", c.User)
	case c.User != "":
		s = fmt.Sprintf("user %q and a password", c.User)
	case c.Token != "":
		s = "a token"
	case c.NKeyFile != "":
		s = "the NKey seed in " + c.NKeyFile
	case c.CredsFile != "":
		s = "the credentials file " + c.CredsFile
	case strings.Contains(c.URL, "@"):
		s = "the user info in NATS_URL"
	default:
		s = "no credentials"
	}
	switch {
	case c.TLSCertFile != "":
		s += ", over TLS with the client certificate " + c.TLSCertFile
	case c.TLSCAFile != "":
		s += ", over TLS"
	}
	return s
}

// Connect connects to NATS as c says, with reconnects that never give up (a
// worker should wait out a NATS restart, not exit), and returns the
// JetStream handle. A refusal names the server and how the client tried to
// log in.
func Connect(ctx context.Context, c NATSConfig, name string, log *slog.Logger) (*nats.Conn, jetstream.JetStream, error) {
	login, err := c.Options()
	if err != nil {
		return nil, nil, err
	}
	opts := append([]nats.Option{
		nats.Name(name),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(time.Second),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err != nil {
				log.Warn("nats disconnected", "error", err.Error())
			}
		}),
		nats.ReconnectHandler(func(nc *nats.Conn) { log.Info("nats reconnected", "url", nc.ConnectedUrlRedacted()) }),
		// A permission the server refuses (a publish or subscription
		// outside the user's allow lists) comes back asynchronously.
		nats.ErrorHandler(func(_ *nats.Conn, sub *nats.Subscription, err error) {
			attrs := []any{"error", err.Error()}
			if sub != nil {
				attrs = append(attrs, "subject", sub.Subject)
			}
			log.Warn("nats", attrs...)
		}),
	}, login...)
	nc, err := nats.Connect(c.URL, opts...)
	if err != nil {
		return nil, nil, fmt.Errorf("nats connect %s with %s: %w", service.MaskURLUserinfo(c.URL), c.Login(), err)
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
	nc, js, err := Connect(ctx, c, name, log)
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
	nc, js, err := Connect(ctx, c, name, log)
	if err != nil {
		return nil, nil, err
	}
	if err := RequireStreams(ctx, js); err != nil {
		nc.Close()
		return nil, nil, err
	}
	return nc, js, nil
}
