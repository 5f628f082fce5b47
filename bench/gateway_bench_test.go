package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/openaitest"
	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/embed"
	"github.com/recallhq/recall/pkg/gateway"
	"github.com/recallhq/recall/pkg/search"
)

// The conversation every benchmark request sends: the caller's system
// message, an opening exchange, then a LoCoMo question as the last user
// message (the query the gateway reads the user's history with).
const (
	gatewaySystem  = "You are a friendly assistant. Answer briefly."
	gatewayOpening = "Hi! Can I ask you about something I told you before?"
	gatewayAck     = "Of course. What would you like to know?"
)

// gatewayReply is the fake upstream's fixed answer, in the pieces a
// streamed answer sends it in: a model's tokens arrive a few characters at
// a time.
var gatewayReply = []string{"From", " what", " you told", " me,", " it was", " in May,", " at the lake", " near your parents' place."}

// gatewaySessions numbers the benchmark's conversations, so that no two
// requests share a session.
var gatewaySessions atomic.Int64

// gatewaySamples is how many prompts with memory the fake upstream keeps to
// check, after the load, that they held the user's own history.
const gatewaySamples = 64

// BenchmarkGateway measures what the chat gateway (cmd/gateway, a process
// of its own) adds to a chat completion, next to the upstream called
// directly: a fake OpenAI-compatible server in this process that answers a
// fixed reply at once (streamed, in several chunks). 32 clients send the
// same requests, for BENCH_GATEWAY_SECONDS (10) a row: a short
// conversation ending with a LoCoMo question, each a new conversation of
// one of BENCH_GATEWAY_USERS (2000) users with 100 LoCoMo turns of
// history, so that memory on means the user's context with the question
// as its query, and all four turns of the exchange are published. The
// rows: direct; through the gateway with memory on; with no user
// (pass-through); streamed, to the first token and to the end, direct and
// with memory on; and direct and with memory on again, streamed and not, paced to
// BENCH_GATEWAY_PACED_RATE (200) requests a second in all, so that
// requests do not queue behind one another (a chat backend's users wait
// seconds for the model between requests). Target: a p99 overhead of at
// most 10 ms with memory on. The clients are Go code in this process, and
// share the two cores with the gateway, PostgreSQL and the fake, in every
// row alike.
//
// The bench checks that memory was on (the answers say so, and the fake
// saw the user's own history in the prompts it sampled) and that turns
// were published, and reports the gateway's CPU a request (which queueing
// does not inflate, unlike the latency), what became of the turns, and
// the gateway's resident memory after the load. Run it with
// OPS_PROFILING=true to profile the gateway on its OPS_ADDR as it runs.
func BenchmarkGateway(b *testing.B) {
	users := envInt("BENCH_GATEWAY_USERS", 2000)
	const perUser = 100
	seconds := envInt("BENCH_GATEWAY_SECONDS", 10)
	pace := float64(envInt("BENCH_GATEWAY_PACED_RATE", 200))
	const clients = 32
	texts, questions := locomoText(b)

	db := testenv.NewDB(b)
	loadStart := time.Now()
	loadHistories(b, db, users, perUser, texts, search.SharedAnalyzer(), embed.NewHashing(0), time.Now().Add(-time.Hour))
	fmt.Printf("gateway: loaded %d users x %d turns (%d messages and search entries) in %s\n",
		users, perUser, users*perUser, time.Since(loadStart).Round(time.Millisecond))

	up := newGatewayUpstream(b)
	gw := startGatewayBinary(b, db, up.URL()+"/v1")
	calls := gatewayCalls(b, users, questions, 4096)
	client := &http.Client{Transport: &http.Transport{MaxIdleConns: 4 * clients, MaxIdleConnsPerHost: 2 * clients, DisableCompression: true}}
	direct, through := up.URL()+"/v1/chat/completions", gw.url+"/v1/chat/completions"

	// One answer through the gateway, checked before any load.
	one := runChatLoad(b, client, chatLoad{url: through, calls: calls[:1], memory: true}, 1, 0)
	require.Equal(b, map[string]int{"on": 1}, one.memory, "the gateway read the memory")

	d := time.Duration(seconds) * time.Second
	row := func(l chatLoad) loadResult {
		gw.waitPublished(b)
		settle(b)
		runChatLoad(b, client, l, clients, time.Second) // warm-up: connections, caches
		gw.waitPublished(b)
		before, cpu := gw.metrics(b), processCPU(b, gw.cmd.Process.Pid)
		r := runChatLoad(b, client, l, clients, d)
		r.gatewayCPU = (processCPU(b, gw.cmd.Process.Pid) - cpu) / time.Duration(r.n)
		r.memoryRead = gw.metrics(b).meanSince(before, "recall_gateway_memory_seconds")
		end := time.Now()
		gw.waitPublished(b)
		r.drained = time.Since(end)
		after := gw.metrics(b)
		for _, o := range []string{"published", "dropped", "lost"} {
			r.turns[o] = after.value("recall_gateway_turns_total", "outcome", o) - before.value("recall_gateway_turns_total", "outcome", o)
		}
		return r
	}
	b.ResetTimer()
	for range b.N {
		rawPlain := row(chatLoad{url: direct, calls: calls, memory: true})
		withMemory := row(chatLoad{url: through, calls: calls, memory: true})
		passThrough := row(chatLoad{url: through, calls: calls, memory: false})
		rawStream := row(chatLoad{url: direct, calls: calls, memory: true, stream: true})
		streamMemory := row(chatLoad{url: through, calls: calls, memory: true, stream: true})
		pacedRaw := row(chatLoad{url: direct, calls: calls, memory: true, rate: pace})
		pacedMemory := row(chatLoad{url: through, calls: calls, memory: true, rate: pace})
		pacedRawStream := row(chatLoad{url: direct, calls: calls, memory: true, stream: true, rate: pace})
		pacedStreamMemory := row(chatLoad{url: through, calls: calls, memory: true, stream: true, rate: pace})
		gw.waitPublished(b)
		mem := rss(b, gw.cmd.Process.Pid)
		metrics := gw.metrics(b)

		// Memory was on: the answers say so (but a few whose read took
		// longer than GATEWAY_MEMORY_TIMEOUT on a busy machine, which the
		// lines count), and the prompts the fake upstream saw held the
		// user's own history.
		for _, r := range []loadResult{withMemory, streamMemory, pacedMemory, pacedStreamMemory} {
			require.GreaterOrEqual(b, r.memory["on"], r.n*99/100, "X-Recall-Memory of the answers with a user: %v", r.memory)
		}
		require.Equal(b, passThrough.n, passThrough.memory["off"], "X-Recall-Memory of the answers without a user: %v", passThrough.memory)
		sampled, held := up.historyShown(texts, perUser)
		require.Positive(b, held, "no prompt of %d sampled held the user's history", sampled)
		published := metrics.value("recall_gateway_turns_total", "outcome", "published")
		require.Positive(b, published, "the gateway published no turn")

		over := func(r loadResult, base loadResult) (p50, p99 float64) {
			return ms(r.p(50) - base.p(50)), ms(r.p(99) - base.p(99))
		}
		memP50, memP99 := over(withMemory, rawPlain)
		passP50, passP99 := over(passThrough, rawPlain)
		ttftP50, ttftP99 := ms(streamMemory.firstP(50)-rawStream.firstP(50)), ms(streamMemory.firstP(99)-rawStream.firstP(99))
		streamP50, streamP99 := over(streamMemory, rawStream)
		pacedP50, pacedP99 := over(pacedMemory, pacedRaw)
		pacedTTFT50, pacedTTFT99 := ms(pacedStreamMemory.firstP(50)-pacedRawStream.firstP(50)), ms(pacedStreamMemory.firstP(99)-pacedRawStream.firstP(99))
		fmt.Printf("  POST /v1/chat/completions, %d clients (Go, in this process), %ds a row; the upstream a fake in this process answering at once\n", clients, seconds)
		fmt.Printf("    direct to the upstream: p50 %.2f ms, p99 %.2f ms, %.0f req/s\n", ms(rawPlain.p(50)), ms(rawPlain.p(99)), rawPlain.rate)
		fmt.Printf("    through the gateway, memory on: p50 %.2f ms, p99 %.2f ms, %.0f req/s; overhead p50 %+.2f ms, p99 %+.2f ms (target p99 overhead <= 10 ms); %s; %d of %d prompts sampled held the user's history\n",
			ms(withMemory.p(50)), ms(withMemory.p(99)), withMemory.rate, memP50, memP99, withMemory.gateway(), held, sampled)
		fmt.Printf("    through the gateway, no user (pass-through): p50 %.2f ms, p99 %.2f ms, %.0f req/s; overhead p50 %+.2f ms, p99 %+.2f ms; %s\n",
			ms(passThrough.p(50)), ms(passThrough.p(99)), passThrough.rate, passP50, passP99, passThrough.gateway())
		fmt.Printf("    streamed (%d content chunks), direct: first token p50 %.2f ms, p99 %.2f ms; whole answer p50 %.2f ms, p99 %.2f ms; %.0f req/s\n",
			len(gatewayReply), ms(rawStream.firstP(50)), ms(rawStream.firstP(99)), ms(rawStream.p(50)), ms(rawStream.p(99)), rawStream.rate)
		fmt.Printf("    streamed through the gateway, memory on: first token p50 %.2f ms, p99 %.2f ms; whole answer p50 %.2f ms, p99 %.2f ms; %.0f req/s; overhead first token p50 %+.2f ms, p99 %+.2f ms (target p99 overhead <= 10 ms), whole answer p50 %+.2f ms, p99 %+.2f ms; %s\n",
			ms(streamMemory.firstP(50)), ms(streamMemory.firstP(99)), ms(streamMemory.p(50)), ms(streamMemory.p(99)), streamMemory.rate,
			ttftP50, ttftP99, streamP50, streamP99, streamMemory.gateway())
		fmt.Printf("    paced to %.0f req/s in all (each client every %s), so that requests do not queue; direct: p50 %.2f ms, p99 %.2f ms\n",
			pace, time.Duration(float64(clients)/pace*float64(time.Second)).Round(time.Millisecond), ms(pacedRaw.p(50)), ms(pacedRaw.p(99)))
		fmt.Printf("    paced, through the gateway, memory on: p50 %.2f ms, p99 %.2f ms, %.0f req/s; overhead p50 %+.2f ms, p99 %+.2f ms (target p99 overhead <= 10 ms); %s\n",
			ms(pacedMemory.p(50)), ms(pacedMemory.p(99)), pacedMemory.rate, pacedP50, pacedP99, pacedMemory.gateway())
		fmt.Printf("    paced, streamed, direct: first token p50 %.2f ms, p99 %.2f ms\n", ms(pacedRawStream.firstP(50)), ms(pacedRawStream.firstP(99)))
		fmt.Printf("    paced, streamed through the gateway, memory on: first token p50 %.2f ms, p99 %.2f ms; overhead first token p50 %+.2f ms, p99 %+.2f ms (target p99 overhead <= 10 ms); %s\n",
			ms(pacedStreamMemory.firstP(50)), ms(pacedStreamMemory.firstP(99)), pacedTTFT50, pacedTTFT99, pacedStreamMemory.gateway())
		fmt.Printf("  gateway: turns published %.0f (duplicate %.0f, already stored %.0f, dropped %.0f, lost %.0f); %d MB resident after the load (peak %d MB)\n",
			published, metrics.value("recall_gateway_turns_total", "outcome", "duplicate"), metrics.value("recall_gateway_turns_total", "outcome", "already_stored"),
			metrics.value("recall_gateway_turns_total", "outcome", "dropped"), metrics.value("recall_gateway_turns_total", "outcome", "lost"), mem.now>>20, mem.peak>>20)
		b.ReportMetric(ms(rawPlain.p(99)), "direct_p99_ms")
		b.ReportMetric(ms(withMemory.p(99)), "gateway_p99_ms")
		b.ReportMetric(memP99, "overhead_p99_ms")
		b.ReportMetric(memP50, "overhead_p50_ms")
		b.ReportMetric(passP99, "passthrough_overhead_p99_ms")
		b.ReportMetric(ttftP99, "first_token_overhead_p99_ms")
		b.ReportMetric(pacedP99, "paced_overhead_p99_ms")
		b.ReportMetric(pacedTTFT99, "paced_first_token_overhead_p99_ms")
		b.ReportMetric(withMemory.rate, "gateway_req/s")
		b.ReportMetric(float64(withMemory.gatewayCPU.Microseconds()), "gateway_cpu_us/req")
		b.ReportMetric(float64(mem.now)/(1<<20), "gateway_MB")
	}
}

