package store

import (
	"math"
	"time"
)

// Fact decay: a fact keeps its weight for a full period after its last
// mention, then loses DecayFactor per full period. Whole periods, not a smooth
// curve, so that a weight only changes on known dates and a replay computes the
// same number.
const (
	DecayFactor = 0.9
	DecayPeriod = 30 * 24 * time.Hour
)

// DecayedWeight is a fact's current weight at time at: its base weight times
// DecayFactor for every full DecayPeriod since its last mention. Both times are
// event times, never the clock of the machine computing it, so replays agree.
// A mention at or after at (an event newer than the moment asked about) has not
// decayed at all. This is the one place the formula lives; profiles, the API
// and the decayer all call it.
func DecayedWeight(base float64, lastMentioned, at time.Time) float64 {
	if !at.After(lastMentioned) {
		return base
	}
	periods := at.Sub(lastMentioned) / DecayPeriod
	if periods == 0 {
		return base
	}
	return base * math.Pow(DecayFactor, float64(periods))
}
