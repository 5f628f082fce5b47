package decay_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/decay"
)

const day = 24 * time.Hour

func TestDecayedWeight(t *testing.T) {
	t.Parallel()
	p := decay.DefaultPolicy
	last := time.Date(2026, 1, 10, 15, 30, 0, 0, time.UTC)
	cases := []struct {
		name string
		base float64
		at   time.Time
		want float64
	}{
		{"at the mention", 1, last, 1},
		{"before the mention (a newer event than asked about)", 1, last.Add(-40 * day), 1},
		{"day 29", 1, last.Add(29 * day), 1},
		{"a microsecond before day 30", 1, last.Add(30*day - time.Microsecond), 1},
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
			require.InDelta(t, tc.want, p.DecayedWeight("topic", tc.base, last, tc.at), 1e-12)
		})
	}
}

func TestDecayedWeightIgnoresZone(t *testing.T) {
	t.Parallel()
	last := time.Date(2026, 1, 10, 0, 0, 0, 0, time.UTC)
	at := last.Add(30 * day).In(time.FixedZone("UTC+8", 8*3600))
	require.InDelta(t, 0.9, decay.DefaultPolicy.DecayedWeight("book_title", 1, last, at), 1e-12, "the same instant in another zone is the same age")
}

func TestDecayedWeightIsRepeatedMultiplication(t *testing.T) {
	t.Parallel()
	p := decay.DefaultPolicy
	last := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	want := 1.0
	for n := 0; n <= 22; n++ {
		require.Equal(t, want, p.DecayedWeight("x", 1, last, last.Add(time.Duration(n)*30*day)), "period %d: exactly the n-fold product, bit for bit", n)
		want *= 0.9
	}
}

func TestArchivedWeightHoldsBelowFloor(t *testing.T) {
	t.Parallel()
	p := decay.DefaultPolicy
	last := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	w21 := p.DecayedWeight("x", 1, last, last.Add(21*30*day))
	w22 := p.DecayedWeight("x", 1, last, last.Add(22*30*day))
	require.GreaterOrEqual(t, w21, 0.1, "0.9^21 ≈ 0.109 still counts")
	require.Less(t, w22, 0.1, "0.9^22 ≈ 0.098 is below the floor")
	require.Equal(t, w22, p.DecayedWeight("x", 1, last, last.Add(3000*30*day)), "held at its first value below the floor")
	require.Equal(t, 22, p.Rule("x").Periods(last, last.Add(100*365*day)))
}

func TestAssess(t *testing.T) {
	t.Parallel()
	p := decay.DefaultPolicy
	last := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	expires := last.Add(90 * day)
	w, s := p.Assess("topic", 1, last, expires, last.Add(60*day))
	require.Equal(t, decay.Active, s)
	require.InDelta(t, 0.81, w, 1e-12)
	_, s = p.Assess("topic", 1, last, expires, last.Add(90*day))
	require.Equal(t, decay.Expired, s, "expired at expires_at exactly")
	_, s = p.Assess("topic", 1, last, expires, last.Add(90*day-time.Microsecond))
	require.Equal(t, decay.Active, s)
	long := last.Add(10000 * day)
	_, s = p.Assess("topic", 1, last, long, last.Add(21*30*day))
	require.Equal(t, decay.Active, s)
	w, s = p.Assess("topic", 1, last, long, last.Add(22*30*day))
	require.Equal(t, decay.Archived, s)
	require.Less(t, w, 0.1)
}

func TestDecayPolicyPerType(t *testing.T) {
	t.Parallel()
	c := decay.DefaultConfig
	c.PeriodByType = map[string]time.Duration{"topic": 7 * day}
	c.FactorByType = map[string]float64{"topic": 0.5, "genre": 1}
	c.FloorByType = map[string]float64{"author": 0.5}
	c.TTLByType = map[string]time.Duration{"genre": 365 * day}
	p, err := c.Policy()
	require.NoError(t, err)
	last := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

	require.Equal(t, 0.25, p.DecayedWeight("topic", 1, last, last.Add(14*day)), "×0.5 per week")
	require.Equal(t, 1.0, p.DecayedWeight("genre", 1, last, last.Add(3000*day)), "factor 1: no decay")
	require.Equal(t, 365*day, p.TTL("genre"))
	require.Equal(t, 90*day, p.TTL("topic"), "unset parts come from the default")
	_, s := p.Assess("author", 1, last, last.Add(10000*day), last.Add(7*30*day))
	require.Equal(t, decay.Archived, s, "0.9^7 ≈ 0.48 is below author's floor 0.5")
	require.InDelta(t, 0.9, p.DecayedWeight("book_title", 1, last, last.Add(30*day)), 1e-12, "other types: the default")
}

