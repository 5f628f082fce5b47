package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/openaitest"
	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/access"
	"github.com/recallhq/recall/pkg/api"
	"github.com/recallhq/recall/pkg/contract"
	"github.com/recallhq/recall/pkg/envconfig"
	"github.com/recallhq/recall/pkg/gateway"
	"github.com/recallhq/recall/pkg/memory"
	"github.com/recallhq/recall/pkg/natsserver"
	"github.com/recallhq/recall/pkg/record"
	"github.com/recallhq/recall/pkg/store"
	"github.com/recallhq/recall/pkg/workers/ingest"
	"github.com/recallhq/recall/pkg/workers/signals"
)

const tenant = "acme"

// rig is the gateway on a real database and JetStream server with the
// ingest worker running, in front of a fake upstream.
type rig struct {
	db   *testenv.DB
	nt   *testenv.NATS
	up   *openaitest.Server
	mem  *memory.Service
	reg  *prometheus.Registry
	url  string
	stop func()
}

type rigOptions struct {
	cfg  gateway.Config
	keys string
	// store replaces the database the memory reads (a dead one).
	store *store.Store
}

func newRig(t *testing.T, tune ...func(*rigOptions)) *rig {
	t.Helper()
	r := &rig{db: testenv.NewDB(t), nt: testenv.NewNATS(t), up: openaitest.New(t), reg: prometheus.NewRegistry()}
	testenv.StartWorker(t, r.nt, r.db, ingest.Def, nil)
	o := rigOptions{cfg: gateway.Config{Addr: "127.0.0.1:0", UpstreamURL: r.up.URL() + "/v1", MemoryTimeout: 3 * time.Second}}
	for _, f := range tune {
		f(&o)
	}
	st := r.db.Store
	if o.store != nil {
		st = o.store
	}
	var err error
	r.mem, err = api.NewMemory(api.MemoryOptions{Config: envconfig.Defaults[api.Config](), Store: st, JS: r.nt.JS, Log: testenv.Logger(t)})
	require.NoError(t, err)
	keys, err := access.ParseKeys(o.keys)
	require.NoError(t, err)
	gw, err := gateway.New(gateway.Options{Config: o.cfg, Memory: r.mem, Keys: keys, Log: testenv.Logger(t), Registry: r.reg})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	addr := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- gw.Task(testenv.Logger(t), r.reg, 10*time.Second, func(a string) { addr <- a })(ctx) }()
	r.url = "http://" + <-addr
	var once bool
	r.stop = func() {
		if once {
			return
		}
		once = true
		cancel()
		require.NoError(t, <-done)
	}
	t.Cleanup(r.stop)
	return r
}

// headers is a transport that adds headers to every request, as a client
// configured with default headers does.
type headers struct {
	h    http.Header
	base http.RoundTripper
}

func (h headers) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for k, vs := range h.h {
		req.Header[k] = vs
	}
	return h.base.RoundTrip(req)
}

// client is go-openai pointed at the gateway, as user in session.
func (r *rig) client(user, session string) *openai.Client {
	cfg := openai.DefaultConfig("sk-upstream-key")
	cfg.BaseURL = r.url + "/v1"
	h := http.Header{"X-Tenant-Id": {tenant}}
	if user != "" {
		h.Set(gateway.HeaderUser, user)
	}
	if session != "" {
		h.Set(gateway.HeaderSession, session)
	}
	cfg.HTTPClient = &http.Client{Transport: headers{h: h, base: http.DefaultTransport}}
	return openai.NewClientWithConfig(cfg)
}

// post sends a raw body to the chat route with headers as name, value pairs.
func (r *rig) post(t *testing.T, body string, hdr ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, r.url+"/v1/chat/completions", strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res, b
}

// rigWait bounds the waits for what the pipeline does after an answer (the
// gateway's publish, JetStream, the ingest worker): a second when the
// machine is idle, but once over 15 s on a loaded CI machine running every
// package's tests at once.
const rigWait = time.Minute

// messages waits until the session holds n messages and returns them.
func (r *rig) messages(t *testing.T, session string, n int) []record.Message {
	t.Helper()
	var msgs []record.Message
	require.Eventually(t, func() bool {
		var err error
		msgs, _, err = r.db.Store.Tenant(tenant).Messages(context.Background(), session, store.Cursor{}, 100)
		return err == nil && len(msgs) >= n
	}, rigWait, 20*time.Millisecond)
	require.Len(t, msgs, n)
	return msgs
}

