// Package service is what every Recall binary shares around its main loop: typed
// config from env, the JSON logger, the operations HTTP server (/healthz, /readyz,
// /metrics) and the signal context for graceful drain.
package service

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"reflect"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/recallhq/recall/pkg/envconfig"
)

// Base is the part of every binary's config that is about the process itself.
type Base struct {
	// LogLevel is the lowest level logged: debug, info, warn or error.
	LogLevel slog.Level `env:"LOG_LEVEL" envDefault:"info"`
	// OpsAddr serves /healthz, /readyz and /metrics (the API serves them on its own
	// address too).
	OpsAddr string `env:"OPS_ADDR" envDefault:":9090"`
	// OpsProfiling adds Go's profiles (/debug/pprof/: CPU, heap, goroutines,
	// mutex and block) to the operations server, for finding where a worker's
	// time goes under real load. Off by default: a CPU profile costs while it
	// is taken, and the ops port should not be reachable from outside the
	// cluster either way.
	OpsProfiling bool `env:"OPS_PROFILING" envDefault:"false"`
	// ShutdownTimeout bounds the whole drain after SIGTERM; keep the
	// orchestrator's grace period (Kubernetes' terminationGracePeriodSeconds)
	// above it.
	ShutdownTimeout time.Duration `env:"SHUTDOWN_TIMEOUT" envDefault:"25s"`
	// MemoryHeadroom is how far the Go heap may grow above what the process
	// holds once it has started before the runtime collects (a soft limit,
	// LimitMemory; 0 leaves the runtime alone; GOMEMLIMIT, when set, wins),
	// in bytes (256 MiB). A process that loads the Chinese segmenter's
	// dictionary later, on its first Chinese text (the indexer), has its
	// limit raised by what the dictionary holds of the heap (its table, some
	// 20 MB, is mapped outside it, so little). On a backfill with every
	// worker in one process (make check-data), a lower headroom had the
	// collector run through the whole of it and no limit doubled the peak
	// (docs/benchmarks.md, History). The API binary has its own,
	// API_MEMORY_HEADROOM.
	MemoryHeadroom int64 `env:"MEMORY_HEADROOM" envDefault:"268435456"`
}

// LimitMemory sets the runtime's soft memory limit to what the process holds
// now plus headroom, unless GOMEMLIMIT is set or headroom is 0. Call it once
// start-up has loaded what the process keeps: the default GC target grows
// the heap in proportion to what is live, so a process holding a large heap
// would otherwise double it before collecting. It returns the limit set (0: none).
func LimitMemory(headroom int64) int64 {
	if headroom <= 0 || os.Getenv("GOMEMLIMIT") != "" {
		return 0
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	limit := int64(ms.Sys-ms.HeapReleased) + headroom
	debug.SetMemoryLimit(limit)
	return limit
}

// SetGCPercent sets the process's GC target to percent, unless GOGC is set
// in the environment (an operator's explicit choice wins) or percent is 0
// or less. It reports whether it changed anything.
func SetGCPercent(percent int) bool {
	if os.Getenv("GOGC") != "" || percent <= 0 {
		return false
	}
	debug.SetGCPercent(percent)
	return true
}

// NewLogger is the JSON logger every binary uses, on stderr.
func NewLogger(service string, level slog.Level) *slog.Logger {
	return slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: level})).With("service", service)
}

// LogConfig logs the effective config at start, one line for all the structs
// given (a process running several workers logs each one's part), with
// secrets masked (see Masked); then a warning for each variable set under a
// deprecated name (see renamed), one whatever the number of structs that
// read it.
func LogConfig(log *slog.Logger, cfgs ...any) {
	all := map[string]any{}
	old := map[string]renamedVar{}
	for _, c := range cfgs {
		maps.Copy(all, Masked(c))
		for _, r := range renamed(c) {
			old[r.Old] = r
		}
		for _, r := range envconfig.Renamed(reflect.Indirect(reflect.ValueOf(c)).Type(), os.LookupEnv) {
			old[r.Old] = renamedVar(r)
		}
	}
	log.Info("config", "config", all)
	for _, name := range slices.Sorted(maps.Keys(old)) {
		r := old[name]
		msg := fmt.Sprintf("%s is deprecated and read in place of %s, which is unset: rename it %s; the old name goes in the next minor release", r.Old, r.New, r.New)
		if r.NewSet {
			msg = fmt.Sprintf("%s is deprecated and ignored, as %s is set: remove it; the old name goes in the next minor release", r.Old, r.New)
		}
		log.Warn(msg, "variable", r.Old, "replaced_by", r.New)
	}
}

