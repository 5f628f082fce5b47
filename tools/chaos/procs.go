package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// proc is one Recall process (the API or a worker) kept running by the
// harness: when it exits, killed or not, it is started again after a short
// delay, as an orchestrator would. Exits the harness did not cause are
// recorded.
type proc struct {
	name    string
	path    string
	args    []string
	env     []string
	logPath string
	opsURL  string // its /readyz lives here
	delay   time.Duration
	log     *slog.Logger

	mu       sync.Mutex
	pid      int
	starts   int
	lastUp   time.Time
	killing  bool // the next exit was caused by the harness
	stopping bool
	exits    []procExit
	done     chan struct{} // closed when the supervisor has returned
	started  chan struct{} // closed and replaced at every start
}

// procExit is an exit the harness did not cause.
type procExit struct {
	At     time.Time
	Pid    int
	Status string
	Last   string // the last line it logged
}

// Run starts the process and keeps it running until Stop or ctx ends.
func (p *proc) Run(ctx context.Context) error {
	p.done = make(chan struct{})
	p.started = make(chan struct{})
	first := make(chan error, 1)
	go p.supervise(ctx, first)
	return <-first
}

func (p *proc) supervise(ctx context.Context, first chan<- error) {
	defer close(p.done)
	for n := 0; ; n++ {
		cmd, err := p.startOnce()
		if n == 0 {
			first <- err
		}
		if err != nil {
			p.log.Error("start failed", "process", p.name, "error", err.Error())
			return
		}
		err = cmd.Wait()
		p.mu.Lock()
		stopping, killed := p.stopping, p.killing
		p.killing = false
		if !stopping && !killed {
			p.exits = append(p.exits, procExit{At: time.Now(), Pid: cmd.Process.Pid, Status: exitStatus(err), Last: lastLogLine(p.logPath)})
		}
		p.pid = 0
		p.mu.Unlock()
		if stopping {
			return
		}
		if !killed {
			p.log.Warn("process exited; restarting", "process", p.name, "status", exitStatus(err))
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(p.delay):
		}
	}
}

func (p *proc) startOnce() (*exec.Cmd, error) {
	lf, err := os.OpenFile(p.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer lf.Close()
	cmd := exec.Command(p.path, p.args...)
	cmd.Env = p.env
	cmd.Stdout, cmd.Stderr = lf, lf
	cmd.SysProcAttr = childProcAttr()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopping {
		return nil, errors.New("stopping")
	}
	fmt.Fprintf(lf, "--- chaos: start %d of %s at %s\n", p.starts+1, p.name, time.Now().UTC().Format(time.RFC3339Nano))
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", p.name, err)
	}
	p.pid = cmd.Process.Pid
	p.starts++
	p.lastUp = time.Now()
	close(p.started)
	p.started = make(chan struct{})
	return cmd, nil
}

// Pid is the running process's pid (0 between a death and its restart).
func (p *proc) Pid() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.pid
}

// Kill9 sends SIGKILL to the running process; the supervisor starts it
// again after its delay. It returns the pid killed and a channel closed at
// the next start.
func (p *proc) Kill9() (int, <-chan struct{}, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.pid == 0 {
		return 0, nil, fmt.Errorf("%s is not running", p.name)
	}
	p.killing = true
	if err := syscall.Kill(p.pid, syscall.SIGKILL); err != nil {
		p.killing = false
		return p.pid, nil, fmt.Errorf("kill %s (%d): %w", p.name, p.pid, err)
	}
	return p.pid, p.started, nil
}

// Exits are the exits the harness did not cause.
func (p *proc) Exits() []procExit {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]procExit(nil), p.exits...)
}

// Stop ends supervision and stops the process: SIGTERM, then SIGKILL after
// timeout. Safe to call more than once and before Run.
func (p *proc) Stop(timeout time.Duration) {
	p.mu.Lock()
	p.stopping = true
	pid := p.pid
	p.mu.Unlock()
	if p.done == nil {
		return
	}
	if pid != 0 {
		_ = syscall.Kill(pid, syscall.SIGTERM)
	}
	select {
	case <-p.done:
	case <-time.After(timeout):
		if pid != 0 {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		<-p.done
	}
}

// WaitReady polls the process's /readyz until it answers 200. It fails when
// the process has exited on its own meanwhile (failFast), or after timeout.
func (p *proc) WaitReady(ctx context.Context, timeout time.Duration, failFast bool) error {
	deadline := time.Now().Add(timeout)
	client := &http.Client{Timeout: time.Second}
	for {
		if readyz(ctx, client, p.opsURL) {
			return nil
		}
		if failFast {
			if ex := p.Exits(); len(ex) > 0 {
				return fmt.Errorf("%s exited at start (%s): %s", p.name, ex[0].Status, ex[0].Last)
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not ready after %s: %s", p.name, timeout, lastLogLine(p.logPath))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func readyz(ctx context.Context, client *http.Client, base string) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/readyz", nil)
	if err != nil {
		return false
	}
	resp, err := client.Do(req)
	if err != nil {
		return false
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

func exitStatus(err error) string {
	if err == nil {
		return "exit 0"
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return "signal " + ws.Signal().String()
		}
		return fmt.Sprintf("exit %d", ee.ExitCode())
	}
	return err.Error()
}

// lastLogLine is the last line of a process's log that is not the harness's
// own marker, shortened: what it said before it went.
func lastLogLine(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	const tailBytes = 16 << 10
	if st, err := f.Stat(); err == nil && st.Size() > tailBytes {
		_, _ = f.Seek(st.Size()-tailBytes, io.SeekStart)
	}
	b, _ := io.ReadAll(f)
	var last string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line != "" && !strings.HasPrefix(line, "--- chaos:") {
			last = line
		}
	}
	if len(last) > 300 {
		last = last[:300] + "…"
	}
	return last
}