// settled waits until the gateway has nothing left to publish and the
// ingest worker has stored what it published.
func (r *rig) settled(t *testing.T) {
	t.Helper()
	require.Eventually(t, func() bool {
		return testutil.ToFloat64(r.gauge(t, "recall_gateway_publish_queue")) == 0
	}, rigWait, 10*time.Millisecond)
	r.nt.WaitSettled(t, "RECALL_TURNS", "ingest")
}

func (r *rig) gauge(t *testing.T, name string) prometheus.Collector {
	mfs, err := r.reg.Gather()
	require.NoError(t, err)
	for _, mf := range mfs {
		if mf.GetName() == name {
			g := prometheus.NewGauge(prometheus.GaugeOpts{Name: name, Help: "copy"})
			g.Set(mf.GetMetric()[0].GetGauge().GetValue())
			return g
		}
	}
	t.Fatalf("no metric %s", name)
	return nil
}

// turns is recall_gateway_turns_total{outcome}.
func (r *rig) turns(t *testing.T, outcome string) float64 {
	t.Helper()
	mfs, err := r.reg.Gather()
	require.NoError(t, err)
	for _, mf := range mfs {
		if mf.GetName() != "recall_gateway_turns_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			if m.GetLabel()[0].GetValue() == outcome {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

var searchFilms = openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
	Name: "search_films", Description: "Search the catalogue",
	Parameters: json.RawMessage(`{"type":"object","properties":{"genre":{"type":"string"}}}`),
}}

// The film bot: a tool returns films, the assistant lists three, the user
// says "3", and the model upstream is told the real ref of the third.
func TestFilmBotSelectionReachesTheUpstreamWithTheRealRef(t *testing.T) {
	r := newRig(t)
	c := r.client("u1", "s1")
	ctx := t.Context()

	r.up.Enqueue(openaitest.Reply{ToolCalls: []openaitest.ToolCall{{ID: "call_1", Function: openaitest.FunctionCall{Name: "search_films", Arguments: `{"genre":"sci-fi"}`}}}})
	msgs := []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleSystem, Content: "You recommend films."},
		{Role: openai.ChatMessageRoleUser, Content: "Find me some sci-fi films"},
	}
	res, err := c.CreateChatCompletion(ctx, openai.ChatCompletionRequest{Model: "fake", Messages: msgs, Tools: []openai.Tool{searchFilms}})
	require.NoError(t, err)
	require.Len(t, res.Choices[0].Message.ToolCalls, 1)
	msgs = append(msgs, res.Choices[0].Message, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: "call_1",
		Content: `{"results":[{"id":"/mv/823D","title":"Dune"},{"id":"/mv/11AA","title":"Arrival"},{"id":"/mv/77BR","title":"Blade Runner 2049"}]}`})

	listed := "Here are three:\n1. **Dune** (2021), spice and sandworms\n2. **Arrival**, language as time\n3. **Blade Runner 2049**, replicants"
	r.up.Enqueue(openaitest.Reply{Content: listed})
	res, err = c.CreateChatCompletion(ctx, openai.ChatCompletionRequest{Model: "fake", Messages: msgs, Tools: []openai.Tool{searchFilms}})
	require.NoError(t, err)
	require.Equal(t, listed, res.Choices[0].Message.Content)
	msgs = append(msgs, res.Choices[0].Message)

	stored := r.messages(t, "s1", 2)
	require.Equal(t, "Find me some sci-fi films", stored[0].Content)
	require.Equal(t, listed, stored[1].Content)
	require.Contains(t, string(stored[1].ToolCalls), "/mv/77BR", "the tool's result is kept with its call")
	require.Contains(t, string(stored[1].ToolCalls), "search_films")
	sel, err := r.mem.Selection(ctx, tenant, "s1", 3)
	require.NoError(t, err)
	require.Equal(t, "/mv/77BR", sel.Ref(), "the reply's list is the session's current list")

	r.up.Enqueue(openaitest.Reply{Content: "Blade Runner 2049 it is."})
	msgs = append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: "3"})
	_, err = c.CreateChatCompletion(ctx, openai.ChatCompletionRequest{Model: "fake", Messages: msgs, Tools: []openai.Tool{searchFilms}})
	require.NoError(t, err)
	sent := r.up.ChatRequests()
	require.Len(t, sent, 3)
	last := sent[2].Messages
	require.Equal(t, "system", last[0].Role)
	require.True(t, strings.HasPrefix(last[0].Content, "You recommend films.\n\n"), "merged after the caller's system message")
	require.Contains(t, last[0].Content, "item 3")
	require.Contains(t, last[0].Content, "/mv/77BR")
	require.Len(t, last, len(msgs), "no message added: the memory is merged")

	stored = r.messages(t, "s1", 4)
	require.Equal(t, "3", stored[2].Content)
	require.JSONEq(t, `{"selection":{"n":3,"ref":"/mv/77BR"}}`, string(stored[2].Metadata), "what the pick meant is kept with it")
	require.Equal(t, "Blade Runner 2049 it is.", stored[3].Content)
	r.settled(t)
	require.Len(t, r.messages(t, "s1", 4), 4, "the resent history added nothing")
	require.Zero(t, r.turns(t, "lost")+r.turns(t, "dropped")+r.turns(t, "rejected"))
}

