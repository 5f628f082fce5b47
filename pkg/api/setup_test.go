package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/recallhq/recall/pkg/queue"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/openapitest"
	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/api"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/memory"
	"github.com/recallhq/recall/pkg/service"
	"github.com/recallhq/recall/pkg/store"
	"github.com/recallhq/recall/pkg/workers/ingest"
)

// testNow is the API's clock in every test: TTL and future-skew rules are judged
// against it, never against the machine's time.
var testNow = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// bundle is what a test needs: the API over HTTP and the real components behind it.
type bundle struct {
	srv  *httptest.Server
	api  *api.Server
	reg  *prometheus.Registry
	db   *testenv.DB
	nats *testenv.NATS
	js   jetstream.JetStream
}

type options struct {
	cfg    api.Config
	limits events.Limits
	ingest bool
	ready  []service.Check
}

type option func(*options)

// withIngest runs the real ingest worker on the test's stream and database.
func withIngest(o *options) { o.ingest = true }

func withConfig(f func(*api.Config)) option { return func(o *options) { f(&o.cfg) } }

func withLimits(f func(*events.Limits)) option { return func(o *options) { f(&o.limits) } }

func withReady(checks ...service.Check) option {
	return func(o *options) { o.ready = append(o.ready, checks...) }
}

// setup starts a fresh database and JetStream server, the API on them (clock fixed
// at testNow), and optionally the ingest worker.
func setup(t *testing.T, opts ...option) *bundle {
	t.Helper()
	o := options{
		cfg: api.Config{
			MaxBodyBytes: 8 << 20, MaxBatch: 500,
			Config: memory.Config{ContextMaxMessages: 10, ContextMaxChars: 4000, ContextTTL: 24 * time.Hour, ContextLang: "auto"},
		},
		limits: events.DefaultLimits,
	}
	for _, f := range opts {
		f(&o)
	}
	db := testenv.NewDB(t)
	nt := testenv.NewNATS(t)
	reg := prometheus.NewRegistry()
	srv, err := api.New(api.Options{
		Config: o.cfg, Limits: o.limits, Store: db.Store, JS: nt.JS, Log: testenv.Logger(t),
		Registry: reg, Now: func() time.Time { return testNow }, Ready: o.ready,
	})
	require.NoError(t, err)
	hs := httptest.NewServer(openapitest.Handler(t, openAPIDoc(t), srv.Handler(reg)))
	t.Cleanup(hs.Close)
	if o.ingest {
		startIngest(t, db, nt, o.limits)
	}
	return &bundle{srv: hs, api: srv, reg: reg, db: db, nats: nt, js: nt.JS}
}

// startIngest runs the real ingest worker until the test ends, and checks that it
// drains cleanly.
func startIngest(t *testing.T, db *testenv.DB, nt *testenv.NATS, limits events.Limits) {
	t.Helper()
	testenv.StartWorker(t, nt, db, ingest.Def, nil, testenv.WithLimits(limits))
}

// response is an HTTP answer, read whole.
type response struct {
	Status int
	Header http.Header
	Body   []byte
}

// do sends a request as tenant (no X-Tenant-ID when empty). hdr adds headers as
// name, value pairs.
func (b *bundle) do(t *testing.T, method, path, tenant string, body []byte, hdr ...string) response {
	t.Helper()
	res, err := b.send(t.Context(), method, path, tenant, body, hdr...)
	require.NoError(t, err)
	return res
}

// send is do without failing the test, for conditions polled by require.Eventually
// (which runs them on another goroutine).
func (b *bundle) send(ctx context.Context, method, path, tenant string, body []byte, hdr ...string) (response, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, b.srv.URL+path, rd)
	if err != nil {
		return response{}, err
	}
	if tenant != "" {
		req.Header.Set("X-Tenant-ID", tenant)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := b.srv.Client().Do(req)
	if err != nil {
		return response{}, err
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		return response{}, err
	}
	return response{Status: res.StatusCode, Header: res.Header, Body: data}, nil
}

func (b *bundle) get(t *testing.T, tenant, path string) response {
	t.Helper()
	return b.do(t, http.MethodGet, path, tenant, nil)
}

