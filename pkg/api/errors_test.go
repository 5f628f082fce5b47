package api_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/api"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/store"
)

// A path served for other methods answers 405 with Allow, not 404.
func TestWrongMethodIs405(t *testing.T) {
	t.Parallel()
	b := setup(t)
	res := b.do(t, http.MethodGet, "/v1/turns", "t", nil)
	require.Equal(t, http.StatusMethodNotAllowed, res.Status, string(res.Body))
	require.Contains(t, string(res.Body), "method_not_allowed")
	res = b.do(t, http.MethodPut, "/v1/sessions/s1", "t", nil)
	require.Equal(t, http.StatusMethodNotAllowed, res.Status)
	require.Equal(t, http.StatusNotFound, b.do(t, http.MethodGet, "/v1/nothing", "t", nil).Status)
}

// A POST body that says it is not JSON is refused naming Content-Type, and
// nothing is published.
func TestNonJSONBodyIs415(t *testing.T) {
	t.Parallel()
	b := setup(t)
	body := []byte(`{"id":"1","user_id":"u","session_id":"s","occurred_at":"2026-11-22T11:00:00Z","role":"user","content":"hi"}`)
	res := b.do(t, http.MethodPost, "/v1/turns", "t", body, "Content-Type", "text/plain")
	require.Equal(t, http.StatusUnsupportedMediaType, res.Status, string(res.Body))
	require.Equal(t, []string{"Content-Type"}, requireFields(t, res, http.StatusUnsupportedMediaType))
	res = b.do(t, http.MethodPost, "/v1/turns", "t", body, "Content-Type", "application/json; charset=utf-8")
	require.Equal(t, http.StatusAccepted, res.Status, string(res.Body))
}

// With PostgreSQL out of reach a read answers 503 (retry), not 500.
func TestDatabaseDownIs503(t *testing.T) {
	t.Parallel()
	db := testenv.NewDB(t)
	nt := testenv.NewNATS(t)
	proxy := newTCPProxy(t, "127.0.0.1:5432")
	cfg, err := pgx.ParseConfig(db.URL)
	require.NoError(t, err)
	url := strings.Replace(db.URL, "127.0.0.1:5432", proxy.addr(), 1)
	require.Contains(t, url, cfg.Database)
	st, err := store.Open(context.Background(), store.Config{URL: url, MaxConns: 2})
	require.NoError(t, err)
	t.Cleanup(st.Close)
	srv, err := api.New(api.Options{Config: api.Config{}, Limits: events.DefaultLimits, Store: st, JS: nt.JS, Log: testenv.Logger(t)})
	require.NoError(t, err)
	h := srv.Handler(nil)
	get := func() int {
		req, _ := http.NewRequest(http.MethodGet, "/v1/context?user_id=u&session_id=s", nil)
		req.Header.Set("X-Tenant-ID", "t")
		rec := newRecorder()
		h.ServeHTTP(rec, req)
		return rec.code
	}
	require.Equal(t, http.StatusOK, get())
	proxy.close()
	st.Pool().Reset()
	require.Equal(t, http.StatusServiceUnavailable, get())
}

type recorder struct {
	header http.Header
	code   int
}

func newRecorder() *recorder                    { return &recorder{header: http.Header{}, code: http.StatusOK} }
func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) Write(b []byte) (int, error) { return len(b), nil }
func (r *recorder) WriteHeader(code int)        { r.code = code }

// tcpProxy forwards connections to a server until closed, which takes the
// server away as a crash or a network cut would.
type tcpProxy struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func newTCPProxy(t *testing.T, target string) *tcpProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &tcpProxy{ln: ln}
	t.Cleanup(p.close)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			u, err := net.DialTimeout("tcp", target, 5*time.Second)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, u)
			p.mu.Unlock()
			go func() { _, _ = io.Copy(u, c); u.Close() }()
			go func() { _, _ = io.Copy(c, u); c.Close() }()
		}
	}()
	return p
}

func (p *tcpProxy) addr() string { return p.ln.Addr().String() }

func (p *tcpProxy) close() {
	p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}
