// Package api is Recall's thin HTTP API: it accepts turns (validates and publishes
// them; the workers store them), and reads sessions, messages and the assembled
// context. Every route is scoped to the tenant of the request.
package api

import (
	"bytes"
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	json "github.com/goccy/go-json"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/recallhq/recall/pkg/embed"
	"github.com/recallhq/recall/pkg/search"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/recallhq/recall/pkg/contract"
	"github.com/recallhq/recall/pkg/decay"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/memory"
	"github.com/recallhq/recall/pkg/service"
	"github.com/recallhq/recall/pkg/store"
	"github.com/recallhq/recall/pkg/telemetry"
	"github.com/recallhq/recall/pkg/ui"
)

// Config is the API's part of the config.
type Config struct {
	// Addr is where the HTTP API listens (it serves /healthz, /readyz and
	// /metrics there too).
	Addr string `env:"API_ADDR" envDefault:":8080"`
	// Keys turns on bearer auth: "tenant:key,tenant:key". Each key is valid for its
	// tenant only. Empty: auth off (X-Tenant-ID alone), for local use.
	Keys string `env:"API_KEYS"`
	// MaxBodyBytes bounds a POST body; MaxBatch the turns in one POST.
	MaxBodyBytes int64 `env:"API_MAX_BODY_BYTES" envDefault:"8388608"`
	MaxBatch     int   `env:"API_MAX_BATCH" envDefault:"500"`
	// Decay is the facts' decay policy, the decayer's: reads rank facts by
	// their weight now and leave out those expired or archived by now.
	Decay decay.Config

	// GCPercent is the Go GC target the API runs with (GOGC, when set, wins). The
	// API keeps little live memory (a few MB) and allocates per request (about
	// 100 KB for a context with a query), so with a small target its heap goal
	// is the runtime's floor and the collector takes a large share of its CPU;
	// at 1000 the goal is about 45 MB and it collects half as often, for a
	// larger resident set (docs/benchmarks.md, History). A heap that holds
	// more (the Chinese dictionary) is held by MemoryHeadroom instead.
	// `recall run` does not apply it: that process holds the dictionary from
	// its start, and this target would let its heap grow to a gigabyte.
	GCPercent int `env:"API_GC_PERCENT" envDefault:"1000"`
	// MemoryHeadroom is how far the API binary's heap may grow above what it
	// holds once started before the runtime collects, whatever GCPercent
	// allows (a soft limit, raised by what the Chinese dictionary holds when
	// a query loads it; GOMEMLIMIT, when set, wins; 0: none). Without it
	// GCPercent alone lets an API holding the dictionary grow to over a
	// gigabyte under load, with a worse tail latency: the smaller heap is
	// collected more often, but touches fewer pages. An API that never loads
	// the dictionary stays far below it. The API binary only: `recall run`
	// has MEMORY_HEADROOM.
	MemoryHeadroom int64 `env:"API_MEMORY_HEADROOM" envDefault:"268435456"`
	// ReadTimeout bounds reading a request, body included (a client that
	// stalls mid-body is cut off); WriteTimeout writing the answer.
	ReadTimeout  time.Duration `env:"API_READ_TIMEOUT" envDefault:"30s"`
	WriteTimeout time.Duration `env:"API_WRITE_TIMEOUT" envDefault:"60s"`
	// MCPAllowForget offers the forget_user tool on /mcp, which erases a
	// user for good; off, an agent can read and add memory but not erase it.
	MCPAllowForget bool `env:"MCP_ALLOW_FORGET" envDefault:"false"`
	// Embed is the embedder queries are embedded with (EMBED_*): the
	// indexer's, since their vectors are compared.
	Embed embed.Config
	memory.Config
}

// withDefaults fills the fields where zero cannot work (it would reject every
// POST or always return an empty window) with the env defaults above, so that a
// Config built in code behaves like one read from an empty environment.
// ContextMaxChars and ContextTTL keep zero: it means "no limit" to
// assemble.TrimWindow.
func (c Config) withDefaults() Config {
	d := service.Defaults[Config]()
	if c.MaxBodyBytes <= 0 {
		c.MaxBodyBytes = d.MaxBodyBytes
	}
	if c.MaxBatch <= 0 {
		c.MaxBatch = d.MaxBatch
	}
	c.Decay = c.Decay.WithDefaults()
	c.Config = c.Config.WithDefaults()
	if c.SearchEmbedTimeout <= 0 {
		c.SearchEmbedTimeout = d.SearchEmbedTimeout
	}
	return c
}

