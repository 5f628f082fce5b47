// Package pgcluster runs PostgreSQL clusters of a program's own, for the
// harnesses and tests that need a server they may stop, restart or copy
// (the chaos run's database, the streaming replica the read-replica test
// builds): initdb into a directory, a free port on 127.0.0.1, the unix
// socket in that directory, and every server stopped by its postmaster's
// pid. The machine's own server is never touched: the same binaries serve
// a different data directory. Run as root, a cluster belongs to the
// postgres OS user, because initdb refuses to run as root.
package pgcluster

import (
	"context"
	"errors"
	"fmt"
	"net"
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

// Cluster is one PostgreSQL cluster in a directory of its own.
type Cluster struct {
	bin     string // .../bin with initdb, pg_ctl, postgres
	dir     string // owned by the cluster's user: data/, the socket, the log
	port    int
	runAs   string // OS user to run as; "" runs as this process's user
	logPath string
	// Version is what `postgres --version` says.
	Version string
}

// FindBin returns the PostgreSQL bin directory: the one given, else
// PostgreSQL 15's (the machine's server, which has pgvector), else the
// newest installed.
func FindBin(given string) (string, error) {
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

// New prepares a cluster in dir (created when missing) that will listen on
// port; nothing runs until Init (a new cluster) or BaseBackup (a standby of
// another) and Start. dir's parent must be reachable by the postgres user
// when this process runs as root.
func New(ctx context.Context, bin, dir string, port int) (*Cluster, error) {
	c := &Cluster{bin: bin, dir: dir, port: port, logPath: filepath.Join(dir, "postgres.log")}
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
		// The log file is created by root but written by the server.
		if f, err := os.OpenFile(c.logPath, os.O_CREATE|os.O_WRONLY, 0o666); err == nil {
			f.Close()
			_ = os.Chmod(c.logPath, 0o666)
		}
	}
	out, err := exec.CommandContext(ctx, filepath.Join(bin, "postgres"), "--version").CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("postgres --version: %w: %s", err, out)
	}
	c.Version = strings.TrimSpace(string(out))
	return c, nil
}

// Port is the port the cluster listens on.
func (c *Cluster) Port() int { return c.port }

// LogPath is the server's log file, for a failure's message.
func (c *Cluster) LogPath() string { return c.logPath }

// URL is the connection URL of database db.
func (c *Cluster) URL(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", c.port, db)
}

// DataDir is the cluster's data directory.
func (c *Cluster) DataDir() string { return DataDir(c.dir) }

// DataDir is the data directory of the cluster made in dir.
func DataDir(dir string) string { return filepath.Join(dir, "data") }

// serverOpts are the server's settings. fsync is off: the harnesses crash
// processes, never the machine, and a killed PostgreSQL's writes are already
// in the kernel's page cache; synchronous_commit stays on, so a commit a
// worker acknowledged is in the WAL before an immediate restart.
func (c *Cluster) serverOpts() string {
	return fmt.Sprintf("-p %d -c listen_addresses=127.0.0.1 -c unix_socket_directories=%s -c fsync=off -c max_connections=200",
		c.port, c.dir)
}

