package summarize

import (
	"time"

	"github.com/recallhq/recall/pkg/envconfig"
)

// Policy says when a session's summary is due after ingest: at least
// EveryMessages non-system messages since the last summary and at least
// MinInterval of event time between the newest message the last summary
// covers and the session's newest message. The first summary of a session has
// no previous one to measure from, so it is due on the count alone. The
// ingest worker applies it as it stores each batch.
type Policy struct {
	// EveryMessages is the count threshold; 0 means 10, a negative value
	// turns the threshold trigger off.
	EveryMessages int `env:"SUMMARY_EVERY_MESSAGES" envDefault:"10"`
	// MinInterval is the event time that must pass between two summaries of
	// a session; 0 means 5m (a negative value: no minimum).
	MinInterval time.Duration `env:"SUMMARY_MIN_INTERVAL" envDefault:"5m"`
}

// DefaultPolicy is Policy with its env defaults.
var DefaultPolicy = envconfig.Defaults[Policy]()

// WithDefaults maps the zero values of a policy built in code to the env
// defaults, like a policy read from an empty environment.
func (p Policy) WithDefaults() Policy {
	if p.EveryMessages == 0 {
		p.EveryMessages = DefaultPolicy.EveryMessages
	}
	if p.MinInterval == 0 {
		p.MinInterval = DefaultPolicy.MinInterval
	}
	return p
}

// Due applies the policy to a session's counters: pending non-system messages
// since the last summary, the newest message's event time and the event time
// the last summary reaches (zero: never summarized). The ingest statement
// applies the same rule in SQL (MessageInsertBatch in
// pkg/store/queries/messages.sql); this is its reference, for tests and for
// tools.
func (p Policy) Due(pending int64, lastMessageAt, summarizedAt time.Time) bool {
	if p.EveryMessages <= 0 || pending < int64(p.EveryMessages) {
		return false
	}
	return summarizedAt.IsZero() || !lastMessageAt.Before(summarizedAt.Add(max(p.MinInterval, 0)))
}
