package deps

import (
	"fmt"
	"path/filepath"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/recallhq/recall/pkg/natsserver"
	"github.com/recallhq/recall/pkg/queue"
)

// EmbeddedNATS is where `recall run` starts its own JetStream server when
// NATS_URL is unset, so that the whole system runs on one machine with no
// NATS server installed.
type EmbeddedNATS struct {
	// EmbeddedNATSHost is the embedded server's address; the default keeps
	// it off the network.
	EmbeddedNATSHost string `env:"EMBEDDED_NATS_HOST" envDefault:"127.0.0.1"`
	// EmbeddedNATSPort is the embedded server's port: not 4222, so that it
	// never answers in the name of a NATS server installed on the machine.
	EmbeddedNATSPort int `env:"EMBEDDED_NATS_PORT" envDefault:"4223"`
}

// Data is where `recall run` keeps its local state: the embedded NATS
// server's store (nats/), the record of that server (nats.json), by which
// the tools (worker, replay, forget, dlq) find it when NATS_URL is unset, and
// the seed of the one user that server lets in (nats.nk).
type Data struct {
	// Dir holds the embedded server's store, its record and its user's key;
	// the tools read the record and the key here, so give them the DATA_DIR
	// `recall run` has.
	Dir string `env:"DATA_DIR" envDefault:".data"`
}

// NATSStoreDir is the embedded server's JetStream store.
func (d Data) NATSStoreDir() string { return filepath.Join(d.Dir, "nats") }

// NATSRecordFile is the record of the embedded server `recall run` started:
// written at its start, removed when it stops.
func (d Data) NATSRecordFile() string { return filepath.Join(d.Dir, "nats.json") }

// NATSSeedFile is the NKey seed of the embedded server's user, made by the
// first `recall run` on this DATA_DIR and kept (natsserver.LocalUser).
func (d Data) NATSSeedFile() string { return filepath.Join(d.Dir, "nats.nk") }

// StartEmbeddedNATS starts `recall run`'s own JetStream server, which lets
// in one user only: the NKey user whose seed is kept in the data directory
// (NATSSeedFile: made at the first start, read again at the next), limited
// to Recall's subjects (queue.LocalPermissions). It returns the server and
// how to connect to it as that user. The caller owns Shutdown.
func StartEmbeddedNATS(e EmbeddedNATS, data Data) (*server.Server, queue.NATSConfig, error) {
	seed := data.NATSSeedFile()
	user, _, err := natsserver.LocalUser(seed)
	if err != nil {
		return nil, queue.NATSConfig{}, fmt.Errorf("embedded NATS: %w", err)
	}
	perms := queue.LocalPermissions()
	srv, err := natsserver.Start(natsserver.Options{
		Host: e.EmbeddedNATSHost, Port: e.EmbeddedNATSPort, StoreDir: data.NATSStoreDir(),
		Users: []natsserver.User{{NKey: user, Publish: perms.Publish, Subscribe: perms.Subscribe}},
	})
	if err != nil {
		return nil, queue.NATSConfig{}, fmt.Errorf("embedded NATS (set NATS_URL to use an external server, or EMBEDDED_NATS_PORT to move it): %w", err)
	}
	return srv, queue.NATSConfig{URL: srv.ClientURL(), NKeyFile: seed}, nil
}
