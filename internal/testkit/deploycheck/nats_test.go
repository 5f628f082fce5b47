package deploycheck

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/compose-spec/compose-go/v2/loader"
	"github.com/compose-spec/compose-go/v2/types"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/recallhq/recall/internal/testkit/openaitest"
	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/api"
	"github.com/recallhq/recall/pkg/envconfig"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/forget"
	"github.com/recallhq/recall/pkg/gateway"
	"github.com/recallhq/recall/pkg/queue"
	"github.com/recallhq/recall/pkg/service"
	"github.com/recallhq/recall/pkg/worker"
	"github.com/recallhq/recall/pkg/workers"
)

// natsUsers are the users of the RECALL account of a parsed config, by name.
func natsUsers(t *testing.T, opts *server.Options) map[string]*server.User {
	t.Helper()
	out := map[string]*server.User{}
	for _, u := range opts.Users {
		require.NotNil(t, u.Account, "user %s belongs to an account", u.Username)
		require.Equal(t, workers.NATSAccount, u.Account.Name, "user %s", u.Username)
		out[u.Username] = u
	}
	return out
}

// checkNATSUsers holds a parsed server config to the layout: the users of
// workers.NATSUsers and no other, in the RECALL account, each with its
// password variable and exactly its allow lists; no NKey users, no user
// without a password, no anonymous user.
func checkNATSUsers(t *testing.T, what string, opts *server.Options) {
	t.Helper()
	users := natsUsers(t, opts)
	require.Empty(t, opts.Nkeys, "%s: passwords only", what)
	require.Empty(t, opts.NoAuthUser, "%s: no one gets in without logging in", what)
	require.Empty(t, opts.Authorization, what)
	var want []string
	for _, u := range workers.NATSUsers() {
		want = append(want, u.Name)
		got, ok := users[u.Name]
		require.True(t, ok, "%s has no user %s (%s)", what, u.Name, u.For)
		require.Equal(t, NATSTestPassword(u.Name), got.Password, "%s: %s's password is $%s", what, u.Name, NATSPasswordVar(u.Name))
		require.NotNil(t, got.Permissions, "%s: %s has permissions", what, u.Name)
		require.NotNil(t, got.Permissions.Publish, "%s: %s", what, u.Name)
		require.NotNil(t, got.Permissions.Subscribe, "%s: %s", what, u.Name)
		require.Empty(t, got.Permissions.Publish.Deny, what)
		require.Empty(t, got.Permissions.Subscribe.Deny, what)
		require.Equal(t, u.Permissions.Publish, sorted(got.Permissions.Publish.Allow), "%s: what %s may publish (pkg/workers NATSUsers)", what, u.Name)
		require.Equal(t, u.Permissions.Subscribe, sorted(got.Permissions.Subscribe.Allow), "%s: what %s may subscribe to", what, u.Name)
	}
	require.ElementsMatch(t, want, keys(users), "%s: the users of the layout and no other", what)
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// deploy/nats.conf is the layout of pkg/workers' NATSUsers, user for
// user, subject for subject.
func TestNATSConfHoldsTheLayout(t *testing.T) {
	t.Parallel()
	checkNATSUsers(t, "deploy/nats.conf", LoadNATSConf(t))
}

// The cluster overlay's NATS (the chart's values) has the same users,
// their passwords from the Secret the workloads read.
func TestNATSValuesHoldTheLayout(t *testing.T) {
	t.Parallel()
	values := LoadNATSValues(t)
	require.NotEmpty(t, values.Config.Merge)
	// The chart renders the merge into the server config, << $VAR >> as
	// the variable itself.
	var merge any
	require.NoError(t, json.Unmarshal(values.Config.Merge, &merge))
	var raw bytes.Buffer
	enc := json.NewEncoder(&raw)
	enc.SetEscapeHTML(false) // the config's parser knows no \u escapes
	require.NoError(t, enc.Encode(merge))
	conf := regexp.MustCompile(`"<< (\$[A-Z0-9_]+) >>"`).ReplaceAllString(raw.String(), "$1")
	conf = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(conf), "{"), "}")
	checkNATSUsers(t, "deploy/k8s-cluster/nats-values.yaml", ParseNATSConf(t, conf, NATSTestEnv(conf)))

	var vars []string
	for _, u := range workers.NATSUsers() {
		v := NATSPasswordVar(u.Name)
		vars = append(vars, v)
		e, ok := values.Container.Env[v]
		require.True(t, ok, "nats-values.yaml: container.env %s", v)
		require.Equal(t, &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: NATSSecret}, Key: NATSSecretKey(u.Name)}, e.ValueFrom.SecretKeyRef, v)
	}
	require.ElementsMatch(t, vars, keys(values.Container.Env))
}