// HTTP is the API's server on its address with its timeouts, for a binary
// to run.
func (s *Server) HTTP(reg *prometheus.Registry) service.Server {
	return service.Server{Name: "api", Addr: s.cfg.Addr, Handler: s.Handler(reg), ReadTimeout: s.cfg.ReadTimeout, WriteTimeout: s.cfg.WriteTimeout}
}

// ApplyGC sets the process's GC target from GCPercent, unless GOGC is set in the
// environment (an operator's explicit choice wins) or GCPercent is 0. It reports
// whether it changed anything.
func (c Config) ApplyGC() bool {
	if os.Getenv("GOGC") != "" || c.GCPercent <= 0 {
		return false
	}
	debug.SetGCPercent(c.GCPercent)
	return true
}

// Server holds the API's dependencies: the memory service behind its routes,
// and what its own routes (operations, the inspector's pages) read.
type Server struct {
	cfg     Config
	limits  events.Limits
	store   *store.Store
	js      jetstream.JetStream
	log     *slog.Logger
	keys    map[string]string // key -> tenant
	now     func() time.Time
	metrics *metrics
	reg     *prometheus.Registry
	ready   []service.Check
	// mem is the memory service every memory route calls, and the MCP
	// tools too.
	mem *memory.Service
}

// Options are the API's dependencies.
type Options struct {
	Config Config
	// Limits judge turns as the workers do; the zero value means events.DefaultLimits.
	Limits   events.Limits
	Store    *store.Store
	JS       jetstream.JetStream
	Log      *slog.Logger
	Registry *prometheus.Registry
	// Now is the clock for TTL and skew checks; nil means time.Now.
	Now func() time.Time
	// Ready are the readiness checks served on /readyz.
	Ready []service.Check
}

// New builds the server. A configuration mistake (malformed keys, an unknown
// context language) is an error here, at start, rather than a 400 on every request.
func New(o Options) (*Server, error) {
	keys, err := parseKeys(o.Config.Keys)
	if err != nil {
		return nil, err
	}
	cfg := o.Config.withDefaults()
	policy, err := cfg.Decay.Policy()
	if err != nil {
		return nil, err
	}
	limits := o.Limits
	if limits == (events.Limits{}) {
		limits = events.DefaultLimits
	}
	now := o.Now
	if now == nil {
		now = time.Now
	}
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	// A nil *Registry must reach newMetrics as a nil interface, not as a typed nil
	// that it would try to register on.
	var reg prometheus.Registerer
	if o.Registry != nil {
		reg = o.Registry
	}
	// Queries are analyzed as the indexer analyzes turns (the process's one
	// segmenter) and embedded by the same model.
	emb, err := embed.New(cfg.Embed, cfg.Embed.Dimensions)
	if err != nil {
		return nil, err
	}
	m := newMetrics(reg)
	mem, err := memory.New(memory.Options{Config: cfg.Config, Limits: limits, Store: o.Store, JS: o.JS, Decay: policy, Log: log, Now: now,
		// The searcher's analyzer loads the segmenter's dictionary on the
		// first Chinese text (search.SharedAnalyzer).
		Searcher: search.NewSearcher(o.Store, search.SharedAnalyzer(), emb, cfg.SearchEmbedTimeout, log),
		Turns:    func(outcome string, n int) { m.turns.WithLabelValues(outcome).Add(float64(n)) },
	})
	if err != nil {
		return nil, err
	}
	return &Server{
		cfg: cfg, limits: limits, store: o.Store, js: o.JS,
		log: log, keys: keys, now: now, metrics: m,
		reg: o.Registry, ready: o.Ready, mem: mem,
	}, nil
}

func parseKeys(s string) (map[string]string, error) {
	keys := map[string]string{}
	for _, pair := range strings.Split(s, ",") {
		pair = strings.TrimSpace(pair)
		if pair == "" {
			continue
		}
		tenant, key, ok := strings.Cut(pair, ":")
		if !ok || tenant == "" || len(key) < 16 {
			return nil, errors.New("API_KEYS: want tenant:key pairs separated by commas, keys of at least 16 characters")
		}
		keys[key] = tenant
	}
	return keys, nil
}