func TestDecayConfigErrorsNameTheVariable(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		mod  func(*decay.Config)
		want string
	}{
		{"factor above 1", func(c *decay.Config) { c.Factor = 1.5 }, "DECAY_FACTOR: 1.5"},
		{"factor zero", func(c *decay.Config) { c.Factor = 0 }, "DECAY_FACTOR"},
		{"floor", func(c *decay.Config) { c.Floor = -0.1 }, "DECAY_FLOOR"},
		{"period", func(c *decay.Config) { c.Period = time.Millisecond }, "DECAY_PERIOD"},
		{"ttl", func(c *decay.Config) { c.TTL = -time.Hour }, "FACT_TTL"},
		{"per type", func(c *decay.Config) { c.FactorByType = map[string]float64{"topic": 2} }, "DECAY_FACTOR_BY_TYPE[topic]"},
		{"per type ttl", func(c *decay.Config) { c.TTLByType = map[string]time.Duration{"genre": 0} }, "FACT_TTL_BY_TYPE[genre]"},
		{"too slow", func(c *decay.Config) { c.Factor = 0.99999 }, "more than 4096 periods"},
		{"not a number", func(c *decay.Config) { c.Floor = math.NaN() }, "DECAY_FLOOR"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := decay.DefaultConfig
			tc.mod(&c)
			_, err := c.Policy()
			require.ErrorContains(t, err, tc.want)
		})
	}
}

// A fact's curve: from each mention the weight drops at every full period
// until the next mention, the first step below the floor (where it stays),
// or the mention's expiry; each weight is DecayedWeight's.
func TestCurve(t *testing.T) {
	t.Parallel()
	p, err := decay.Config{Period: 30 * day, Factor: 0.5, Floor: 0.2, TTL: 100 * day}.Policy()
	require.NoError(t, err)
	m0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	pt := func(at time.Time, w float64, kind string) decay.CurvePoint {
		return decay.CurvePoint{At: at, Weight: w, Kind: kind}
	}
	cases := []struct {
		name     string
		mentions []time.Time
		expires  time.Time
		want     []decay.CurvePoint
	}{
		{"one mention: steps, archived below the floor, then the expiry", []time.Time{m0}, m0.Add(100 * day), []decay.CurvePoint{
			pt(m0, 1, decay.CurveMention), pt(m0.Add(30*day), 0.5, decay.CurveDecay), pt(m0.Add(60*day), 0.25, decay.CurveDecay),
			pt(m0.Add(90*day), 0.125, decay.CurveArchived), pt(m0.Add(100*day), 0.125, decay.CurveExpired),
		}},
		{"a mention before the first step resets it", []time.Time{m0, m0.Add(10 * day)}, m0.Add(110 * day), []decay.CurvePoint{
			pt(m0, 1, decay.CurveMention), pt(m0.Add(10*day), 1, decay.CurveMention), pt(m0.Add(40*day), 0.5, decay.CurveDecay),
			pt(m0.Add(70*day), 0.25, decay.CurveDecay), pt(m0.Add(100*day), 0.125, decay.CurveArchived), pt(m0.Add(110*day), 0.125, decay.CurveExpired),
		}},
		{"expired before the next mention", []time.Time{m0, m0.Add(200 * day)}, m0.Add(230 * day), []decay.CurvePoint{
			pt(m0, 1, decay.CurveMention), pt(m0.Add(30*day), 0.5, decay.CurveDecay), pt(m0.Add(60*day), 0.25, decay.CurveDecay),
			pt(m0.Add(90*day), 0.125, decay.CurveArchived), pt(m0.Add(100*day), 0.125, decay.CurveExpired),
			pt(m0.Add(200*day), 1, decay.CurveMention), pt(m0.Add(230*day), 0.5, decay.CurveExpired),
		}},
		{"no mentions, no curve", nil, m0, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, p.Curve("topic", 1, tc.mentions, tc.expires))
		})
	}
	never, err := decay.Config{Period: day, Factor: 1, Floor: 0.1, TTL: 3 * day}.Policy()
	require.NoError(t, err)
	require.Zero(t, never.Rule("x").ArchivedAfter(), "a factor of 1 never archives")
	require.Equal(t, []decay.CurvePoint{pt(m0, 0.7, decay.CurveMention), pt(m0.Add(3*day), 0.7, decay.CurveExpired)},
		never.Curve("x", 0.7, []time.Time{m0}, m0.Add(3*day)))
	require.Equal(t, 22, decay.DefaultPolicy.Rule("topic").ArchivedAfter())
}

// The rules as the decayer's SQL is given them: the default, the overridden
// types in order, and each rule's multiplier table, a copy that ends at the
// first entry below the floor.
func TestRulesForSQL(t *testing.T) {
	t.Parallel()
	c := decay.DefaultConfig
	c.FactorByType = map[string]float64{"topic": 0.5, "genre": 1}
	p, err := c.Policy()
	require.NoError(t, err)
	require.Equal(t, []string{"genre", "topic"}, p.Types())
	require.Equal(t, 30*day, p.Default().Period)
	require.Equal(t, []float64{1, 0.5, 0.25, 0.125, 0.0625}, p.Rule("topic").Multipliers())
	require.Equal(t, []float64{1}, p.Rule("genre").Multipliers(), "a factor of 1: one entry")
	m := p.Default().Multipliers()
	require.Len(t, m, 23)
	require.Less(t, m[22], 0.1)
	require.GreaterOrEqual(t, m[21], 0.1)
	m[0] = 7
	require.Equal(t, 1.0, p.Default().Multipliers()[0], "a copy: the policy stays as it was")
	types := p.Types()
	types[0] = "x"
	require.Equal(t, []string{"genre", "topic"}, p.Types())
}
