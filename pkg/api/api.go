// Package api is Recall's thin HTTP API: it accepts turns (validates and publishes
// them; the workers store them), and reads sessions, messages and the assembled
// context. Every route is scoped to the tenant of the request.
package api

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	json "github.com/goccy/go-json"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/recallhq/recall/pkg/embed"
	"github.com/recallhq/recall/pkg/search"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/recallhq/recall/pkg/access"
	"github.com/recallhq/recall/pkg/contract"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/httpbody"
	"github.com/recallhq/recall/pkg/memory"
	"github.com/recallhq/recall/pkg/service"
	"github.com/recallhq/recall/pkg/store"
	"github.com/recallhq/recall/pkg/telemetry"
	"github.com/recallhq/recall/pkg/ui"
	"github.com/recallhq/recall/pkg/webhooks"
)

// HTTP is the API's server on its address with its timeouts, for a binary
// to run.
func (s *Server) HTTP(reg *prometheus.Registry) service.Server {
	return service.Server{Name: "api", Addr: s.cfg.Addr, Handler: s.Handler(reg), ReadTimeout: s.cfg.ReadTimeout, WriteTimeout: s.cfg.WriteTimeout}
}

// Server holds the API's dependencies: the memory service behind its routes,
// and what its own routes (operations, the inspector's pages) read.
type Server struct {
	cfg     Config
	limits  events.Limits
	store   *store.Store
	js      jetstream.JetStream
	log     *slog.Logger
	keys    *access.Keys
	now     func() time.Time
	metrics *metrics
	reg     *prometheus.Registry
	ready   []service.Check
	// mem is the memory service every memory route calls, and the MCP
	// tools too.
	mem *memory.Service
	// hooks is what the webhook routes do.
	hooks *webhooks.Service
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
	keys, err := access.ParseKeys(o.Config.Keys)
	if err != nil {
		return nil, err
	}
	cfg := o.Config.withDefaults()
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
	m := newMetrics(reg)
	mem, err := NewMemory(MemoryOptions{Config: o.Config, Limits: o.Limits, Store: o.Store, JS: o.JS, Log: log, Now: now,
		Turns: func(outcome string, n int) { m.turns.WithLabelValues(outcome).Add(float64(n)) }})
	if err != nil {
		return nil, err
	}
	return &Server{
		cfg: cfg, limits: mem.Limits(), store: o.Store, js: o.JS,
		log: log, keys: keys, now: now, metrics: m,
		reg: o.Registry, ready: o.Ready, mem: mem,
		hooks: webhooks.NewService(o.Store, o.Config.Webhooks),
	}, nil
}

// MemoryOptions are what NewMemory builds a memory service from.
type MemoryOptions struct {
	// Config is the API's config: its memory part (CONTEXT_*), the decay
	// policy and the embedder queries are embedded with.
	Config Config
	// Limits judge turns as the workers do; the zero value means events.DefaultLimits.
	Limits events.Limits
	Store  *store.Store
	JS     jetstream.JetStream
	Log    *slog.Logger
	// Now is the clock for TTL and skew checks; nil means time.Now.
	Now func() time.Time
	// Turns is told the outcome of every turn offered; nil: nobody.
	Turns func(outcome string, n int)
}

// NewMemory builds the memory service the API's routes call, as any other
// front door of this process or its own binary (the chat gateway) builds
// the same one: the same context settings, decay policy and embedder. A
// configuration it cannot serve (an unknown context language, an embedder
// it cannot build) is an error here, at start.
func NewMemory(o MemoryOptions) (*memory.Service, error) {
	cfg := o.Config.withDefaults()
	policy, err := cfg.Decay.Policy()
	if err != nil {
		return nil, err
	}
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	// Queries are analyzed as the indexer analyzes turns (the process's one
	// segmenter) and embedded by the same model.
	emb, err := embed.New(cfg.Embed, cfg.Embed.Dimensions)
	if err != nil {
		return nil, err
	}
	return memory.New(memory.Options{Config: cfg.Config, Limits: o.Limits, Store: o.Store, JS: o.JS, Decay: policy, Log: log, Now: o.Now,
		// The searcher's analyzer loads the segmenter's dictionary on the
		// first Chinese text (search.SharedAnalyzer).
		Searcher: search.NewSearcher(o.Store, search.SharedAnalyzer(), emb, cfg.SearchEmbedTimeout, log),
		Turns:    o.Turns,
	})
}

// Memory is the memory service behind the API's routes, for another front
// door of the same process (the chat gateway in `recall run`).
func (s *Server) Memory() *memory.Service { return s.mem }

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
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !rs.serveOddIDs(w, r) {
			mux.ServeHTTP(w, r)
		}
	})
}