// A retried request, and the history resent with every request, store
// nothing twice.
func TestRetriedRequestStoresNothingTwice(t *testing.T) {
	r := newRig(t)
	r.up.SetDefault(openaitest.Reply{Content: "Kyoto in April is lovely."})
	body := `{"model":"fake","messages":[{"role":"user","content":"I'm planning a trip to Kyoto in April"}]}`
	for range 3 {
		res, b := r.post(t, body, "X-Tenant-ID", tenant, gateway.HeaderUser, "u1", gateway.HeaderSession, "s1")
		require.Equal(t, http.StatusOK, res.StatusCode, string(b))
		require.Equal(t, "on", res.Header.Get(gateway.HeaderMemory))
	}
	r.settled(t)
	msgs := r.messages(t, "s1", 2)
	require.Equal(t, "I'm planning a trip to Kyoto in April", msgs[0].Content)
	require.Equal(t, "Kyoto in April is lovely.", msgs[1].Content)
	require.Equal(t, float64(2), r.turns(t, "published"), "published once; the retries were known")
}

// Without a user the request passes through as it came, and nothing is
// stored; the response says memory was off.
func TestWithoutAUserTheRequestPassesThroughUntouched(t *testing.T) {
	r := newRig(t)
	r.up.SetDefault(openaitest.Reply{Content: "hello"})
	body := `{"model":"fake","temperature":0.2,"messages":[{"role":"user","content":"hi"}],"max_tokens":5}`
	res, b := r.post(t, body, "X-Tenant-ID", tenant)
	require.Equal(t, http.StatusOK, res.StatusCode, string(b))
	require.Equal(t, "off", res.Header.Get(gateway.HeaderMemory))
	sent := r.up.ChatRequests()
	require.Len(t, sent, 1)
	require.Equal(t, body, string(sent[0].Body), "byte for byte")
	require.Empty(t, sent[0].Header.Get("X-Tenant-Id"), "Recall's headers stay here")

	// The request's own "recall" object can turn memory off too, and is
	// taken out before the body goes upstream.
	res, b = r.post(t, `{"model":"fake","messages":[{"role":"user","content":"hi"}],"recall":{"memory":false}}`, "X-Tenant-ID", tenant, gateway.HeaderUser, "u1")
	require.Equal(t, http.StatusOK, res.StatusCode, string(b))
	require.Equal(t, "off", res.Header.Get(gateway.HeaderMemory))
	require.NotContains(t, string(r.up.ChatRequests()[1].Body), "recall")
	time.Sleep(200 * time.Millisecond)
	require.Zero(t, r.turns(t, "published"))
}

