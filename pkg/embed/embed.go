// Package embed turns text into vectors and vectors into a user's interest
// vector.
//
// Two embedders sit behind one interface: OpenAI, for any endpoint that speaks
// the OpenAI embeddings protocol (OpenAI, Azure, Ollama, vLLM, Zhipu, Qwen...),
// and Hashing, a deterministic local embedder that needs no network and no
// model weights, so the whole pipeline runs offline and in tests. New picks one
// from the environment.
//
// The interest-vector arithmetic (shelf weights, the weighted sum, cosine)
// lives here too, in small pure functions, so that every worker that builds or
// compares interest vectors uses the same formula.
package embed

import (
	"context"
	"log/slog"
	"time"

	"github.com/recallhq/recall/pkg/llm"
)

// Embedder maps texts to vectors.
//
// Vectors from different embedders live in different spaces and must never be
// compared or summed, so callers store Model() next to every vector and only
// combine vectors whose model matches the embedder in use; a change of model
// means re-embedding, not mixing.
type Embedder interface {
	// Embed returns one vector per text, in the order of texts. Every vector
	// has Dimension() components. Implementations are safe for concurrent use.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	// Dimension is the length of the vectors Embed returns; the database
	// column and every vector summed into an interest vector must agree on it.
	Dimension() int
	// Model names what produced the vectors, including anything (such as a
	// requested dimension) that changes the vector space.
	Model() string
}

// ErrDimensionMismatch is returned when vectors that must share a dimension do
// not: a response with mixed lengths, or a contribution to an interest vector
// made by a different embedder. It is the llm client's own, so that errors.Is
// sees it in what the client returns.
var ErrDimensionMismatch = llm.ErrDimensionMismatch

// ErrBadResponse is returned when an embeddings endpoint answers successfully
// but with something unusable (wrong count, bad indices, empty or non-finite
// vectors). Retrying will not help, so callers can treat it as permanent. It
// is the llm client's llm.ErrBadEmbeddings.
var ErrBadResponse = llm.ErrBadEmbeddings

// Config selects and configures the embedder, from env. Its env tags are the
// one place its defaults live: code that builds a Config without the
// environment (tests, tools) starts from envconfig.Defaults[embed.Config]().
//
// Only EMBED_MODEL decides whether a remote endpoint is used: with it unset the
// local Hashing embedder is used even if a base URL or key is set, so that a
// half-configured deployment still runs (and logs which model it uses).
type Config struct {
	// BaseURL is the OpenAI-compatible API root, such as
	// http://localhost:11434/v1 for Ollama; empty means api.openai.com.
	BaseURL string `env:"EMBED_BASE_URL"`
	// APIKey is sent as a bearer token; local servers usually ignore it.
	APIKey string `env:"EMBED_API_KEY"`
	// Model is the remote embedding model; empty selects Hashing, the local
	// embedder, so search works offline. One embedder for every binary that
	// embeds (the indexer its turns, the summarizer and extractor their
	// summaries and facts, the catalog its items, the profiler the facts it
	// sums, the API the query): search and recommendations compare only
	// vectors of one model, so set the same on all of them.
	Model string `env:"EMBED_MODEL"`
	// Dimensions, when > 0, is sent as the request's dimensions parameter
	// (models such as text-embedding-3 can shorten their output) and every
	// returned vector must have that length; with Hashing it is the vector's
	// dimension (0: 256).
	Dimensions int `env:"EMBED_DIMENSIONS" envDefault:"0"`
	// Timeout bounds each HTTP attempt, not the whole call; retries get a
	// fresh timeout and the caller's context bounds the total.
	Timeout time.Duration `env:"EMBED_TIMEOUT" envDefault:"20s"`
	// Batch is the number of inputs per request; endpoints cap it (OpenAI at
	// 2048, many local servers far lower).
	Batch int `env:"EMBED_BATCH" envDefault:"64"`
	// MaxRetries is how many times a request is retried after a 408, 409,
	// 429, 5xx, timeout or connection error; 0 disables retries.
	MaxRetries int `env:"EMBED_MAX_RETRIES" envDefault:"3"`
	// RetryInitial is the first backoff between attempts; later ones double,
	// with jitter.
	RetryInitial time.Duration `env:"EMBED_RETRY_INITIAL" envDefault:"500ms"`
	// RetryMax caps every wait between attempts, including one the server
	// asks for in Retry-After: a longer wish is cut to RetryMax and the
	// request sent again, as for the chat model (see pkg/llm). Beyond the
	// retries the call fails and the worker's message is redelivered later,
	// instead of a handler holding its ack deadline for minutes. A response
	// that does not fit its inputs is not retried.
	RetryMax time.Duration `env:"EMBED_RETRY_MAX" envDefault:"10s"`
}

// LogValue masks the API key, so that the config can be logged at start as a
// whole without leaking the secret.
func (c Config) LogValue() slog.Value {
	key := ""
	if c.APIKey != "" {
		key = "***"
	}
	return slog.GroupValue(
		slog.String("base_url", c.BaseURL),
		slog.String("api_key", key),
		slog.String("model", c.Model),
		slog.Int("dimensions", c.Dimensions),
		slog.Duration("timeout", c.Timeout),
		slog.Int("batch", c.Batch),
		slog.Int("max_retries", c.MaxRetries),
		slog.Duration("retry_initial", c.RetryInitial),
		slog.Duration("retry_max", c.RetryMax),
	)
}

// New returns the embedder the configuration asks for: OpenAI when
// EMBED_MODEL is set, otherwise Hashing with hashingDim components (the
// default dimension when hashingDim <= 0). The choice lives in one place so
// that every binary embeds the same way.
func New(cfg Config, hashingDim int) (Embedder, error) {
	if cfg.Model == "" {
		return NewHashing(hashingDim), nil
	}
	return NewOpenAI(cfg)
}