// gatewayCall is one prepared request: a user, the prefix of its
// conversations' sessions, and the bodies that send the conversation to
// the gateway or the upstream, naming the user in the protocol's "user"
// field as an OpenAI client does (or not, for the pass-through row), and
// streamed.
type gatewayCall struct {
	user, session          string
	body, anonymous, strmd []byte
}

// gatewayCalls prepares n requests for random users and LoCoMo questions,
// so that the clients spend no time building them.
func gatewayCalls(b *testing.B, users int, questions []string, n int) []gatewayCall {
	return gatewayCallsOf(b, func(rng *rand.Rand) string { return fmt.Sprintf("u%d", rng.IntN(users)) }, questions, n)
}

// gatewayCallsOf is gatewayCalls with each request's user picked by user.
func gatewayCallsOf(b *testing.B, user func(*rand.Rand) string, questions []string, n int) []gatewayCall {
	type msg struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}
	type body struct {
		Model    string `json:"model"`
		User     string `json:"user,omitempty"`
		Messages []msg  `json:"messages"`
		Stream   bool   `json:"stream,omitempty"`
	}
	rng := rand.New(rand.NewPCG(1, 2))
	out := make([]gatewayCall, n)
	for i := range out {
		user := user(rng)
		bd := body{Model: "gpt-4o-mini", User: user, Messages: []msg{{"system", gatewaySystem}, {"user", gatewayOpening},
			{"assistant", gatewayAck}, {"user", questions[rng.IntN(len(questions))]}}}
		plain, err := json.Marshal(bd)
		require.NoError(b, err)
		bd.Stream = true
		streamed, err := json.Marshal(bd)
		require.NoError(b, err)
		bd.Stream, bd.User = false, ""
		anonymous, err := json.Marshal(bd)
		require.NoError(b, err)
		out[i] = gatewayCall{user: user, session: "chat-" + user, body: plain, anonymous: anonymous, strmd: streamed}
	}
	return out
}

