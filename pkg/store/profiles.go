package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"
)

// Profile is a user's interest vector with what it was made from.
type Profile struct {
	UserID string
	// Vector is the unit interest vector, nil when nothing gave it a direction
	// yet (no embedded shelf items, no facts, or only dislikes).
	Vector []float32
	// Model and Dims are the embedder's: only catalog items embedded by the
	// same model are compared with the vector.
	Model string
	Dims  int
	// Sources counts what went into the vector, per source (shelf, facts...).
	Sources map[string]int
	// ComputedFrom is the event time the profile reflects: fact weights are
	// decayed up to it.
	ComputedFrom time.Time
	// SnapshotAt is when the inputs were read: every change committed before it
	// is in the vector.
	SnapshotAt time.Time
	// Revision counts the writes of the row.
	Revision  int64
	UpdatedAt time.Time
}

// Profile returns a user's stored profile, or ErrNotFound.
func (t *Tenant) Profile(ctx context.Context, userID string) (Profile, error) {
	p := Profile{UserID: userID}
	var vec *pgvector.Vector
	var sources []byte
	err := t.s.pool.QueryRow(ctx, q(qProfileGet), t.id, userID).Scan(&vec, &p.Model, &p.Dims, &sources,
		&p.ComputedFrom, &p.SnapshotAt, &p.Revision, &p.UpdatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return p, ErrNotFound
	}
	if err != nil {
		return p, fmt.Errorf("get profile: %w", err)
	}
	if vec != nil {
		p.Vector = vec.Slice()
	}
	if err := json.Unmarshal(sources, &p.Sources); err != nil {
		return p, fmt.Errorf("get profile: sources: %w", err)
	}
	p.ComputedFrom, p.SnapshotAt, p.UpdatedAt = p.ComputedFrom.UTC(), p.SnapshotAt.UTC(), p.UpdatedAt.UTC()
	return p, nil
}

// SaveProfile stores a computed profile for the tenant's user and reports
// whether it was written. It is not written when the stored profile is at least
// as new in both SnapshotAt and ComputedFrom: then the stored one already covers
// everything this one does, and two profilers racing on one user cannot put an
// older result over a newer one.
func (t *Tenant) SaveProfile(ctx context.Context, p Profile) (bool, error) {
	if p.Vector != nil && len(p.Vector) != p.Dims {
		return false, fmt.Errorf("save profile: vector has %d components, dims is %d", len(p.Vector), p.Dims)
	}
	sources, err := json.Marshal(p.Sources)
	if err != nil {
		return false, fmt.Errorf("save profile: sources: %w", err)
	}
	if p.Sources == nil {
		sources = []byte("{}")
	}
	vec := vectorArg(p.Vector)
	var rev int64
	err = t.s.pool.QueryRow(ctx, q(qProfileUpsert), t.id, p.UserID, vec, p.Model, p.Dims, sources,
		p.ComputedFrom, p.SnapshotAt).Scan(&rev)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("save profile: %w", err)
	}
	return true, nil
}
