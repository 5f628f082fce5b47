// Package decay is the lifecycle of interest facts: how a fact's weight falls
// with the time since its last mention, when it is archived and when it
// expires. The decayer, the context, the profiler and the inspector all judge
// facts by this one policy, and the decayer's SQL reads the same multiplier
// tables (Rule.Multipliers), so Go and the database agree to the last bit. It
// knows nothing of how facts are stored.
package decay

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/recallhq/recall/pkg/envconfig"
)

// Config is the lifecycle of interest facts, read from env by every binary
// that writes, reads or maintains facts (extractor, API, profiler, decayer), so
// that all of them apply the same rule. Set the same values on all of them.
//
// A fact's weight now is its base weight times Factor for every full Period
// since its last mention (event time). Below Floor it no longer counts and the
// decayer archives it; at its expiry (last mention + TTL) it is expired. Each
// has a per-type override, as "topic:360h,genre:1440h".
type Config struct {
	// Period, Factor and Floor are the decay policy: weight = base × Factor
	// per full Period since the last mention (event time); below Floor a
	// fact is archived. One policy: set the same values on every binary
	// that reads them. Period ≥ 1s, Factor in (0, 1], Floor in (0, 1], and a
	// fact must reach the floor within 4096 periods; a binary refuses to
	// start otherwise, naming the variable.
	Period time.Duration `env:"DECAY_PERIOD" envDefault:"720h"`
	Factor float64       `env:"DECAY_FACTOR" envDefault:"0.9"`
	Floor  float64       `env:"DECAY_FLOOR" envDefault:"0.1"`
	// TTL is how long after its last mention (event time) a fact expires.
	TTL time.Duration `env:"FACT_TTL" envDefault:"2160h"`
	// PeriodByType, FactorByType, FloorByType and TTLByType override the
	// policy per fact type, as "topic:0.8" or "topic:720h,genre:4320h".
	PeriodByType map[string]time.Duration `env:"DECAY_PERIOD_BY_TYPE" envKeyValSeparator:":" envSeparator:","`
	FactorByType map[string]float64       `env:"DECAY_FACTOR_BY_TYPE" envKeyValSeparator:":" envSeparator:","`
	FloorByType  map[string]float64       `env:"DECAY_FLOOR_BY_TYPE" envKeyValSeparator:":" envSeparator:","`
	TTLByType    map[string]time.Duration `env:"FACT_TTL_BY_TYPE" envKeyValSeparator:":" envSeparator:","`
}

// DefaultConfig is the config an empty environment gives: ×0.9 per full
// 30 days, archived below 0.1, expired 90 days after the last mention.
var DefaultConfig = envconfig.Defaults[Config]()

// MaxSteps bounds how many periods a fact may take to fall below its
// floor (0.9 and 0.1 take 22). It keeps the multiplier tables the SQL side is
// given small; a factor so close to 1 that it needs more is a mistake.
const MaxSteps = 4096

// WithDefaults fills the fields left zero (none of which can be zero) with the
// defaults, so that a config built in code behaves like one read from an empty
// environment.
func (c Config) WithDefaults() Config {
	if c.Period == 0 {
		c.Period = DefaultConfig.Period
	}
	if c.Factor == 0 {
		c.Factor = DefaultConfig.Factor
	}
	if c.Floor == 0 {
		c.Floor = DefaultConfig.Floor
	}
	if c.TTL == 0 {
		c.TTL = DefaultConfig.TTL
	}
	return c
}

// TTLFor is how long a fact of the given type lives after its last mention. It
// needs no validation, so the extractor can use it straight from the config;
// a TTL that is not positive falls back to the default.
func (c Config) TTLFor(typ string) time.Duration {
	if d, ok := c.TTLByType[typ]; ok && d > 0 {
		return d
	}
	if c.TTL > 0 {
		return c.TTL
	}
	return DefaultConfig.TTL
}

// Rule is the policy of one fact type.
type Rule struct {
	Period time.Duration
	Factor float64
	Floor  float64
	TTL    time.Duration
	// mult[n] is the multiplier after n full periods: 1, then each entry the
	// previous one times Factor (IEEE double, rounded at every step), ending at
	// the first entry below Floor. Both sides of the formula read this table,
	// which is what makes Go and SQL agree to the last bit: no pow() whose
	// last bit differs between Go's math and the database's libm.
	mult []float64
}

// Policy is a validated Config. It is immutable and safe for
// concurrent use.
type Policy struct {
	def    Rule
	byType map[string]Rule
	types  []string // sorted override types, for the SQL parameters
}

// DefaultPolicy is the policy of DefaultConfig.
var DefaultPolicy = mustPolicy(DefaultConfig)

func mustPolicy(c Config) *Policy {
	p, err := c.Policy()
	if err != nil {
		panic(err)
	}
	return p
}

