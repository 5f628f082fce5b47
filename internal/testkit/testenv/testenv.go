// Package testenv gives tests the real components: a fresh PostgreSQL database
// (with pgvector, migrated) per test, and an in-process JetStream server per test.
package testenv

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/recallhq/recall/pkg/queue"

	"github.com/jackc/pgx/v5"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/deps"
	"github.com/recallhq/recall/pkg/natsserver"
	"github.com/recallhq/recall/pkg/store"
)

// AdminURL is the server tests create their databases on; TEST_DATABASE_URL
// overrides it.
func AdminURL() string {
	if u := os.Getenv("TEST_DATABASE_URL"); u != "" {
		return u
	}
	return "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
}

var (
	templateOnce sync.Once
	templateName string
	templateErr  error
)

// template migrates a template database once per schema version; every test
// database is a copy of it, which is much faster than migrating each.
func template(ctx context.Context) (string, error) {
	templateOnce.Do(func() {
		h := sha256.New()
		all, err := store.Migrations()
		if err != nil {
			templateErr = err
			return
		}
		for _, m := range all {
			h.Write([]byte(m.Up))
		}
		templateName = "recall_tmpl_" + hex.EncodeToString(h.Sum(nil))[:16]
		templateErr = withAdmin(ctx, func(conn *pgx.Conn) error {
			// Test binaries of several packages run at once: take turns.
			if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock(727272)`); err != nil {
				return err
			}
			defer conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(727272)`)
			var exists bool
			if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, templateName).Scan(&exists); err != nil {
				return err
			}
			if exists {
				dropOldTemplates(ctx, conn)
				return nil
			}
			tmp := templateName + "_building"
			_, _ = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+tmp+" WITH (FORCE)")
			if _, err := conn.Exec(ctx, "CREATE DATABASE "+tmp); err != nil {
				return err
			}
			if err := migrateURL(ctx, dbURL(tmp)); err != nil {
				return fmt.Errorf("migrate template: %w (is pgvector installed? run scripts/ensure-pgvector.sh)", err)
			}
			if _, err := conn.Exec(ctx, "ALTER DATABASE "+tmp+" RENAME TO "+templateName); err != nil {
				return err
			}
			if _, err := conn.Exec(ctx, fmt.Sprintf("COMMENT ON DATABASE %s IS 'built %d'", templateName, time.Now().Unix())); err != nil {
				return err
			}
			dropOldTemplates(ctx, conn)
			return nil
		})
	})
	return templateName, templateErr
}

// templateKeep is how long the template of another schema is kept: checkouts
// of different branches may be testing at the same time.
const templateKeep = 6 * time.Hour

// dropOldTemplates removes the templates of other schemas built more than
// templateKeep ago; one still being copied from refuses to drop, which is fine.
func dropOldTemplates(ctx context.Context, conn *pgx.Conn) {
	rows, err := conn.Query(ctx, `
		SELECT datname FROM pg_database d
		WHERE datname LIKE 'recall\_tmpl\_%' AND datname <> $1
		  AND coalesce(substring(shobj_description(d.oid, 'pg_database') FROM '^built ([0-9]+)$')::bigint, 0) < $2`,
		templateName, time.Now().Add(-templateKeep).Unix())
	if err != nil {
		return
	}
	old, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return
	}
	for _, name := range old {
		_, _ = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize())
	}
}