// chatLoad is one row of the benchmark: where the requests go, and how.
type chatLoad struct {
	url   string
	calls []gatewayCall
	// memory sends the user and session headers and the bodies naming the
	// user; without it the bodies name no user (the gateway passes them
	// through).
	memory bool
	// stream asks for streamed answers, timed to their first token too.
	stream bool
	// rate, when set, paces the clients to this many requests a second in
	// all, each at even intervals, so that requests do not queue behind one
	// another; without it each client sends its next request as soon as
	// its last is answered (the most the machine serves).
	rate float64
}

// loadResult is what one row measured.
type loadResult struct {
	n int
	// total are the requests' times to the end of the answer; first, for
	// streamed ones, to the first chunk with content. Both sorted.
	total, first []time.Duration
	rate         float64
	// memory counts the answers by their X-Recall-Memory header.
	memory map[string]int
	// memoryRead is the gateway's mean time to read the memory during the
	// row (recall_gateway_memory_seconds), and gatewayCPU the gateway
	// process's CPU time (user and system) a request: what it costs, apart
	// from what queueing on a busy machine adds to the latency.
	memoryRead, gatewayCPU time.Duration
	// turns counts the turns of the row's requests by what became of them
	// (published, dropped, lost), and drained is how long after the row's
	// end the gateway's publish queue was empty.
	turns   map[string]float64
	drained time.Duration
}