// Policy validates the config and builds the policy. Errors name the variable.
func (c Config) Policy() (*Policy, error) {
	var errs []error
	def := Rule{Period: c.Period, Factor: c.Factor, Floor: c.Floor, TTL: c.TTL}
	def.mult, errs = buildRule(def, "", errs)
	p := &Policy{def: def, byType: map[string]Rule{}}
	types := map[string]bool{}
	for t := range c.PeriodByType {
		types[t] = true
	}
	for t := range c.FactorByType {
		types[t] = true
	}
	for t := range c.FloorByType {
		types[t] = true
	}
	for t := range c.TTLByType {
		types[t] = true
	}
	for t := range types {
		if strings.TrimSpace(t) == "" {
			errs = append(errs, errors.New("DECAY_*_BY_TYPE, FACT_TTL_BY_TYPE: empty fact type"))
			continue
		}
		r := def
		if v, ok := c.PeriodByType[t]; ok {
			r.Period = v
		}
		if v, ok := c.FactorByType[t]; ok {
			r.Factor = v
		}
		if v, ok := c.FloorByType[t]; ok {
			r.Floor = v
		}
		if v, ok := c.TTLByType[t]; ok {
			r.TTL = v
		}
		r.mult, errs = buildRule(r, t, errs)
		p.byType[t] = r
		p.types = append(p.types, t)
	}
	sort.Strings(p.types)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return p, nil
}

// buildRule checks a rule and computes its multiplier table.
func buildRule(r Rule, typ string, errs []error) ([]float64, []error) {
	name := func(plain, byType string) string {
		if typ == "" {
			return plain
		}
		return fmt.Sprintf("%s[%s]", byType, typ)
	}
	ok := true
	if r.Period < time.Second {
		errs = append(errs, fmt.Errorf("%s: %v: want a duration of at least 1s, such as 720h", name("DECAY_PERIOD", "DECAY_PERIOD_BY_TYPE"), r.Period))
		ok = false
	}
	if !(r.Factor > 0 && r.Factor <= 1) {
		errs = append(errs, fmt.Errorf("%s: %v: want a factor in (0, 1], such as 0.9", name("DECAY_FACTOR", "DECAY_FACTOR_BY_TYPE"), r.Factor))
		ok = false
	}
	if !(r.Floor > 0 && r.Floor <= 1) {
		errs = append(errs, fmt.Errorf("%s: %v: want a floor in (0, 1], such as 0.1", name("DECAY_FLOOR", "DECAY_FLOOR_BY_TYPE"), r.Floor))
		ok = false
	}
	if r.TTL <= 0 {
		errs = append(errs, fmt.Errorf("%s: %v: want a positive duration, such as 2160h", name("FACT_TTL", "FACT_TTL_BY_TYPE"), r.TTL))
		ok = false
	}
	if !ok {
		return nil, errs
	}
	mult := []float64{1}
	for mult[len(mult)-1] >= r.Floor && r.Factor < 1 {
		if len(mult) > MaxSteps {
			return nil, append(errs, fmt.Errorf("%s %v with floor %v: a fact would take more than %d periods to be archived; lower the factor or raise the floor",
				name("DECAY_FACTOR", "DECAY_FACTOR_BY_TYPE"), r.Factor, r.Floor, MaxSteps))
		}
		mult = append(mult, mult[len(mult)-1]*r.Factor)
	}
	return mult, errs
}

// Rule is the policy of a fact type: its override, or the default.
func (p *Policy) Rule(typ string) Rule {
	if r, ok := p.byType[typ]; ok {
		return r
	}
	return p.def
}

// TTL is how long a fact of the given type lives after its last mention.
func (p *Policy) TTL(typ string) time.Duration { return p.Rule(typ).TTL }

// Periods is the number of full periods of the type between a fact's last
// mention and at, counted in whole microseconds (what PostgreSQL stores) and
// capped at the first period whose weight is below the floor. A mention at or
// after at (an event newer than the moment asked about) has not decayed.
func (r Rule) Periods(lastMentioned, at time.Time) int {
	d := at.UnixMicro() - lastMentioned.UnixMicro()
	if d <= 0 || len(r.mult) == 1 {
		return 0
	}
	n := d / r.Period.Microseconds()
	if n >= int64(len(r.mult)) {
		return len(r.mult) - 1
	}
	return int(n)
}

// DecayedWeight is a fact's weight at time at: its base weight times Factor
// for every full Period since its last mention. Both times are event times,
// never the clock of the machine computing it, so replays agree. Once below
// the floor the weight stays at its first value below it: the fact no longer
// counts, and the decayer need not rewrite it every period.
//
// This is the one place the formula lives in Go; the decayer's SQL
// (FactDecayRange in pkg/store/queries/decay.sql) is the one place in SQL,
// and a test proves the two equal, bit for bit, on the same rows.
func (p *Policy) DecayedWeight(typ string, base float64, lastMentioned, at time.Time) float64 {
	r := p.Rule(typ)
	return base * r.mult[r.Periods(lastMentioned, at)]
}