// Handler returns the routes, with /healthz, /readyz and /metrics. /readyz runs
// Options.Ready followed by ready; /metrics serves reg, or Options.Registry when
// reg is nil.
func (s *Server) Handler(reg *prometheus.Registry, ready ...service.Check) http.Handler {
	if reg == nil {
		reg = s.reg
	}
	if reg == nil {
		reg = prometheus.NewRegistry()
	}
	ready = append(append([]service.Check(nil), s.ready...), ready...)
	mux := http.NewServeMux()
	// probe knows every route's pattern and nothing else, so that a path
	// served for other methods answers 405 with Allow instead of 404.
	rs := routes{mux: mux, probe: http.NewServeMux(), traced: telemetry.Enabled()}
	mcpTools := s.mcpHandler()
	for _, e := range endpoints {
		switch {
		case e.pattern == mcpRoute:
			s.route(rs, e.pattern, nil, func(w http.ResponseWriter, r *http.Request, _ string) { mcpTools.ServeHTTP(w, r) })
		case e.tenant != nil:
			s.route(rs, e.pattern, e.query, func(w http.ResponseWriter, r *http.Request, tenant string) { e.tenant(s, w, r, tenant) })
		default:
			rs.probe.HandleFunc(e.pattern, func(http.ResponseWriter, *http.Request) {})
			mux.HandleFunc(e.pattern, func(w http.ResponseWriter, r *http.Request) { e.open(s, w, r) })
		}
	}
	// The inspector's pages: static files, no data; every call they make is
	// a /v1 request with the tenant and key the user gives them.
	for _, p := range []string{"GET /ui/", "GET /ui"} {
		rs.probe.HandleFunc(p, func(http.ResponseWriter, *http.Request) {})
	}
	mux.Handle("GET /ui/", ui.Handler())
	mux.Handle("GET /ui", http.RedirectHandler("/ui/", http.StatusMovedPermanently))
	service.RegisterOps(mux, reg, ready...)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if allow := rs.allowed(r); allow != "" {
			w.Header().Set("Allow", allow)
			writeError(w, http.StatusMethodNotAllowed, "method_not_allowed", r.Method+" is not served for "+r.URL.Path+"; allowed: "+allow, nil)
			return
		}
		writeError(w, http.StatusNotFound, "not_found", "no route for "+r.Method+" "+r.URL.Path, nil)
	})
	return mux
}

// endpoint is a route of the API: the pattern it is registered under and
// its handler, which runs for the request's authenticated tenant or, for
// open, for anyone. mcpRoute's handler is built by Handler (mcpHandler).
type endpoint struct {
	pattern string
	tenant  func(*Server, http.ResponseWriter, *http.Request, string)
	open    func(*Server, http.ResponseWriter, *http.Request)
	// query are the parameters the route reads from its URL; any other is
	// a 400 naming it. body, for the POST twin of a GET route, are the
	// fields of its JSON body (read by bodyParams).
	query, body []param
}