// serveOddIDs serves a /v1 request whose path has a segment the mux cannot
// take as an id, and reports whether it did. The mux cleans "." and ".."
// out of a path (a redirect elsewhere), and takes a segment that is
// exactly "%2F" for a trailing slash (net/http's routing tree skips its
// wildcards for a segment that unescapes to "/"), so the user "/" could be
// neither read nor forgotten. Such a request is routed with a stand-in
// segment to find its pattern, and its handler runs on the request as it
// came, the segments unescaped as its path values: "/" is an id like any
// other, and "." and ".." reach the handler, which refuses them naming the
// field (events.IsDotID).
func (rs routes) serveOddIDs(w http.ResponseWriter, r *http.Request) bool {
	path := r.URL.EscapedPath()
	if !strings.HasPrefix(path, "/v1/") {
		return false
	}
	segs := strings.Split(path, "/")
	var stand []string
	for i, seg := range segs {
		if i > 2 && (seg == "." || seg == ".." || strings.EqualFold(seg, "%2F")) {
			if stand == nil {
				stand = slices.Clone(segs)
			}
			stand[i] = "%00" // no id has a NUL: it matches only a wildcard
		}
	}
	if stand == nil {
		return false
	}
	probe := *r
	u := *r.URL
	u.RawPath = strings.Join(stand, "/")
	u.Path, _ = url.PathUnescape(u.RawPath)
	probe.URL = &u
	h, pattern := rs.mux.Handler(&probe)
	_, patternPath, _ := strings.Cut(pattern, " ")
	wild := strings.Split(patternPath, "/")
	if !strings.HasPrefix(patternPath, "/v1/") || len(wild) != len(segs) {
		return false
	}
	for i, p := range wild {
		if name, ok := strings.CutPrefix(p, "{"); ok {
			v, err := url.PathUnescape(segs[i])
			if err != nil {
				return false
			}
			r.SetPathValue(strings.TrimSuffix(name, "}"), v)
		}
	}
	h.ServeHTTP(w, r)
	return true
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
	{pattern: "POST /v1/turns", tenant: (*Server).postTurns, query: []param{{"wait", kindText}, {"timeout", kindText}}},
	{pattern: "GET /v1/turns/{id}", tenant: (*Server).getTurn, query: []param{{"seq", kindNumber}}},
	{pattern: "GET /v1/sessions/{session_id}", tenant: (*Server).getSession, query: []param{{"recent", kindNumber}}},
	{pattern: "GET /v1/sessions/{session_id}/messages", tenant: (*Server).getMessages, query: pageParams},
	{pattern: "DELETE /v1/sessions/{session_id}", tenant: (*Server).deleteSession},
	{pattern: "POST /v1/sessions/{session_id}/summarize", tenant: (*Server).postSummarize, query: []param{{"wait", kindText}}},
	{pattern: "GET /v1/context", tenant: (*Server).getContext, query: contextParams},
	{pattern: "POST /v1/context", tenant: (*Server).postContext, body: contextParams},
	{pattern: "GET /v1/users/{user_id}/search", tenant: (*Server).getSearch, query: searchParams},
	{pattern: "POST /v1/users/{user_id}/search", tenant: (*Server).postSearch, body: searchParams},
	{pattern: "DELETE /v1/users/{user_id}", tenant: (*Server).deleteUser},
	{pattern: "GET /v1/users/{user_id}/interests", tenant: (*Server).getInterests, query: interestsParams},
	{pattern: "POST /v1/users/{user_id}/interests/refresh", tenant: (*Server).postInterestsRefresh},
	// The interests' former paths, deprecated: the same handlers.
	{pattern: "GET /v1/users/{user_id}/profile", tenant: (*Server).getInterests, query: interestsParams},
	{pattern: "POST /v1/users/{user_id}/profile/refresh", tenant: (*Server).postInterestsRefresh},
	{pattern: "GET /v1/users/{user_id}/attributes", tenant: (*Server).getAttributes, query: []param{{"history", kindBool}}},
	{pattern: "PATCH /v1/users/{user_id}/attributes", tenant: (*Server).patchAttributes},
	{pattern: "PUT /v1/users/{user_id}/attributes/{key}", tenant: (*Server).putAttribute},
	{pattern: "DELETE /v1/users/{user_id}/attributes/{key}", tenant: (*Server).deleteAttribute, query: []param{{"value", kindText}, {"id", kindText}}},
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
	// Webhooks on the change feed (docs/webhooks.md).
	{pattern: "POST /v1/webhooks", tenant: (*Server).postWebhook},
	{pattern: "GET /v1/webhooks", tenant: (*Server).getWebhooks},
	{pattern: "DELETE /v1/webhooks/{webhook_id}", tenant: (*Server).deleteWebhook},
	{pattern: "GET /v1/webhooks/{webhook_id}/deliveries", tenant: (*Server).getWebhookDeliveries,
		query: []param{{"status", kindText}, {"limit", kindNumber}}},
	{pattern: "POST /v1/webhooks/{webhook_id}/deliveries/{change_id}/redrive", tenant: (*Server).postWebhookRedrive},
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
		if pattern != mcpRoute {
			qv := r.URL.Query()
			if fe := unknownParams(qv, query); len(fe) > 0 {
				writeError(rw, http.StatusBadRequest, "invalid_request", "unknown parameter", fe)
				return
			}
			if fe := repeatedParams(qv); len(fe) > 0 {
				writeError(rw, http.StatusBadRequest, "invalid_request", "repeated parameter", fe)
				return
			}
		}
		if (r.Method == http.MethodPost || r.Method == http.MethodPut || r.Method == http.MethodPatch) && !jsonBody(r) {
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

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

// readBody reads the request's body within API_MAX_BODY_BYTES
// (httpbody.Read): a body over it is a 413 too_large, one that could not
// be read a 400. It reports whether it answered nothing yet.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	body, status, err := httpbody.Read(w, r, s.cfg.MaxBodyBytes)
	if status == http.StatusRequestEntityTooLarge {
		writeError(w, status, "too_large", fmt.Sprintf("body over %d bytes", s.cfg.MaxBodyBytes), nil)
		return nil, false
	}
	if err != nil {
		writeError(w, status, "invalid_request", "reading body: "+err.Error(), nil)
		return nil, false
	}
	return body, true
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

// validID reports whether an id from a header, path or query is one a
// stored event can have (memory.Service.ValidID).
func (s *Server) validID(v string) bool { return s.mem.ValidID(v) }

// ctxTimeout bounds database work of one request.
func ctxTimeout(r *http.Request) (context.Context, context.CancelFunc) {
	return context.WithTimeout(r.Context(), 10*time.Second)
}
