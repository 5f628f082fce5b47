package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// pgCluster is a PostgreSQL cluster of the run's own: initdb into the run's
// directory, a free port on 127.0.0.1, its unix socket in that directory.
// The machine's own server is never touched: the same binaries serve a
// different data directory. Run as root, the cluster belongs to the
// postgres OS user, because initdb refuses to run as root.
type pgCluster struct {
	bin     string // .../bin with initdb, pg_ctl, postgres
	dir     string // owned by the cluster's user: data/, the socket, the log
	port    int
	runAs   string // OS user to run as; "" runs as this process's user
	logPath string
	version string
}

// findPGBin returns the PostgreSQL bin directory: the one given, else
// PostgreSQL 15's (the machine's server, which has pgvector), else the
// newest installed.
func findPGBin(given string) (string, error) {
	if given != "" {
		if _, err := os.Stat(filepath.Join(given, "initdb")); err != nil {
			return "", fmt.Errorf("-pg-bin %s: no initdb there", given)
		}
		return given, nil
	}
	if _, err := os.Stat("/usr/lib/postgresql/15/bin/initdb"); err == nil {
		return "/usr/lib/postgresql/15/bin", nil
	}
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(found) == 0 {
		return "", errors.New("no PostgreSQL server binaries under /usr/lib/postgresql/*/bin: install postgresql-15 (and pgvector: make deps), or pass -pg-bin DIR")
	}
	sort.Slice(found, func(i, j int) bool { return pgMajor(found[i]) > pgMajor(found[j]) })
	return filepath.Dir(found[0]), nil
}

func pgMajor(initdb string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(initdb))))
	return n
}

func newPGCluster(ctx context.Context, bin, dir string, port int) (*pgCluster, error) {
	c := &pgCluster{bin: bin, dir: dir, port: port, logPath: filepath.Join(dir, "postgres.log")}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, fmt.Errorf("running as root, and initdb refuses root: need the postgres OS user to own the cluster: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			return nil, fmt.Errorf("chown %s: %w", dir, err)
		}
		c.runAs = "postgres"
	}
	out, err := exec.CommandContext(ctx, filepath.Join(bin, "postgres"), "--version").CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("postgres --version: %w: %s", err, out)
	}
	c.version = strings.TrimSpace(string(out))
	return c, nil
}

// URL is the connection URL of database db.
func (c *pgCluster) URL(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", c.port, db)
}

func (c *pgCluster) dataDir() string { return filepath.Join(c.dir, "data") }

// serverOpts are the server's settings. fsync is off: the run crashes
// processes, never the machine, and a killed PostgreSQL's writes are already
// in the kernel's page cache; synchronous_commit stays on, so a commit a
// worker acknowledged is in the WAL before the immediate restart.
func (c *pgCluster) serverOpts() string {
	return fmt.Sprintf("-p %d -c listen_addresses=127.0.0.1 -c unix_socket_directories=%s -c fsync=off -c max_connections=200",
		c.port, c.dir)
}

// command runs a PostgreSQL tool as the cluster's user. Its output goes to
// the cluster's log file, never to a pipe: pg_ctl's server inherits it, and
// a pipe held open by the server would keep the caller waiting forever.
func (c *pgCluster) command(ctx context.Context, tool string, args ...string) error {
	lf, err := os.OpenFile(c.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o666)
	if err != nil {
		return err
	}
	defer lf.Close()
	path := filepath.Join(c.bin, tool)
	var cmd *exec.Cmd
	if c.runAs != "" {
		cmd = exec.CommandContext(ctx, runuser(), append([]string{"-u", c.runAs, "--", path}, args...)...)
	} else {
		cmd = exec.CommandContext(ctx, path, args...)
	}
	cmd.Stdout, cmd.Stderr = lf, lf
	cmd.Dir = c.dir
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %w (log: %s)", tool, strings.Join(args, " "), err, c.logPath)
	}
	return nil
}

// runuser is util-linux's runuser, which is in sbin, often not on a
// user's PATH.
func runuser() string {
	if p, err := exec.LookPath("runuser"); err == nil {
		return p
	}
	for _, p := range []string{"/usr/sbin/runuser", "/sbin/runuser"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return "runuser"
}

// Init creates the cluster, starts it and creates database db.
func (c *pgCluster) Init(ctx context.Context, db string) error {
	if os.Geteuid() == 0 {
		// The log file is created by root but written by the server.
		if f, err := os.OpenFile(c.logPath, os.O_CREATE|os.O_WRONLY, 0o666); err == nil {
			f.Close()
			_ = os.Chmod(c.logPath, 0o666)
		}
	}
	if err := c.command(ctx, "initdb", "-D", c.dataDir(), "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"); err != nil {
		return err
	}
	if err := c.Start(ctx); err != nil {
		return err
	}
	conn, err := pgx.Connect(ctx, c.URL("postgres"))
	if err != nil {
		return fmt.Errorf("connect to the run's PostgreSQL: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{db}.Sanitize()); err != nil {
		return fmt.Errorf("create database: %w", err)
	}
	return nil
}

// Start starts the server and waits until it accepts connections.
func (c *pgCluster) Start(ctx context.Context) error {
	return c.command(ctx, "pg_ctl", "-D", c.dataDir(), "-l", c.logPath, "-o", c.serverOpts(), "-w", "-t", "60", "start")
}

// RestartImmediate stops the server without a checkpoint (every backend
// killed, crash recovery at start, as after a crash) and starts it again.
func (c *pgCluster) RestartImmediate(ctx context.Context) error {
	return c.command(ctx, "pg_ctl", "-D", c.dataDir(), "-l", c.logPath, "-o", c.serverOpts(), "-m", "immediate", "-w", "-t", "60", "restart")
}

// Pid is the postmaster's pid, from its pid file (0 when not running).
func (c *pgCluster) Pid() int {
	b, err := os.ReadFile(filepath.Join(c.dataDir(), "postmaster.pid"))
	if err != nil {
		return 0
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pid, _ := strconv.Atoi(strings.TrimSpace(first))
	return pid
}

// Stop stops the server (fast shutdown). When pg_ctl fails, the postmaster
// is sent SIGQUIT by its pid (an immediate shutdown). Safe to call when it
// is not running.
func (c *pgCluster) Stop() {
	pid := c.Pid()
	if pid == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.command(ctx, "pg_ctl", "-D", c.dataDir(), "-m", "fast", "-w", "-t", "20", "stop"); err != nil {
		_ = syscall.Kill(pid, syscall.SIGQUIT)
		for i := 0; i < 50 && syscall.Kill(pid, 0) == nil; i++ {
			time.Sleep(100 * time.Millisecond)
		}
	}
}