// command runs a PostgreSQL tool as the cluster's user. Its output goes to
// the cluster's log file, never to a pipe: pg_ctl's server inherits it, and
// a pipe held open by the server would keep the caller waiting forever.
func (c *Cluster) command(ctx context.Context, tool string, args ...string) error {
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

// Init creates the cluster, starts it and creates database db. initdb's
// defaults already allow streaming replication from 127.0.0.1 (wal_level
// replica, ten WAL senders, a trusted replication line in pg_hba.conf), so
// BaseBackup can copy it as it is.
func (c *Cluster) Init(ctx context.Context, db string) error {
	if err := c.command(ctx, "initdb", "-D", c.DataDir(), "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"); err != nil {
		return err
	}
	if err := c.Start(ctx); err != nil {
		return err
	}
	conn, err := pgx.Connect(ctx, c.URL("postgres"))
	if err != nil {
		return fmt.Errorf("connect to the cluster on port %d: %w", c.port, err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{db}.Sanitize()); err != nil {
		return fmt.Errorf("create database: %w", err)
	}
	return nil
}

// BaseBackup makes c a streaming standby of primary: pg_basebackup copies
// the running primary into c's data directory with -R (standby.signal and
// primary_conninfo written), so that Start starts it replaying the
// primary's WAL as it streams in.
func (c *Cluster) BaseBackup(ctx context.Context, primary *Cluster) error {
	return c.command(ctx, "pg_basebackup", "-h", "127.0.0.1", "-p", strconv.Itoa(primary.port), "-U", "postgres",
		"-D", c.DataDir(), "-R", "-X", "stream", "-c", "fast", "--no-sync")
}

// Start starts the server and waits until it accepts connections.
func (c *Cluster) Start(ctx context.Context) error {
	return c.command(ctx, "pg_ctl", "-D", c.DataDir(), "-l", c.logPath, "-o", c.serverOpts(), "-w", "-t", "60", "start")
}

// RestartImmediate stops the server without a checkpoint (every backend
// killed, crash recovery at start, as after a crash) and starts it again.
func (c *Cluster) RestartImmediate(ctx context.Context) error {
	return c.command(ctx, "pg_ctl", "-D", c.DataDir(), "-l", c.logPath, "-o", c.serverOpts(), "-m", "immediate", "-w", "-t", "60", "restart")
}

// Pid is the postmaster's pid, from its pid file (0 when not running).
func (c *Cluster) Pid() int { return Postmaster(c.DataDir()) }

// Postmaster is the pid in a data directory's postmaster.pid (0 when there
// is none): how a cluster left behind by a dead harness is found.
func Postmaster(dataDir string) int {
	b, err := os.ReadFile(filepath.Join(dataDir, "postmaster.pid"))
	if err != nil {
		return 0
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pid, _ := strconv.Atoi(strings.TrimSpace(first))
	return pid
}

// Kill stops the server at once, as a crash would: SIGQUIT to the
// postmaster by its pid (PostgreSQL's immediate shutdown, every backend
// gone without a checkpoint), and waits up to 5s for it to exit.
func (c *Cluster) Kill() {
	if pid := c.Pid(); pid > 0 {
		quit(pid, 5*time.Second)
	}
}

// quit sends SIGQUIT to a postmaster and waits for it to go.
func quit(pid int, wait time.Duration) {
	_ = syscall.Kill(pid, syscall.SIGQUIT)
	for deadline := time.Now().Add(wait); time.Now().Before(deadline) && syscall.Kill(pid, 0) == nil; {
		time.Sleep(50 * time.Millisecond)
	}
}

// Stop stops the server (fast shutdown). When pg_ctl fails, the postmaster
// is sent SIGQUIT by its pid (an immediate shutdown). Safe to call when it
// is not running.
func (c *Cluster) Stop() {
	pid := c.Pid()
	if pid == 0 || syscall.Kill(pid, 0) != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.command(ctx, "pg_ctl", "-D", c.DataDir(), "-m", "fast", "-w", "-t", "20", "stop"); err != nil {
		quit(pid, 5*time.Second)
	}
}

// OwnerFile names the file in a harness's directory that holds the pid of
// the process that made it, by which ReapStale tells a directory in use
// from one left behind.
const OwnerFile = "owner.pid"

// FreePorts asks the kernel for n distinct free ports on 127.0.0.1. They
// are released before the servers bind them; another process taking one in
// between makes a start fail, which is reported.
func FreePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	out := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("free port: %w", err)
		}
		ls = append(ls, l)
		out = append(out, l.Addr().(*net.TCPAddr).Port)
	}
	return out, nil
}

// Claim writes this process's pid into dir's OwnerFile.
func Claim(dir string) error {
	return os.WriteFile(filepath.Join(dir, OwnerFile), []byte(strconv.Itoa(os.Getpid())), 0o644)
}

// ReapStale stops the clusters that earlier runs left running in the
// directories pattern matches (filepath.Glob) because their owner died
// without stopping them (killed, or a test binary's -timeout): pg_ctl's
// server is a daemon, and outlives its harness. A directory counts only
// when its OwnerFile names a process that is gone; a cluster counts when it
// is the directory's own (dir/data) or one level down (dir/*/data). Each is
// stopped with SIGQUIT by its postmaster's pid, and the directory's
// OwnerFile removed so it is not looked at again. It returns the
// directories whose owner was gone, for the caller's own clean-up.
func ReapStale(pattern string) []string {
	dirs, _ := filepath.Glob(pattern)
	var stale []string
	for _, dir := range dirs {
		b, err := os.ReadFile(filepath.Join(dir, OwnerFile))
		if err != nil {
			continue
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || pid <= 0 || syscall.Kill(pid, 0) == nil {
			continue // unreadable, or its owner is still running
		}
		datas, _ := filepath.Glob(filepath.Join(dir, "*", "data"))
		for _, d := range append(datas, DataDir(dir)) {
			if pm := Postmaster(d); pm > 0 && syscall.Kill(pm, 0) == nil {
				quit(pm, 5*time.Second)
			}
		}
		_ = os.Remove(filepath.Join(dir, OwnerFile))
		stale = append(stale, dir)
	}
	return stale
}
