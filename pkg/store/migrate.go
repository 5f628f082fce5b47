package store

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"path"
	"regexp"
	"sort"
	"strconv"

	"github.com/jackc/pgx/v5"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// Migration is one numbered schema change with its way back.
type Migration struct {
	Version int
	Name    string
	Up      string
	Down    string
}

var migrationName = regexp.MustCompile(`^(\d{4})_([a-z0-9_]+)\.(up|down)\.sql$`)

// Migrations lists the embedded migrations in order. A missing down file, a gap,
// two migrations with one number or a malformed name is a build mistake,
// reported as an error.
func Migrations() ([]Migration, error) { return migrationsIn(migrationFS) }

func migrationsIn(fsys fs.FS) ([]Migration, error) {
	entries, err := fs.ReadDir(fsys, "migrations")
	if err != nil {
		return nil, err
	}
	byVersion := map[int]*Migration{}
	for _, e := range entries {
		m := migrationName.FindStringSubmatch(e.Name())
		if m == nil {
			return nil, fmt.Errorf("migration file %q: want NNNN_name.up.sql or .down.sql", e.Name())
		}
		v, _ := strconv.Atoi(m[1])
		body, err := fs.ReadFile(fsys, path.Join("migrations", e.Name()))
		if err != nil {
			return nil, err
		}
		mg := byVersion[v]
		if mg == nil {
			mg = &Migration{Version: v, Name: m[2]}
			byVersion[v] = mg
		}
		if mg.Name != m[2] {
			// Two branches that each added "the next" migration: one would
			// silently replace the other.
			return nil, fmt.Errorf("migrations %04d_%s and %04d_%s share a number: renumber one", v, mg.Name, v, m[2])
		}
		if m[3] == "up" {
			mg.Up = string(body)
		} else {
			mg.Down = string(body)
		}
	}
	out := make([]Migration, 0, len(byVersion))
	for _, m := range byVersion {
		if m.Up == "" || m.Down == "" {
			return nil, fmt.Errorf("migration %04d_%s: needs both up and down files", m.Version, m.Name)
		}
		out = append(out, *m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	for i, m := range out {
		if m.Version != i+1 {
			return nil, fmt.Errorf("migration %04d_%s: versions must be 1..n without gaps", m.Version, m.Name)
		}
	}
	return out, nil
}

// migrationLock is the advisory lock key that serializes migrators: two replicas
// (or a Job and a developer) running migrate at once take turns.
const migrationLock = 0x7265_6361_6c6c // "recall"

// Migrate applies every pending migration up to target (0: all), each in its own
// transaction, under an advisory lock. It returns the versions applied.
func Migrate(ctx context.Context, conn *pgx.Conn, target int, log *slog.Logger) ([]int, error) {
	all, err := Migrations()
	if err != nil {
		return nil, err
	}
	if target == 0 {
		target = len(all)
	}
	if target > len(all) {
		return nil, fmt.Errorf("migrate: target version %d, latest is %d", target, len(all))
	}
	unlock, err := lockMigrations(ctx, conn)
	if err != nil {
		return nil, err
	}
	defer unlock()

	current, err := CurrentVersion(ctx, conn)
	if err != nil {
		return nil, err
	}
	var applied []int
	for _, m := range all {
		if m.Version <= current || m.Version > target {
			continue
		}
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, m.Up); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `INSERT INTO recall_migrations (version, name) VALUES ($1, $2)`, m.Version, m.Name)
			return err
		})
		if err != nil {
			return applied, fmt.Errorf("migration %04d_%s up: %w", m.Version, m.Name, err)
		}
		log.Info("migration applied", "version", m.Version, "name", m.Name)
		applied = append(applied, m.Version)
	}
	return applied, nil
}

// MigrateDown rolls back every migration above target, newest first.
func MigrateDown(ctx context.Context, conn *pgx.Conn, target int, log *slog.Logger) ([]int, error) {
	all, err := Migrations()
	if err != nil {
		return nil, err
	}
	unlock, err := lockMigrations(ctx, conn)
	if err != nil {
		return nil, err
	}
	defer unlock()
	current, err := CurrentVersion(ctx, conn)
	if err != nil {
		return nil, err
	}
	var undone []int
	for i := len(all) - 1; i >= 0; i-- {
		m := all[i]
		if m.Version > current || m.Version <= target {
			continue
		}
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, m.Down); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `DELETE FROM recall_migrations WHERE version = $1`, m.Version)
			return err
		})
		if err != nil {
			return undone, fmt.Errorf("migration %04d_%s down: %w", m.Version, m.Name, err)
		}
		log.Info("migration rolled back", "version", m.Version, "name", m.Name)
		undone = append(undone, m.Version)
	}
	return undone, nil
}

func lockMigrations(ctx context.Context, conn *pgx.Conn) (func(), error) {
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, int64(migrationLock)); err != nil {
		return nil, fmt.Errorf("migrate: lock: %w", err)
	}
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS recall_migrations (
		version    integer     PRIMARY KEY,
		name       text        NOT NULL,
		applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		_, _ = conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, int64(migrationLock))
		return nil, fmt.Errorf("migrate: version table: %w", err)
	}
	return func() {
		_, _ = conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, int64(migrationLock))
	}, nil
}

// CurrentVersion is the newest applied migration (0 for an empty database).
func CurrentVersion(ctx context.Context, conn *pgx.Conn) (int, error) {
	var v int
	err := conn.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM recall_migrations`).Scan(&v)
	if err != nil {
		return 0, fmt.Errorf("migrate: read version: %w", err)
	}
	return v, nil
}

// LatestVersion is the newest migration this build knows.
func LatestVersion() int {
	all, err := Migrations()
	if err != nil || len(all) == 0 {
		return 0
	}
	return all[len(all)-1].Version
}

// ErrSchemaBehind is returned by Open when the database has not been migrated to
// this build's schema: migrations are a separate step (see `recall migrate`).
var ErrSchemaBehind = errors.New("database schema is behind this build; run `recall migrate` first")

// EnsureDatabase creates the database named in url when it does not exist, by
// connecting to the server's "postgres" database. For local set-up and tests;
// production databases are provisioned outside Recall.
func EnsureDatabase(ctx context.Context, url string) (created bool, err error) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return false, fmt.Errorf("database url: %w", err)
	}
	name := cfg.Database
	if name == "" || name == "postgres" {
		return false, nil
	}
	cfg.Database = "postgres"
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return false, fmt.Errorf("connect to create database %q: %w", name, err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var exists bool
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, name).Scan(&exists); err != nil {
		return false, fmt.Errorf("look up database %q: %w", name, err)
	}
	if exists {
		return false, nil
	}
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		return false, fmt.Errorf("create database %q: %w", name, err)
	}
	return true, nil
}