// docs/operations.md's table of users says, for each worker, what its Def
// says: where it reads and what it publishes; and has a row for every user.
func TestOperationsDocNamesTheLayout(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join(RepoRoot(), "docs", "operations.md"))
	require.NoError(t, err)
	rows := map[string][]string{}
	for _, line := range strings.Split(string(raw), "\n") {
		if m := regexp.MustCompile("^\\| `(recall-[a-z]+)` \\|").FindStringSubmatch(line); m != nil {
			rows[m[1]] = strings.Split(strings.Trim(line, "| "), " | ")
		}
	}
	for _, u := range workers.NATSUsers() {
		require.Contains(t, rows, u.Name, "docs/operations.md: a row for %s", u.Name)
	}
	subjects := regexp.MustCompile("`(recall\\.[a-z.>]+)`")
	for _, w := range workers.All {
		a := w.About()
		row := rows["recall-"+a.Name]
		require.Len(t, row, 4, a.Name)
		reads := "—"
		if a.Binding.Stream != "" {
			reads = "`" + a.Binding.Stream + "`, `" + a.Binding.Durable + "`"
		}
		require.Equal(t, reads, row[2], "docs/operations.md: where %s reads", a.Name)
		var got []string
		for _, m := range subjects.FindAllStringSubmatch(row[3], -1) {
			got = append(got, m[1])
		}
		require.ElementsMatch(t, a.Publishes, got, "docs/operations.md: what %s publishes", a.Name)
	}
}

// Compose gives the NATS server every user's password, and refuses to
// start without them rather than run NATS open or with a known password.
func TestComposeNATSPasswords(t *testing.T) {
	t.Parallel()
	p := LoadCompose(t)
	nats, err := p.GetService("nats")
	require.NoError(t, err)
	var want []string
	for _, u := range workers.NATSUsers() {
		v := NATSPasswordVar(u.Name)
		want = append(want, v)
		require.Equal(t, NATSTestPassword(u.Name), value(nats.Environment[v]), "the NATS service passes %s to nats.conf", v)
	}
	require.ElementsMatch(t, want, keys(nats.Environment), "the NATS service is given the users' passwords, and nothing else")
	dir := filepath.Join(RepoRoot(), "deploy")
	_, err = loader.LoadWithContext(context.Background(), types.ConfigDetails{
		WorkingDir: dir, ConfigFiles: []types.ConfigFile{{Filename: filepath.Join(dir, "compose.yaml")}}, Environment: types.Mapping{},
	}, func(o *loader.Options) { o.SetProjectName("recall", true) })
	require.ErrorContains(t, err, "RECALL_NATS_PASSWORD_")
	require.ErrorContains(t, err, "deploy/.env")
}

// logRecorder keeps what a process logs at warning and above, where a
// refused permission shows (queue.Connect logs the server's asynchronous
// errors).
type logRecorder struct {
	mu    sync.Mutex
	lines []string
}

func (r *logRecorder) logger(process string) *slog.Logger {
	return slog.New(&recordHandler{r: r, attrs: []slog.Attr{slog.String("process", process)}})
}

func (r *logRecorder) all() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.lines)
}

func (r *logRecorder) violations() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, l := range r.lines {
		if strings.Contains(strings.ToLower(l), "permission") {
			out = append(out, l)
		}
	}
	return out
}

type recordHandler struct {
	r     *logRecorder
	attrs []slog.Attr
}

func (h *recordHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelInfo }

func (h *recordHandler) Handle(_ context.Context, rec slog.Record) error {
	var b strings.Builder
	b.WriteString(rec.Message)
	for _, a := range h.attrs {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
	}
	rec.Attrs(func(a slog.Attr) bool { fmt.Fprintf(&b, " %s=%v", a.Key, a.Value); return true })
	h.r.mu.Lock()
	h.r.lines = append(h.r.lines, b.String())
	h.r.mu.Unlock()
	return nil
}

func (h *recordHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &recordHandler{r: h.r, attrs: append(slices.Clone(h.attrs), attrs...)}
}

func (h *recordHandler) WithGroup(string) slog.Handler { return h }

// layoutServer starts a JetStream server on deploy/nats.conf itself (its
// accounts, users and permissions; the test's port and store).
func layoutServer(t *testing.T) string {
	t.Helper()
	opts := LoadNATSConf(t)
	opts.Host, opts.Port, opts.HTTPPort = "127.0.0.1", -1, 0
	opts.StoreDir, opts.NoLog, opts.NoSigs = t.TempDir(), true, true
	if os.Getenv("XX_OPEN") != "" {
		for _, u := range opts.Users {
			u.Permissions = nil
		}
	}
	srv, err := server.NewServer(opts)
	require.NoError(t, err)
	go srv.Start()
	require.True(t, srv.ReadyForConnections(10*time.Second))
	t.Cleanup(func() { srv.Shutdown(); srv.WaitForShutdown() })
	return srv.ClientURL()
}

// login is how the process logs in as user on the layout server.
func login(url, user string) queue.NATSConfig {
	return queue.NATSConfig{URL: url, User: user, Password: NATSTestPassword(user)}
}