// gateway says what the gateway did for a row's requests: the memory they
// got and its time to read it, its CPU a request (during the load; the
// turns it publishes after the row's end are not counted), and what
// became of the turns.
func (r loadResult) gateway() string {
	cpu := fmt.Sprintf("the gateway's CPU %d µs a request", r.gatewayCPU.Microseconds())
	if r.memory["off"] == r.n {
		return "memory off for every answer; " + cpu
	}
	return fmt.Sprintf("memory on for %d of %d answers (%d unavailable: read in more than GATEWAY_MEMORY_TIMEOUT), read in %.2f ms on average; %s; turns published %.0f, dropped %.0f (publish queue full), lost %.0f, the queue empty %.1f s after the row",
		r.memory["on"], r.n, r.memory["unavailable"], ms(r.memoryRead), cpu, r.turns["published"], r.turns["dropped"], r.turns["lost"], r.drained.Seconds())
}

// p is the total time's pth percentile.
func (r loadResult) p(p int) time.Duration { return percentile(r.total, p) }

// firstP is the time to the first token's pth percentile.
func (r loadResult) firstP(p int) time.Duration { return percentile(r.first, p) }

func percentile(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, len(sorted)*p/100)]
}

// runChatLoad sends l's requests from clients goroutines, each a request
// at a time (paced when l.rate is set), for d (at least one request
// each). Every answer must be a 200 with the whole answer (a stream to its
// [DONE]): a row that fails measures nothing.
func runChatLoad(b *testing.B, client *http.Client, l chatLoad, clients int, d time.Duration) loadResult {
	type result struct {
		total, first []time.Duration
		memory       map[string]int
		err          error
	}
	results := make([]result, clients)
	var interval time.Duration
	if l.rate > 0 {
		interval = time.Duration(float64(clients) / l.rate * float64(time.Second))
	}
	start := time.Now()
	deadline := start.Add(d)
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(c), uint64(start.UnixNano())))
			r := &results[c]
			r.memory = map[string]int{}
			next := start.Add(time.Duration(c) * interval / time.Duration(clients))
			for {
				if interval > 0 {
					time.Sleep(time.Until(next))
					// Behind its pace, a client sends at once, not in a burst.
					next = next.Add(interval)
					if now := time.Now(); next.Before(now) {
						next = now
					}
				}
				if len(r.total) > 0 && !time.Now().Before(deadline) {
					break
				}
				call := l.calls[rng.IntN(len(l.calls))]
				// Each request a new conversation of its user, so that
				// all its turns are new and published.
				session := fmt.Sprintf("%s-%d", call.session, gatewaySessions.Add(1))
				total, first, memory, err := chatOnce(client, l, call, session)
				if err != nil {
					r.err = err
					return
				}
				r.total = append(r.total, total)
				if l.stream {
					r.first = append(r.first, first)
				}
				r.memory[memory]++
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	out := loadResult{memory: map[string]int{}, turns: map[string]float64{}}
	for _, r := range results {
		require.NoError(b, r.err, l.url)
		out.total = append(out.total, r.total...)
		out.first = append(out.first, r.first...)
		for k, v := range r.memory {
			out.memory[k] += v
		}
	}
	slices.Sort(out.total)
	slices.Sort(out.first)
	out.n = len(out.total)
	out.rate = float64(out.n) / elapsed.Seconds()
	return out
}

