package gateway

import (
	"fmt"
	"net/url"
	"time"

	"github.com/recallhq/recall/pkg/envconfig"
	"github.com/recallhq/recall/pkg/service"
)

// Config is the gateway's part of the config (GATEWAY_*). The memory it
// adds follows the API's context settings (CONTEXT_*), and its callers'
// tenants and keys are the API's (API_KEYS).
type Config struct {
	// Addr is where the gateway listens: clients set their OpenAI base URL
	// to http://<addr>/v1. It serves /healthz, /readyz and /metrics there
	// too.
	Addr string `env:"GATEWAY_ADDR" envDefault:":8090"`
	// UpstreamURL is the OpenAI-compatible API the gateway passes requests
	// to, with its version path (https://api.openai.com/v1,
	// http://localhost:11434/v1 for Ollama, a vLLM or DeepSeek endpoint).
	// Each route goes below its path (/chat/completions, /models,
	// /embeddings), its query kept (an Azure-like
	// ...?api-version=2024-10-21).
	UpstreamURL string `env:"GATEWAY_UPSTREAM_URL" envDefault:"https://api.openai.com/v1"`
	// UpstreamKey is the key the gateway calls the upstream with, on chat
	// completions and the few routes it passes on (docs/gateway.md), never
	// on another path. Set, the caller's Authorization header carries its
	// Recall key (API_KEYS) and is never forwarded. Empty, the caller's Authorization is forwarded to
	// the upstream as it is, and its Recall key (when API_KEYS is set) goes
	// in the X-Recall-Key header.
	UpstreamKey string `env:"GATEWAY_UPSTREAM_API_KEY"`
	// UpstreamTimeout bounds one upstream call, a whole stream included.
	UpstreamTimeout time.Duration `env:"GATEWAY_UPSTREAM_TIMEOUT" envDefault:"10m"`
	// MemoryTimeout bounds reading the memory a request's prompt gets (the
	// context for the user, the session and the last user message). Past
	// it, or when the store fails, the request goes upstream without
	// memory (X-Recall-Memory: unavailable): the chat never waits on
	// Recall longer than this.
	MemoryTimeout time.Duration `env:"GATEWAY_MEMORY_TIMEOUT" envDefault:"500ms"`
	// ContextBudget is the characters the memory message may take; 0: the
	// context's own budget (CONTEXT_BUDGET_CHARS).
	ContextBudget int `env:"GATEWAY_CONTEXT_BUDGET" envDefault:"0"`
	// ContextMessage is where the memory goes: "merge" appends it to the
	// caller's leading system (or developer) message, or adds a system
	// message first when there is none (some models accept one system
	// message only); "separate" always adds its own system message, after
	// the caller's leading ones.
	ContextMessage string `env:"GATEWAY_CONTEXT_MESSAGE" envDefault:"merge"`
	// MaxBodyBytes bounds a request body; MaxResponseBytes a non-streamed
	// upstream answer the gateway reads to store the reply.
	MaxBodyBytes     int64 `env:"GATEWAY_MAX_BODY_BYTES" envDefault:"16777216"`
	MaxResponseBytes int64 `env:"GATEWAY_MAX_RESPONSE_BYTES" envDefault:"33554432"`
	// PublishQueue bounds the exchanges waiting to be published; past it a
	// new exchange's turns are counted as dropped (and logged with their
	// ids), not held without bound. The next request of the same
	// conversation resends its history, so they are published then.
	PublishQueue int `env:"GATEWAY_PUBLISH_QUEUE" envDefault:"10000"`
	// PublishConcurrency is how many exchanges are published at once. A
	// publish mostly waits (a lookup in the store, JetStream's ack), so
	// more than the cores: at 4 a saturated gateway (make bench) filled
	// its queue and dropped turns.
	PublishConcurrency int `env:"GATEWAY_PUBLISH_CONCURRENCY" envDefault:"16"`
	// PublishRetryFor is how long an exchange's turns are retried while
	// JetStream or PostgreSQL is away, before they are counted as lost
	// and logged with their ids.
	PublishRetryFor time.Duration `env:"GATEWAY_PUBLISH_RETRY_FOR" envDefault:"10m"`
	// GCPercent is the Go GC target the gateway binary runs with (GOGC,
	// when set, wins; 0: the runtime's default, 100). A request allocates
	// its body, its memory's search and the prompt, and holds little after
	// it: a higher target trades resident memory for CPU. Measured with
	// make bench (docs/benchmarks.md, History), CPU a request and resident
	// memory under load: at the API's 1000, 680–864 µs and 274 MB; at 400,
	// 800 µs and 162 MB; at 100, 1141 µs and 74 MB. `recall run` does not
	// apply it (MEMORY_HEADROOM there).
	GCPercent int `env:"GATEWAY_GC_PERCENT" envDefault:"400"`
	// ReadTimeout bounds reading a request; WriteTimeout writing an answer,
	// a whole stream included, so it is at least UpstreamTimeout.
	ReadTimeout  time.Duration `env:"GATEWAY_READ_TIMEOUT" envDefault:"60s"`
	WriteTimeout time.Duration `env:"GATEWAY_WRITE_TIMEOUT" envDefault:"11m"`
}

