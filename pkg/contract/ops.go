package contract

import "time"

// Consumers are the workers' consumers and their backlog.
type Consumers struct {
	Consumers []Consumer `json:"consumers"`
}

// Consumer is one durable consumer's backlog.
type Consumer struct {
	Stream string `json:"stream"`
	Name   string `json:"name"`
	// Pending is what the consumer has not been handed yet; AckPending what
	// it holds unacknowledged.
	Pending    uint64 `json:"pending"`
	AckPending uint64 `json:"ack_pending"`
}

// DeadLetters is one page of the tenant's dead letters, oldest first.
type DeadLetters struct {
	DeadLetters []DeadLetter `json:"dead_letters"`
	// NextAfter asks for the next page (after=); absent on the last.
	NextAfter uint64 `json:"next_after,omitempty"`
}

// DeadLetter is a message a worker gave up on, with the reason.
type DeadLetter struct {
	// Seq is the entry's sequence in the dead-letter stream: the handle for
	// re-driving it.
	Seq        uint64    `json:"seq"`
	Consumer   string    `json:"consumer"`
	Stream     string    `json:"stream"`
	StreamSeq  uint64    `json:"stream_seq"`
	Subject    string    `json:"subject"`
	EventID    string    `json:"event_id,omitempty"`
	Deliveries uint64    `json:"deliveries"`
	FailedAt   time.Time `json:"failed_at"`
	Reason     string    `json:"reason"`
	// Data is the original message: its text when it is UTF-8, base64
	// otherwise.
	Data   string              `json:"data"`
	Header map[string][]string `json:"header,omitempty"`
}

// Redrive is a dead letter put back on its stream for its consumer.
type Redrive struct {
	Seq      uint64 `json:"seq"`
	Subject  string `json:"subject"`
	EventID  string `json:"event_id"`
	Consumer string `json:"consumer"`
	// AlsoRemoved are the other dead letters of the same message (other
	// consumers') the redrive made moot.
	AlsoRemoved []uint64 `json:"also_removed"`
}

// Decayer is the decayer's last run and its last successful one.
type Decayer struct {
	LastRun     *DecayerRun `json:"last_run"`
	LastSuccess *DecayerRun `json:"last_success"`
}

// DecayerRun is one pass of the decayer.
type DecayerRun struct {
	// Result is ok or failed.
	Result     string        `json:"result"`
	At         time.Time     `json:"at"`
	StartedAt  time.Time     `json:"started_at"`
	FinishedAt time.Time     `json:"finished_at"`
	Steps      []DecayerStep `json:"steps"`
	Error      string        `json:"error,omitempty"`
}

// DecayerStep is one step of a decayer pass.
type DecayerStep struct {
	Name       string           `json:"name"`
	Batches    int              `json:"batches"`
	DurationMS int64            `json:"duration_ms"`
	Counts     map[string]int64 `json:"counts,omitempty"`
	Error      string           `json:"error,omitempty"`
}
