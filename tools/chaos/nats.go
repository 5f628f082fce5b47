package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// natsServer is a nats-server process of the run's own: JetStream on, its
// store in the run's directory, a port of its own on 127.0.0.1. It can be
// killed and started again on the same port and store. In a cluster it also
// has a route port and the other servers' routes.
type natsServer struct {
	bin     string
	version serverVersion
	name    string // server_name: the name stream and consumer infos give
	port    int
	dir     string
	logPath string
	// cluster is its route port (0: a single server); routes are every
	// server's route URL, its own included (a server ignores its own).
	cluster int
	routes  []string
	// conf is the config file with the run's account and users (empty:
	// none, anyone gets in), and login how the harness logs in.
	conf  string
	login []nats.Option

	cmd  *exec.Cmd
	done chan struct{}
}

// natsServerBinary returns the nats-server binary to run: the one given;
// else, in the repository, the release go.mod pins (the one Recall embeds and
// its other tests run), built into bin: a machine's own nats-server may be
// older than the 2.10 Recall is built for (Debian bookworm's is 2.9.10, on
// which the catalog worker cannot start and a worker's Term is ignored), and
// a run should test the server Recall ships with; outside a repository, the
// one on PATH or Debian's.
func natsServerBinary(ctx context.Context, o Options, bin string) (string, error) {
	if o.NATSServer != "" || o.Root == "" {
		return findNATSServer(o.NATSServer)
	}
	out := filepath.Join(bin, "nats-server")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, "github.com/nats-io/nats-server/v2")
	cmd.Dir = o.Root
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build nats-server (the release go.mod pins; -nats-server PATH runs another): %w\n%s", err, b)
	}
	return out, nil
}

// findNATSServer returns the nats-server binary given, else the one on PATH,
// else Debian's /usr/sbin/nats-server.
func findNATSServer(given string) (string, error) {
	if given != "" {
		if _, err := os.Stat(given); err != nil {
			return "", fmt.Errorf("nats-server %s: %w", given, err)
		}
		return given, nil
	}
	if p, err := exec.LookPath("nats-server"); err == nil {
		return p, nil
	}
	if _, err := os.Stat("/usr/sbin/nats-server"); err == nil {
		return "/usr/sbin/nats-server", nil
	}
	return "", errors.New("nats-server not found on PATH nor at /usr/sbin/nats-server: install it (apt-get install nats-server) or pass -nats-server PATH")
}

// serverVersion is a nats-server release.
type serverVersion struct{ Major, Minor, Patch int }

func (v serverVersion) String() string { return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch) }

// AtLeast reports whether v is major.minor or newer.
func (v serverVersion) AtLeast(major, minor int) bool {
	return v.Major > major || v.Major == major && v.Minor >= minor
}

var versionRE = regexp.MustCompile(`v?(\d+)\.(\d+)\.(\d+)`)

// parseServerVersion reads `nats-server --version` ("nats-server: v2.9.10").
func parseServerVersion(out string) (serverVersion, error) {
	m := versionRE.FindStringSubmatch(out)
	if m == nil {
		return serverVersion{}, fmt.Errorf("no version in %q", strings.TrimSpace(out))
	}
	var v serverVersion
	v.Major, _ = strconv.Atoi(m[1])
	v.Minor, _ = strconv.Atoi(m[2])
	v.Patch, _ = strconv.Atoi(m[3])
	return v, nil
}

func newNATSServer(ctx context.Context, bin, dir, logPath string, port int) (*natsServer, error) {
	out, err := exec.CommandContext(ctx, bin, "--version").CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("%s --version: %w: %s", bin, err, out)
	}
	v, err := parseServerVersion(string(out))
	if err != nil {
		return nil, fmt.Errorf("%s --version: %w", bin, err)
	}
	return &natsServer{bin: bin, version: v, name: "recall-chaos", port: port, dir: dir, logPath: logPath}, nil
}

// URL is the client URL.
func (s *natsServer) URL() string { return "nats://127.0.0.1:" + strconv.Itoa(s.port) }

// Pid is the running server's process id (0 when stopped).
func (s *natsServer) Pid() int {
	if s.cmd == nil || s.cmd.Process == nil {
		return 0
	}
	return s.cmd.Process.Pid
}

// Start starts the server and waits until JetStream answers.
func (s *natsServer) Start(ctx context.Context) error {
	if err := s.spawn(); err != nil {
		return err
	}
	return s.waitReady(ctx, 30*time.Second)
}

// args are the server's command line: client port and store, and in a
// cluster its route port, the routes and the cluster's name.
func (s *natsServer) args() []string {
	var args []string
	if s.conf != "" {
		args = append(args, "-c", s.conf)
	}
	args = append(args, "-a", "127.0.0.1", "-p", strconv.Itoa(s.port), "-js", "-sd", s.dir, "-n", s.name)
	if s.cluster != 0 {
		args = append(args, "--cluster_name", "recall-chaos", "-cluster", "nats://127.0.0.1:"+strconv.Itoa(s.cluster),
			"-routes", strings.Join(s.routes, ","))
	}
	return args
}

// spawn starts the process without waiting for it: the first server of a
// cluster has no JetStream until a quorum of its peers is up.
func (s *natsServer) spawn() error {
	lf, err := os.OpenFile(s.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer lf.Close()
	fmt.Fprintf(lf, "--- chaos: starting nats-server %s at %s\n", s.name, time.Now().UTC().Format(time.RFC3339Nano))
	cmd := exec.Command(s.bin, s.args()...)
	cmd.Stdout, cmd.Stderr = lf, lf
	cmd.SysProcAttr = childProcAttr()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start nats-server %s: %w", s.name, err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	s.cmd, s.done = cmd, done
	return nil
}

func (s *natsServer) waitReady(ctx context.Context, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		if err := s.ping(ctx); err == nil {
			return nil
		} else if time.Now().After(deadline) {
			return fmt.Errorf("nats-server %s on port %d not ready after %s: %w (log: %s)", s.name, s.port, timeout, err, s.logPath)
		}
		select {
		case <-s.done:
			return fmt.Errorf("nats-server %s exited at start; see %s", s.name, s.logPath)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (s *natsServer) ping(ctx context.Context) error {
	nc, err := nats.Connect(s.URL(), append(s.login, nats.Timeout(time.Second), nats.NoReconnect())...)
	if err != nil {
		return err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	_, err = js.AccountInfo(pctx)
	return err
}

// Kill sends SIGKILL to the server's pid and waits for it to be gone.
func (s *natsServer) Kill() (int, error) {
	pid := s.Pid()
	if pid == 0 {
		return 0, errors.New("nats-server is not running")
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		return pid, fmt.Errorf("kill nats-server %d: %w", pid, err)
	}
	<-s.done
	return pid, nil
}

// Stop sends SIGTERM and waits, killing it after timeout. Safe to call when
// it is not running.
func (s *natsServer) Stop(timeout time.Duration) {
	if s.cmd == nil || s.done == nil {
		return
	}
	select {
	case <-s.done:
		return
	default:
	}
	_ = syscall.Kill(s.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(timeout):
		_ = syscall.Kill(s.cmd.Process.Pid, syscall.SIGKILL)
		<-s.done
	}
}
