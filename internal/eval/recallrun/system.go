// Package recallrun starts a whole Recall for the evaluations and the data
// check (its own PostgreSQL database and `recall run` as a child process with
// embedded JetStream), posts turns to it over HTTP, waits for its pipeline to
// settle and asks it for contexts.
package recallrun

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/recallhq/recall/internal/testkit/pgcluster"
	"github.com/recallhq/recall/pkg/deps"
	"github.com/recallhq/recall/pkg/queue"
)

// DefaultAdminURL is the local PostgreSQL the evaluation database is created on.
const DefaultAdminURL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

// System is a Recall started by an evaluation or check: its own database and a
// `recall run` child process with embedded JetStream.
type System struct {
	APIURL string
	// NATS is the embedded JetStream server and how to log in to it (the
	// NKey seed `recall run` keeps in its data directory).
	NATS   queue.NATSConfig
	DBName string
	DBURL  string

	adminURL string
	child    *exec.Cmd
	done     chan struct{} // closed when the child has exited
	waitErr  error
	stderr   *tail
	log      *slog.Logger
}

// Options say how to start the system.
type Options struct {
	AdminURL    string        // PostgreSQL server to create the database on
	RecallBin   string        // prebuilt binary; empty builds ./cmd/recall
	Root        string        // repository root, for the build
	Keep        bool          // keep the database afterwards
	Env         []string      // KEY=VALUE settings for recall run, over the evaluation's own
	StopTimeout time.Duration // SIGTERM, then SIGKILL after this long
	ChildLog    io.Writer     // where the child's stderr goes besides the tail; nil for none
}

// RepoRoot is the nearest directory above the working directory holding
// go.mod: Options.Root, where ./cmd/recall is built, and what relative data
// directories are taken from, so that a tool and its test agree wherever they
// run.
func RepoRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", errors.New("go.mod not found above " + wd)
		}
		d = parent
	}
}

// Start creates and migrates a fresh database and starts `recall run`
// on free ports, waiting for /readyz. The returned stop function stops the
// child and drops the database (unless Keep); it is safe to call more than
// once and must be called whatever happens, so the caller defers it at once.
// On error Start has already cleaned up what it started.
func Start(ctx context.Context, o Options, log *slog.Logger) (*System, func(), error) {
	s := &System{adminURL: o.AdminURL, log: log}
	var cleanups []func()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			for i := len(cleanups) - 1; i >= 0; i-- {
				cleanups[i]()
			}
		})
	}
	fail := func(err error) (*System, func(), error) {
		stop()
		return nil, func() {}, err
	}

	tmp, err := os.MkdirTemp("", "recall-run-")
	if err != nil {
		return fail(fmt.Errorf("temp dir: %w", err))
	}
	cleanups = append(cleanups, func() { _ = os.RemoveAll(tmp) })

	bin := o.RecallBin
	if bin == "" {
		bin = filepath.Join(tmp, "recall")
		log.Info("building recall", "out", bin)
		build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/recall")
		build.Dir = o.Root
		if out, err := build.CombinedOutput(); err != nil {
			return fail(fmt.Errorf("go build ./cmd/recall: %w\n%s", err, out))
		}
	}

	drop, err := s.createDatabase(ctx, o)
	if err != nil {
		return fail(err)
	}
	cleanups = append(cleanups, drop)
	env, err := s.environment(o, tmp)
	if err != nil {
		return fail(err)
	}

	migrate := exec.CommandContext(ctx, bin, "migrate")
	migrate.Env = env
	if out, err := migrate.CombinedOutput(); err != nil {
		return fail(fmt.Errorf("recall migrate: %w (is pgvector installed? run scripts/ensure-pgvector.sh)\n%s", err, out))
	}

	s.stderr = &tail{max: 64 << 10}
	s.child = exec.Command(bin, "run")
	s.child.Env = env
	s.child.Stdout = io.Discard
	s.child.Stderr = s.stderr
	if o.ChildLog != nil {
		s.child.Stderr = io.MultiWriter(s.stderr, o.ChildLog)
	}
	// Its own process group, so a Ctrl-C in the terminal reaches only the
	// evaluation, which then stops the child in order (drain, then exit).
	s.child.SysProcAttr = childProcAttr()
	if err := s.child.Start(); err != nil {
		return fail(fmt.Errorf("start recall run: %w", err))
	}
	s.done = make(chan struct{})
	go func() { s.waitErr = s.child.Wait(); close(s.done) }()
	cleanups = append(cleanups, func() { s.stopChild(o.StopTimeout) })
	log.Info("recall run started", "pid", s.child.Process.Pid, "api", s.APIURL, "nats", s.NATS.URL)

	if err := s.waitReady(ctx, 2*time.Minute); err != nil {
		return fail(err)
	}
	return s, stop, nil
}

