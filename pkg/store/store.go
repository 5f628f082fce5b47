// Package store is Recall's PostgreSQL layer: the pool (with pgvector types), the
// embedded migrations, and every query. Reads and deletes go through a Tenant, so
// a query without a tenant cannot be written by accident.
package store

import (
	"context"
	"errors"
	"fmt"
	"runtime"

	"github.com/exaring/otelpgx"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	pgxvec "github.com/pgvector/pgvector-go/pgx"

	"github.com/recallhq/recall/pkg/telemetry"
)

// Config is the database part of every binary's config.
type Config struct {
	// URL is the PostgreSQL database; its schema must be migrated first
	// (`recall migrate`).
	URL string `env:"DATABASE_URL" envDefault:"postgres://postgres@127.0.0.1:5432/recall?sslmode=disable"`
	// MaxConns bounds the pool; 0 means max(4, CPUs), and in a process that
	// runs workers (recall run included), that plus one for each handler the
	// workers run at once (worker.SizePool). A small pool queues requests fairly in
	// the process instead of making PostgreSQL's backends fight for the same
	// cores, which is what keeps tail latency down.
	MaxConns int32 `env:"DATABASE_MAX_CONNS" envDefault:"0"`
}

// DefaultMaxConns is the pool's size when DATABASE_MAX_CONNS is 0 (and the
// URL sets no pool_max_conns): max(4, CPUs), pgxpool's own default.
func DefaultMaxConns() int32 {
	return int32(max(4, runtime.NumCPU()))
}

// ErrNotFound is returned when a row the caller asked for does not exist for the
// tenant (whether or not it exists for another tenant).
var ErrNotFound = errors.New("not found")

// Store is the shared pool. It is safe for concurrent use.
type Store struct {
	pool *pgxpool.Pool
	// reads sends the API's reads to the read replicas (OpenReplicas); nil
	// without them, and in a replica's own Store.
	reads *readRouter
	// small remembers the users a search found below the switch to
	// indexes (smallUsers).
	small smallUsers
}

// Open connects, registers pgvector's types on every connection, and checks that
// the schema is at this build's version (migrations are a separate step).
func Open(ctx context.Context, c Config) (*Store, error) {
	pool, err := newPool(ctx, c.URL, c.MaxConns)
	if err != nil {
		return nil, err
	}
	s := &Store{pool: pool}
	if err := s.checkSchema(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return s, nil
}

// newPool is a pool on url (the primary's or a replica's; it connects when
// first used) with pgvector's types on every connection and, when tracing
// is on, a span per statement.
func newPool(ctx context.Context, url string, maxConns int32) (*pgxpool.Pool, error) {
	pc, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("database url: %w", err)
	}
	if maxConns > 0 {
		pc.MaxConns = maxConns
	}
	// Every statement here is short and reads through indexes; a plan the
	// planner costs high (as it costs every plan on tables never analyzed,
	// though its costly part may never run) must not cost more than the
	// statement: JIT spent far longer compiling than the context's search it
	// compiled for then took, and parallel workers were started for a scan
	// that a one-time filter skipped (docs/benchmarks.md, History). A
	// setting in the URL (options=-c jit=on) still wins.
	for k, v := range map[string]string{"jit": "off", "max_parallel_workers_per_gather": "0"} {
		if _, set := pc.ConnConfig.RuntimeParams[k]; !set {
			pc.ConnConfig.RuntimeParams[k] = v
		}
	}
	pc.AfterConnect = func(ctx context.Context, conn *pgx.Conn) error {
		return pgxvec.RegisterTypes(ctx, conn)
	}
	if telemetry.Enabled() {
		// Every statement, batch and pool wait becomes a span under the
		// context it runs in, with its SQL text (db.query.text) and never
		// its arguments, which hold users' messages. A statement run
		// outside any span (background work) makes none. A span is named
		// after what pgx does and the query: its name in queries/*.sql
		// ("query MessageInsertBatch", "prepare MessageInsertBatch", "batch
		// query ..."), or its first keyword for SQL written in code
		// ("query BEGIN").
		pc.ConnConfig.Tracer = otelpgx.NewTracer(otelpgx.WithSpanNameCtxFunc(querySpanName), otelpgx.WithQuerySpanNamePrefix())
	}
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, fmt.Errorf("database pool: %w", err)
	}
	return pool, nil
}

func (s *Store) checkSchema(ctx context.Context) error {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("database connect: %w", err)
	}
	defer conn.Release()
	var v int
	err = conn.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM recall_migrations`).Scan(&v)
	if err != nil || v < LatestVersion() {
		return fmt.Errorf("%w (database at %d, build wants %d)", ErrSchemaBehind, v, LatestVersion())
	}
	return nil
}

// Close stops the replicas' checks and closes every pool.
func (s *Store) Close() {
	if s.reads != nil {
		s.reads.close()
	}
	s.pool.Close()
}

// Pool exposes the pool for tools and tests that need raw access.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Ping checks the database, for readiness probes.
func (s *Store) Ping(ctx context.Context) error { return s.pool.Ping(ctx) }

// Tenant returns the tenant-scoped view every read goes through.
func (s *Store) Tenant(tenantID string) *Tenant { return &Tenant{s: s, id: tenantID} }

// Tenant is a store view bound to one tenant; every query it runs filters on it.
type Tenant struct {
	s  *Store
	id string
}

// ID is the tenant this view is bound to.
func (t *Tenant) ID() string { return t.id }
