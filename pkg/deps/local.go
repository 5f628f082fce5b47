package deps

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
// server's store and the record of that server (nats.json), by which the
// tools (worker, replay, forget, dlq) find it when NATS_URL is unset.
type Data struct {
	// Dir holds the embedded server's store and its record; the tools read
	// the record here, so give them the DATA_DIR `recall run` has.
	Dir string `env:"DATA_DIR" envDefault:".data"`
}