// post sends turns: a single turn as an object, several (or none) as an array.
func (b *bundle) post(t *testing.T, tenant string, turns ...turn) response {
	t.Helper()
	var v any = turns
	if len(turns) == 1 {
		v = turns[0]
	}
	return b.do(t, http.MethodPost, "/v1/turns", tenant, mustJSON(t, v))
}

// postOK posts turns and requires every one to be accepted as new.
func (b *bundle) postOK(t *testing.T, tenant string, turns ...turn) []acceptedTurn {
	t.Helper()
	res := b.post(t, tenant, turns...)
	require.Equal(t, http.StatusAccepted, res.Status, string(res.Body))
	acc := decode[acceptedBody](t, res).Accepted
	require.Len(t, acc, len(turns))
	for i, a := range acc {
		require.Equal(t, turns[i]["id"], a.ID)
		require.False(t, a.Duplicate, a.ID)
		require.NotZero(t, a.Sequence, a.ID)
	}
	return acc
}

// turn is a turn as a producer writes it; a map so that tests can send anything.
type turn map[string]any

// newTurn is a valid user turn of tenant-less body (the API fills the tenant).
func newTurn(id, user, session, content string, at time.Time) turn {
	return turn{"id": id, "user_id": user, "session_id": session, "occurred_at": at.Format(time.RFC3339Nano), "role": "user", "content": content}
}

func (tn turn) with(kv ...any) turn {
	out := turn{}
	for k, v := range tn {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		k := kv[i].(string)
		if kv[i+1] == nil {
			delete(out, k)
			continue
		}
		out[k] = kv[i+1]
	}
	return out
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

func decode[T any](t *testing.T, res response) T {
	t.Helper()
	var v T
	require.NoError(t, json.Unmarshal(res.Body, &v), string(res.Body))
	return v
}

// Wire formats, spelled out here so that the tests pin the JSON contract rather
// than whatever the Go types happen to marshal to.
type (
	acceptedTurn struct {
		ID        string `json:"id"`
		Sequence  uint64 `json:"sequence"`
		Duplicate bool   `json:"duplicate"`
	}
	acceptedBody struct {
		Accepted []acceptedTurn `json:"accepted"`
	}
	errorBody struct {
		Error struct {
			Code    string              `json:"code"`
			Message string              `json:"message"`
			Fields  []events.FieldError `json:"fields"`
		} `json:"error"`
	}
	messageBody struct {
		ID         string          `json:"id"`
		SessionID  string          `json:"session_id"`
		UserID     string          `json:"user_id"`
		SiteID     string          `json:"site_id"`
		AgentID    string          `json:"agent_id"`
		Role       string          `json:"role"`
		Content    string          `json:"content"`
		ToolCalls  json.RawMessage `json:"tool_calls"`
		Items      json.RawMessage `json:"items"`
		Metadata   json.RawMessage `json:"metadata"`
		OccurredAt time.Time       `json:"occurred_at"`
	}
	sessionBody struct {
		SessionID      string        `json:"session_id"`
		UserID         string        `json:"user_id"`
		SiteID         string        `json:"site_id"`
		AgentID        string        `json:"agent_id"`
		MessageCount   int64         `json:"message_count"`
		FirstMessageAt time.Time     `json:"first_message_at"`
		LastMessageAt  time.Time     `json:"last_message_at"`
		Recent         []messageBody `json:"recent_messages"`
	}
	messagesBody struct {
		Messages   []messageBody `json:"messages"`
		NextCursor string        `json:"next_cursor"`
	}
	contextBody struct {
		UserID    string `json:"user_id"`
		SessionID string `json:"session_id"`
		Lang      string `json:"lang"`
		Limits    struct {
			MaxMessages int `json:"max_messages"`
			MaxChars    int `json:"max_chars"`
		} `json:"limits"`
		TTL    string `json:"ttl"`
		Window struct {
			Messages  []messageBody `json:"messages"`
			Chars     int           `json:"chars"`
			Truncated bool          `json:"truncated"`
			Cuts      []struct {
				Reason string `json:"reason"`
				Count  int64  `json:"count"`
			} `json:"cuts"`
		} `json:"window"`
		Prompt string `json:"prompt"`
	}
)

// requireFields checks an error answer and returns the names of its fields, in
// order. Every field error must say what is wrong.
func requireFields(t *testing.T, res response, status int) []string {
	t.Helper()
	require.Equal(t, status, res.Status, string(res.Body))
	require.Equal(t, "application/json", res.Header.Get("Content-Type"))
	e := decode[errorBody](t, res)
	require.NotEmpty(t, e.Error.Code)
	require.NotEmpty(t, e.Error.Message)
	names := make([]string, len(e.Error.Fields))
	for i, f := range e.Error.Fields {
		require.NotEmpty(t, f.Message, "field %s", f.Field)
		names[i] = f.Field
	}
	return names
}

func requireCode(t *testing.T, res response, status int, code string) {
	t.Helper()
	require.Equal(t, status, res.Status, string(res.Body))
	require.Equal(t, code, decode[errorBody](t, res).Error.Code)
}

func ids(msgs []messageBody) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.ID
	}
	return out
}