// endpoints are every route Handler serves besides /healthz, /readyz and
// /metrics and the inspector's files (/ui/). The OpenAPI document describes
// exactly these (TestOpenAPIRoutes).
var endpoints = []endpoint{
	{pattern: "GET /openapi.json", open: (*Server).getOpenAPI},
	{pattern: mcpRoute},
	{pattern: "POST /v1/turns", tenant: (*Server).postTurns},
	{pattern: "GET /v1/sessions/{session_id}", tenant: (*Server).getSession, query: []param{{"recent", kindNumber}}},
	{pattern: "GET /v1/sessions/{session_id}/messages", tenant: (*Server).getMessages, query: pageParams},
	{pattern: "DELETE /v1/sessions/{session_id}", tenant: (*Server).deleteSession},
	{pattern: "POST /v1/sessions/{session_id}/summarize", tenant: (*Server).postSummarize, query: []param{{"wait", kindText}}},
	{pattern: "GET /v1/context", tenant: (*Server).getContext, query: contextParams},
	{pattern: "POST /v1/context", tenant: (*Server).postContext, body: contextParams},
	{pattern: "GET /v1/users/{user_id}/search", tenant: (*Server).getSearch, query: searchParams},
	{pattern: "POST /v1/users/{user_id}/search", tenant: (*Server).postSearch, body: searchParams},
	{pattern: "DELETE /v1/users/{user_id}", tenant: (*Server).deleteUser},
	{pattern: "GET /v1/users/{user_id}/profile", tenant: (*Server).getProfile, query: []param{{"limit", kindNumber}, {"vector", kindBool}}},
	{pattern: "POST /v1/users/{user_id}/profile/refresh", tenant: (*Server).postProfileRefresh},
	{pattern: "GET /v1/users/{user_id}/recommendations", tenant: (*Server).getRecommendations, query: []param{{"k", kindNumber}}},
	{pattern: "GET /v1/sessions/{session_id}/selection/{n}", tenant: (*Server).getSelection},
	{pattern: "POST /v1/users/{user_id}/items/unseen", tenant: (*Server).postUnseen},
	{pattern: "GET /v1/users/{user_id}/items/seen", tenant: (*Server).getSeen, query: []param{{"limit", kindNumber}}},
	// What the inspector (/ui/) reads.
	{pattern: "GET /v1/users", tenant: (*Server).getUsers, query: append([]param{{"prefix", kindText}}, pageParams...)},
	{pattern: "GET /v1/users/{user_id}", tenant: (*Server).getUser},
	{pattern: "GET /v1/users/{user_id}/facts", tenant: (*Server).getUserFacts,
		query: append([]param{{"status", kindText}, {"mentions", kindNumber}}, pageParams...)},
	{pattern: "GET /v1/users/{user_id}/sessions", tenant: (*Server).getUserSessions, query: pageParams},
	{pattern: "GET /v1/users/{user_id}/shelf", tenant: (*Server).getShelf},
	{pattern: "GET /v1/sessions/{session_id}/summaries", tenant: (*Server).getSummaries, query: []param{{"limit", kindNumber}}},
	{pattern: "GET /v1/ops/consumers", tenant: (*Server).getConsumers},
	{pattern: "GET /v1/ops/dead-letters", tenant: (*Server).getDeadLetters,
		query: []param{{"consumer", kindText}, {"after", kindNumber}, {"limit", kindNumber}}},
	{pattern: "POST /v1/ops/dead-letters/{seq}/redrive", tenant: (*Server).postRedrive},
	{pattern: "GET /v1/ops/decayer", tenant: (*Server).getDecayer},
}

// pageParams are the parameters of a paged list.
var pageParams = []param{{"limit", kindNumber}, {"cursor", kindText}}

// Routes are the patterns ("METHOD /path/{param}") of every route the API
// serves besides /healthz, /readyz and /metrics and the inspector's files
// (/ui/), in the order registered.
func Routes() []string {
	out := make([]string, len(endpoints))
	for i, e := range endpoints {
		out[i] = e.pattern
	}
	return out
}

// tenantHandler is a route that runs for one authenticated tenant.
type tenantHandler func(w http.ResponseWriter, r *http.Request, tenant string)

// routes are the API's mux and a probe mux with the same patterns only.
type routes struct {
	mux, probe *http.ServeMux
	// traced: each request is a server span named after its route
	// ("POST /v1/turns"), continuing the caller's traceparent.
	traced bool
}

// allowed lists the methods the routes serve for r's path, as an Allow
// header says them ("GET, HEAD"); "" when none does.
func (rs routes) allowed(r *http.Request) string {
	var out []string
	probe := *r
	for _, m := range []string{http.MethodDelete, http.MethodGet, http.MethodHead, http.MethodPatch, http.MethodPost, http.MethodPut} {
		probe.Method = m
		if _, pattern := rs.probe.Handler(&probe); pattern != "" {
			out = append(out, m)
		}
	}
	return strings.Join(out, ", ")
}

// attrTenant is the tenant of a traced request.
const attrTenant = attribute.Key("recall.tenant_id")

func (s *Server) route(rs routes, pattern string, query []param, h tenantHandler) {
	rs.probe.HandleFunc(pattern, func(http.ResponseWriter, *http.Request) {})
	var handler http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		defer func() {
			s.metrics.observe(pattern, rw.status, time.Since(start))
		}()
		tenant, ok := s.authenticate(rw, r)
		if !ok {
			return
		}
		if rs.traced {
			trace.SpanFromContext(r.Context()).SetAttributes(attrTenant.String(tenant))
		}
		if fe := unknownParams(r.URL.Query(), query); len(fe) > 0 && pattern != mcpRoute {
			writeError(rw, http.StatusBadRequest, "invalid_request", "unknown parameter", fe)
			return
		}
		if r.Method == http.MethodPost && !jsonBody(r) {
			writeError(rw, http.StatusUnsupportedMediaType, "unsupported_media_type", "the body must be JSON",
				[]events.FieldError{{Field: "Content-Type", Message: fmt.Sprintf("%q: want application/json", r.Header.Get("Content-Type"))}})
			return
		}
		h(rw, r, tenant)
	})
	if rs.traced {
		handler = otelhttp.NewHandler(handler, pattern)
	}
	rs.mux.Handle(pattern, handler)
}