// The upstream's errors reach the caller as they are, and an exchange
// that failed stores nothing.
func TestUpstreamErrorsReachTheCallerAsTheyAre(t *testing.T) {
	r := newRig(t)
	r.up.Enqueue(openaitest.Reply{Status: http.StatusTooManyRequests, Message: "Rate limit reached", RetryAfter: "7"})
	res, b := r.post(t, `{"model":"fake","messages":[{"role":"user","content":"hi"}]}`, "X-Tenant-ID", tenant, gateway.HeaderUser, "u1", gateway.HeaderSession, "s1")
	require.Equal(t, http.StatusTooManyRequests, res.StatusCode)
	require.Equal(t, "7", res.Header.Get("Retry-After"))
	require.Contains(t, string(b), "Rate limit reached")

	// go-openai reads it as the API error it is.
	r.up.Enqueue(openaitest.Reply{Status: http.StatusBadRequest, Message: "Invalid 'temperature': decimal above maximum value."})
	_, err := r.client("u1", "s1").CreateChatCompletion(t.Context(), openai.ChatCompletionRequest{Model: "fake", Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "hi"}}})
	apiErr, ok := apiError(err)
	require.True(t, ok, "%v", err)
	require.Equal(t, http.StatusBadRequest, apiErr.HTTPStatusCode)
	require.Contains(t, apiErr.Message, "temperature")

	// An upstream that is not there: 502 in the protocol's words.
	r.up.Close()
	res, b = r.post(t, `{"model":"fake","messages":[{"role":"user","content":"hi"}]}`, "X-Tenant-ID", tenant, gateway.HeaderUser, "u1", gateway.HeaderSession, "s1")
	require.Equal(t, http.StatusBadGateway, res.StatusCode)
	require.Contains(t, string(b), `"code":"upstream_unavailable"`)
	r.settled(t)
	require.Zero(t, r.turns(t, "published"))
}

func apiError(err error) (*openai.APIError, bool) {
	var e *openai.APIError
	ok := err != nil && asAPIError(err, &e)
	return e, ok
}

func asAPIError(err error, target **openai.APIError) bool {
	for err != nil {
		if e, ok := err.(*openai.APIError); ok {
			*target = e
			return true
		}
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return false
		}
		err = u.Unwrap()
	}
	return false
}

// Malformed requests get a 400 naming the parameter, as the upstream would
// word it, and never reach the upstream.
func TestMalformedRequestsNameTheField(t *testing.T) {
	r := newRig(t)
	long := strings.Repeat("u", 200)
	cases := []struct {
		name, body string
		hdr        []string
		status     int
		param      any
	}{
		{"not JSON", `{"model":`, nil, 400, nil},
		{"not an object", `[1,2]`, nil, 400, nil},
		{"no messages", `{"model":"fake"}`, nil, 400, "messages"},
		{"empty messages", `{"model":"fake","messages":[]}`, nil, 400, "messages"},
		{"messages not an array", `{"model":"fake","messages":"hi"}`, nil, 400, "messages"},
		{"message not an object", `{"model":"fake","messages":["hi"]}`, nil, 400, "messages[0]"},
		{"no role", `{"model":"fake","messages":[{"content":"hi"}]}`, nil, 400, "messages[0].role"},
		{"unknown role", `{"model":"fake","messages":[{"role":"user","content":"a"},{"role":"robot","content":"hi"}]}`, nil, 400, "messages[1].role"},
		{"content a number", `{"model":"fake","messages":[{"role":"user","content":12}]}`, nil, 400, "messages[0].content"},
		{"tool calls not an array", `{"model":"fake","messages":[{"role":"assistant","tool_calls":{}}]}`, nil, 400, "messages[0].tool_calls"},
		{"stream not a boolean", `{"model":"fake","stream":"yes","messages":[{"role":"user","content":"hi"}]}`, nil, 400, "stream"},
		{"user not a string", `{"model":"fake","user":7,"messages":[{"role":"user","content":"hi"}]}`, nil, 400, "user"},
		{"invalid UTF-8", "{\"model\":\"fake\",\"messages\":[{\"role\":\"user\",\"content\":\"\xff\"}]}", nil, 400, nil},
		{"half a surrogate pair", `{"model":"fake","messages":[{"role":"user","content":"\ud83d"}]}`, nil, 400, nil},
		{"unknown recall field", `{"model":"fake","messages":[{"role":"user","content":"hi"}],"recall":{"sesion_id":"x"}}`, nil, 400, "recall"},
		{"item without ref", `{"model":"fake","messages":[{"role":"user","content":"hi"}],"recall":{"items":[{"title":"Dune"}]}}`, nil, 400, "recall.items[0].ref"},
		{"user id too long", `{"model":"fake","messages":[{"role":"user","content":"hi"}]}`, []string{gateway.HeaderUser, long}, 400, gateway.HeaderUser},
		{"body user too long", `{"model":"fake","user":"` + long + `","messages":[{"role":"user","content":"hi"}]}`, nil, 400, "user"},
		{"session with a control character", `{"model":"fake","messages":[{"role":"user","content":"hi"}],"recall":{"user_id":"u","session_id":"a\u0001b"}}`, nil, 400, "recall.session_id"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			hdr := append([]string{"X-Tenant-ID", tenant}, tc.hdr...)
			res, b := r.post(t, tc.body, hdr...)
			require.Equal(t, tc.status, res.StatusCode, string(b))
			var e struct {
				Error struct {
					Message string `json:"message"`
					Type    string `json:"type"`
					Param   any    `json:"param"`
				} `json:"error"`
			}
			require.NoError(t, json.Unmarshal(b, &e), string(b))
			require.Equal(t, "invalid_request_error", e.Error.Type)
			require.Equal(t, tc.param, e.Error.Param, e.Error.Message)
			require.NotEmpty(t, e.Error.Message)
		})
	}
	// A body cut short says so, and where.
	cut, b := r.post(t, `{"model":"x","messages":[`, "X-Tenant-ID", tenant)
	require.Equal(t, http.StatusBadRequest, cut.StatusCode)
	msg, _, _ := openAIError(t, b)
	require.Equal(t, "We could not parse the JSON body of your request. (body): malformed JSON, truncated: the body ends at offset 25, before its JSON object is complete.", msg)
	require.Empty(t, r.up.ChatRequests(), "nothing malformed went upstream")

	res, b := r.post(t, `{"model":"fake","messages":[{"role":"user","content":"hi"}]}`)
	require.Equal(t, http.StatusBadRequest, res.StatusCode)
	require.Contains(t, string(b), `"param":"X-Tenant-ID"`)

	res, _ = r.post(t, strings.Repeat(" ", 17<<20)+`{}`, "X-Tenant-ID", tenant)
	require.Equal(t, http.StatusRequestEntityTooLarge, res.StatusCode)
}

