package queue

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/recallhq/recall/pkg/events"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/recallhq/recall/pkg/envconfig"
)

// Stream names.
const (
	TurnsStream = "RECALL_TURNS"
	DLQStream   = "RECALL_DLQ"
)

// StreamConfig is the deployment's choice of durability and retention, from env.
// The binaries that publish or consume declare the streams with it at start,
// idempotently.
type StreamConfig struct {
	// Replicas is 1 for a single server, 3 in a production cluster.
	Replicas int `env:"STREAM_REPLICAS" envDefault:"1"`
	// MaxAge bounds how far back a replay can go; 0 keeps everything.
	MaxAge time.Duration `env:"STREAM_MAX_AGE" envDefault:"0s"`
	// DuplicateWindow is how long JetStream remembers Nats-Msg-Id for dedupe. The
	// database dedupes forever; this only saves work.
	DuplicateWindow time.Duration `env:"STREAM_DUPLICATE_WINDOW" envDefault:"2m"`
	// TasksMaxAge bounds how long an unhandled task (profile refresh, summarize
	// request) is kept; longer than any outage a worker should catch up from.
	TasksMaxAge time.Duration `env:"TASKS_MAX_AGE" envDefault:"168h"`
	// DLQMaxAge bounds how long dead letters are kept for inspection and re-drive.
	DLQMaxAge time.Duration `env:"DLQ_MAX_AGE" envDefault:"720h"`
	// ChangesMaxAge bounds how long the change feed keeps a change for its
	// readers to catch up; 0 keeps everything.
	ChangesMaxAge time.Duration `env:"CHANGES_MAX_AGE" envDefault:"168h"`
}

// DefaultStreamConfig is StreamConfig with its env defaults, for tests and tools.
var DefaultStreamConfig = envconfig.Defaults[StreamConfig]()

// TurnsStreamConfig declares the turn stream: file storage (turns are the source of
// truth for replay), limits retention (several consumers read it independently).
func TurnsStreamConfig(c StreamConfig) jetstream.StreamConfig {
	return jetstream.StreamConfig{
		Name:        TurnsStream,
		Description: "Chat turns published by chat backends; source of truth for every worker and for replay.",
		Subjects:    []string{events.TurnsSubjects},
		Storage:     jetstream.FileStorage,
		Retention:   jetstream.LimitsPolicy,
		Replicas:    max(c.Replicas, 1),
		MaxAge:      c.MaxAge,
		Duplicates:  c.DuplicateWindow,
		Discard:     jetstream.DiscardOld,
	}
}

// DLQStreamConfig declares the dead-letter stream.
func DLQStreamConfig(c StreamConfig) jetstream.StreamConfig {
	return jetstream.StreamConfig{
		Name:        DLQStream,
		Description: "Messages a consumer gave up on, with the reason in headers; inspect and re-drive.",
		Subjects:    []string{events.DLQSubjects},
		Storage:     jetstream.FileStorage,
		Retention:   jetstream.LimitsPolicy,
		Replicas:    max(c.Replicas, 1),
		MaxAge:      c.DLQMaxAge,
		Duplicates:  c.DuplicateWindow,
	}
}

// EnsureStreams creates or updates every stream Recall uses. It is idempotent and
// safe to run from every replica at start. (The signal stream is updated before
// the task stream is created: tasks used to be signal subjects.) A declaration
// JetStream cannot answer yet is asked again for up to DeclareRetryFor.
func EnsureStreams(ctx context.Context, js jetstream.JetStream, c StreamConfig) error {
	return ensureStreams(ctx, js, c, DeclareRetryFor, nil)
}

func ensureStreams(ctx context.Context, js jetstream.JetStream, c StreamConfig, retryFor time.Duration, log *slog.Logger) error {
	for _, sc := range streamConfigs(c) {
		err := declare(ctx, "stream "+sc.Name, retryFor, log, func(ctx context.Context) error {
			_, err := js.CreateOrUpdateStream(ctx, sc)
			return err
		})
		if err != nil {
			return fmt.Errorf("ensure stream %s: %w", sc.Name, err)
		}
	}
	return nil
}

