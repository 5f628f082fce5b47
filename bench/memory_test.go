package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/deps"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/queue"
	"github.com/recallhq/recall/pkg/workers"
)

// BenchmarkMemory reports the resident memory of the real binaries: `recall
// run` (embedded JetStream, every worker and the API in one process) at start,
// after 100k turns went through every worker, and after a context load; and
// each single-worker binary (and the API and the gateway) at start. Targets: `recall run` at
// most 500 MB at its peak, a worker that does not segment Chinese at most
// 60 MB. BENCH_MEMORY_TURNS overrides the number of turns.
func BenchmarkMemory(b *testing.B) {
	n := 100_000
	if v, err := strconv.Atoi(os.Getenv("BENCH_MEMORY_TURNS")); err == nil && v > 0 {
		n = v
	}
	bin := b.TempDir()
	build := exec.Command("go", "build", "-o", bin+string(filepath.Separator), "../cmd/...")
	out, err := build.CombinedOutput()
	require.NoError(b, err, string(out))
	for range b.N {
		settle(b)
		memoryOfRun(b, bin, n)
		settle(b)
		memoryOfWorkers(b, bin)
	}
}

func memoryOfRun(b *testing.B, bin string, n int) {
	db := testenv.NewDB(b)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(bin, "recall"), "run")
	data := deps.Data{Dir: b.TempDir()}
	cmd.Env = append(os.Environ(), "DATABASE_URL="+db.URL, "NATS_URL=", "EMBEDDED_NATS_PORT=-1", "DATA_DIR="+data.Dir,
		"API_ADDR=127.0.0.1:0", "OPS_ADDR=127.0.0.1:0", "GATEWAY_ADDR=127.0.0.1:0", "LOG_LEVEL=warn")
	stdout, err := cmd.StdoutPipe()
	require.NoError(b, err)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(b, cmd.Start())
	defer stop(cmd)
	apiURL, natsURL := "", ""
	lines := bufio.NewScanner(stdout)
	for apiURL == "" && lines.Scan() {
		if u, ok := strings.CutPrefix(lines.Text(), "NATS (embedded JetStream): "); ok {
			natsURL = u
		}
		if m := regexp.MustCompile(`^API: (http://\S+)`).FindStringSubmatch(lines.Text()); m != nil {
			apiURL = m[1]
		}
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	require.NotEmpty(b, apiURL, stderr.String())
	waitReady(b, apiURL+"/readyz")
	time.Sleep(2 * time.Second)
	start := rss(b, cmd.Process.Pid)

	turns := memoryTurns(n)
	for i := 0; i < len(turns); i += 500 {
		body, err := json.Marshal(turns[i:min(i+500, len(turns))])
		require.NoError(b, err)
		req, _ := http.NewRequest(http.MethodPost, apiURL+"/v1/turns", bytes.NewReader(body))
		req.Header.Set("X-Tenant-ID", "bench")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(b, err)
		_ = resp.Body.Close()
		require.Equal(b, http.StatusAccepted, resp.StatusCode)
	}
	waitAllSettled(b, queue.NATSConfig{URL: natsURL, NKeyFile: data.NATSSeedFile()})
	var stored int
	require.NoError(b, db.Store.Pool().QueryRow(ctx, `SELECT count(*) FROM messages`).Scan(&stored))
	require.Equal(b, n, stored)
	ingested := rss(b, cmd.Process.Pid)

	// The context of every session, from 32 clients at once.
	var wg sync.WaitGroup
	users := memoryUsers(n)
	for c := range 32 {
		wg.Go(func() {
			for u := c; u < users; u += 32 {
				resp, err := http.Get(fmt.Sprintf("%s/v1/context?user_id=u%04d&session_id=s%04d-0", apiURL, u, u))
				if err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					_ = resp.Body.Close()
				}
			}
		})
	}
	wg.Wait()
	loaded := rss(b, cmd.Process.Pid)
	b.ReportMetric(float64(loaded.peak)/(1<<20), "run_peak_MB")
	fmt.Printf("memory: recall run (embedded JetStream, API and %d workers), %d turns through every worker\n", len(workers.All), n)
	fmt.Printf("  at start %d MB; after the turns %d MB; after the context load %d MB; peak %d MB (target peak <= 500 MB)\n",
		start.now>>20, ingested.now>>20, loaded.now>>20, loaded.peak>>20)
}