// withDefaults fills what is unset (zero) with the documented defaults.
// ContextBudget keeps its 0: the context's own budget; GCPercent too (the
// runtime's default).
func (c Config) withDefaults() Config {
	gc := c.GCPercent
	c = envconfig.ZeroDefaults(c)
	c.GCPercent = gc
	return c
}

// ApplyGC sets the process's GC target to GCPercent, unless GOGC is set
// or it is 0; it reports whether it did.
func (c Config) ApplyGC() bool { return service.SetGCPercent(c.GCPercent) }

// check reports a setting the gateway cannot work with, naming it.
func (c Config) check() error {
	if _, err := c.upstreamBase(); err != nil {
		return err
	}
	switch c.ContextMessage {
	case "merge", "separate":
	default:
		return fmt.Errorf("GATEWAY_CONTEXT_MESSAGE: %q is not one of merge, separate", c.ContextMessage)
	}
	if c.ContextBudget < 0 {
		return fmt.Errorf("GATEWAY_CONTEXT_BUDGET: %d: want 0 (the context's budget) or more", c.ContextBudget)
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"GATEWAY_UPSTREAM_TIMEOUT", c.UpstreamTimeout}, {"GATEWAY_MEMORY_TIMEOUT", c.MemoryTimeout}, {"GATEWAY_PUBLISH_RETRY_FOR", c.PublishRetryFor},
		{"GATEWAY_READ_TIMEOUT", c.ReadTimeout}, {"GATEWAY_WRITE_TIMEOUT", c.WriteTimeout}} {
		if d.v <= 0 {
			return fmt.Errorf("%s: %s: want a positive duration", d.name, d.v)
		}
	}
	for _, n := range []struct {
		name string
		v    int64
	}{{"GATEWAY_MAX_BODY_BYTES", c.MaxBodyBytes}, {"GATEWAY_MAX_RESPONSE_BYTES", c.MaxResponseBytes},
		{"GATEWAY_PUBLISH_QUEUE", int64(c.PublishQueue)}, {"GATEWAY_PUBLISH_CONCURRENCY", int64(c.PublishConcurrency)}} {
		if n.v <= 0 {
			return fmt.Errorf("%s: %d: want a positive number", n.name, n.v)
		}
	}
	return nil
}

// upstreamBase is UpstreamURL parsed, the base every upstream route is
// joined to (upstreamURL).
func (c Config) upstreamBase() (*url.URL, error) {
	u, err := url.Parse(c.UpstreamURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("GATEWAY_UPSTREAM_URL: %q is not an http(s) URL such as https://api.openai.com/v1", c.UpstreamURL)
	}
	return u, nil
}