// A fact's status under the policy at a moment (Assess). They are the words
// the store keeps in a fact's status, which the decayer's SQL writes by the
// same rule; the decayer's tests hold the two equal.
const (
	Active   = "active"
	Archived = "archived"
	Expired  = "expired"
)

// Assess is the weight at time at of a fact of the given type, base weight,
// last mention and expiry, and the status it has then: Expired once its
// expiry has passed, Archived when its weight is below the floor, Active
// otherwise. The decayer writes the same status (FactDecayRange).
func (p *Policy) Assess(typ string, base float64, lastMentioned, expiresAt, at time.Time) (float64, string) {
	w := p.DecayedWeight(typ, base, lastMentioned, at)
	switch {
	case !expiresAt.After(at):
		return w, Expired
	case w < p.Rule(typ).Floor:
		return w, Archived
	default:
		return w, Active
	}
}

// Default is the rule of every fact type without an override.
func (p *Policy) Default() Rule { return p.def }

// Types are the fact types with a rule of their own, sorted.
func (p *Policy) Types() []string { return slices.Clone(p.types) }

// Multipliers is the rule's table: entry n is the multiplier after n full
// periods, 1 first, each entry the previous one times Factor, ending at the
// first entry below Floor (one entry, 1, with a factor of 1). The decayer's
// SQL reads these tables instead of computing a power, so that it agrees with
// DecayedWeight bit for bit.
func (r Rule) Multipliers() []float64 { return slices.Clone(r.mult) }

// ArchivedAt is the moment a fact of the given type, base weight and last
// mention falls below its floor: the end of the first full period after
// which its weight is below it (what the decayer's SQL archives it for).
// ok is false when it never does.
func (p *Policy) ArchivedAt(typ string, base float64, lastMentioned time.Time) (at time.Time, ok bool) {
	r := p.Rule(typ)
	for n, m := range r.mult {
		if base*m < r.Floor {
			return lastMentioned.Add(time.Duration(n) * r.Period.Truncate(time.Microsecond)), true
		}
	}
	return time.Time{}, false
}

// ArchivedAfter is how many full periods after its last mention a fact of
// the rule falls below the floor and is archived; 0: never (a factor of 1).
func (r Rule) ArchivedAfter() int { return len(r.mult) - 1 }

// Curve point kinds.
const (
	CurveMention  = "mention"
	CurveDecay    = "decay"
	CurveArchived = "archived"
	CurveExpired  = "expired"
)

// CurvePoint is a moment a fact's weight changed, and its weight from then on.
type CurvePoint struct {
	At     time.Time
	Weight float64
	// Kind is what happened: a mention (the weight back to the base), a decay
	// step, the step that took it below the floor (archived), or its expiry.
	Kind string
}

// Curve is a fact's weight over time under the policy, as the decayer and
// the readers judge it (DecayedWeight): from each mention in mentions
// (ascending, event times) the weight starts at base and drops at every full
// period, until the next mention, the first step below the floor (after which
// it stays), or the mention's expiry (mention + TTL; expiresAt for the last
// mention, as stored), whichever comes first. It runs past now to the
// expiry, so it also shows what is to come.
func (p *Policy) Curve(typ string, base float64, mentions []time.Time, expiresAt time.Time) []CurvePoint {
	r := p.Rule(typ)
	var out []CurvePoint
	for i, m := range mentions {
		end, expiry := expiresAt, expiresAt
		if i+1 < len(mentions) {
			expiry = m.Add(r.TTL)
			end = mentions[i+1]
			if expiry.Before(end) {
				end = expiry
			}
		}
		out = append(out, CurvePoint{At: m, Weight: base, Kind: CurveMention})
		for k := 1; k <= r.ArchivedAfter(); k++ {
			at := m.Add(time.Duration(k) * r.Period)
			if !at.Before(end) {
				break
			}
			pt := CurvePoint{At: at, Weight: p.DecayedWeight(typ, base, m, at), Kind: CurveDecay}
			if pt.Weight < r.Floor {
				pt.Kind = CurveArchived
			}
			out = append(out, pt)
			if pt.Kind == CurveArchived {
				break
			}
		}
		if !end.Before(expiry) {
			out = append(out, CurvePoint{At: expiry, Weight: p.DecayedWeight(typ, base, m, expiry), Kind: CurveExpired})
		}
	}
	return out
}

// String describes the policy for logs.
func (p *Policy) String() string {
	f := func(r Rule) string {
		archived := "never archived"
		if n := r.ArchivedAfter(); n > 0 {
			archived = fmt.Sprintf("archived after %d periods", n)
		}
		return fmt.Sprintf("×%v per %v, floor %v (%s), ttl %v", r.Factor, r.Period, r.Floor, archived, r.TTL)
	}
	var b strings.Builder
	b.WriteString("default: " + f(p.def))
	for _, t := range p.types {
		b.WriteString("; " + t + ": " + f(p.byType[t]))
	}
	return b.String()
}
