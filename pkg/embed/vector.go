package embed

import (
	"fmt"
	"math"
)

// Shelf statuses, as stored on a user's shelf items.
const (
	ShelfWant      = "want"
	ShelfReading   = "reading"
	ShelfRead      = "read"
	ShelfAbandoned = "abandoned"
)

// ShelfWeight is how much a shelf item's vector counts in the user's interest
// vector. Finishing a book is the strongest evidence of taste, reading it a
// bit less, wanting it less again (a wish is cheap); abandoning it is weak
// negative evidence (people drop good books for many reasons), so it only
// nudges the vector away. Unknown statuses report false, so that a typo or a
// new status is noticed instead of silently weighing zero.
func ShelfWeight(status string) (float64, bool) {
	switch status {
	case ShelfWant:
		return 0.3, true
	case ShelfReading:
		return 0.6, true
	case ShelfRead:
		return 1.0, true
	case ShelfAbandoned:
		return -0.2, true
	}
	return 0, false
}

// Contribution is one term of an interest vector: a shelf item (weighted by
// ShelfWeight) or an interest fact (weighted by its current, decayed weight).
type Contribution struct {
	// Source identifies the item or fact, for error messages and debugging.
	Source string
	// Weight scales Vector; negative weights push the result away.
	Weight float64
	// Vector is the item's embedding, from the same model as every other
	// contribution.
	Vector []float32
}

// cancelTolerance is how small the weighted sum may be, relative to the sum
// of the magnitudes that went into it, before it is treated as zero. Inputs
// are float32, so anything below about 1e-7 of the scale is rounding noise
// whose direction means nothing.
const cancelTolerance = 1e-6

// Combine builds an interest vector: the unit vector along Σ weight × vector.
//
// norm is the length of the sum before normalisation; it grows with the
// amount of agreeing evidence and can be kept as a confidence signal.
//
// ok is false, with a nil vector, when there is no direction to report: no
// contribution with a positive weight and a non-zero vector (a sum of dislikes
// only says what the user is not, and a nearest-neighbour search on it would
// recommend arbitrary opposites), or a sum that is zero or cancels to rounding
// noise. Callers then store no vector rather than one full of NaNs.
//
// Zero-weight contributions are skipped. Every other vector must have exactly
// dim components, and weights and components must be finite; otherwise Combine
// returns an error (wrapping ErrDimensionMismatch for a wrong length), because
// mixing vectors of different models is a bug to fix, not data to skip.
func Combine(dim int, contributions []Contribution) (vec []float32, norm float64, ok bool, err error) {
	if dim <= 0 {
		return nil, 0, false, fmt.Errorf("combine: dimension %d: %w", dim, ErrDimensionMismatch)
	}
	sum := make([]float64, dim)
	var scale float64
	positive := false
	for _, c := range contributions {
		if c.Weight == 0 {
			continue
		}
		if math.IsNaN(c.Weight) || math.IsInf(c.Weight, 0) {
			return nil, 0, false, fmt.Errorf("combine %q: weight %v is not finite", c.Source, c.Weight)
		}
		if len(c.Vector) != dim {
			return nil, 0, false, fmt.Errorf("combine %q: %d components, want %d: %w",
				c.Source, len(c.Vector), dim, ErrDimensionMismatch)
		}
		var sq float64
		for i, x := range c.Vector {
			f := float64(x)
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return nil, 0, false, fmt.Errorf("combine %q: component %d is not finite", c.Source, i)
			}
			sum[i] += c.Weight * f
			sq += f * f
		}
		if sq == 0 {
			continue
		}
		scale += math.Abs(c.Weight) * math.Sqrt(sq)
		if c.Weight > 0 {
			positive = true
		}
	}
	if !positive {
		return nil, 0, false, nil
	}
	norm = norm64(sum)
	if norm <= cancelTolerance*scale {
		return nil, norm, false, nil
	}
	vec = make([]float32, dim)
	for i, x := range sum {
		vec[i] = float32(x / norm)
	}
	return vec, norm, true, nil
}

// Cosine is the cosine similarity of a and b, computed in float64. It is 0
// when the lengths differ or either vector is zero, so that a missing or
// foreign vector never looks similar to anything.
func Cosine(a, b []float32) float64 {
	if len(a) != len(b) || len(a) == 0 {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot += x * y
		na += x * x
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / (math.Sqrt(na) * math.Sqrt(nb))
}

// normalize scales v in place to unit length and returns its former length.
// A zero vector stays zero: it carries no direction, and dividing would fill
// it with NaNs.
func normalize(v []float32) float64 {
	var sq float64
	for _, x := range v {
		sq += float64(x) * float64(x)
	}
	if sq == 0 {
		return 0
	}
	n := math.Sqrt(sq)
	inv := 1 / n
	for i, x := range v {
		v[i] = float32(float64(x) * inv)
	}
	return n
}

// norm64 is the Euclidean length of v.
func norm64(v []float64) float64 {
	var sq float64
	for _, x := range v {
		sq += x * x
	}
	return math.Sqrt(sq)
}