func contents(msgs []messageBody) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.Content
	}
	return out
}

func sessionPath(id string, rest ...string) string {
	p := "/v1/sessions/" + url.PathEscape(id)
	for _, r := range rest {
		p += "/" + r
	}
	return p
}

func contextPath(user, session string, params ...string) string {
	q := url.Values{}
	if user != "" {
		q.Set("user_id", user)
	}
	if session != "" {
		q.Set("session_id", session)
	}
	for i := 0; i+1 < len(params); i += 2 {
		q.Set(params[i], params[i+1])
	}
	return "/v1/context?" + q.Encode()
}

// streamMsgs is how many turns the turn stream holds.
func (b *bundle) streamMsgs(t *testing.T) uint64 {
	t.Helper()
	s, err := b.js.Stream(t.Context(), queue.TurnsStream)
	require.NoError(t, err)
	info, err := s.Info(t.Context())
	require.NoError(t, err)
	return info.State.Msgs
}

// subjectMsgs is how many turns the stream holds for one tenant/user/session.
func (b *bundle) subjectMsgs(t *testing.T, tenant, user, session string) uint64 {
	t.Helper()
	subj := events.TurnSubject(tenant, user, session)
	s, err := b.js.Stream(t.Context(), queue.TurnsStream)
	require.NoError(t, err)
	info, err := s.Info(t.Context(), jetstream.WithSubjectFilter(subj))
	require.NoError(t, err)
	return info.State.Subjects[subj]
}

// waitIngested waits until the ingest worker has settled everything in the turn
// stream, and requires that it stored (not dead-lettered) all of it: what the API
// accepts, the worker must accept too.
func (b *bundle) waitIngested(t *testing.T) {
	t.Helper()
	ctx := t.Context()
	b.nats.WaitSettled(t, queue.TurnsStream, ingest.Def.Binding.Durable)
	dlq, err := b.js.Stream(ctx, queue.DLQStream)
	require.NoError(t, err)
	info, err := dlq.Info(ctx)
	require.NoError(t, err)
	require.Zero(t, info.State.Msgs, "ingest dead-lettered turns the API accepted")
}

// dbCount counts rows of a table for a tenant (and session, when given), straight
// from the database.
func (b *bundle) dbCount(t *testing.T, table, tenant, session string) int {
	t.Helper()
	var n int
	q := fmt.Sprintf(`SELECT count(*) FROM %s WHERE tenant_id = $1 AND ($2 = '' OR session_id = $2)`, table)
	require.NoError(t, b.db.Store.Pool().QueryRow(t.Context(), q, tenant, session).Scan(&n))
	return n
}

// insert stores turns directly, as the ingest worker would after validation.
func (b *bundle) insert(t *testing.T, turns ...events.Turn) {
	t.Helper()
	st := make([]store.StoredTurn, len(turns))
	for i := range turns {
		require.NoError(t, events.ValidateTurn(&turns[i], events.ValidateOptions{Limits: events.DefaultLimits}))
		st[i] = store.StoredTurn{Turn: turns[i], Seq: uint64(i + 1)}
	}
	_, err := b.db.Store.InsertTurns(t.Context(), st)
	require.NoError(t, err)
}
