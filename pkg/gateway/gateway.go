// Package gateway is Recall's OpenAI-compatible front door: a chat backend
// that points its OpenAI client's base URL at it gets memory without
// calling Recall itself. For each chat completions request the gateway
// reads the memory for the request's user, session and last user message
// (the attributes and standing requests, the list the session shows, what the
// past holds that the message needs), adds it to the prompt as a system
// message, passes the request to the configured upstream (streamed or
// not, tools included) and, once the answer has gone back to the caller,
// publishes what is new in the conversation as turns: the user's message,
// the assistant's reply with its tool calls joined to their results, and
// the list the reply presents as items, so that "3" resolves to the real
// item later.
//
// It fails open: memory reads have a time budget, and when Recall's store
// or stream is slow or away the chat goes on without memory (a response
// header and a metric say so). Turns are published after the answer,
// retried within bounds, and counted and logged when given up on; the
// conversation's next request resends its history, and what is not stored
// yet is published then. Tenants and keys are the API's (pkg/access).
package gateway

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/recallhq/recall/pkg/access"
	"github.com/recallhq/recall/pkg/contract"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/httpbody"
	"github.com/recallhq/recall/pkg/memory"
	"github.com/recallhq/recall/pkg/service"
)

// Headers the gateway reads and writes besides the protocol's.
const (
	// HeaderUser, HeaderSession and HeaderAgent name who speaks, in which
	// conversation, to which persona (else the body's "recall" object or
	// its "user" field; a session without one is derived, see sessionOf).
	HeaderUser    = "X-Recall-User-ID"
	HeaderSession = "X-Recall-Session-ID"
	HeaderAgent   = "X-Recall-Agent-ID"
	// HeaderKey carries the caller's Recall key when its Authorization
	// header is forwarded to the upstream (no GATEWAY_UPSTREAM_API_KEY).
	HeaderKey = "X-Recall-Key"
	// HeaderMemory says what memory a chat request got: on, off (no user,
	// or turned off by the request), unavailable (Recall's store was
	// slow or away; the request went on without it) or refused (the
	// session belongs to another user of the tenant: nothing of it was
	// read, and nothing of the exchange is stored; HeaderMemoryReason
	// says so).
	HeaderMemory = "X-Recall-Memory"
	// HeaderMemoryReason says why memory was refused.
	HeaderMemoryReason = "X-Recall-Memory-Reason"
)

// Gateway is the OpenAI-compatible front door. It is safe for concurrent
// use.
type Gateway struct {
	cfg    Config
	mem    *memory.Service
	keys   *access.Keys
	limits events.Limits
	log    *slog.Logger
	m      *metrics
	reg    *prometheus.Registry
	client *http.Client
	// base is UpstreamURL, which every upstream route is joined to.
	base *url.URL
	pub  *publisher
	now  func() time.Time
}

// Options are the gateway's dependencies.
type Options struct {
	Config Config
	// Memory is the memory service it reads and writes through (the API's
	// in `recall run`; api.NewMemory in its own binary).
	Memory *memory.Service
	// Keys are the tenants' keys (API_KEYS); nil: authentication off.
	Keys     *access.Keys
	Log      *slog.Logger
	Registry *prometheus.Registry
	// Transport reaches the upstream; nil: a transport for many
	// concurrent calls to one host.
	Transport http.RoundTripper
	// Now is the clock for event times; nil means time.Now.
	Now func() time.Time
}

// New builds the gateway; a setting it cannot work with is an error here,
// at start.
func New(o Options) (*Gateway, error) {
	cfg := o.Config.withDefaults()
	if err := cfg.check(); err != nil {
		return nil, err
	}
	if o.Memory == nil {
		return nil, errors.New("gateway: no memory service")
	}
	g := &Gateway{cfg: cfg, mem: o.Memory, keys: o.Keys, limits: o.Memory.Limits(), log: o.Log, reg: o.Registry, now: o.Now}
	if g.log == nil {
		g.log = slog.New(slog.DiscardHandler)
	}
	if g.now == nil {
		g.now = time.Now
	}
	var reg prometheus.Registerer
	if o.Registry != nil {
		reg = o.Registry
	}
	g.m = newMetrics(reg)
	tr := o.Transport
	if tr == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.MaxIdleConns, t.MaxIdleConnsPerHost = 1024, 512
		tr = t
	}
	g.client = &http.Client{Transport: tr}
	g.base, _ = cfg.upstreamBase() // checked above
	g.pub = newPublisher(o.Memory, cfg, g.log, g.m, g.now)
	return g, nil
}

