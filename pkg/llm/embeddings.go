package llm

import (
	"context"
	"errors"
	"fmt"
	"math"

	openai "github.com/sashabaranov/go-openai"
)

// ErrBadEmbeddings is wrapped by the error of an embeddings response that
// decodes but cannot be used: a wrong count, bad indices, empty or
// non-finite vectors. Asking again would get the same vectors, so it is not
// retried.
var ErrBadEmbeddings = errors.New("bad embeddings response")

// ErrDimensionMismatch is wrapped, with ErrBadEmbeddings, by the error of an
// embeddings response whose vectors differ in length from one another, from
// EmbedOptions.Dimensions, or from an earlier batch of the same call.
var ErrDimensionMismatch = errors.New("vector dimension mismatch")

// EmbedOptions shape one Embed call.
type EmbedOptions struct {
	// Dimensions, when > 0, is sent as the request's dimensions parameter
	// (models such as text-embedding-3 can shorten their output) and every
	// vector must have that length.
	Dimensions int
	// Batch is the number of inputs per request, since endpoints cap it
	// (OpenAI at 2048, many local servers far lower); <= 0 sends all in one.
	Batch int
}

// Embed returns one vector per input, in the order of inputs, as the model
// gives them: normalising is the caller's business, because what a vector
// is used for decides it. Inputs are sent in batches of opts.Batch, one
// batch after another, so a large call never exceeds the endpoint's input
// limit and never floods a rate limit; each batch is one call under the
// client's bounds and retries. Endpoints reject blank inputs, so callers
// leave them out.
//
// Every response is checked: one vector per input (by index, or in input
// order when a server leaves the indices out), none empty, all finite and of
// one length, which is opts.Dimensions when set and the first batch's
// otherwise. A response that fails the check is an *Error with
// ReasonMalformed wrapping ErrBadEmbeddings (and ErrDimensionMismatch when
// lengths differ). Errors are those of Complete, prefixed with the inputs of
// the batch that failed.
func (c *Client) Embed(ctx context.Context, inputs []string, opts EmbedOptions) ([][]float32, error) {
	batch := opts.Batch
	if batch <= 0 {
		batch = max(len(inputs), 1)
	}
	out := make([][]float32, 0, len(inputs))
	dim := opts.Dimensions
	for start := 0; start < len(inputs); start += batch {
		part := inputs[start:min(start+batch, len(inputs))]
		req := openai.EmbeddingRequestStrings{
			Input:          part,
			Model:          openai.EmbeddingModel(c.cfg.Model),
			EncodingFormat: openai.EmbeddingEncodingFormatFloat,
			Dimensions:     opts.Dimensions,
		}
		var vecs [][]float32
		err := c.do(ctx, func(actx context.Context) error {
			res, err := c.client.CreateEmbeddings(actx, req)
			if err != nil {
				return err
			}
			if vecs, err = checkEmbeddings(res.Data, len(part), dim); err != nil {
				return malformed(err, false)
			}
			return nil
		})
		if err != nil {
			prefix := "llm: "
			if _, ok := err.(*Error); ok {
				prefix = ""
			}
			return nil, fmt.Errorf("%sembed inputs %d-%d of %d: %w", prefix, start, start+len(part)-1, len(inputs), err)
		}
		dim = len(vecs[0])
		out = append(out, vecs...)
	}
	return out, nil
}

// checkEmbeddings validates the data of a response to n inputs and returns
// its vectors in input order. want is the length every vector must have, 0
// when not known yet.
func checkEmbeddings(data []openai.Embedding, n, want int) ([][]float32, error) {
	if len(data) != n {
		return nil, fmt.Errorf("%w: %d vectors for %d inputs", ErrBadEmbeddings, len(data), n)
	}
	out := make([][]float32, n)
	if indicesMissing(data) {
		// Some compatible servers leave index out (so it decodes as 0);
		// the protocol then still returns data in input order.
		for i, e := range data {
			out[i] = e.Embedding
		}
	} else {
		for _, e := range data {
			if e.Index < 0 || e.Index >= n || out[e.Index] != nil {
				return nil, fmt.Errorf("%w: index %d repeated or out of range for %d inputs", ErrBadEmbeddings, e.Index, n)
			}
			out[e.Index] = e.Embedding
		}
	}
	d := len(out[0])
	for i, v := range out {
		if len(v) == 0 {
			return nil, fmt.Errorf("%w: empty vector for input %d", ErrBadEmbeddings, i)
		}
		if len(v) != d {
			return nil, fmt.Errorf("%w: %w: input 0 has %d components, input %d has %d",
				ErrBadEmbeddings, ErrDimensionMismatch, d, i, len(v))
		}
		for _, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return nil, fmt.Errorf("%w: non-finite component for input %d", ErrBadEmbeddings, i)
			}
		}
	}
	if want > 0 && d != want {
		return nil, fmt.Errorf("%w: %w: got %d components, want %d", ErrBadEmbeddings, ErrDimensionMismatch, d, want)
	}
	return out, nil
}

// indicesMissing reports whether a multi-vector response has every index at
// zero, which means the server did not send them.
func indicesMissing(data []openai.Embedding) bool {
	if len(data) < 2 {
		return false
	}
	for _, e := range data {
		if e.Index != 0 {
			return false
		}
	}
	return true
}