func withAdmin(ctx context.Context, f func(*pgx.Conn) error) error {
	conn, err := pgx.Connect(ctx, AdminURL())
	if err != nil {
		return fmt.Errorf("connect to test PostgreSQL at %s: %w", AdminURL(), err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	return f(conn)
}

func dbURL(name string) string {
	cfg, err := pgx.ParseConfig(AdminURL())
	if err != nil {
		panic(err)
	}
	return fmt.Sprintf("postgres://%s@%s:%d/%s?sslmode=disable", cfg.User, cfg.Host, cfg.Port, name)
}

func migrateURL(ctx context.Context, url string) error {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	_, err = store.Migrate(ctx, conn, 0, slog.New(slog.DiscardHandler))
	return err
}

// DB is a fresh, migrated database for one test.
type DB struct {
	URL   string
	Name  string
	Store *store.Store
}

// NewDB creates a database for the test from the migrated template and drops it
// when the test ends.
func NewDB(t testing.TB) *DB {
	t.Helper()
	ctx := context.Background()
	tmpl, err := template(ctx)
	require.NoError(t, err)
	name := fmt.Sprintf("recall_t_%d_%x", os.Getpid(), rand.Uint64())
	require.NoError(t, withAdmin(ctx, func(conn *pgx.Conn) error {
		_, err := conn.Exec(ctx, "CREATE DATABASE "+name+" TEMPLATE "+tmpl)
		return err
	}))
	url := dbURL(name)
	st, err := store.Open(ctx, store.Config{URL: url, MaxConns: 8})
	require.NoError(t, err)
	t.Cleanup(func() {
		st.Close()
		_ = withAdmin(context.Background(), func(conn *pgx.Conn) error {
			_, err := conn.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
			return err
		})
	})
	return &DB{URL: url, Name: name, Store: st}
}

// KeptDB opens the database name, creating it from the migrated template
// when there is none (created is then true), and leaves it in place when
// the test ends, for a benchmark whose data takes long to load to reuse on
// its next run. A database kept by an older checkout is migrated first.
func KeptDB(t testing.TB, name string) (db *DB, created bool) {
	t.Helper()
	ctx := context.Background()
	tmpl, err := template(ctx)
	require.NoError(t, err)
	require.NoError(t, withAdmin(ctx, func(conn *pgx.Conn) error {
		if err := conn.QueryRow(ctx, `SELECT NOT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, name).Scan(&created); err != nil || !created {
			return err
		}
		_, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()+" TEMPLATE "+tmpl)
		return err
	}))
	url := dbURL(name)
	require.NoError(t, migrateURL(ctx, url))
	st, err := store.Open(ctx, store.Config{URL: url, MaxConns: 8})
	require.NoError(t, err)
	t.Cleanup(st.Close)
	return &DB{URL: url, Name: name, Store: st}, created
}

// NATS is an in-process JetStream server for one test, with Recall's streams.
type NATS struct {
	URL  string
	Conn *nats.Conn
	JS   jetstream.JetStream
	// Server is the server itself, for tests that take it away.
	Server *server.Server
	// StoreDir is where the server keeps its streams' files.
	StoreDir string
}

// NewNATS starts a server with its store in the test's temp dir, connects, and
// declares the streams.
func NewNATS(t testing.TB) *NATS {
	t.Helper()
	n := NewBareNATS(t)
	require.NoError(t, queue.EnsureStreams(context.Background(), n.JS, queue.DefaultStreamConfig))
	return n
}

// NewBareNATS is an in-process JetStream server without Recall's streams:
// somebody else's server, or one nothing has run on yet.
func NewBareNATS(t testing.TB) *NATS {
	t.Helper()
	dir := t.TempDir()
	srv, err := natsserver.Start(natsserver.Options{Port: -1, StoreDir: dir})
	require.NoError(t, err)
	t.Cleanup(func() { srv.Shutdown(); srv.WaitForShutdown() })
	nc, err := nats.Connect(srv.ClientURL())
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	return &NATS{URL: srv.ClientURL(), Conn: nc, JS: js, Server: srv, StoreDir: dir}
}

// NewLocalNATS is a server as `recall run` starts it on the data directory
// data (deps.StartEmbeddedNATS: only the user whose seed is kept there gets
// in), with Recall's streams declared as that user. Login is how to log in.
func NewLocalNATS(t testing.TB, data deps.Data) (n *NATS, login queue.NATSConfig) {
	t.Helper()
	srv, login, err := deps.StartEmbeddedNATS(deps.EmbeddedNATS{EmbeddedNATSHost: "127.0.0.1", EmbeddedNATSPort: -1}, data)
	require.NoError(t, err)
	t.Cleanup(func() { srv.Shutdown(); srv.WaitForShutdown() })
	opts, err := login.Options()
	require.NoError(t, err)
	nc, err := nats.Connect(login.URL, opts...)
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	require.NoError(t, queue.EnsureStreams(context.Background(), js, queue.DefaultStreamConfig))
	return &NATS{URL: login.URL, Conn: nc, JS: js, Server: srv, StoreDir: data.NATSStoreDir()}, login
}

// Logger is a logger for tests: discarded unless RECALL_TEST_LOG is set.
func Logger(t testing.TB) *slog.Logger {
	if os.Getenv("RECALL_TEST_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, nil)).With("test", t.Name())
	}
	return slog.New(slog.DiscardHandler)
}

// DeadLetters returns every message in the dead-letter stream, oldest first.
func (n *NATS) DeadLetters(t testing.TB) []*jetstream.RawStreamMsg {
	t.Helper()
	ctx := context.Background()
	s, err := n.JS.Stream(ctx, queue.DLQStream)
	require.NoError(t, err)
	info, err := s.Info(ctx)
	require.NoError(t, err)
	var out []*jetstream.RawStreamMsg
	for seq := info.State.FirstSeq; info.State.Msgs > 0 && seq <= info.State.LastSeq; seq++ {
		m, err := s.GetMsg(ctx, seq)
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			continue // re-driven or deleted
		}
		require.NoError(t, err)
		out = append(out, m)
	}
	return out
}