// Handler serves chat completions, the routes it passes to the upstream
// as they are (passRoutes: the models and embeddings), and /healthz,
// /readyz and /metrics. Any other path is a 404, and a path that could
// leave /v1 on the way to the upstream a 400 (checkedPaths); neither
// reaches the upstream. Its readiness does not depend on Recall's store or
// stream: without them the chat goes on without memory.
func (g *Gateway) Handler(reg *prometheus.Registry) http.Handler {
	if reg == nil {
		reg = g.reg
	}
	if reg == nil {
		reg = prometheus.NewRegistry()
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", g.measured("POST /v1/chat/completions", g.chat))
	for _, p := range passRoutes {
		mux.HandleFunc(p.pattern, g.measured(p.pattern, g.pass(p)))
	}
	service.RegisterOps(mux, reg)
	served := strings.Join(Routes, ", ")
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeOpenAIError(w, http.StatusNotFound, "invalid_request_error", "unknown_url", "",
			fmt.Sprintf("Unknown request URL: %s %s. The gateway serves %s; nothing else reaches the upstream.", r.Method, r.URL.Path, served))
	})
	return checkedPaths(mux)
}

// HTTP is the gateway's server on its address with its timeouts.
func (g *Gateway) HTTP(reg *prometheus.Registry) service.Server {
	return service.Server{Name: "gateway", Addr: g.cfg.Addr, Handler: g.Handler(reg), ReadTimeout: g.cfg.ReadTimeout, WriteTimeout: g.cfg.WriteTimeout}
}

// Task serves the gateway until ctx ends, then, once the server has
// finished its requests, publishes the turns still queued, within timeout;
// what is left then is counted as lost and logged. ready, when not nil, is
// told the bound address.
func (g *Gateway) Task(log *slog.Logger, reg *prometheus.Registry, timeout time.Duration, ready func(addr string)) service.Task {
	return func(ctx context.Context) error {
		pctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		defer cancel()
		g.pub.start(pctx)
		err := g.HTTP(reg).Serve(ctx, log, timeout, ready)
		drained := make(chan struct{})
		go func() { g.pub.drain(); close(drained) }()
		select {
		case <-drained:
		case <-time.After(timeout):
			cancel()
			<-drained
		}
		return err
	}
}

// measured wraps a route with its metrics.
func (g *Gateway) measured(route string, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		defer func() { g.m.observe(route, sw.status, time.Since(start)) }()
		h(sw, r)
	}
}

// authenticate reads the request's tenant as every Recall route does
// (access.Keys), its key from Authorization when the upstream key is the
// gateway's, else from X-Recall-Key; a refusal is worded as the OpenAI API
// words one.
func (g *Gateway) authenticate(w http.ResponseWriter, r *http.Request) (string, bool) {
	keyHeader := "Authorization"
	if g.cfg.UpstreamKey == "" {
		keyHeader = HeaderKey
	}
	tenant, d := g.keys.Request(r, keyHeader, g.mem.ValidID, g.limits.MaxIDBytes)
	if d == nil {
		return tenant, true
	}
	if d.Challenge != "" {
		w.Header().Set("WWW-Authenticate", d.Challenge)
	}
	typ := "invalid_request_error"
	if d.Status == http.StatusUnauthorized || d.Status == http.StatusForbidden {
		typ = "authentication_error"
	}
	msg := d.Message
	if d.Problem != "" {
		msg += ": " + d.Field + ": " + d.Problem
	}
	writeOpenAIError(w, d.Status, typ, d.Code, d.Field, msg)
	return "", false
}

// pass serves a route passed to the upstream as it is (GET /v1/models,
// embeddings), for an authenticated tenant, at the route's own path below
// the upstream's base.
func (g *Gateway) pass(p passRoute) http.HandlerFunc {
	proxy := &httputil.ReverseProxy{
		Transport:     g.client.Transport,
		FlushInterval: -1,
		Rewrite: func(pr *httputil.ProxyRequest) {
			u := upstreamURL(g.base, p.upstream(pr.In), pr.In.URL.RawQuery)
			pr.Out.URL = u
			pr.Out.Host = u.Host
			pr.Out.Header = g.forwardHeaders(pr.In.Header)
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			g.upstreamDown(w, err)
		},
	}
	return func(w http.ResponseWriter, r *http.Request) {
		if _, ok := g.authenticate(w, r); !ok {
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, g.cfg.MaxBodyBytes)
		proxy.ServeHTTP(w, r)
	}
}

