package store

import (
	"errors"
	"time"
)

// FactDecayRule is one fact type's decay rule as the decayer's SQL
// (FactDecayRange) applies it. The policy and its formula live in pkg/decay;
// the store is given the rules' plain values, so that it depends on no policy
// and the SQL reads the very tables the Go formula reads.
type FactDecayRule struct {
	// Type is the fact type the rule is for; "" for the default rule, which
	// comes first and applies to every type without a rule of its own.
	Type string
	// Period is the time of one decay step, Floor the weight below which a
	// fact is archived.
	Period time.Duration
	Floor  float64
	// Multipliers[n] is the weight's multiplier after n full periods, ending
	// at the first entry below Floor (decay.Rule.Multipliers); the last entry
	// is the cap.
	Multipliers []float64
}

// decaySQLParams are the rules as the decayer's SQL reads them: arrays, rule 1
// being the default (types[1] is NULL, so it matches no type), and the
// multiplier tables flattened into one array of rows of width entries, each
// row padded with its last entry (the cap).
type decaySQLParams struct {
	types    []*string
	periodUS []int64
	floors   []float64
	mult     []float64
	width    int
}

func decayParams(rules []FactDecayRule) (decaySQLParams, error) {
	var sp decaySQLParams
	if len(rules) == 0 || rules[0].Type != "" {
		return sp, errors.New("decay rules: the default rule (no type) must come first")
	}
	for i, r := range rules {
		if i > 0 && r.Type == "" {
			return sp, errors.New("decay rules: only the first rule may have no type")
		}
		if len(r.Multipliers) == 0 || r.Period < time.Microsecond {
			return sp, errors.New("decay rules: a rule needs a period and its multiplier table")
		}
		sp.width = max(sp.width, len(r.Multipliers))
	}
	for i, r := range rules {
		if i == 0 {
			sp.types = append(sp.types, nil)
		} else {
			sp.types = append(sp.types, &r.Type)
		}
		sp.periodUS = append(sp.periodUS, r.Period.Microseconds())
		sp.floors = append(sp.floors, r.Floor)
		sp.mult = append(sp.mult, r.Multipliers...)
		for range sp.width - len(r.Multipliers) {
			sp.mult = append(sp.mult, r.Multipliers[len(r.Multipliers)-1])
		}
	}
	return sp, nil
}
