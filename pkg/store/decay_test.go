package store

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestDecayParams(t *testing.T) {
	t.Parallel()
	sp, err := decayParams([]FactDecayRule{
		{Period: time.Hour, Floor: 0.1, Multipliers: []float64{1, 0.5, 0.05}},
		{Type: "topic", Period: time.Second, Floor: 0.3, Multipliers: []float64{1, 0.2}},
		{Type: "genre", Period: time.Minute, Floor: 0.1, Multipliers: []float64{1}},
	})
	require.NoError(t, err)
	require.Len(t, sp.types, 3)
	require.Nil(t, sp.types[0], "rule 1 is the default: it matches no type")
	require.Equal(t, "topic", *sp.types[1])
	require.Equal(t, "genre", *sp.types[2])
	require.Equal(t, []int64{3_600_000_000, 1_000_000, 60_000_000}, sp.periodUS)
	require.Equal(t, []float64{0.1, 0.3, 0.1}, sp.floors)
	require.Equal(t, 3, sp.width)
	require.Equal(t, []float64{1, 0.5, 0.05, 1, 0.2, 0.2, 1, 1, 1}, sp.mult, "each row padded with its last entry")

	for name, rules := range map[string][]FactDecayRule{
		"none":              nil,
		"default not first": {{Type: "topic", Period: time.Hour, Multipliers: []float64{1}}},
		"two defaults":      {{Period: time.Hour, Multipliers: []float64{1}}, {Period: time.Hour, Multipliers: []float64{1}}},
		"no table":          {{Period: time.Hour}},
		"no period":         {{Multipliers: []float64{1}}},
	} {
		_, err := decayParams(rules)
		require.Error(t, err, name)
	}
}