// upstreamDown answers a request the upstream could not be reached for.
func (g *Gateway) upstreamDown(w http.ResponseWriter, err error) {
	g.log.Warn("gateway upstream unreachable", "error", err.Error())
	status := http.StatusBadGateway
	if errors.Is(err, context.DeadlineExceeded) {
		status = http.StatusGatewayTimeout
	}
	writeOpenAIError(w, status, "api_error", "upstream_unavailable", "", "The upstream model API could not be reached (GATEWAY_UPSTREAM_URL): "+err.Error())
}

// chat serves POST /v1/chat/completions.
func (g *Gateway) chat(w http.ResponseWriter, r *http.Request) {
	at := g.now()
	tenant, ok := g.authenticate(w, r)
	if !ok {
		return
	}
	body, status, err := httpbody.Read(w, r, g.cfg.MaxBodyBytes)
	if status == http.StatusRequestEntityTooLarge {
		writeOpenAIError(w, status, "invalid_request_error", "request_too_large", "",
			fmt.Sprintf("The request body is over %d bytes (GATEWAY_MAX_BODY_BYTES).", g.cfg.MaxBodyBytes))
		return
	}
	if err != nil {
		writeOpenAIError(w, status, "invalid_request_error", "", "", "The request body could not be read: "+err.Error())
		return
	}
	req, bad := parseChat(body, g.limits)
	if bad != nil {
		writeOpenAIError(w, http.StatusBadRequest, "invalid_request_error", "", bad.param, bad.message)
		return
	}
	x, bad := g.exchange(r, req, tenant, at)
	if bad != nil {
		writeOpenAIError(w, http.StatusBadRequest, "invalid_request_error", "", bad.param, bad.message)
		return
	}

	out := body
	switch {
	case x == nil:
		w.Header().Set(HeaderMemory, "off")
		g.m.memory.WithLabelValues("off").Inc()
		if req.hadExt {
			out = rawObject(req.fields) // without the "recall" object
		}
	default:
		w.Header().Set(HeaderSession, x.session)
		out, err = g.prompt(w, r, req, x)
	}
	if err != nil {
		g.log.Error("gateway request body", "error", err.Error())
		writeOpenAIError(w, http.StatusInternalServerError, "api_error", "", "", "The gateway could not write the request for the upstream.")
		return
	}

	ctx, cancel := context.WithTimeout(r.Context(), g.cfg.UpstreamTimeout)
	defer cancel()
	resp, err := g.call(ctx, http.MethodPost, "chat/completions", out, r.Header)
	if err != nil {
		g.upstreamDown(w, err)
		return
	}
	defer resp.Body.Close()
	copyHeaders(w.Header(), resp.Header)
	if resp.StatusCode != http.StatusOK {
		// The upstream's error, as it is; nothing of the exchange is stored
		// (the caller's retry brings it again).
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
		return
	}
	var reply *message
	if req.stream && strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		w.WriteHeader(http.StatusOK)
		sr := &streamReader{}
		if err := relay(w, resp.Body, sr); err != nil {
			// Once the reply's finish_reason has been passed on, the caller
			// has all of it: a client may close at "[DONE]" before the
			// upstream's body has ended, which ends the upstream's request
			// too (its context is the caller's), and the reply is stored.
			if _, gone := errors.AsType[callerGone](err); gone || !sr.done {
				g.log.Info("gateway stream ended early", "error", err.Error())
				return
			}
		}
		reply = sr.reply()
	} else {
		b, err := io.ReadAll(io.LimitReader(resp.Body, g.cfg.MaxResponseBytes+1))
		if err != nil {
			g.upstreamDown(w, err)
			return
		}
		if int64(len(b)) <= g.cfg.MaxResponseBytes {
			w.Header().Set("Content-Length", strconv.Itoa(len(b)))
			reply = replyOf(b)
		}
		w.WriteHeader(http.StatusOK)
		if _, err := w.Write(b); err != nil {
			// The caller never got the reply: it is not what the user saw.
			g.log.Info("gateway answer not delivered", "error", err.Error())
			return
		}
		_, _ = io.Copy(w, resp.Body)
	}
	if x == nil || x.refused || reply == nil {
		return
	}
	x.reply, x.done = reply, g.now()
	g.pub.offer(tenant, x.turns(g.limits))
}