// jsonBody reports whether a request's body may be read as JSON: its
// Content-Type says JSON (application/json or a +json type) or is absent.
func jsonBody(r *http.Request) bool {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return true
	}
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}

// authenticate reads the tenant from X-Tenant-ID and, when keys are configured,
// checks that the bearer key belongs to that tenant.
func (s *Server) authenticate(w http.ResponseWriter, r *http.Request) (string, bool) {
	tenant := r.Header.Get("X-Tenant-ID")
	switch {
	case tenant == "":
		writeError(w, http.StatusBadRequest, "invalid_request", "missing tenant", []events.FieldError{{Field: "X-Tenant-ID", Message: "required header"}})
		return "", false
	case !s.validID(tenant):
		writeError(w, http.StatusBadRequest, "invalid_request", "invalid tenant", []events.FieldError{{Field: "X-Tenant-ID", Message: fmt.Sprintf("must be valid UTF-8 without control characters, at most %d bytes", s.limits.MaxIDBytes)}})
		return "", false
	}
	if len(s.keys) == 0 {
		return tenant, true
	}
	key, problem := bearer(r.Header.Get("Authorization"))
	if problem != "" {
		w.Header().Set("WWW-Authenticate", `Bearer realm="recall"`)
		msg := "missing bearer key"
		if r.Header.Get("Authorization") != "" {
			msg = "malformed Authorization header"
		}
		writeError(w, http.StatusUnauthorized, "unauthorized", msg,
			[]events.FieldError{{Field: "Authorization", Message: problem}})
		return "", false
	}
	owner := ""
	for k, t := range s.keys {
		if subtle.ConstantTimeCompare([]byte(k), []byte(key)) == 1 {
			owner = t
		}
	}
	switch {
	case owner == "":
		w.Header().Set("WWW-Authenticate", `Bearer realm="recall", error="invalid_token"`)
		writeError(w, http.StatusUnauthorized, "unauthorized", "unknown key",
			[]events.FieldError{{Field: "Authorization", Message: "no tenant has this key (API_KEYS)"}})
		return "", false
	case owner != tenant:
		writeError(w, http.StatusForbidden, "forbidden", "key is not valid for this tenant", nil)
		return "", false
	}
	return tenant, true
}

