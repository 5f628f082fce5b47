package embed

import (
	"context"
	"fmt"
)

// ProbeDimension returns e's dimension, embedding a short text to learn it when
// e does not know it yet (a remote model whose dimension is not configured
// reports 0 until its first response). Workers call it at start, because the
// database index and every stored vector depend on it.
func ProbeDimension(ctx context.Context, e Embedder) (int, error) {
	if d := e.Dimension(); d > 0 {
		return d, nil
	}
	vecs, err := e.Embed(ctx, []string{"dimension probe"})
	if err != nil {
		return 0, fmt.Errorf("probe embedding dimension of %s: %w", e.Model(), err)
	}
	if len(vecs) != 1 || len(vecs[0]) == 0 {
		return 0, fmt.Errorf("probe embedding dimension of %s: %w: no vector", e.Model(), ErrBadResponse)
	}
	return len(vecs[0]), nil
}