// chatOnce sends one request, in session when it names its user, and
// reads its whole answer. It returns the time to the end of the answer,
// for a streamed one the time to its first chunk with content, and the
// answer's X-Recall-Memory header ("" from the upstream itself).
func chatOnce(client *http.Client, l chatLoad, c gatewayCall, session string) (total, first time.Duration, memory string, err error) {
	body := c.anonymous
	switch {
	case l.stream:
		body = c.strmd
	case l.memory:
		body = c.body
	}
	req, err := http.NewRequest(http.MethodPost, l.url, bytes.NewReader(body))
	if err != nil {
		return 0, 0, "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Tenant-ID", "bench")
	if l.memory {
		req.Header.Set(gateway.HeaderUser, c.user)
		req.Header.Set(gateway.HeaderSession, session)
	}
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return 0, 0, "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(resp.Body)
		return 0, 0, "", fmt.Errorf("status %d: %s", resp.StatusCode, msg)
	}
	if l.stream {
		first, err = firstToken(resp.Body, start)
	} else {
		_, err = io.Copy(io.Discard, resp.Body)
	}
	return time.Since(start), first, resp.Header.Get(gateway.HeaderMemory), err
}

// firstToken reads a streamed answer to its end and returns the time from
// start to its first chunk with content (the first chunk carries the role
// and empty content). A stream without content or without its closing
// [DONE] is an error.
func firstToken(body io.Reader, start time.Time) (time.Duration, error) {
	var first time.Duration
	done := false
	rd := bufio.NewReaderSize(body, 64<<10) // a line is one chunk
	for {
		line, err := rd.ReadSlice('\n')
		if data, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte("data:")); ok {
			data = bytes.TrimSpace(data)
			switch {
			case string(data) == "[DONE]":
				done = true
			case first == 0:
				var c struct {
					Choices []struct {
						Delta struct {
							Content string `json:"content"`
						} `json:"delta"`
					} `json:"choices"`
				}
				if json.Unmarshal(data, &c) == nil && len(c.Choices) > 0 && c.Choices[0].Delta.Content != "" {
					first = time.Since(start)
				}
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, err
		}
	}
	if first == 0 || !done {
		return 0, fmt.Errorf("a stream without content or [DONE] (content seen: %v)", first != 0)
	}
	return first, nil
}