// bearer reads the key of an "Authorization: Bearer <key>" header. The scheme is
// case-insensitive (RFC 9110, section 11.1). A header it cannot read gives
// what is wrong with it, in words a caller can act on.
func bearer(h string) (key, problem string) {
	const want = "want \"Bearer <key>\""
	h = strings.TrimSpace(h)
	if h == "" {
		return "", "required header: " + want + " (this server has API_KEYS set)"
	}
	scheme, key, ok := strings.Cut(h, " ")
	switch {
	case !ok && strings.EqualFold(scheme, "Bearer"):
		return "", "the key after \"Bearer \" is missing"
	case !ok:
		return "", want + ", got a value without a scheme: put \"Bearer \" before the key"
	case !strings.EqualFold(scheme, "Bearer"):
		return "", fmt.Sprintf("%s, got the %q scheme", want, scheme)
	}
	key = strings.TrimSpace(key)
	if key == "" {
		return "", "the key after \"Bearer \" is missing"
	}
	return key, ""
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

func writeError(w http.ResponseWriter, status int, code, msg string, fields []events.FieldError) {
	writeJSON(w, status, contract.ErrorBody{Error: &contract.Error{Code: code, Message: msg, Fields: fields}})
}

// bodies are reused response buffers.
var bodies = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// writeJSON encodes v whole before writing, so the response goes out with a
// Content-Length in one write instead of chunked in several, and an encoding
// failure can still become a 500 rather than half a body.
func writeJSON(w http.ResponseWriter, status int, v any) {
	buf := bodies.Get().(*bytes.Buffer)
	buf.Reset()
	defer func() {
		if buf.Cap() <= 1<<16 { // a rare huge page is not kept around
			bodies.Put(buf)
		}
	}()
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		http.Error(w, `{"error":{"code":"internal","message":"encoding the response failed"}}`, http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// answer writes what a memory call answered: v with status, or its error:
// a *contract.Error with the status of its code, anything else as
// internalError says.
func (s *Server) answer(w http.ResponseWriter, r *http.Request, status int, v any, err error) {
	if err == nil {
		writeJSON(w, status, v)
		return
	}
	if e, ok := errors.AsType[*contract.Error](err); ok {
		writeJSON(w, contract.StatusOf(e.Code), contract.ErrorBody{Error: e})
		return
	}
	s.internalError(w, r, err)
}

// internalError logs err once, with the request, and answers 500 without details.
func (s *Server) internalError(w http.ResponseWriter, r *http.Request, err error) {
	if r.Context().Err() != nil && errors.Is(err, context.Canceled) {
		// The client went away (or the server is draining) mid-request:
		// nobody reads the answer, and nothing failed on this side.
		s.log.Debug("request abandoned by its client", "method", r.Method, "path", r.URL.Path)
		w.WriteHeader(statusClientClosed)
		return
	}
	s.log.Error("request failed", "method", r.Method, "path", r.URL.Path, "error", err.Error())
	if unavailable(err) {
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusServiceUnavailable, "unavailable", "a dependency is unavailable; retry", nil)
		return
	}
	writeError(w, http.StatusInternalServerError, "internal", "internal error", nil)
}

// statusClientClosed is the status a request abandoned by its client is
// counted with in the metrics (nginx's 499): no client reads it.
const statusClientClosed = 499

// unavailable reports whether err says a dependency could not be reached or
// went away (the database down or restarting, a timeout), which a client
// should retry, rather than a fault of the request or the server.
func unavailable(err error) bool {
	var ce *pgconn.ConnectError
	var ne net.Error
	var pe *pgconn.PgError
	switch {
	case errors.As(err, &ce), errors.As(err, &ne), pgconn.Timeout(err),
		errors.Is(err, context.DeadlineExceeded), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return true
	case errors.As(err, &pe):
		// Class 08: connection exception; 57P0x: the server is shutting down,
		// crashed or starting up.
		return strings.HasPrefix(pe.Code, "08") || strings.HasPrefix(pe.Code, "57P0")
	}
	return false
}

// queryInt reads an optional positive integer parameter within [1, maxV].
func queryInt(qv url.Values, name string, def, maxV int, fe *[]events.FieldError) int {
	return queryIntIn(qv, name, def, 1, maxV, fe)
}

// queryIntIn reads an optional integer parameter within [lo, hi].
func queryIntIn(qv url.Values, name string, def, lo, hi int, fe *[]events.FieldError) int {
	v := qv.Get(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		*fe = append(*fe, events.FieldError{Field: name, Message: fmt.Sprintf("want a whole number from %d to %d", lo, hi)})
		return def
	}
	return n
}

// pathID reads and checks an id from the path (session_id, user_id).
func (s *Server) pathID(w http.ResponseWriter, r *http.Request, name string) (string, bool) {
	id := r.PathValue(name)
	if !s.validID(id) {
		writeError(w, http.StatusBadRequest, "invalid_request", "invalid "+strings.ReplaceAll(name, "_", " "),
			[]events.FieldError{{Field: name, Message: fmt.Sprintf("required, valid UTF-8 without control characters, at most %d bytes", s.limits.MaxIDBytes)}})
		return "", false
	}
	return id, true
}

// sessionID reads and checks the path's session id.
func (s *Server) sessionID(w http.ResponseWriter, r *http.Request) (string, bool) {
	return s.pathID(w, r, "session_id")
}

// validID reports whether an id from a header, path or query is non-empty valid
// UTF-8 without control characters, within the id limit (0: no limit, as in
// events.ValidateTurn), i.e. an id a stored event can have.
func (s *Server) validID(v string) bool {
	return v != "" && utf8.ValidString(v) && (s.limits.MaxIDBytes <= 0 || len(v) <= s.limits.MaxIDBytes) &&
		!strings.ContainsFunc(v, func(r rune) bool { return r < 0x20 || r == 0x7f })
}

// ctxTimeout bounds database work of one request.
func ctxTimeout(r *http.Request) (context.Context, context.CancelFunc) {
	return context.WithTimeout(r.Context(), 10*time.Second)
}