// memoryOfWorkers starts each single-worker binary, the API and the gateway,
// against one JetStream server and database, and reads its memory once it is
// ready (on OPS_ADDR, whose readiness pings PostgreSQL and NATS).
func memoryOfWorkers(b *testing.B, bin string) {
	db := testenv.NewDB(b)
	nt := testenv.NewNATS(b)
	names := append(workers.Names(), "api", "gateway")
	var parts, chinese []string
	for i, name := range names {
		addr, apiAddr, gwAddr := freeAddr(b), freeAddr(b), freeAddr(b)
		cmd := exec.Command(filepath.Join(bin, name))
		cmd.Env = append(os.Environ(), "DATABASE_URL="+db.URL, "NATS_URL="+nt.URL, "OPS_ADDR="+addr, "API_ADDR="+apiAddr,
			"GATEWAY_ADDR="+gwAddr, "GATEWAY_UPSTREAM_URL=http://"+freeAddr(b)+"/v1", "LOG_LEVEL=warn")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		require.NoError(b, cmd.Start(), name)
		waitReady(b, "http://"+addr+"/readyz")
		time.Sleep(2 * time.Second)
		m := rss(b, cmd.Process.Pid)
		parts = append(parts, fmt.Sprintf("%s %d MB", name, m.now>>20))
		b.ReportMetric(float64(m.now)/(1<<20), name+"_MB")
		// The processes that load the segmenter on their first Chinese
		// text, once they have met some.
		if chineseText(b, nt.JS, name, apiAddr, gwAddr, i) {
			time.Sleep(2 * time.Second)
			c := rss(b, cmd.Process.Pid)
			chinese = append(chinese, fmt.Sprintf("%s %d MB", name, c.now>>20))
			b.ReportMetric(float64(c.now)/(1<<20), name+"_chinese_MB")
		}
		stop(cmd)
	}
	fmt.Printf("  single binaries at start: %s (target <= 60 MB; the extractor and summarizer hold the Chinese segmenter from the start)\n", strings.Join(parts, ", "))
	fmt.Printf("  once a Chinese text loaded the segmenter: %s (target <= 60 MB)\n", strings.Join(chinese, ", "))
}

// chineseText gives a binary that loads the segmenter on its first Chinese
// text one, as its work brings it (the API a context with a Chinese query,
// the gateway a chat with a Chinese message, the indexer a Chinese turn),
// and waits until it has been handled; false for the others.
func chineseText(b *testing.B, js jetstream.JetStream, name, apiAddr, gwAddr string, i int) bool {
	const text = "我最近在读刘慈欣的三体，想找几部类似的科幻小说"
	switch name {
	case "api":
		req, _ := http.NewRequest(http.MethodGet, "http://"+apiAddr+"/v1/context?user_id=u1&session_id=s1&query="+url.QueryEscape(text), nil)
		req.Header.Set("X-Tenant-ID", "bench")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(b, err)
		_ = resp.Body.Close()
		require.Equal(b, http.StatusOK, resp.StatusCode)
	case "gateway":
		// No upstream listens: the memory is read (the dictionary loaded),
		// then the call upstream fails, as it may.
		body := `{"model":"m","messages":[{"role":"user","content":"` + text + `"}]}`
		req, _ := http.NewRequest(http.MethodPost, "http://"+gwAddr+"/v1/chat/completions", strings.NewReader(body))
		req.Header.Set("X-Tenant-ID", "bench")
		req.Header.Set("X-Recall-User-ID", "u1")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(b, err)
		_ = resp.Body.Close()
		// "unavailable" when loading the dictionary took the first read
		// past GATEWAY_MEMORY_TIMEOUT; it is loaded all the same.
		require.Contains(b, []string{"on", "unavailable"}, resp.Header.Get("X-Recall-Memory"))
	case "indexer":
		_, err := queue.NewPublisher(js).PublishTurns(context.Background(), []events.Turn{{ID: fmt.Sprintf("zh-%d", i), TenantID: "bench",
			UserID: "u1", SessionID: "s1", OccurredAt: time.Now().UTC(), Role: events.RoleUser, Content: text}})
		require.NoError(b, err)
		waitConsumed(b, js, queue.TurnsStream, "indexer")
	default:
		return false
	}
	return true
}

// waitConsumed waits until a durable consumer has acknowledged everything
// of its stream.
func waitConsumed(b *testing.B, js jetstream.JetStream, stream, consumer string) {
	require.Eventually(b, func() bool {
		c, err := js.Consumer(context.Background(), stream, consumer)
		if err != nil {
			return false
		}
		info, err := c.Info(context.Background())
		return err == nil && info.NumPending == 0 && info.NumAckPending == 0
	}, time.Minute, 50*time.Millisecond)
}

type memory struct{ now, peak int64 }

// rss reads a process's resident set and its peak from /proc.
func rss(b *testing.B, pid int) memory {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	require.NoError(b, err)
	var m memory
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "VmRSS:":
			m.now = kb << 10
		case "VmHWM:":
			m.peak = kb << 10
		}
	}
	return m
}

// cpuTime is the CPU a process has spent, user and system, from
// /proc/<pid>/stat (in the kernel's USER_HZ, 100 a second on Linux); ok is
// false when the process is gone or not readable (a database on another
// machine).
func cpuTime(pid int) (d time.Duration, ok bool) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	return statCPU(data)
}