// gatewayUpstream is the fake model API the gateway and the direct rows
// call: it answers every chat completion with gatewayReply at once, and
// keeps the first prompts that carry more than the caller's system
// message (the gateway's memory) to check afterwards.
type gatewayUpstream struct {
	*openaitest.Server
	taken   atomic.Int32
	mu      sync.Mutex
	samples []openaitest.Request
}

func newGatewayUpstream(b *testing.B) *gatewayUpstream {
	up := &gatewayUpstream{Server: openaitest.New(b, openaitest.WithoutRecording())}
	reply := openaitest.Reply{Chunks: gatewayReply}
	up.Respond(func(r openaitest.Request) openaitest.Reply {
		if len(r.Messages) > 0 && r.Messages[0].Role == "system" && r.Messages[0].Content != gatewaySystem && up.taken.Add(1) <= gatewaySamples {
			up.mu.Lock()
			up.samples = append(up.samples, r)
			up.mu.Unlock()
		}
		return reply
	})
	return up
}

// historyShown is how many prompts were sampled, and how many of them
// held one of their user's own turns (as loadHistories wrote them) in the
// system message: the memory the gateway added was the user's history.
func (up *gatewayUpstream) historyShown(texts []string, perUser int) (sampled, held int) {
	up.mu.Lock()
	defer up.mu.Unlock()
	for _, r := range up.samples {
		var body struct {
			User string `json:"user"`
		}
		var u int
		if json.Unmarshal(r.Body, &body) != nil || !strings.HasPrefix(body.User, "u") {
			continue
		}
		if _, err := fmt.Sscanf(body.User, "u%d", &u); err != nil {
			continue
		}
		system := r.Messages[0].Content
		for k := range perUser {
			if t := historyText(texts, u, k); strings.Contains(system, t[:min(len(t), 40)]) {
				held++
				break
			}
		}
	}
	return len(up.samples), held
}

// gatewayProcess is the gateway binary running for the benchmark.
type gatewayProcess struct {
	cmd      *exec.Cmd
	url, ops string
}

