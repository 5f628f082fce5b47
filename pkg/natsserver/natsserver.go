// Package natsserver runs a NATS server with JetStream inside the process (not
// to be confused with package embed, which turns text into vectors): for
// `recall run` when no NATS_URL is configured, and for tests. Production uses a
// NATS cluster.
package natsserver

import (
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Options for the embedded server.
type Options struct {
	// Host and Port to listen on; Port -1 picks a free port.
	Host string
	Port int
	// StoreDir holds JetStream's file storage.
	StoreDir string
	// SyncInterval is how often JetStream fsyncs; 0 keeps the server default (2m).
	SyncInterval time.Duration
	// Users are the NKey users the server accepts, each with the subjects it
	// may use. With none, any client may connect and do anything: what the
	// tests' servers do, never `recall run`'s (see LocalUser).
	Users []User
}

// User is one NKey user of the server. Only its public key is in the
// server's config; the client proves it holds the seed by signing the
// server's nonce, so the server keeps no secret of its own.
type User struct {
	// NKey is the user's public key (U…).
	NKey string
	// Publish and Subscribe are the subjects (wildcards allowed) the user may
	// publish and subscribe to; anything else is refused with a permissions
	// violation. Empty allows every subject.
	Publish, Subscribe []string
}

// Start starts a server and waits until it accepts connections. The caller owns
// Shutdown (followed by WaitForShutdown).
func Start(o Options) (*server.Server, error) {
	if o.StoreDir == "" {
		return nil, errors.New("natsserver: StoreDir is required")
	}
	host := o.Host
	if host == "" {
		host = "127.0.0.1"
	}
	opts := &server.Options{
		ServerName: "recall-embedded",
		Host:       host,
		Port:       o.Port,
		JetStream:  true,
		StoreDir:   o.StoreDir,
		NoSigs:     true,
		NoLog:      true,
		MaxPayload: 8 << 20,
	}
	if o.SyncInterval > 0 {
		opts.SyncInterval = o.SyncInterval
	}
	for _, u := range o.Users {
		if !validUserKey(u.NKey) {
			return nil, fmt.Errorf("natsserver: %q is not the public key of an NKey user", u.NKey)
		}
		opts.Nkeys = append(opts.Nkeys, &server.NkeyUser{Nkey: u.NKey, Permissions: permissions(u)})
	}
	s, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("natsserver: %w", err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		s.Shutdown()
		return nil, fmt.Errorf("natsserver: server on %s:%d not ready after 10s", host, o.Port)
	}
	return s, nil
}

// permissions are u's allow lists as the server takes them (nil for a user
// without any).
func permissions(u User) *server.Permissions {
	if len(u.Publish) == 0 && len(u.Subscribe) == 0 {
		return nil
	}
	p := &server.Permissions{}
	if len(u.Publish) > 0 {
		p.Publish = &server.SubjectPermission{Allow: u.Publish}
	}
	if len(u.Subscribe) > 0 {
		p.Subscribe = &server.SubjectPermission{Allow: u.Subscribe}
	}
	return p
}
