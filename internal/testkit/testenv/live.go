package testenv

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/deps"
	"github.com/recallhq/recall/pkg/queue"
)

// Live is a whole Recall, `recall run` as its own process (the API and every
// worker, embedded JetStream), on its own database and free ports: what the
// clients, the agent example and the browser tests talk to.
type Live struct {
	// URL is the API's base URL (http://127.0.0.1:port).
	URL string
	// InspectorURL is the inspector's, as the process prints it.
	InspectorURL string
	// GatewayURL is the chat gateway's OpenAI API root, as the process
	// prints it (http://127.0.0.1:port/v1): the base URL an OpenAI client
	// is given. Its upstream is GATEWAY_UPSTREAM_URL of the env passed to
	// StartRecall.
	GatewayURL string
	// NATSURL is the embedded JetStream server's URL, for publishers, who
	// log in as its user (ConnectNATS).
	NATSURL string
	// Data is the process's DATA_DIR: the embedded server's store, its
	// record and its user's seed.
	Data deps.Data
	// DB is the database it runs on.
	DB *DB
	// Bin is the recall binary it runs, for tests that run its other commands.
	Bin string
	// Env is the environment it runs with.
	Env []string
	// Output holds what the process wrote to standard error (its JSON logs).
	Output *syncBuffer
}

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// RecallBin builds ./cmd/recall once per test binary and returns its path.
// Under go test it goes beside the test binary, in the go command's work
// directory, which the go command removes when the run ends, so that no run
// leaves a copy of the binary behind in the temp dir. A test binary run by
// hand (go test -c) builds into a temporary directory of its own instead.
func RecallBin(t testing.TB) string {
	t.Helper()
	binOnce.Do(func() {
		dir := goTestWorkDir()
		if dir == "" {
			var err error
			if dir, err = os.MkdirTemp("", "recall-bin-"); err != nil {
				binErr = err
				return
			}
		}
		binPath = filepath.Join(dir, "recall")
		out, err := exec.Command("go", "build", "-o", binPath, "github.com/recallhq/recall/cmd/recall").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build ./cmd/recall: %v\n%s", err, out)
		}
	})
	require.NoError(t, binErr)
	return binPath
}

// goTestWorkDir is the directory of the running test binary when the go
// command built it there for go test ($WORK/bNNN, $WORK being the go
// command's go-build* directory, removed when go test ends unless -work asks
// to keep it), and "" otherwise.
func goTestWorkDir() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	dir := filepath.Dir(exe)
	if !strings.HasPrefix(filepath.Base(filepath.Dir(dir)), "go-build") {
		return ""
	}
	return dir
}

// StartRecall runs `recall run` on a fresh database with env (KEY=VALUE) on top
// of the defaults, waits until /readyz answers 200, and stops the process
// (SIGTERM, then kill) when the test ends.
func StartRecall(t testing.TB, env ...string) *Live {
	t.Helper()
	db := NewDB(t)
	bin := RecallBin(t)
	data := deps.Data{Dir: t.TempDir()}
	full := append(os.Environ(),
		"DATABASE_URL="+db.URL, "NATS_URL=", "EMBEDDED_NATS_PORT=-1", "DATA_DIR="+data.Dir,
		"API_ADDR=127.0.0.1:0", "OPS_ADDR=127.0.0.1:0", "GATEWAY_ADDR=127.0.0.1:0", "LOG_LEVEL=info")
	full = append(full, env...)

	cmd := exec.Command(bin, "run")
	cmd.Env = full
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	logs := &syncBuffer{}
	cmd.Stderr = logs
	require.NoError(t, cmd.Start())
	// exited is closed when the process has exited, with waitErr set: a
	// channel closed rather than a value sent, so that every wait below and
	// the cleanup all see it.
	var waitErr error
	exited := make(chan struct{})
	go func() { waitErr = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})

	l := &Live{DB: db, Bin: bin, Env: full, Output: logs, Data: data}
	if err := l.readAddresses(stdout, exited, time.Minute); err != nil {
		select {
		case <-exited:
			t.Fatalf("recall run: %v (exit: %v)\n%s", err, waitErr, logs.String())
		default:
			t.Fatalf("recall run: %v\n%s", err, logs.String())
		}
	}
	require.Equal(t, l.URL+"/ui/", l.InspectorURL, "recall run prints the inspector's URL next to the API's")

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, l.URL+"/readyz", nil)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return l
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("recall run not ready after a minute:\n%s", logs.String())
		case <-exited:
			t.Fatalf("recall run exited: %v\n%s", waitErr, logs.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// ConnectNATS connects to the embedded JetStream server as its user, as a
// chat backend or a catalog service on the machine would (the server lets
// no one else in), and returns the JetStream handle.
func (l *Live) ConnectNATS(t testing.TB) jetstream.JetStream {
	t.Helper()
	login := queue.NATSConfig{URL: l.NATSURL, NKeyFile: l.Data.NATSSeedFile()}
	opts, err := login.Options()
	require.NoError(t, err)
	nc, err := nats.Connect(l.NATSURL, opts...)
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	return js
}

// Lines `recall run` prints on stdout that say where it listens.
var (
	apiLine       = regexp.MustCompile(`^API: (http://\S+)`)
	inspectorLine = regexp.MustCompile(`^Inspector: (http://\S+)`)
	gatewayLine   = regexp.MustCompile(`^Gateway \(OpenAI-compatible, upstream \S*\): (http://\S+/v1)$`)
	natsLine      = regexp.MustCompile(`^NATS \(embedded JetStream\): (\S+)`)
)

// readAddresses reads the addresses `recall run` prints on stdout until the
// API's, the inspector's and the gateway's have all been seen (its servers
// start concurrently, so the lines come in any order). It fails, naming
// what is missing, when the process exits or within is over first, so that
// a line that never comes does not hang the test. The rest of stdout is
// read and discarded in any case, so that the process never blocks
// writing it.
func (l *Live) readAddresses(stdout io.Reader, exited <-chan struct{}, within time.Duration) error {
	lines := make(chan string)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-stop:
			}
		}
	}()
	targets := []struct {
		re  *regexp.Regexp
		dst *string
	}{{apiLine, &l.URL}, {inspectorLine, &l.InspectorURL}, {gatewayLine, &l.GatewayURL}, {natsLine, &l.NATSURL}}
	timeout := time.After(within)
	for l.URL == "" || l.InspectorURL == "" || l.GatewayURL == "" {
		select {
		case line, ok := <-lines:
			if !ok {
				return fmt.Errorf("stdout closed with no %s line", l.missing())
			}
			for _, tg := range targets {
				if m := tg.re.FindStringSubmatch(line); m != nil {
					*tg.dst = m[1]
				}
			}
		case <-exited:
			return fmt.Errorf("exited with no %s line", l.missing())
		case <-timeout:
			return fmt.Errorf("no %s line within %s", l.missing(), within)
		}
	}
	return nil
}

// missing names the address lines not read yet ("API or Gateway"), for
// readAddresses' errors.
func (l *Live) missing() string {
	var names []string
	for _, a := range [...]struct{ name, v string }{{"API", l.URL}, {"Inspector", l.InspectorURL}, {"Gateway", l.GatewayURL}} {
		if a.v == "" {
			names = append(names, a.name)
		}
	}
	return strings.Join(names, " or ")
}

// syncBuffer is an io.Writer safe for a process's output and a test's reads.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