// prompt is the request's body for the upstream with the memory added,
// and says on w what memory it got. A memory read that fails or takes
// longer than GATEWAY_MEMORY_TIMEOUT leaves the request as it came.
func (g *Gateway) prompt(w http.ResponseWriter, r *http.Request, req *chatRequest, x *exchange) ([]byte, error) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(r.Context(), g.cfg.MemoryTimeout)
	rec, err := g.remember(ctx, x)
	cancel()
	g.m.memoryTime.Observe(time.Since(start).Seconds())
	text := ""
	refused, _ := errors.AsType[*contract.Error](err)
	switch {
	case refused != nil && refused.Code == contract.CodeSessionOwned:
		// Another user's session: the request goes on without memory, and
		// its turns are not stored there.
		x.refused = true
		w.Header().Set(HeaderMemory, "refused")
		w.Header().Set(HeaderMemoryReason, "session_id: the session belongs to another user; nothing is read from it or stored in it")
		g.m.memory.WithLabelValues("refused").Inc()
		g.log.Warn("gateway memory refused: the session belongs to another user", "tenant_id", x.tenant, "user_id", x.user, "session_id", x.session)
	case err != nil:
		w.Header().Set(HeaderMemory, "unavailable")
		g.m.memory.WithLabelValues("unavailable").Inc()
		if e, ok := errors.AsType[*contract.Error](err); ok {
			g.log.Warn("gateway memory refused", "tenant_id", x.tenant, "user_id", x.user, "session_id", x.session, "error", e.Error())
		} else {
			g.log.Warn("gateway memory unavailable", "tenant_id", x.tenant, "error", err.Error())
		}
	default:
		w.Header().Set(HeaderMemory, "on")
		g.m.memory.WithLabelValues("on").Inc()
		x.selected, x.n = rec.selected, rec.n
		text = rec.text
	}
	return upstreamBody(req, text, g.cfg.ContextMessage)
}

// exchange is who a chat request is from and which conversation it
// continues; nil when memory is off for it (no user, or the request turned
// it off).
func (g *Gateway) exchange(r *http.Request, req *chatRequest, tenant string, at time.Time) (*exchange, *badRequest) {
	if req.ext.Memory != nil && !*req.ext.Memory {
		return nil, nil
	}
	pick := func(header, field, fieldName string, more ...string) (string, string) {
		if v := r.Header.Get(header); v != "" {
			return v, header
		}
		if field != "" {
			return field, fieldName
		}
		for i := 0; i+1 < len(more); i += 2 {
			if more[i] != "" {
				return more[i], more[i+1]
			}
		}
		return "", ""
	}
	user, userFrom := pick(HeaderUser, req.ext.UserID, "recall.user_id", req.user, "user")
	if user == "" {
		return nil, nil
	}
	session, sessionFrom := pick(HeaderSession, req.ext.SessionID, "recall.session_id")
	agent, agentFrom := pick(HeaderAgent, req.ext.AgentID, "recall.agent_id")
	for _, id := range [...]struct{ v, from string }{{user, userFrom}, {session, sessionFrom}, {agent, agentFrom}} {
		if id.from != "" && !g.mem.ValidID(id.v) {
			return nil, invalidParam(id.from, "must be valid UTF-8 without control characters, at most %d bytes", g.limits.MaxIDBytes)
		}
	}
	if session == "" {
		session = sessionOf(user, req.msgs)
	}
	return &exchange{tenant: tenant, user: user, session: session, agent: agent, msgs: req.msgs,
		items: req.ext.Items, at: at, model: req.model}, nil
}

// sessionOf is the session of a conversation whose caller named none: a
// hash of the user and the conversation's first user message, which every
// request of the conversation resends. Two conversations of one user that
// open with the same words share it, so callers that can should name
// their sessions (X-Recall-Session-ID).
func sessionOf(user string, msgs []message) string {
	first := ""
	if i := firstUser(msgs); i >= 0 {
		first = strings.TrimSpace(msgs[i].Text)
	}
	h := sha256.Sum256([]byte(user + "\x00" + first))
	return "gw-" + hex.EncodeToString(h[:12])
}

func firstUser(msgs []message) int {
	for i, m := range msgs {
		if m.Role == roleUser {
			return i
		}
	}
	return -1
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.ResponseController reach the connection's writer, to
// flush a stream.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