// renamedVar is a variable set under its deprecated name.
type renamedVar struct {
	// Old is the deprecated name, New the one that replaces it.
	Old, New string
	// NewSet: New is set too, and wins.
	NewSet bool
}

// renamed lists the variables of a config set under a deprecated name: the
// fields tagged deprecated:"NEW" (NEW the variable that replaces the
// field's, under the same prefix) whose value is not zero. Such a field has
// no default, so a value means its variable was set; the config reads it
// only while NEW is unset (attribute.Config's schema file).
func renamed(cfg any) []renamedVar {
	v := reflect.Indirect(reflect.ValueOf(cfg))
	fields := envconfig.Fields(v.Type())
	set := map[string]bool{}
	for _, f := range fields {
		set[f.Key] = !v.FieldByIndex(f.Index).IsZero()
	}
	var out []renamedVar
	for _, f := range fields {
		if next, ok := f.Field.Tag.Lookup("deprecated"); ok && set[f.Key] {
			out = append(out, renamedVar{Old: f.Key, New: f.Prefix + next, NewSet: set[f.Prefix+next]})
		}
	}
	return out
}

// Masked returns a flat map of the config for logging, secrets replaced by
// ***. A field's `secret` tag says what is secret in it: "true", the whole
// value; "url", the user info of each URL in it (a NATS URL's may be a
// token alone, nats://t0ken@host); "false", nothing (the path of a key
// file, which is worth seeing in the log). Without the tag, a field whose
// variable's name says key, secret, password or token is masked whole, and
// the password of a URL in any other value is.
func Masked(cfg any) map[string]any {
	out := map[string]any{}
	v := reflect.ValueOf(cfg)
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	for _, f := range envconfig.Fields(v.Type()) {
		val := fmt.Sprint(v.FieldByIndex(f.Index).Interface())
		low := strings.ToLower(f.Key)
		tag, tagged := f.Field.Tag.Lookup("secret")
		switch {
		case val == "":
		case tagged && tag == "false":
		case tagged && tag == "url":
			val = MaskURLUserinfo(val)
		case tagged && tag != "", strings.Contains(low, "key") || strings.Contains(low, "secret") || strings.Contains(low, "password") || strings.Contains(low, "token"):
			val = "***"
		case strings.Contains(val, "://") && strings.Contains(val, "@"):
			val = MaskURL(val)
		}
		out[f.Key] = val
	}
	return out
}

// MaskURL is a URL with its password, if any, replaced by ***: what a tool
// may print of a DATABASE_URL it works on. A comma-separated list of URLs
// (DATABASE_READ_URL) has each one's masked. The user info ends at the
// URL's last @, so a password holding an @ of its own is masked whole.
func MaskURL(s string) string { return maskURLs(s, false) }

// MaskURLUserinfo is MaskURL for URLs whose user info is secret even without
// a password, such as NATS's (nats://t0ken@host): all of it is replaced by
// ***, in each URL of a comma-separated list.
func MaskURLUserinfo(s string) string { return maskURLs(s, true) }

func maskURLs(s string, whole bool) string {
	parts := strings.Split(s, ",")
	for i, p := range parts {
		parts[i] = maskOne(p, whole)
	}
	return strings.Join(parts, ",")
}

// maskOne masks one URL's password, or its whole user info.
func maskOne(s string, whole bool) string {
	scheme, rest, ok := strings.Cut(s, "://")
	at := strings.LastIndex(rest, "@")
	if !ok || at < 0 {
		return s
	}
	userinfo, host := rest[:at], rest[at+1:]
	if whole {
		return scheme + "://***@" + host
	}
	if user, _, hasPass := strings.Cut(userinfo, ":"); hasPass {
		return scheme + "://" + user + ":***@" + host
	}
	return s
}

