package store_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/store"
)

func TestDecayedWeight(t *testing.T) {
	t.Parallel()
	last := time.Date(2026, 1, 10, 15, 30, 0, 0, time.UTC)
	day := 24 * time.Hour
	cases := []struct {
		name string
		base float64
		at   time.Time
		want float64
	}{
		{"at the mention", 1, last, 1},
		{"before the mention (a newer event than asked about)", 1, last.Add(-40 * day), 1},
		{"day 29", 1, last.Add(29 * day), 1},
		{"a second before day 30", 1, last.Add(30*day - time.Second), 1},
		{"day 30", 1, last.Add(30 * day), 0.9},
		{"day 59", 1, last.Add(59 * day), 0.9},
		{"day 60", 1, last.Add(60 * day), 0.81},
		{"day 90", 1, last.Add(90 * day), 0.729},
		{"base weight scales", 0.5, last.Add(60 * day), 0.405},
		{"zero stays zero", 0, last.Add(300 * day), 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.InDelta(t, tc.want, store.DecayedWeight(tc.base, last, tc.at), 1e-12)
		})
	}
}

func TestDecayedWeightIgnoresZone(t *testing.T) {
	t.Parallel()
	last := time.Date(2026, 1, 10, 0, 0, 0, 0, time.UTC)
	at := last.Add(30 * 24 * time.Hour).In(time.FixedZone("UTC+8", 8*3600))
	require.InDelta(t, 0.9, store.DecayedWeight(1, last, at), 1e-12, "the same instant in another zone is the same age")
}
