package memory

import (
	"fmt"
	"math"
	"time"

	"github.com/recallhq/recall/pkg/contract"
)

// The service's parameters are values: contract.ContextParams and
// contract.SearchParams, counts, pages, flags. A front door that reads text
// (the HTTP API: its queries and the bodies of its POST twins) turns it into
// these values, and the service judges them, once, whichever door they came
// through: their ranges, ids, times and lists. A value's zero leaves the
// service's default, as contract.Memory and the Go client have it.
//
// What a request states that such a value cannot carry is passed as a value
// no range holds: NotANumber, NotADuration, FlagUnreadable. The service then
// refuses it with the message a value out of range gets, in its place among
// the request's other mistakes, so that an answer is the same whichever way
// the service was reached.

// NotANumber is what a front door that reads text passes for a whole number
// its request stated that the value cannot carry: text that is no whole
// number ("ten", 1.5, more digits than an int holds), or a stated 0 where
// the value's 0 leaves the default (every count: counts start at 1, and a
// count of 0 is refused as out of range). No range holds it.
const NotANumber = math.MinInt

// NotADuration is NotANumber for a duration: text that is no duration, or a
// stated 0 where the value's 0 leaves the default (a context's ttl, a turn
// wait's timeout). It is below 0, which no duration parameter takes.
const NotADuration time.Duration = math.MinInt64

// Flag is a yes-or-no parameter as a front door got it: FlagFalse (also
// not given), FlagTrue, or FlagUnreadable, text that says neither, which
// the service refuses naming the parameter. FlagOf makes one of a bool.
type Flag uint8

// The values of a Flag.
const (
	FlagFalse Flag = iota
	FlagTrue
	FlagUnreadable
)

// FlagOf is b as a Flag.
func FlagOf(b bool) Flag {
	if b {
		return FlagTrue
	}
	return FlagFalse
}

// value is the flag's truth; FlagUnreadable appends the field error that
// names it.
func (f Flag) value(name string, fe *[]contract.FieldError) bool {
	if f == FlagUnreadable {
		*fe = append(*fe, contract.FieldError{Field: name, Message: "want true or false"})
	}
	return f == FlagTrue
}

// InRange is n, a whole number stated for the parameter name, when it is
// from lo to hi; otherwise it appends the field error that says so ("want a
// whole number from lo to hi") and answers def. It is the one check of a
// whole number's range, for the service's parameters and for the API's own
// routes.
func InRange(name string, n, def, lo, hi int, fe *[]contract.FieldError) int {
	if n < lo || n > hi {
		*fe = append(*fe, contract.FieldError{Field: name, Message: fmt.Sprintf("want a whole number from %d to %d", lo, hi)})
		return def
	}
	return n
}

// Count is a count parameter: 0 (not given) is def; any other must be from
// 1 to hi (InRange).
func Count(name string, n, def, hi int, fe *[]contract.FieldError) int {
	if n == 0 {
		return def
	}
	return InRange(name, n, def, 1, hi, fe)
}

// optional is a whole number that may be 0: nil (not given) is def; any
// other must be from lo to hi (InRange).
func optional(name string, n *int, def, lo, hi int, fe *[]contract.FieldError) int {
	if n == nil {
		return def
	}
	return InRange(name, *n, def, lo, hi, fe)
}

// Page is a page of a list as a request asks for it: Limit entries at most
// (0: the list's default), after Cursor, a position the service answered
// with the page before (NextCursor; empty: the first page).
type Page struct {
	Limit  int
	Cursor string
}
