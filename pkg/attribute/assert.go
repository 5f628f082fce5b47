package attribute

import (
	"fmt"
	"slices"
	"strings"
	"time"
	_ "time/tzdata" // zones validate the same with or without the system's database
	"unicode"
	"unicode/utf8"
)

// Sources of an assertion, strongest first.
const (
	// Explicit: set through the API or an attribute edit by the app or the
	// user's settings.
	Explicit = "explicit"
	// Stated: the user said it about themselves in the conversation.
	Stated = "stated"
	// Inferred: a language model read it from the conversation.
	Inferred = "inferred"
	// Derived: computed from how the user uses the assistant (hours,
	// languages, message length).
	Derived = "derived"
)

// Sources are every source, strongest first.
var Sources = []string{Explicit, Stated, Inferred, Derived}

// Ops of an assertion.
const (
	// Put sets a single key's value, or adds an item to a set.
	Put = "put"
	// Remove clears a single key, or takes one item out of a set.
	Remove = "remove"
)

// Assertion is one event's word on one key: a value put or removed, by a
// source, at an event time. Assertions are never changed once made; what is
// current follows from all of them (Resolve).
type Assertion struct {
	Key string
	// Item identifies a set's item (its normalized value, ItemKey); empty
	// for a single key.
	Item string
	// Value is the value as it was given (empty for a removal).
	Value string
	Op    string
	// Source is explicit, stated, inferred or derived.
	Source string
	// EventID is the event that made the assertion: an attribute edit, or the
	// turn it was read from.
	EventID string
	// Evidence are the turns it was read from (for stated and inferred
	// values); SessionID their session.
	Evidence  []string
	SessionID string
	// Confidence is how sure the source is, 0 to 1 (1 for explicit).
	Confidence float64
	// At is the event time: when the value became true.
	At time.Time
}

// ItemKey is the identity of a set's item: its value lower-cased, spaces
// collapsed, so "Peanuts" and " peanuts" are one item.
func ItemKey(v string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(v), unicode.IsSpace), " ")
}

// Normalize fills Item for a set's assertion from its value, and checks an
// assertion against the schema: a known key, a known op and source, a value
// for a put (valid UTF-8, no control characters, within the key's limit,
// of the key's format if it has one); a set's removal may name its item by
// value or, without one, clear the set. The error names the field.
func Normalize(s *Schema, a *Assertion) error {
	k, ok := s.Key(a.Key)
	if !ok {
		return &FieldError{Field: "key", Message: fmt.Sprintf("%q is not a key of the profile's schema (%s)", a.Key, strings.Join(s.Names(), ", "))}
	}
	if !slices.Contains(Sources, a.Source) {
		return &FieldError{Field: "source", Message: fmt.Sprintf("%q: want one of %s", a.Source, strings.Join(Sources, ", "))}
	}
	a.Value = strings.TrimSpace(a.Value)
	switch a.Op {
	case Put:
		if err := checkValue(k, a.Value); err != nil {
			return err
		}
	case Remove:
		if a.Value != "" {
			if err := checkValue(k, a.Value); err != nil {
				return err
			}
		}
	default:
		return &FieldError{Field: "op", Message: fmt.Sprintf("%q: want put or remove", a.Op)}
	}
	// A set's item is its value's identity; a removal of a set without a
	// value takes every item out.
	if k.Kind == Single {
		a.Item = ""
	} else if a.Item == "" {
		a.Item = ItemKey(a.Value)
	}
	if a.Confidence < 0 || a.Confidence > 1 {
		return &FieldError{Field: "confidence", Message: "want a number from 0 to 1"}
	}
	return nil
}

func checkValue(k Key, v string) error {
	switch {
	case v == "":
		return &FieldError{Field: "value", Message: "required"}
	case !utf8.ValidString(v):
		return &FieldError{Field: "value", Message: "not valid UTF-8"}
	case strings.ContainsFunc(v, unicode.IsControl):
		return &FieldError{Field: "value", Message: "contains a control character"}
	case utf8.RuneCountInString(v) > k.Limit():
		return &FieldError{Field: "value", Message: fmt.Sprintf("%d characters, limit is %d for %s", utf8.RuneCountInString(v), k.Limit(), k.Name)}
	}
	switch k.Format {
	case FormatTimezone:
		if _, err := Location(v); err != nil {
			return &FieldError{Field: "value", Message: fmt.Sprintf("%q is not a time zone: want an IANA name such as Asia/Shanghai, Europe/Berlin or UTC", v)}
		}
	}
	return nil
}

// Location is the time zone a value of a timezone key names. "Local" (the
// machine's zone, different from one machine to the next) is no value.
// The time zone database is embedded in the binary (time/tzdata) for
// machines that have none, so a zone accepted by the API is known to every
// worker that reckons in it.
func Location(name string) (*time.Location, error) {
	if name == "" || name == "Local" {
		return nil, fmt.Errorf("time zone %q: want an IANA name", name)
	}
	return time.LoadLocation(name)
}

// FieldError names the field of an assertion that is wrong.
type FieldError struct {
	Field, Message string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Message }

// strength ranks a source: 0 is the strongest.
func strength(source string) int { return slices.Index(Sources, source) }

// mayEnd reports whether an assertion of source by may end a value of
// source of: the user's and the app's words end anything; a model's
// reading of the user's words ends what the user said or a model read,
// never what was set explicitly; usage statistics end only their own kind.
func mayEnd(by, of string) bool {
	switch by {
	case Explicit, Stated:
		return true
	case Inferred:
		return of != Explicit
	default:
		return of == Derived
	}
}