// NewRegistry is a Prometheus registry with the Go and process collectors.
func NewRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}

// Check is one readiness dependency (the database, NATS).
type Check struct {
	Name string
	Fn   func(ctx context.Context) error
}

// OpsHandler serves /healthz (static: the process is alive), /readyz (every check
// passes within 2s) and /metrics.
func OpsHandler(reg *prometheus.Registry, checks ...Check) http.Handler {
	mux := http.NewServeMux()
	RegisterOps(mux, reg, checks...)
	return mux
}

// RegisterProfiling adds Go's profiles under /debug/pprof/ to mux.
func RegisterProfiling(mux *http.ServeMux) {
	mux.HandleFunc("GET /debug/pprof/", pprof.Index)
	mux.HandleFunc("GET /debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("GET /debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
}

// RegisterOps adds the operations routes to an existing mux.
func RegisterOps(mux *http.ServeMux, reg *prometheus.Registry, checks ...Check) {
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		var failed []string
		for _, c := range checks {
			if err := c.Fn(ctx); err != nil {
				failed = append(failed, c.Name+": "+err.Error())
			}
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if len(failed) > 0 {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte(strings.Join(failed, "\n") + "\n"))
			return
		}
		_, _ = w.Write([]byte("ready\n"))
	})
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
}

// Server is an HTTP server that shuts down with its context.
type Server struct {
	Name    string
	Addr    string
	Handler http.Handler
	// ReadTimeout bounds reading a whole request, body included, so a client
	// that sends headers and then stalls cannot hold a connection forever
	// (default 30s); WriteTimeout bounds writing the answer (default 60s,
	// above the longest wait a route offers).
	ReadTimeout, WriteTimeout time.Duration
}

// Serve listens and serves until ctx ends, then shuts down gracefully within
// timeout. It reports the bound address through ready (useful with ":0").
func (s Server) Serve(ctx context.Context, log *slog.Logger, timeout time.Duration, ready func(addr string)) error {
	ln, err := net.Listen("tcp", s.Addr)
	if err != nil {
		return fmt.Errorf("%s listen %s: %w", s.Name, s.Addr, err)
	}
	srv := &http.Server{Handler: s.Handler, ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout: cmp.Or(s.ReadTimeout, 30*time.Second), WriteTimeout: cmp.Or(s.WriteTimeout, 60*time.Second)}
	log.Info("listening", "server", s.Name, "addr", ln.Addr().String())
	if ready != nil {
		ready(ln.Addr().String())
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("%s: %w", s.Name, err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("%s shutdown: %w", s.Name, err)
	}
	return nil
}

// SignalContext is cancelled on SIGINT or SIGTERM: the start of a graceful drain.
func SignalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// Task is one long-running part of a binary (a server, a runner). It returns when
// ctx ends, after draining.
type Task func(ctx context.Context) error

// RunAll runs tasks until ctx ends or one fails; a failure cancels the others. It
// returns the first error.
func RunAll(ctx context.Context, tasks ...Task) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errc := make(chan error, len(tasks))
	for _, t := range tasks {
		go func() {
			err := t(ctx)
			if err != nil {
				cancel()
			}
			errc <- err
		}()
	}
	var first error
	for range tasks {
		if err := <-errc; err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Main is every binary's main: it builds the JSON logger (its level from the
// typed Base config, LOG_LEVEL), runs run with a context cancelled on
// SIGINT/SIGTERM, and is the only place that exits, non-zero when run fails.
// A run that returns flag.ErrHelp (-h or --help, from a flag set parsed with
// flag.ContinueOnError, which has printed its usage) was asked for its
// usage, and exits 0 with nothing logged.
func Main(name string, run func(ctx context.Context, log *slog.Logger) error) {
	base, err := envconfig.Load[Base]()
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(2)
	}
	log := NewLogger(name, base.LogLevel)
	ctx, stop := SignalContext()
	err = run(ctx, log)
	stop()
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		log.Error("exit", "error", err.Error())
		os.Exit(1)
	}
}

// Task is the server as a Task for RunAll.
func (s Server) Task(log *slog.Logger, timeout time.Duration) Task {
	return func(ctx context.Context) error { return s.Serve(ctx, log, timeout, nil) }
}
