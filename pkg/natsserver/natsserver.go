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
