package embed

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/openaitest"
)

func TestProbeDimension(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d, err := ProbeDimension(ctx, NewHashing(32))
	require.NoError(t, err)
	require.Equal(t, 32, d)

	// A remote model without EMBED_DIMENSIONS: one request tells.
	o, f := setup(t, nil)
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
	o, f = setup(t, func(c *Config) { c.Dimensions = 4 })
	d, err = ProbeDimension(ctx, o)
	require.NoError(t, err)
	require.Equal(t, 4, d)
	require.Empty(t, f.Requests())

	o, _ = setup(t, func(c *Config) { c.MaxRetries = 0 }, openaitest.Reply{Status: http.StatusUnauthorized})
	_, err = ProbeDimension(ctx, o)
	require.ErrorContains(t, err, "probe embedding dimension of test-embed")
}
