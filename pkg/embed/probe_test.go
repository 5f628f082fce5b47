package embed

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestProbeDimension(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d, err := ProbeDimension(ctx, NewHashing(32))
	require.NoError(t, err)
	require.Equal(t, 32, d)

	// A remote model without EMBED_DIMENSIONS: one request tells.
	o, f, _ := setup(t, Config{})
	require.Zero(t, o.Dimension())
	d, err = ProbeDimension(ctx, o)
	require.NoError(t, err)
	require.Equal(t, fakeNativeDim, d)
	require.Len(t, f.Requests(), 1)
	d, err = ProbeDimension(ctx, o)
	require.NoError(t, err)
	require.Equal(t, fakeNativeDim, d)
	require.Len(t, f.Requests(), 1, "known from then on")

	// With the dimension configured, no request at all.
	o, f, _ = setup(t, Config{Dimensions: 4})
	d, err = ProbeDimension(ctx, o)
	require.NoError(t, err)
	require.Equal(t, 4, d)
	require.Empty(t, f.Requests())

	o, _, _ = setup(t, Config{MaxRetries: 0}, fail(http.StatusUnauthorized))
	_, err = ProbeDimension(ctx, o)
	require.ErrorContains(t, err, "probe embedding dimension of test-embed")
}