// streamConfigs are every stream Recall uses, in the order EnsureStreams
// declares them.
func streamConfigs(c StreamConfig) []jetstream.StreamConfig {
	return []jetstream.StreamConfig{TurnsStreamConfig(c), SignalsStreamConfig(c), TasksStreamConfig(c), DLQStreamConfig(c), ChangesStreamConfig(c)}
}

// RequireStreams checks that every stream Recall uses is on the server,
// declaring nothing: an operator's tool pointed at a server that is not
// Recall's (or not yet) answers with an error naming it instead of creating
// streams there.
func RequireStreams(ctx context.Context, js jetstream.JetStream) error {
	var missing []string
	for _, sc := range streamConfigs(DefaultStreamConfig) {
		if _, err := js.Stream(ctx, sc.Name); err != nil {
			if !errors.Is(err, jetstream.ErrStreamNotFound) {
				return fmt.Errorf("stream %s on %s: %w", sc.Name, js.Conn().ConnectedUrlRedacted(), err)
			}
			missing = append(missing, sc.Name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("NATS at %s has no stream %s: it is not Recall's server, or no Recall process has run on it yet (recall run and the workers declare the streams; this command declares nothing)",
			js.Conn().ConnectedUrlRedacted(), strings.Join(missing, ", "))
	}
	return nil
}

// ConsumerConfig is one worker's durable consumer, from env.
type ConsumerConfig struct {
	// AckWait is how long the server waits for an ack before redelivering. Slow
	// handlers keep their messages with InProgress heartbeats.
	AckWait time.Duration `env:"CONSUMER_ACK_WAIT" envDefault:"30s"`
	// MaxDeliver is the number of attempts before a message is dead-lettered.
	MaxDeliver int `env:"CONSUMER_MAX_DELIVER" envDefault:"5"`
	// MaxAckPending bounds unacknowledged messages across all replicas.
	MaxAckPending int `env:"CONSUMER_MAX_ACK_PENDING" envDefault:"20000"`
}

// DefaultConsumerConfig is ConsumerConfig with its env defaults.
var DefaultConsumerConfig = envconfig.Defaults[ConsumerConfig]()

// DurableConsumer declares a worker's durable pull consumer on a stream. Several
// replicas of the worker share it; the server spreads messages between them.
func DurableConsumer(name, filter string, c ConsumerConfig) jetstream.ConsumerConfig {
	return jetstream.ConsumerConfig{
		Durable:       name,
		Description:   "Recall worker " + name,
		FilterSubject: filter,
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       c.AckWait,
		MaxDeliver:    c.MaxDeliver,
		MaxAckPending: c.MaxAckPending,
		DeliverPolicy: jetstream.DeliverAllPolicy,
		ReplayPolicy:  jetstream.ReplayInstantPolicy,
	}
}

// Binding is where a worker reads: its durable consumer's name, the stream and
// the subject filters. The live runner and a replay of the worker share it.
type Binding struct {
	Durable string
	Stream  string
	Filters []string
}

// Consumer is the binding's durable consumer.
func (b Binding) Consumer(c ConsumerConfig) jetstream.ConsumerConfig {
	cc := DurableConsumer(b.Durable, "", c)
	if len(b.Filters) == 1 {
		cc.FilterSubject = b.Filters[0]
	} else {
		cc.FilterSubjects = b.Filters
	}
	return cc
}

// NewRunner creates (or updates) the binding's durable consumer and returns the
// worker's live runner.
func (b Binding) NewRunner(ctx context.Context, js jetstream.JetStream, c ConsumerConfig, h BatchHandler, rc RunnerConfig, log *slog.Logger, m *RunnerMetrics) (*Runner, error) {
	return NewRunner(ctx, js, b.Stream, b.Consumer(c), h, rc, log, m)
}
