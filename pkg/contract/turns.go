package contract

// What a POST of turns may wait for (?wait=), and what a turn's status
// reports.
const (
	// WaitStored: the ingest worker has stored every accepted turn, so the
	// session's messages, window and context include them.
	WaitStored = "stored"
	// WaitSearchable: stored, and the indexer has indexed them, so a search
	// or a context's recalled part can find them.
	WaitSearchable = "searchable"
)

// TurnsWait is how a wait of a POST of turns ended: whether what it waited
// for (For: stored or searchable) held for every accepted turn before the
// bound passed (Reached), and how long it waited.
type TurnsWait struct {
	For      string `json:"for"`
	Reached  bool   `json:"reached"`
	WaitedMS int64  `json:"waited_ms"`
	// Pending are the ids of the accepted turns it did not hold for when
	// the bound passed.
	Pending []string `json:"pending,omitempty"`
	// DeadLettered are the ids of accepted turns a worker the wait
	// depends on gave up on (they are in the dead-letter stream, and hold
	// only after a re-drive); Reached is false when there are any.
	DeadLettered []string `json:"dead_lettered,omitempty"`
}

// TurnStatus is where one turn stands in the pipeline. Each worker's
// progress is read from its consumer's acknowledgement floor on the turn
// stream, compared with the turn's stream sequence; Summarized from the
// stored turn.
type TurnStatus struct {
	ID string `json:"id"`
	// Sequence is the turn's sequence in the turn stream.
	Sequence  uint64 `json:"sequence"`
	SessionID string `json:"session_id"`
	UserID    string `json:"user_id"`
	// Stored: the turn is a stored message (the session, window and
	// context have it). It can be true a moment before the ingest
	// worker's progress says done: the worker acknowledges after its
	// commit.
	Stored bool `json:"stored"`
	// Searchable: stored, and the indexer has finished with it without
	// giving up.
	Searchable bool `json:"searchable"`
	// Summarized: a version of the session's summary has read the turn.
	// A system turn never is; any other waits for the session's next
	// summary (at its thresholds, when it goes idle, or when asked for).
	Summarized bool `json:"summarized"`
	// Workers are the turn stream's workers (each durable consumer), by
	// name: ingest, indexer, extractor, seen.
	Workers map[string]WorkerProgress `json:"workers"`
}

// WorkerProgress is whether one worker has finished with a turn: Done once
// its consumer's acknowledgement floor has passed the turn's sequence,
// which includes a turn it gave up on (dead-lettered: DeadLetter is then
// the dead letter's sequence, for GET /v1/ops/dead-letters and a re-drive).
type WorkerProgress struct {
	Done       bool   `json:"done"`
	DeadLetter uint64 `json:"dead_letter,omitempty"`
}