// createDatabase creates the run's database (recall_eval_<random>); drop
// drops it again, or only logs its URL when o.Keep.
func (s *System) createDatabase(ctx context.Context, o Options) (drop func(), err error) {
	s.DBName = "recall_eval_" + randomHex(6)
	s.DBURL, err = databaseURL(o.AdminURL, s.DBName)
	if err != nil {
		return nil, err
	}
	if err := adminExec(ctx, o.AdminURL, "CREATE DATABASE "+pgx.Identifier{s.DBName}.Sanitize()); err != nil {
		return nil, fmt.Errorf("create database: %w", err)
	}
	s.log.Info("database created", "database", s.DBName)
	return func() {
		if o.Keep {
			s.log.Info("database kept", "url", s.DBURL)
			return
		}
		dctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := adminExec(dctx, o.AdminURL, "DROP DATABASE IF EXISTS "+pgx.Identifier{s.DBName}.Sanitize()+" WITH (FORCE)"); err != nil {
			s.log.Warn("drop database", "database", s.DBName, "error", err.Error())
		}
	}, nil
}

// environment is recall run's environment: the run's database, its API,
// operations and embedded NATS server on free ports, its data directory
// under tmp, and o.Env last (so it overrides).
func (s *System) environment(o Options, tmp string) ([]string, error) {
	ports, err := pgcluster.FreePorts(3)
	if err != nil {
		return nil, err
	}
	apiAddr := "127.0.0.1:" + strconv.Itoa(ports[0])
	opsAddr := "127.0.0.1:" + strconv.Itoa(ports[1])
	s.APIURL = "http://" + apiAddr
	data := deps.Data{Dir: filepath.Join(tmp, "data")}
	s.NATS = queue.NATSConfig{URL: "nats://127.0.0.1:" + strconv.Itoa(ports[2]), NKeyFile: data.NATSSeedFile()}
	env := childEnv(map[string]string{
		"DATABASE_URL":       s.DBURL,
		"EMBEDDED_NATS_HOST": "127.0.0.1",
		"EMBEDDED_NATS_PORT": strconv.Itoa(ports[2]),
		"API_ADDR":           apiAddr,
		"OPS_ADDR":           opsAddr,
		"GATEWAY_ADDR":       "127.0.0.1:0",
		"DATA_DIR":           data.Dir,
		"LOG_LEVEL":          "warn",
		// LoCoMo's sessions are years old, so every one of them is idle at
		// once and gets its final summary from the summarizer's idle sweep.
		// At the default tick (1m) those summaries would land at a random
		// point while questions are being asked; ticking every second lets
		// them land while the evaluation waits for the pipeline to catch up.
		"SUMMARY_SWEEP_INTERVAL": "1s",
	})
	return append(env, o.Env...), nil
}

// waitReady polls the API's /readyz until it answers 200.
func (s *System) waitReady(ctx context.Context, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	client := &http.Client{Timeout: 2 * time.Second}
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.APIURL+"/readyz", nil)
		if resp, err := client.Do(req); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-s.done:
			return fmt.Errorf("recall run exited before it was ready: %v\n%s", s.waitErr, s.stderr.String())
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("recall run not ready after %s\n%s", timeout, s.stderr.String())
		}
	}
}

// stopChild sends SIGTERM to the child by its pid and waits for it to drain
// and exit, killing it when it takes longer than timeout.
func (s *System) stopChild(timeout time.Duration) {
	select {
	case <-s.done:
		return
	default:
	}
	pid := s.child.Process.Pid
	if err := s.child.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		s.log.Warn("signal recall run", "pid", pid, "error", err.Error())
	}
	select {
	case <-s.done:
		s.log.Info("recall run stopped", "pid", pid)
	case <-time.After(timeout):
		s.log.Warn("recall run did not stop in time; killing it", "pid", pid, "timeout", timeout)
		_ = s.child.Process.Kill()
		<-s.done
	}
}

// childEnv is the child's whole environment: the few variables a process
// needs plus the given ones. Nothing else is inherited, so a developer's
// LLM_MODEL, EMBED_MODEL, NATS_URL or API_KEYS can never reach the run: the
// evaluation measures the offline system with its default configuration.
func childEnv(set map[string]string) []string {
	var env []string
	for _, k := range []string{"PATH", "HOME", "TMPDIR", "TZ", "GOCACHE", "GOPATH"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	for k, v := range set {
		env = append(env, k+"="+v)
	}
	return env
}

// databaseURL is adminURL with its database replaced by name.
func databaseURL(adminURL, name string) (string, error) {
	u, err := url.Parse(adminURL)
	if err != nil {
		return "", fmt.Errorf("admin URL: %w", err)
	}
	u.Path = "/" + name
	q := u.Query()
	if q.Get("sslmode") == "" {
		q.Set("sslmode", "disable")
	}
	u.RawQuery = q.Encode()
	return u.String(), nil
}

func adminExec(ctx context.Context, adminURL, sql string) error {
	conn, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		return fmt.Errorf("connect to %s: %w", adminURL, err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	_, err = conn.Exec(ctx, sql)
	return err
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// tail keeps the last max bytes written to it: the child's log, shown when
// it fails.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