// startGatewayBinary builds the gateway binary and starts it against db, a
// JetStream server of its own and the upstream at upstream; it is stopped
// (SIGTERM) when the benchmark ends.
func startGatewayBinary(b *testing.B, db *testenv.DB, upstream string) *gatewayProcess {
	bin := b.TempDir()
	out, err := exec.Command("go", "build", "-o", bin+string(filepath.Separator), "../cmd/gateway").CombinedOutput()
	require.NoError(b, err, string(out))
	nt := testenv.NewNATS(b)
	addr, ops := freeAddr(b), freeAddr(b)
	cmd := exec.Command(filepath.Join(bin, "gateway"))
	cmd.Env = append(os.Environ(), "DATABASE_URL="+db.URL, "NATS_URL="+nt.URL, "GATEWAY_ADDR="+addr, "OPS_ADDR="+ops,
		"GATEWAY_UPSTREAM_URL="+upstream, "LOG_LEVEL=warn")
	cmd.Stderr = os.Stderr
	require.NoError(b, cmd.Start())
	b.Cleanup(func() { stop(cmd) })
	waitReady(b, "http://"+addr+"/readyz")
	waitReady(b, "http://"+ops+"/readyz")
	return &gatewayProcess{cmd: cmd, url: "http://" + addr, ops: "http://" + ops}
}

// userHZ is the unit of a process's CPU times in /proc/<pid>/stat: the
// kernel's USER_HZ, 100 on Linux.
const userHZ = 100

// processCPU is a process's CPU time so far, user and system, from
// /proc/<pid>/stat.
func processCPU(b *testing.B, pid int) time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	require.NoError(b, err)
	// The command name, in parentheses, may hold spaces: the fields are
	// counted after it. utime and stime are the stat's 14th and 15th.
	f := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
	require.Greater(b, len(f), 12)
	var utime, stime int64
	_, err = fmt.Sscan(f[11]+" "+f[12], &utime, &stime)
	require.NoError(b, err)
	return time.Duration(utime+stime) * time.Second / userHZ
}

// gatewayMetrics are the gateway's metrics as its operations server
// serves them.
type gatewayMetrics map[string]*dto.MetricFamily

// metrics reads the gateway's metrics from OPS_ADDR.
func (g *gatewayProcess) metrics(b *testing.B) gatewayMetrics {
	resp, err := http.Get(g.ops + "/metrics")
	require.NoError(b, err)
	defer resp.Body.Close()
	require.Equal(b, http.StatusOK, resp.StatusCode)
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	require.NoError(b, err)
	return fams
}

// waitPublished waits until the gateway's publish queue is empty, so that
// a row is not charged for publishing the turns of the one before.
func (g *gatewayProcess) waitPublished(b *testing.B) {
	require.Eventually(b, func() bool {
		return g.metrics(b).value("recall_gateway_publish_queue") == 0
	}, 5*time.Minute, 100*time.Millisecond, "the gateway's publish queue did not empty")
}

// value is the value of a counter or gauge's series with the given label
// (a name and a value), or of its only series; 0 when there is none.
func (m gatewayMetrics) value(name string, label ...string) float64 {
	f := m[name]
	if f == nil {
		return 0
	}
	for _, s := range f.GetMetric() {
		if len(label) == 2 && !slices.ContainsFunc(s.GetLabel(), func(l *dto.LabelPair) bool {
			return l.GetName() == label[0] && l.GetValue() == label[1]
		}) {
			continue
		}
		switch {
		case s.Counter != nil:
			return s.GetCounter().GetValue()
		case s.Gauge != nil:
			return s.GetGauge().GetValue()
		}
	}
	return 0
}

// meanSince is a histogram's mean over what it observed since before was
// read; 0 when it observed nothing.
func (m gatewayMetrics) meanSince(before gatewayMetrics, name string) time.Duration {
	sum, count := m.histogram(name)
	sum0, count0 := before.histogram(name)
	if count <= count0 {
		return 0
	}
	return time.Duration((sum - sum0) / float64(count-count0) * float64(time.Second))
}

// histogram is a histogram's sum and count.
func (m gatewayMetrics) histogram(name string) (float64, uint64) {
	f := m[name]
	if f == nil || len(f.GetMetric()) == 0 {
		return 0, 0
	}
	h := f.GetMetric()[0].GetHistogram()
	return h.GetSampleSum(), h.GetSampleCount()
}
