package api

import (
	"time"

	"github.com/recallhq/recall/pkg/decay"
	"github.com/recallhq/recall/pkg/embed"
	"github.com/recallhq/recall/pkg/envconfig"
	"github.com/recallhq/recall/pkg/memory"
	"github.com/recallhq/recall/pkg/service"
	"github.com/recallhq/recall/pkg/store"
	"github.com/recallhq/recall/pkg/webhooks"
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
	// larger resident set (docs/benchmarks.md, History). The Chinese
	// dictionary's table (some 20 MB) is mapped outside the heap, so it
	// does not count towards that goal: with it on the heap the API ran at
	// 300 MB under load once a Chinese query had loaded it. `recall run` does not apply it: that process holds every
	// worker's batches too, and a tenfold target over what is live would
	// multiply them.
	GCPercent int `env:"API_GC_PERCENT" envDefault:"1000"`
	// MemoryHeadroom is how far the API binary's heap may grow above what it
	// holds once started before the runtime collects, whatever GCPercent
	// allows (a soft limit, raised by what the Chinese dictionary holds of
	// the heap when a query loads it; GOMEMLIMIT, when set, wins; 0: none).
	// Without it GCPercent alone let an API holding the dictionary grow to
	// over a gigabyte under load, with a worse tail latency, when the
	// dictionary took 234 MB of heap (its table now takes 20 MB, outside
	// the heap): the smaller heap is collected more often, but touches
	// fewer pages. The API binary only:
	// `recall run` has MEMORY_HEADROOM.
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
	// Read is where the API's reads may go besides DATABASE_URL: read
	// replicas (DATABASE_READ_*), opened by the binary that serves the API
	// (store.Store.OpenReplicas).
	Read store.ReadConfig
	// Webhooks is which addresses a webhook endpoint may be registered at
	// (WEBHOOK_ALLOW_PRIVATE), the webhooks worker's setting.
	Webhooks webhooks.Network
	memory.Config
}

// withDefaults fills the fields where zero cannot work (it would reject every
// POST or always return an empty window) with the env defaults above, so that a
// Config built in code behaves like one read from an empty environment.
// ContextMaxChars and ContextTTL keep zero: it means "no limit" to
// assemble.TrimWindow.
func (c Config) withDefaults() Config {
	d := envconfig.Defaults[Config]()
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

// ApplyGC sets the process's GC target from GCPercent, unless GOGC is set in the
// environment (an operator's explicit choice wins) or GCPercent is 0. It reports
// whether it changed anything.
func (c Config) ApplyGC() bool { return service.SetGCPercent(c.GCPercent) }
