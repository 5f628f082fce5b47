package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Decayer run outcomes.
const (
	DecayerRunOK     = "ok"
	DecayerRunFailed = "failed"
)

// DecayerRun is what one decayer run did, as kept for operators: the API
// serves it (GET /v1/ops/decayer) from another process than the decayer's.
type DecayerRun struct {
	// Result is DecayerRunOK or DecayerRunFailed.
	Result string
	// At is the run's time: every rule was judged as of it.
	At         time.Time
	StartedAt  time.Time
	FinishedAt time.Time
	Steps      []DecayerStep
	Error      string
}

// DecayerStep is what one step of a run did. Its JSON names are how the
// steps column stores it (decayer_runs.steps), not the /v1 wire, which is
// contract.DecayerStep.
type DecayerStep struct {
	Name       string           `json:"name"`
	Batches    int              `json:"batches"`
	DurationMS int64            `json:"duration_ms"`
	Counts     map[string]int64 `json:"counts,omitempty"`
	Error      string           `json:"error,omitempty"`
}

// SaveDecayerRun keeps a run as the newest of its outcome.
func (s *Store) SaveDecayerRun(ctx context.Context, r DecayerRun) error {
	steps, err := json.Marshal(r.Steps)
	if err != nil {
		return fmt.Errorf("save decayer run: %w", err)
	}
	if _, err := s.pool.Exec(ctx, q(qDecayerRunSave), r.Result, r.At, r.StartedAt, r.FinishedAt, steps, r.Error); err != nil {
		return fmt.Errorf("save decayer run: %w", err)
	}
	return nil
}

// DecayerRuns returns the newest run of each outcome, newest first: the first
// is the last run, and the one with DecayerRunOK the last success. None
// before the decayer has run.
func (s *Store) DecayerRuns(ctx context.Context) ([]DecayerRun, error) {
	rows, err := s.pool.Query(ctx, q(qDecayerRunList))
	if err != nil {
		return nil, fmt.Errorf("list decayer runs: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (DecayerRun, error) {
		var r DecayerRun
		var steps []byte
		if err := row.Scan(&r.Result, &r.At, &r.StartedAt, &r.FinishedAt, &steps, &r.Error); err != nil {
			return r, err
		}
		r.At, r.StartedAt, r.FinishedAt = r.At.UTC(), r.StartedAt.UTC(), r.FinishedAt.UTC()
		if err := json.Unmarshal(steps, &r.Steps); err != nil {
			return r, err
		}
		// A run that failed before its first step kept none: a list all
		// the same.
		if r.Steps == nil {
			r.Steps = []DecayerStep{}
		}
		return r, nil
	})
	if err != nil {
		return nil, fmt.Errorf("list decayer runs: %w", err)
	}
	return out, nil
}