// With keys configured, the caller's key names its tenant: a wrong or
// missing key never reaches the upstream, whose key is the gateway's.
func TestKeysAreCheckedBeforeTheUpstreamIsCalled(t *testing.T) {
	const key = "acme-key-0123456789"
	r := newRig(t, func(o *rigOptions) { o.keys = tenant + ":" + key; o.cfg.UpstreamKey = "sk-server-side" })
	r.up.SetDefault(openaitest.Reply{Content: "ok"})
	body := `{"model":"fake","messages":[{"role":"user","content":"hi"}]}`
	res, b := r.post(t, body, "X-Tenant-ID", tenant)
	require.Equal(t, http.StatusUnauthorized, res.StatusCode, string(b))
	require.Contains(t, string(b), `"type":"authentication_error"`)
	res, _ = r.post(t, body, "X-Tenant-ID", tenant, "Authorization", "Bearer wrong-key-0123456789")
	require.Equal(t, http.StatusUnauthorized, res.StatusCode)
	res, _ = r.post(t, body, "X-Tenant-ID", "other", "Authorization", "Bearer "+key)
	require.Equal(t, http.StatusForbidden, res.StatusCode)
	require.Empty(t, r.up.ChatRequests())

	res, b = r.post(t, body, "X-Tenant-ID", tenant, "Authorization", "Bearer "+key)
	require.Equal(t, http.StatusOK, res.StatusCode, string(b))
	require.Equal(t, "Bearer sk-server-side", r.up.ChatRequests()[0].Header.Get("Authorization"), "the caller's Recall key is not forwarded")
}

// Without a server-side key the caller's Authorization is forwarded, and
// its Recall key travels in X-Recall-Key.
func TestCallersAuthorizationIsForwardedWithoutAServerKey(t *testing.T) {
	const key = "acme-key-0123456789"
	r := newRig(t, func(o *rigOptions) { o.keys = tenant + ":" + key })
	r.up.SetDefault(openaitest.Reply{Content: "ok"})
	body := `{"model":"fake","messages":[{"role":"user","content":"hi"}]}`
	res, _ := r.post(t, body, "X-Tenant-ID", tenant, "Authorization", "Bearer sk-callers-own")
	require.Equal(t, http.StatusUnauthorized, res.StatusCode)
	res, b := r.post(t, body, "X-Tenant-ID", tenant, "Authorization", "Bearer sk-callers-own", gateway.HeaderKey, "Bearer "+key)
	require.Equal(t, http.StatusOK, res.StatusCode, string(b))
	got := r.up.ChatRequests()[0].Header
	require.Equal(t, "Bearer sk-callers-own", got.Get("Authorization"))
	require.Empty(t, got.Get(gateway.HeaderKey))
}