// TestRecallRunsOnTheNATSLayout runs Recall on deploy/nats.conf, every
// binary as its own user (the API, the gateway and each worker with its
// own connection, as their Deployments do), and drives every path that
// touches the bus: turns through the API and the gateway, a catalog and a
// shelf from an application (recall-producer), attribute edits, summaries
// asked for by ingest, the API and the idle sweep, dead letters written by
// each turn worker and re-driven, a session deleted and users forgotten by
// the API and by the operator's tools (recall-ops), a replay. Every
// consumer must drain and no process may be refused anything: a subject
// missing from a user's allow lists fails here, not in a cluster. Then the
// lists are shown to bite: what a user is not given is refused.
func TestRecallRunsOnTheNATSLayout(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	url := layoutServer(t)
	db := testenv.NewDB(t)
	rec := &logRecorder{}
	now := time.Now().UTC().Truncate(time.Second)

	// Each binary connects and declares the streams as deps.Open does.
	open := func(user string) (*nats.Conn, jetstream.JetStream, *slog.Logger) {
		log := rec.logger(user)
		nc, js, err := queue.Open(ctx, login(url, user), queue.DefaultStreamConfig, user, log)
		require.NoError(t, err, user)
		t.Cleanup(nc.Close)
		return nc, js, log
	}

	var tasks []service.Task
	env := map[string]string{
		"SUMMARY_SWEEP_INTERVAL": "200ms", "SUMMARY_IDLE_AFTER": "1s",
		"PROFILE_REFRESH_BUCKET": "1s", "PROFILER_DEBOUNCE_GRACE": "100ms",
	}
	for _, w := range workers.All {
		name := w.About().Name
		_, js, log := open("recall-" + name)
		cfg, err := w.Load(env)
		require.NoError(t, err)
		reg := prometheus.NewRegistry()
		d := &worker.Deps{Store: db.Store, JS: js, Registry: reg, Limits: events.DefaultLimits, Log: log}
		wt, err := worker.Tasks(ctx, d, queue.NewRunnerMetrics(reg), []worker.Config{cfg})
		require.NoError(t, err, name)
		tasks = append(tasks, wt...)
	}

	_, apiJS, apiLog := open("recall-api")
	apiReg := service.NewRegistry()
	srv, err := api.New(api.Options{Config: envconfig.Defaults[api.Config](), Store: db.Store, JS: apiJS, Registry: apiReg, Log: apiLog})
	require.NoError(t, err)
	apiHTTP := httptest.NewServer(srv.Handler(apiReg))
	t.Cleanup(apiHTTP.Close)

	_, gwJS, gwLog := open("recall-gateway")
	mem, err := api.NewMemory(api.MemoryOptions{Config: envconfig.Defaults[api.Config](), Store: db.Store, JS: gwJS, Log: gwLog})
	require.NoError(t, err)
	up := openaitest.New(t)
	gwReg := service.NewRegistry()
	gw, err := gateway.New(gateway.Options{Config: gateway.Config{Addr: "127.0.0.1:0", UpstreamURL: up.URL() + "/v1"}, Memory: mem, Registry: gwReg, Log: gwLog})
	require.NoError(t, err)
	gwAddr := make(chan string, 1)
	tasks = append(tasks, gw.Task(gwLog, gwReg, 5*time.Second, func(addr string) { gwAddr <- addr }))

	done := make(chan error, 1)
	go func() { done <- service.RunAll(ctx, tasks...) }()
	t.Cleanup(func() { cancel(); <-done })

	call := func(method, path string, body any, header ...string) (int, []byte) {
		t.Helper()
		var rd io.Reader
		if body != nil {
			b, err := json.Marshal(body)
			require.NoError(t, err)
			rd = bytes.NewReader(b)
		}
		req, err := http.NewRequestWithContext(ctx, method, apiHTTP.URL+path, rd)
		require.NoError(t, err)
		req.Header.Set("X-Tenant-ID", "acme")
		req.Header.Set("Content-Type", "application/json")
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		out, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, out
	}
	turn := func(user, session string, i int, at time.Time, content string) map[string]any {
		return map[string]any{"id": fmt.Sprintf("%s-%s-%d", user, session, i), "user_id": user, "session_id": session,
			"occurred_at": at.Format(time.RFC3339), "role": "user", "content": content}
	}

	// Turns through the API: a session long enough for ingest to ask for
	// its summary, with facts for the extractor (and so a profile refresh);
	// an idle one for the sweep; others to delete and to forget. One post
	// waits for the workers (the API reads the consumers' floors).
	var turns []map[string]any
	for i := range 12 {
		turns = append(turns, turn("u1", "s1", i, now.Add(-2*time.Hour+time.Duration(i)*time.Minute), "I just finished Dune by Frank Herbert and loved it, part "+fmt.Sprint(i)))
	}
	turns = append(turns, turn("u1", "s-idle", 0, now.Add(-time.Hour), "我最近在读刘慈欣的三体"),
		turn("u2", "s2", 0, now.Add(-time.Hour), "delete this session"),
		turn("u3", "s3", 0, now.Add(-time.Hour), "forget me"),
		turn("u4", "s4", 0, now.Add(-time.Hour), "forget me too"))
	status, body := call(http.MethodPost, "/v1/turns", turns)
	require.Equal(t, http.StatusAccepted, status, string(body))
	status, body = call(http.MethodPost, "/v1/turns?wait=searchable&timeout=10s", turn("u1", "s1", 99, now.Add(-time.Minute), "and Foundation next"))
	require.Equal(t, http.StatusAccepted, status, string(body))
	require.Contains(t, string(body), `"reached":true`)

	// A summary the API asks for, an attribute edit and a refresh.
	status, body = call(http.MethodPost, "/v1/sessions/s1/summarize?wait=20s", nil)
	require.Equal(t, http.StatusOK, status, string(body))
	status, body = call(http.MethodPut, "/v1/users/u1/attributes/location", map[string]any{"value": "杭州", "id": "loc-1", "occurred_at": now.Format(time.RFC3339)})
	require.Equal(t, http.StatusAccepted, status, string(body))
	status, body = call(http.MethodPost, "/v1/users/u1/interests/refresh", nil)
	require.Equal(t, http.StatusAccepted, status, string(body))

	// A turn through the gateway.
	gwURL := "http://" + <-gwAddr
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, gwURL+"/v1/chat/completions", strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"recommend me a novel"}]}`))
	require.NoError(t, err)
	req.Header.Set("X-Tenant-ID", "acme")
	req.Header.Set(gateway.HeaderUser, "u1")
	req.Header.Set(gateway.HeaderSession, "s-gw")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)

	// An application's catalog, shelf and a turn no worker can read.
	producerLog := rec.logger("recall-producer")
	pnc, pjs, err := queue.Connect(ctx, login(url, "recall-producer"), "recall-producer", producerLog)
	require.NoError(t, err)
	t.Cleanup(pnc.Close)
	pub := queue.NewPublisher(pjs)
	_, err = pub.PublishCatalogItems(ctx, []events.CatalogItem{{V: events.Version, ID: "cat-1", TenantID: "acme", OccurredAt: now.Add(-time.Hour),
		Ref: "/book/19F0", Type: "book", Title: "Dune", Attrs: json.RawMessage(`{"author":"Frank Herbert"}`)}})
	require.NoError(t, err)
	_, err = pub.PublishShelfEntries(ctx, []events.ShelfEntry{{V: events.Version, ID: "shelf-1", TenantID: "acme", UserID: "u1",
		OccurredAt: now.Add(-time.Hour), Ref: "/book/19F0", Status: events.ShelfRead}})
	require.NoError(t, err)
	_, err = pjs.Publish(ctx, events.TurnSubject("acme", "u1", "s-bad"), []byte(`{"id":"bad-1"}`))
	require.NoError(t, err)

	// The operator's tools.
	_, opsJS, opsLog := open("recall-ops")
	settled := func() bool {
		lags, err := queue.ConsumerLags(ctx, opsJS)
		if err != nil || len(lags) < 7 {
			return false
		}
		for _, l := range lags {
			if !l.Idle() {
				return false
			}
		}
		return true
	}
	deadLetters := func() map[string]int {
		out := map[string]int{}
		require.NoError(t, queue.ListDeadLetters(ctx, opsJS, "", func(e queue.DeadLetterEntry) error { out[e.Consumer]++; return nil }))
		return out
	}
	// (seen reads only the items a turn presented, and passes over the rest.)
	turnWorkers := map[string]int{"ingest": 1, "extractor": 1, "indexer": 1}
	lagsNow := func() string {
		lags, err := queue.ConsumerLags(ctx, opsJS)
		return fmt.Sprintf("%s (%v); dead letters %v; logged %v", queue.FormatLags(lags), err, deadLetters(), rec.all())
	}
	if !assert.Eventually(t, func() bool { return settled() && atLeast(deadLetters(), turnWorkers) }, 30*time.Second, 100*time.Millisecond,
		"every consumer drains, and each turn worker dead-letters the bad turn") {
		t.Fatal(lagsNow())
	}

	// The dead letters through the API: listed, and one re-driven (the turn
	// goes back on its subject, and the workers refuse it again).
	status, body = call(http.MethodGet, "/v1/ops/dead-letters", nil)
	require.Equal(t, http.StatusOK, status, string(body))
	var dl struct {
		DeadLetters []struct {
			Seq uint64 `json:"seq"`
		} `json:"dead_letters"`
	}
	require.NoError(t, json.Unmarshal(body, &dl))
	require.NotEmpty(t, dl.DeadLetters)
	status, body = call(http.MethodPost, fmt.Sprintf("/v1/ops/dead-letters/%d/redrive", dl.DeadLetters[0].Seq), nil)
	require.Equal(t, http.StatusOK, status, string(body))
	status, body = call(http.MethodGet, "/v1/ops/consumers", nil)
	require.Equal(t, http.StatusOK, status, string(body))
	status, body = call(http.MethodGet, "/v1/turns/u1-s1-99", nil)
	require.Equal(t, http.StatusOK, status, string(body))

	// A session deleted and a user forgotten by the API, another by the
	// tools (forget erases every stream's messages of the user).
	status, body = call(http.MethodDelete, "/v1/sessions/s2", nil)
	require.Equal(t, http.StatusNoContent, status, string(body))
	status, body = call(http.MethodDelete, "/v1/users/u3", nil)
	require.Equal(t, http.StatusOK, status, string(body))
	rep, err := forget.User(ctx, db.Store, opsJS, "acme", "u4")
	require.NoError(t, err)
	require.EqualValues(t, 1, rep.StreamMessages[queue.TurnsStream])

	// A replay of ingest by the tools, through its own consumer.
	ingest, err := workers.Get("ingest")
	require.NoError(t, err)
	cfg, err := ingest.Load(map[string]string{})
	require.NoError(t, err)
	reg := prometheus.NewRegistry()
	b, err := cfg.Build(ctx, &worker.Deps{Store: db.Store, JS: opsJS, Registry: reg, Limits: events.DefaultLimits, Log: opsLog})
	require.NoError(t, err)
	p, err := b.Binding.Replay(ctx, opsJS, queue.ReplayOptions{Consumer: b.Queue.Consumer, Runner: b.Queue.Runner}, b.Handler, opsLog, queue.NewRunnerMetrics(reg))
	require.NoError(t, err)
	require.NotZero(t, p.Done)

	require.Eventually(t, settled, time.Minute, 100*time.Millisecond)
	require.Empty(t, rec.violations(), "no process was refused anything")
	var summaries int
	require.NoError(t, db.Store.Pool().QueryRow(ctx, `SELECT count(DISTINCT session_id) FROM session_summaries`).Scan(&summaries))
	require.GreaterOrEqual(t, summaries, 2, "s1 (asked for) and the idle session (swept)")
	var gatewayTurns int
	require.NoError(t, db.Store.Pool().QueryRow(ctx, `SELECT count(*) FROM messages WHERE session_id = 's-gw'`).Scan(&gatewayTurns))
	require.Equal(t, 2, gatewayTurns, "the gateway's turns are stored: the user's and the answer")
	status, body = call(http.MethodGet, "/v1/users/u1/shelf", nil)
	require.Equal(t, http.StatusOK, status, string(body))
	require.Contains(t, string(body), "/book/19F0", "the application's shelf entry is stored")
	status, body = call(http.MethodGet, "/v1/users/u1/attributes", nil)
	require.Equal(t, http.StatusOK, status, string(body))
	require.Contains(t, string(body), "杭州", "the attribute edit is stored")

	// The lists bite: an application may not publish a task, a dead letter
	// or a stream of its own; a worker may not publish a turn, nor read
	// another's consumer.
	refused := &logRecorder{}
	for _, tc := range []struct {
		user string
		do   func(ctx context.Context, js jetstream.JetStream) error
	}{
		{"recall-producer", func(ctx context.Context, js jetstream.JetStream) error {
			_, err := js.Publish(ctx, events.ProfileTaskSubject("acme", "u1"), []byte(`{}`))
			return err
		}},
		{"recall-producer", func(ctx context.Context, js jetstream.JetStream) error {
			_, err := js.Publish(ctx, "recall.dlq.ingest.turns.acme.u1.s1", []byte(`{}`))
			return err
		}},
		{"recall-producer", func(ctx context.Context, js jetstream.JetStream) error {
			_, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "MINE", Subjects: []string{"_INBOX.>"}})
			return err
		}},
		{"recall-ingest", func(ctx context.Context, js jetstream.JetStream) error {
			_, err := js.Publish(ctx, events.TurnSubject("acme", "u1", "s1"), []byte(`{}`))
			return err
		}},
		{"recall-ingest", func(ctx context.Context, js jetstream.JetStream) error {
			_, err := js.Consumer(ctx, queue.TurnsStream, "extractor")
			return err
		}},
		{"recall-gateway", func(ctx context.Context, js jetstream.JetStream) error {
			s, err := js.Stream(ctx, queue.TurnsStream)
			if err == nil {
				err = s.SecureDeleteMsg(ctx, 1)
			}
			return err
		}},
	} {
		nc, js, err := queue.Connect(ctx, login(url, tc.user), tc.user, refused.logger(tc.user))
		require.NoError(t, err)
		sctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		err = tc.do(sctx, js)
		cancel()
		nc.Close()
		require.Error(t, err, tc.user)
	}
	require.Eventually(t, func() bool { return len(refused.violations()) >= 6 }, 5*time.Second, 20*time.Millisecond, "the server said why: %v", refused.violations())
}

// atLeast reports whether got has at least want's count for each of want's keys.
func atLeast(got, want map[string]int) bool {
	for k, n := range want {
		if got[k] < n {
			return false
		}
	}
	return true
}