// statCPU is the user and system CPU of a /proc/<pid>/stat line.
func statCPU(line []byte) (d time.Duration, ok bool) {
	// The command, field 2, is in parentheses and may hold spaces and
	// parentheses: the fields are counted after its last closing one.
	i := bytes.LastIndexByte(line, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(line[i+1:]))
	// utime and stime are fields 14 and 15 of the line, 12 and 13 here.
	if len(f) < 13 {
		return 0, false
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	const userHZ = 100
	return time.Duration(utime+stime) * time.Second / userHZ, true
}

// backendCPU is the CPU spent so far by each server process serving a
// client of db's database (pg_stat_activity: autovacuum's workers, which
// may be at work on a database just loaded, are not a context's cost;
// this connection's own is left out), by pid; empty when the server's
// processes cannot be read from here.
func backendCPU(ctx context.Context, db *testenv.DB) (map[int]time.Duration, error) {
	rows, err := db.Store.Pool().Query(ctx,
		`SELECT pid FROM pg_stat_activity
		 WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid()`)
	if err != nil {
		return nil, err
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int])
	if err != nil {
		return nil, err
	}
	cpu := map[int]time.Duration{}
	for _, pid := range pids {
		if d, ok := cpuTime(pid); ok {
			cpu[pid] = d
		}
	}
	return cpu, nil
}

// cpuUse is the CPU a process and a database's server processes spent in
// a window of a load, and the window's length.
type cpuUse struct {
	api, db time.Duration
	window  time.Duration
	// dbRead is false when the server's processes could not be read
	// (a database on another machine).
	dbRead bool
	err    error
}

// measureCPU reads the CPU of the process pid and of db's server processes
// from a second into a load of the given length until half a second
// before its end, while the load runs: the server processes of the
// connections a load's end cancels exit with it (their CPU gone), and the
// pool opens its connections in the load's first moments. Run it beside
// the load, in a goroutine of its own.
func measureCPU(db *testenv.DB, pid int, load time.Duration) cpuUse {
	const lead, tail = time.Second, 500 * time.Millisecond
	ctx := context.Background()
	time.Sleep(lead)
	start := time.Now()
	api0, _ := cpuTime(pid)
	db0, err := backendCPU(ctx, db)
	if err != nil {
		return cpuUse{err: err}
	}
	time.Sleep(load - lead - tail)
	api1, _ := cpuTime(pid)
	db1, err := backendCPU(ctx, db)
	if err != nil {
		return cpuUse{err: err}
	}
	u := cpuUse{api: api1 - api0, window: time.Since(start), dbRead: len(db1) > 0}
	// A process first seen at the end spent all of its CPU within the
	// window; one gone by then is not counted.
	for p, t := range db1 {
		u.db += t - db0[p]
	}
	return u
}

func stop(cmd *exec.Cmd) {
	if cmd.ProcessState != nil {
		return
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		<-done
	}
}

func waitReady(b *testing.B, url string) {
	require.Eventually(b, func() bool {
		resp, err := http.Get(url)
		if err != nil {
			return false
		}
		_ = resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}, time.Minute, 50*time.Millisecond, url)
}

func freeAddr(b *testing.B) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(b, err)
	defer ln.Close()
	return ln.Addr().String()
}

// waitAllSettled waits until every durable consumer of every stream has
// nothing pending and nothing awaiting an ack, twice in a row.
func waitAllSettled(b *testing.B, c queue.NATSConfig) {
	login, err := c.Options()
	require.NoError(b, err)
	nc, err := nats.Connect(c.URL, login...)
	require.NoError(b, err)
	defer nc.Close()
	js, err := jetstream.New(nc)
	require.NoError(b, err)
	ctx := context.Background()
	quiet := 0
	require.Eventually(b, func() bool {
		lags, err := queue.ConsumerLags(ctx, js)
		settled := err == nil
		for _, l := range lags {
			settled = settled && l.Idle()
		}
		if settled {
			quiet++
		} else {
			quiet = 0
		}
		return quiet >= 3
	}, 15*time.Minute, 500*time.Millisecond, "the workers did not settle")
}

// memoryUsers is how many users memoryTurns spreads n turns over.
func memoryUsers(n int) int { return max(n/100, 1) }

// memoryTurns are n turns of 100 per user in sessions of 20, English and
// Chinese, with a presented list every tenth assistant turn, so every worker
// has work: the extractor and summarizer segment and extract, seen records.
func memoryTurns(n int) []events.Turn {
	zh := []string{"我最近在看《三体》，刘慈欣写得真好", "推荐几部科幻电影吧，我喜欢《星际穿越》", "周杰伦的《晴天》百听不厌"}
	out := makeTurns(n)
	for i := range out {
		u := i % memoryUsers(n)
		k := i / memoryUsers(n)
		out[i].UserID = fmt.Sprintf("u%04d", u)
		out[i].SessionID = fmt.Sprintf("s%04d-%d", u, k/20)
		if i%3 == 0 && out[i].Role == events.RoleUser {
			out[i].Content = fmt.Sprintf("%s（第%d次）", zh[i%len(zh)], i)
		}
	}
	return out
}
