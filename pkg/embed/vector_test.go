package embed

import (
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestShelfWeight(t *testing.T) {
	t.Parallel()
	tests := []struct {
		status string
		want   float64
		ok     bool
	}{
		{ShelfWant, 0.3, true},
		{ShelfReading, 0.6, true},
		{ShelfRead, 1.0, true},
		{ShelfAbandoned, -0.2, true},
		{"", 0, false},
		{"Read", 0, false},
		{"finished", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.status, func(t *testing.T) {
			t.Parallel()
			got, ok := ShelfWeight(tt.status)
			require.Equal(t, tt.ok, ok)
			require.Equal(t, tt.want, got)
		})
	}
}

// unit returns the i-th standard basis vector of dimension dim.
func unit(dim, i int) []float32 {
	v := make([]float32, dim)
	v[i] = 1
	return v
}

func TestCombine(t *testing.T) {
	t.Parallel()
	const dim = 4
	scaled := []float32{0, 3, 4, 0} // length 5
	tests := []struct {
		name     string
		contribs []Contribution
		wantOK   bool
		wantVec  []float32 // checked when non-nil
		wantNorm float64   // checked when non-zero
	}{
		{
			name:     "single positive contribution is its unit vector",
			contribs: []Contribution{{Source: "read", Weight: 1, Vector: scaled}},
			wantOK:   true,
			wantVec:  []float32{0, 0.6, 0.8, 0},
			wantNorm: 5,
		},
		{
			name:     "weight does not change the direction of one contribution",
			contribs: []Contribution{{Source: "want", Weight: 0.3, Vector: scaled}},
			wantOK:   true,
			wantVec:  []float32{0, 0.6, 0.8, 0},
			wantNorm: 1.5,
		},
		{
			name: "weighted sum",
			contribs: []Contribution{
				{Source: "read", Weight: 1, Vector: unit(dim, 0)},
				{Source: "reading", Weight: 0.6, Vector: unit(dim, 1)},
			},
			wantOK:   true,
			wantVec:  []float32{float32(1 / math.Sqrt(1.36)), float32(0.6 / math.Sqrt(1.36)), 0, 0},
			wantNorm: math.Sqrt(1.36),
		},
		{
			name: "zero weights are skipped, even with a foreign dimension",
			contribs: []Contribution{
				{Source: "read", Weight: 1, Vector: unit(dim, 2)},
				{Source: "ignored", Weight: 0, Vector: []float32{1, 2}},
			},
			wantOK:  true,
			wantVec: unit(dim, 2),
		},
		{
			name: "exact cancellation",
			contribs: []Contribution{
				{Source: "a", Weight: 0.3, Vector: unit(dim, 0)},
				{Source: "b", Weight: -0.3, Vector: unit(dim, 0)},
			},
		},
		{
			name: "cancellation to rounding noise",
			contribs: []Contribution{
				{Source: "reading", Weight: 0.6, Vector: scaled},
				{Source: "abandoned 1", Weight: -0.2, Vector: scaled},
				{Source: "abandoned 2", Weight: -0.2, Vector: scaled},
				{Source: "abandoned 3", Weight: -0.2, Vector: scaled},
			},
		},
		{
			name:     "only negative contributions",
			contribs: []Contribution{{Source: "abandoned", Weight: -0.2, Vector: unit(dim, 1)}},
		},
		{
			name:     "positive weight on a zero vector only",
			contribs: []Contribution{{Source: "empty text", Weight: 1, Vector: make([]float32, dim)}},
		},
		{
			name: "zero vector plus a negative one",
			contribs: []Contribution{
				{Source: "empty text", Weight: 1, Vector: make([]float32, dim)},
				{Source: "abandoned", Weight: -0.2, Vector: unit(dim, 1)},
			},
		},
		{name: "no contributions"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			vec, norm, ok, err := Combine(dim, tt.contribs)
			require.NoError(t, err)
			require.Equal(t, tt.wantOK, ok)
			if !tt.wantOK {
				require.Nil(t, vec)
				return
			}
			require.Len(t, vec, dim)
			require.InDelta(t, 1, math.Sqrt(dot(vec, vec)), 1e-6)
			for i, x := range vec {
				require.False(t, math.IsNaN(float64(x)), "component %d", i)
			}
			if tt.wantVec != nil {
				require.InDeltaSlice(t, tt.wantVec, vec, 1e-6)
			}
			if tt.wantNorm != 0 {
				require.InDelta(t, tt.wantNorm, norm, 1e-6)
			}
		})
	}
}

func TestCombineErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		dim       int
		contribs  []Contribution
		mismatch  bool
		errSource string
	}{
		{
			name:      "shorter vector",
			dim:       3,
			contribs:  []Contribution{{Source: "ok", Weight: 1, Vector: unit(3, 0)}, {Source: "short", Weight: 1, Vector: unit(2, 0)}},
			mismatch:  true,
			errSource: "short",
		},
		{
			name:      "longer vector with a negative weight",
			dim:       3,
			contribs:  []Contribution{{Source: "long", Weight: -0.2, Vector: unit(4, 0)}},
			mismatch:  true,
			errSource: "long",
		},
		{
			name:      "missing vector",
			dim:       3,
			contribs:  []Contribution{{Source: "nil", Weight: 1}},
			mismatch:  true,
			errSource: "nil",
		},
		{name: "zero dimension", dim: 0, mismatch: true},
		{
			name:      "NaN weight",
			dim:       2,
			contribs:  []Contribution{{Source: "nan", Weight: math.NaN(), Vector: unit(2, 0)}},
			errSource: "nan",
		},
		{
			name:      "infinite component",
			dim:       2,
			contribs:  []Contribution{{Source: "inf", Weight: 1, Vector: []float32{float32(math.Inf(1)), 0}}},
			errSource: "inf",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			vec, _, ok, err := Combine(tt.dim, tt.contribs)
			require.Error(t, err)
			require.False(t, ok)
			require.Nil(t, vec)
			require.Equal(t, tt.mismatch, errors.Is(err, ErrDimensionMismatch))
			require.Contains(t, err.Error(), tt.errSource)
		})
	}
}

// TestCombineNegativePullsAway checks that an abandoned item moves the
// interest vector away from itself, and the more the heavier its weight.
func TestCombineNegativePullsAway(t *testing.T) {
	t.Parallel()
	h := NewHashing(0)
	read := h.Vector("三体 刘慈欣 科幻")
	liked := h.Vector("Foundation Isaac Asimov science fiction")
	abandoned := h.Vector("science fiction space opera trilogy")
	base := []Contribution{
		{Source: "read", Weight: 1, Vector: read},
		{Source: "reading", Weight: 0.6, Vector: liked},
	}
	without, _, ok, err := Combine(h.Dimension(), base)
	require.NoError(t, err)
	require.True(t, ok)
	prev := Cosine(without, abandoned)

	for _, w := range []float64{-0.2, -0.5, -1} {
		with, _, ok, err := Combine(h.Dimension(), append(base[:len(base):len(base)],
			Contribution{Source: "abandoned", Weight: w, Vector: abandoned}))
		require.NoError(t, err)
		require.True(t, ok)
		got := Cosine(with, abandoned)
		require.Less(t, got, prev, "weight %v", w)
		prev = got
	}
}

func TestCosine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		a, b []float32
		want float64
	}{
		{"identical", []float32{1, 2, 3}, []float32{1, 2, 3}, 1},
		{"scale invariant", []float32{1, 2, 3}, []float32{2, 4, 6}, 1},
		{"opposite", []float32{1, 0}, []float32{-1, 0}, -1},
		{"orthogonal", []float32{1, 0}, []float32{0, 1}, 0},
		{"45 degrees", []float32{1, 0}, []float32{1, 1}, math.Sqrt2 / 2},
		{"zero vector", []float32{0, 0}, []float32{1, 1}, 0},
		{"length mismatch", []float32{1, 0}, []float32{1, 0, 0}, 0},
		{"empty", nil, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.InDelta(t, tt.want, Cosine(tt.a, tt.b), 1e-9)
		})
	}
}

func TestNormalize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		in       []float32
		want     []float32
		wantNorm float64
	}{
		{"3-4-5", []float32{3, 4}, []float32{0.6, 0.8}, 5},
		{"already unit", []float32{0, 1, 0}, []float32{0, 1, 0}, 1},
		{"zero stays zero", []float32{0, 0}, []float32{0, 0}, 0},
		{"empty", []float32{}, []float32{}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v := append([]float32(nil), tt.in...)
			n := normalize(v)
			require.InDelta(t, tt.wantNorm, n, 1e-9)
			require.InDeltaSlice(t, tt.want, v, 1e-7)
		})
	}
}

func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}
