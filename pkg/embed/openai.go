package embed

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/recallhq/recall/pkg/llm"
)

// OpenAI embeds texts through an OpenAI-compatible embeddings endpoint, with
// the project's one client for such endpoints (pkg/llm).
//
// Inputs are sent in batches of Config.Batch, one batch after another, so a
// large call never exceeds the endpoint's input limit and never floods a
// rate limit. Each request is retried on 408, 409, 429, 5xx, timeouts and
// connection errors with exponential backoff, by the client's one rule:
// waiting at least as long as the server's Retry-After (or retry-after-ms)
// asks, and never longer than Config.RetryMax. Every response is checked: one
// vector per input, all of one dimension (Config.Dimensions when set, and the
// same across calls), finite values. Vectors are re-normalised to unit length
// because not every model or server returns unit vectors, and the interest
// vector math assumes them.
//
// Empty and whitespace-only texts are not sent (endpoints reject them); like
// Hashing, they map to the zero vector. Before any response has fixed the
// dimension (Config.Dimensions unset and nothing embedded yet) they map to nil.
//
// OpenAI is safe for concurrent use.
type OpenAI struct {
	client *llm.Client
	cfg    Config
	model  string
	dim    atomic.Int64 // 0 until known
}

// NewOpenAI returns an OpenAI embedder. A config built in code starts from
// envconfig.Defaults[embed.Config](), the env tags' defaults; zero batch,
// timeout or retry delay, negative values and a missing model are errors.
func NewOpenAI(cfg Config) (*OpenAI, error) {
	switch {
	case cfg.Model == "":
		return nil, errors.New("openai embedder: EMBED_MODEL is empty")
	case cfg.Dimensions < 0:
		return nil, fmt.Errorf("openai embedder: EMBED_DIMENSIONS %d is negative", cfg.Dimensions)
	case cfg.Batch <= 0:
		return nil, fmt.Errorf("openai embedder: EMBED_BATCH %d is not positive", cfg.Batch)
	case cfg.MaxRetries < 0:
		return nil, fmt.Errorf("openai embedder: EMBED_MAX_RETRIES %d is negative", cfg.MaxRetries)
	case cfg.Timeout <= 0:
		return nil, fmt.Errorf("openai embedder: EMBED_TIMEOUT %s is not positive", cfg.Timeout)
	case cfg.RetryInitial <= 0:
		return nil, fmt.Errorf("openai embedder: EMBED_RETRY_INITIAL %s is not positive", cfg.RetryInitial)
	}
	client, err := llm.New("embed", llm.Config{
		BaseURL:      cfg.BaseURL,
		APIKey:       cfg.APIKey,
		Model:        cfg.Model,
		Timeout:      cfg.Timeout,
		MaxRetries:   cfg.MaxRetries,
		RetryInitial: cfg.RetryInitial,
		RetryMax:     cfg.RetryMax,
		// No cap: the calls come from worker handlers, whose own
		// concurrency (the consumers' settings) already bounds them.
		MaxConcurrency: 0,
	}, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("openai embedder: %w", err)
	}
	o := &OpenAI{client: client, cfg: cfg, model: cfg.Model}
	if cfg.Dimensions > 0 {
		o.model = fmt.Sprintf("%s@%d", cfg.Model, cfg.Dimensions)
		o.dim.Store(int64(cfg.Dimensions))
	}
	return o, nil
}

// Dimension is Config.Dimensions when set; otherwise the model's native
// dimension, learned from the first response, and 0 before it.
func (o *OpenAI) Dimension() int { return int(o.dim.Load()) }

// Model is the configured model name, with "@<dimensions>" appended when a
// dimension is requested: a shortened text-embedding-3 vector is not
// comparable with the model's full-length output.
func (o *OpenAI) Model() string { return o.model }

// Embed embeds texts batch by batch, preserving their order.
func (o *OpenAI) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	send := make([]int, 0, len(texts)) // indices of texts that are sent
	inputs := make([]string, 0, len(texts))
	for i, t := range texts {
		if strings.TrimSpace(t) != "" {
			send = append(send, i)
			inputs = append(inputs, t)
		}
	}
	if len(inputs) > 0 {
		vecs, err := o.client.Embed(ctx, inputs, llm.EmbedOptions{Dimensions: o.cfg.Dimensions, Batch: o.cfg.Batch})
		if err != nil {
			return nil, fmt.Errorf("embed %d texts with %s: %w", len(inputs), o.model, err)
		}
		d := int64(len(vecs[0]))
		if !o.dim.CompareAndSwap(0, d) {
			if want := o.dim.Load(); want != d {
				return nil, fmt.Errorf("embed %d texts with %s: %w: %w: got %d components, want %d",
					len(inputs), o.model, ErrBadResponse, ErrDimensionMismatch, d, want)
			}
		}
		for j, i := range send {
			normalize(vecs[j])
			out[i] = vecs[j]
		}
	}
	if d := o.Dimension(); d > 0 {
		for i := range out {
			if out[i] == nil {
				out[i] = make([]float32, d)
			}
		}
	}
	return out, nil
}
