package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
)

// TestRunEndToEnd is `make run` in miniature: the real binary migrates a fresh
// database, runs everything in one process with embedded JetStream, takes a turn
// over HTTP, serves it back in the context, and drains cleanly on SIGTERM.
func TestRunEndToEnd(t *testing.T) {
	t.Parallel()
	db := testenv.NewDB(t)
	bin := filepath.Join(t.TempDir(), "recall")
	build := exec.Command("go", "build", "-o", bin, ".")
	out, err := build.CombinedOutput()
	require.NoError(t, err, string(out))

	dataDir := t.TempDir()
	env := append(os.Environ(),
		"DATABASE_URL="+db.URL, "NATS_URL=", "EMBEDDED_NATS_PORT=-1", "DATA_DIR="+dataDir,
		"API_ADDR=127.0.0.1:0", "OPS_ADDR=127.0.0.1:0", "GATEWAY_ADDR=127.0.0.1:0", "LOG_LEVEL=info")
	migrate := exec.Command(bin, "migrate")
	migrate.Env = env
	out, err = migrate.CombinedOutput()
	require.NoError(t, err, string(out))
	require.Contains(t, string(out), "schema at version")

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	run := exec.CommandContext(ctx, bin, "run")
	run.Env = env
	stdout, err := run.StdoutPipe()
	require.NoError(t, err)
	var stderr strings.Builder
	run.Stderr = &stderr
	require.NoError(t, run.Start())

	// The binary prints where the API and NATS listen.
	lines := bufio.NewScanner(stdout)
	apiURL := ""
	natsURL, seedLine := "", ""
	var tries []string
	for lines.Scan() {
		line := lines.Text()
		if u, ok := strings.CutPrefix(line, "NATS (embedded JetStream): "); ok {
			natsURL = u
		}
		if m := regexp.MustCompile(`^  its user's NKey seed: (\S+) `).FindStringSubmatch(line); m != nil {
			seedLine = m[1]
		}
		if m := regexp.MustCompile(`^API: (http://\S+)`).FindStringSubmatch(line); m != nil {
			apiURL = m[1]
		}
		if try, ok := strings.CutPrefix(line, "  try: "); ok {
			tries = append(tries, try)
		}
		if strings.HasPrefix(line, "Inspector: ") {
			break
		}
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	require.NotEmpty(t, apiURL, stderr.String())
	require.True(t, strings.HasPrefix(natsURL, "nats://"), "the embedded NATS URL is printed for external publishers")
	require.Equal(t, filepath.Join(dataDir, "nats.nk"), seedLine, "and where its user's seed is")

	// The embedded server lets in its user alone: the seed and the record
	// are the owner's only, and a client without the seed is refused.
	for _, f := range []string{"nats.nk", "nats.json"} {
		fi, err := os.Stat(filepath.Join(dataDir, f))
		require.NoError(t, err)
		require.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), f)
	}
	_, err = nats.Connect(natsURL, nats.NoReconnect())
	require.ErrorIs(t, err, nats.ErrAuthorization, "an anonymous client is refused")

	// The try lines it prints work as printed: the turn is accepted, and
	// the context of a later session recalls it.
	require.Len(t, tries, 2)
	out, err = exec.Command("sh", "-c", tries[0]).CombinedOutput()
	require.NoError(t, err, string(out))
	require.Contains(t, string(out), `"accepted"`, "the first try line posts a turn")
	require.Eventually(t, func() bool {
		out, err := exec.Command("sh", "-c", tries[1]).CombinedOutput()
		return err == nil && strings.Contains(string(out), "Dune by Frank Herbert")
	}, 30*time.Second, 100*time.Millisecond, "the second try line's context recalls the turn")

	turn := `{"id":"t-1","user_id":"u1","session_id":"s1","occurred_at":"` + time.Now().UTC().Format(time.RFC3339) + `","role":"user","content":"推荐几本科幻小说"}`
	req, _ := http.NewRequest(http.MethodPost, apiURL+"/v1/turns", strings.NewReader(turn))
	req.Header.Set("X-Tenant-ID", "demo")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusAccepted, resp.StatusCode)

	require.Eventually(t, func() bool {
		req, _ := http.NewRequest(http.MethodGet, apiURL+"/v1/context?user_id=u1&session_id=s1", nil)
		req.Header.Set("X-Tenant-ID", "demo")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		var body struct {
			Prompt string `json:"prompt"`
		}
		return json.NewDecoder(resp.Body).Decode(&body) == nil && strings.Contains(body.Prompt, "推荐几本科幻小说")
	}, 20*time.Second, 50*time.Millisecond, "the turn reaches the context through ingest")

	// The profiler runs too: a refresh request gives the user a stored profile
	// (after the refresh's debounce bucket has closed).
	req, _ = http.NewRequest(http.MethodPost, apiURL+"/v1/users/u1/interests/refresh", nil)
	req.Header.Set("X-Tenant-ID", "demo")
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusAccepted, resp.StatusCode)
	require.Eventually(t, func() bool {
		req, _ := http.NewRequest(http.MethodGet, apiURL+"/v1/users/u1/interests", nil)
		req.Header.Set("X-Tenant-ID", "demo")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		var body struct {
			Vector struct {
				Revision int64 `json:"revision"`
			} `json:"vector"`
		}
		return resp.StatusCode == http.StatusOK && json.NewDecoder(resp.Body).Decode(&body) == nil && body.Vector.Revision > 0
	}, 30*time.Second, 50*time.Millisecond, "the profiler stores the user's profile")

	// The summarizer runs too: asked for the session's summary, it writes one.
	req, _ = http.NewRequest(http.MethodPost, apiURL+"/v1/sessions/s1/summarize?wait=20s", nil)
	req.Header.Set("X-Tenant-ID", "demo")
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	var summarized struct {
		Status  string `json:"status"`
		Summary struct {
			Summary string `json:"summary"`
		} `json:"summary"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&summarized))
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "summarized", summarized.Status)
	require.Contains(t, summarized.Summary.Summary, "科幻")
	// The operator's commands work against the running system: without
	// NATS_URL they find its embedded server, and say so.
	tool := func(args ...string) string {
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, string(out))
		require.Contains(t, string(out), "recall: NATS at "+natsURL+" (the embedded server of `recall run`")
		return string(out)
	}
	require.Contains(t, tool("replay", "-worker", "ingest"), "replayed 2 message(s) through ingest", "the try turn and the test's")
	require.Contains(t, tool("dlq", "list"), "0 dead letter(s)")
	require.Contains(t, tool("forget", "-tenant", "demo", "-user", "u1"), `"messages": 1`)
	req, _ = http.NewRequest(http.MethodGet, apiURL+"/v1/sessions/s1", nil)
	req.Header.Set("X-Tenant-ID", "demo")
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusNotFound, resp.StatusCode, "the forgotten user's session is gone")

	require.NoError(t, run.Process.Signal(syscall.SIGTERM))
	require.NoError(t, run.Wait(), stderr.String())
	_, err = os.Stat(filepath.Join(dataDir, "nats.json"))
	require.ErrorIs(t, err, os.ErrNotExist, "the record of the embedded server goes with it")
	_, err = os.Stat(filepath.Join(dataDir, "nats.nk"))
	require.NoError(t, err, "its user's seed stays, for the next start on this DATA_DIR")
	require.Contains(t, stderr.String(), `"msg":"drained"`, "the ingest runner drained on SIGTERM")
	require.Contains(t, stderr.String(), `"msg":"decay run done"`, "the decayer ran at start")
	for _, line := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
		require.True(t, json.Valid([]byte(line)), fmt.Sprintf("every log line is JSON: %q", line))
	}
}