// What the user said in one session reaches the prompt of another: the
// attributes set for the user, and the recalled past.
func TestMemoryReachesTheUpstreamPrompt(t *testing.T) {
	r := newRig(t)
	ctx := t.Context()
	testenv.StartWorker(t, r.nt, r.db, signals.Def, nil)
	_, err := r.mem.For(tenant).EditAttributes(ctx, "u1", contract.AttributeEdits{Edits: []contract.AttributeEdit{{Key: "name", Op: "put", Value: "Xiao Li"}}})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		a, err := r.mem.For(tenant).Attributes(ctx, "u1", false)
		return err == nil && len(a.Current) > 0
	}, rigWait, 20*time.Millisecond)

	r.up.SetDefault(openaitest.Reply{Content: "Sure."})
	res, b := r.post(t, `{"model":"fake","messages":[{"role":"user","content":"any dessert ideas for the weekend?"}]}`,
		"X-Tenant-ID", tenant, gateway.HeaderUser, "u1", gateway.HeaderSession, "s2")
	require.Equal(t, http.StatusOK, res.StatusCode, string(b))
	require.Equal(t, "on", res.Header.Get(gateway.HeaderMemory))
	sent := r.up.ChatRequests()[0].Messages
	require.Len(t, sent, 2)
	require.Equal(t, "system", sent[0].Role)
	require.Contains(t, sent[0].Content, "Xiao Li")
}

// When Recall's store is away the chat goes on without memory, within the
// memory's time budget, and says so.
func TestChatGoesOnWhenTheStoreIsAway(t *testing.T) {
	db := testenv.NewDB(t)
	dead, err := store.Open(context.Background(), store.Config{URL: db.URL, MaxConns: 2})
	require.NoError(t, err)
	dead.Close() // every read of it fails
	r := newRig(t, func(o *rigOptions) { o.store = dead; o.cfg.MemoryTimeout = 300 * time.Millisecond })
	r.up.SetDefault(openaitest.Reply{Content: "still here"})
	start := time.Now()
	res, b := r.post(t, `{"model":"fake","messages":[{"role":"user","content":"hi"}]}`, "X-Tenant-ID", tenant, gateway.HeaderUser, "u1", gateway.HeaderSession, "s1")
	require.Equal(t, http.StatusOK, res.StatusCode, string(b))
	require.Less(t, time.Since(start), 2*time.Second)
	require.Equal(t, "unavailable", res.Header.Get(gateway.HeaderMemory))
	require.Contains(t, string(b), "still here")
	require.Len(t, r.up.ChatRequests()[0].Messages, 1, "sent as it came")
}

// When the stream is away, the turns wait and are published once it is
// back; none is lost.
func TestTurnsWaitForTheStreamAndArePublishedWhenItIsBack(t *testing.T) {
	r := newRig(t)
	r.up.SetDefault(openaitest.Reply{Content: "noted"})
	port := r.nt.Server.Addr().(*net.TCPAddr).Port
	r.nt.Server.Shutdown()
	r.nt.Server.WaitForShutdown()
	res, b := r.post(t, `{"model":"fake","messages":[{"role":"user","content":"remember this"}]}`, "X-Tenant-ID", tenant, gateway.HeaderUser, "u1", gateway.HeaderSession, "s1")
	require.Equal(t, http.StatusOK, res.StatusCode, string(b))
	require.Eventually(t, func() bool { return r.turns(t, "retried") > 0 }, 20*time.Second, 50*time.Millisecond)
	srv, err := natsserver.Start(natsserver.Options{Port: port, StoreDir: r.nt.StoreDir})
	require.NoError(t, err)
	t.Cleanup(func() { srv.Shutdown(); srv.WaitForShutdown() })
	msgs := r.messages(t, "s1", 2)
	require.Equal(t, "remember this", msgs[0].Content)
	require.Zero(t, r.turns(t, "lost"))
}

// Streamed answers pass through as they arrive, tool calls included; the
// reply is stored once its stream has finished, with the calls it followed.
func TestStreamedAnswerPassesThroughAndIsStored(t *testing.T) {
	r := newRig(t)
	c := r.client("u1", "s1")
	read := func(req openai.ChatCompletionRequest) (string, []openai.ToolCall, time.Duration, time.Duration) {
		start := time.Now()
		stream, err := c.CreateChatCompletionStream(t.Context(), req)
		require.NoError(t, err)
		defer stream.Close()
		var (
			text  strings.Builder
			calls []openai.ToolCall
			first time.Duration
		)
		for {
			ch, err := stream.Recv()
			if err == io.EOF {
				break
			}
			require.NoError(t, err)
			if first == 0 {
				first = time.Since(start)
			}
			if len(ch.Choices) == 0 {
				continue
			}
			d := ch.Choices[0].Delta
			text.WriteString(d.Content)
			for _, tc := range d.ToolCalls {
				for len(calls) <= *tc.Index {
					calls = append(calls, openai.ToolCall{Type: openai.ToolTypeFunction})
				}
				if tc.ID != "" {
					calls[*tc.Index].ID = tc.ID
				}
				calls[*tc.Index].Function.Name += tc.Function.Name
				calls[*tc.Index].Function.Arguments += tc.Function.Arguments
			}
		}
		return text.String(), calls, first, time.Since(start)
	}

	r.up.Enqueue(openaitest.Reply{ToolCalls: []openaitest.ToolCall{{ID: "call_9", Function: openaitest.FunctionCall{Name: "search_films", Arguments: `{"genre":"drama"}`}}}})
	msgs := []openai.ChatCompletionMessage{{Role: "user", Content: "some dramas please"}}
	_, calls, _, _ := read(openai.ChatCompletionRequest{Model: "fake", Stream: true, Messages: msgs, Tools: []openai.Tool{searchFilms}})
	require.Len(t, calls, 1)
	require.Equal(t, `{"genre":"drama"}`, calls[0].Function.Arguments)
	msgs = append(msgs, openai.ChatCompletionMessage{Role: "assistant", ToolCalls: calls},
		openai.ChatCompletionMessage{Role: "tool", ToolCallID: "call_9", Content: `[{"url":"https://films.example/1","name":"Past Lives"},{"url":"https://films.example/2","name":"Aftersun"}]`})

	// The pieces arrive as the upstream sends them, not all at the end.
	listed := []string{"Two", " dramas:\n", "1. Past Lives\n", "2. Aftersun"}
	r.up.Enqueue(openaitest.Reply{Chunks: listed, ChunkDelay: 300 * time.Millisecond})
	text, _, first, total := read(openai.ChatCompletionRequest{Model: "fake", Stream: true, Messages: msgs, Tools: []openai.Tool{searchFilms}})
	require.Equal(t, strings.Join(listed, ""), text)
	require.Less(t, first, total-600*time.Millisecond, "the first piece came before the stream ended")

	stored := r.messages(t, "s1", 2)
	require.Equal(t, strings.Join(listed, ""), stored[1].Content)
	require.Contains(t, string(stored[1].ToolCalls), "Past Lives")
	sel, err := r.mem.Selection(t.Context(), tenant, "s1", 2)
	require.NoError(t, err)
	require.Equal(t, "https://films.example/2", sel.Ref())
}

// A client that closes at "[DONE]", before the upstream's body has ended,
// has the whole reply: it is stored, though the caller's going away ends
// the gateway's read of the upstream.
func TestStreamedAnswerStoredWhenTheCallerLeavesAtDone(t *testing.T) {
	r := newRig(t)
	c := r.client("u1", "s-done")
	r.up.Enqueue(openaitest.Reply{Content: "Past Lives is a quiet drama about two childhood friends.", LingerAfterDone: time.Hour})
	stream, err := c.CreateChatCompletionStream(t.Context(), openai.ChatCompletionRequest{Model: "fake", Stream: true,
		Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "tell me about Past Lives"}}})
	require.NoError(t, err)
	var text strings.Builder
	for {
		ch, err := stream.Recv()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		if len(ch.Choices) > 0 {
			text.WriteString(ch.Choices[0].Delta.Content)
		}
	}
	require.NoError(t, stream.Close())
	require.Equal(t, "Past Lives is a quiet drama about two childhood friends.", text.String())

	stored := r.messages(t, "s-done", 2)
	require.Equal(t, "tell me about Past Lives", stored[0].Content)
	require.Equal(t, text.String(), stored[1].Content)
}

// Other /v1 routes (the models) pass through.
func TestModelsPassThrough(t *testing.T) {
	r := newRig(t)
	req, _ := http.NewRequest(http.MethodGet, r.url+"/v1/models", nil)
	req.Header.Set("X-Tenant-ID", tenant)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	require.Equal(t, http.StatusOK, res.StatusCode, string(b))
	require.True(t, bytes.Contains(b, []byte(`"object":"list"`)), string(b))
}
