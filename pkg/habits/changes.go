package habits

import (
	"slices"
	"time"

	"github.com/recallhq/recall/pkg/attribute"
)

// The attribute keys habits are derived into, and their kinds. A tenant's
// schema without one (or with it of another kind) gets none of it.
const (
	KeyTimezone      = "timezone"
	KeyActiveHours   = "active_hours"
	KeyMessageLength = "message_length"
	KeyLanguages     = "languages"
	KeyChannels      = "channels"
)

// Zone is the time zone a user's hours are reckoned in: the current value
// of their timezone key (UTC without one), and the newest assertion of the
// key, whatever became of it (empty when there is none). A new word on the
// time zone is an input of the active hours as much as a new message.
type Zone struct {
	Location *time.Location
	EventID  string
	At       time.Time
}

// UserZone is the zone a user's assertions give them: the timezone key's
// current value, or UTC when it has none (or names no zone this binary
// knows, which Normalize refuses to store).
func UserZone(s *attribute.Schema, as []attribute.Assertion) Zone {
	z := Zone{Location: time.UTC}
	r := attribute.Resolve(s, as)
	for _, v := range r.Current {
		if v.Key == KeyTimezone {
			if loc, err := attribute.Location(v.Value); err == nil {
				z.Location = loc
			}
		}
	}
	for _, v := range r.History { // newest first
		if v.Key == KeyTimezone {
			z.EventID, z.At = v.EventID, v.At
			break
		}
	}
	return z
}

// Changes are the derived assertions that bring a user's attributes to h: a put
// for each value that differs from the one derived before (a set's item new
// to the set), a removal for each value derived before that h no longer
// shows. Nothing when h is not Enough, or when nothing changed. as are all of
// the user's assertions; only the derived ones are compared with, so a value
// the user stated (which a derived one never overrides: attribute.Resolve)
// is not derived again and again.
//
// Each assertion's event is the newest message counted ("derived:<key>:<its
// event id>") and its time that message's: the same messages make the same
// assertions, which the store keeps once. The active hours also follow the
// newest word on the time zone (its event id appended, its time if later),
// so setting the zone re-derives them without a new message.
func Changes(s *attribute.Schema, as []attribute.Assertion, h Habits, z Zone) []attribute.Assertion {
	if !h.Enough {
		return nil
	}
	var derived []attribute.Assertion
	for _, a := range as {
		if a.Source == attribute.Derived {
			derived = append(derived, a)
		}
	}
	before := map[string][]attribute.Value{}
	for _, v := range attribute.Resolve(s, derived).Current {
		before[v.Key] = append(before[v.Key], v)
	}
	var out []attribute.Assertion
	newAssertion := func(key, value, op string, conf float64) attribute.Assertion {
		a := attribute.Assertion{Key: key, Value: value, Op: op, Source: attribute.Derived, Confidence: conf,
			EventID: "derived:" + key + ":" + h.Newest.EventID, At: h.Newest.OccurredAt}
		if key == KeyActiveHours && z.EventID != "" {
			a.EventID += ":" + z.EventID
			if z.At.After(a.At) {
				a.At = z.At
			}
		}
		return a
	}
	single := func(key string, it Item) {
		if !hasKey(s, key, attribute.Single) {
			return
		}
		prev := ""
		if b := before[key]; len(b) > 0 {
			prev = b[0].Value
		}
		switch {
		case it.Value != "" && it.Value != prev:
			out = append(out, newAssertion(key, it.Value, attribute.Put, it.Share))
		case it.Value == "" && prev != "":
			out = append(out, newAssertion(key, "", attribute.Remove, 1))
		}
	}
	set := func(key string, items []Item) {
		if !hasKey(s, key, attribute.Set) {
			return
		}
		for _, it := range items {
			if !slices.ContainsFunc(before[key], func(v attribute.Value) bool { return v.Item == attribute.ItemKey(it.Value) }) {
				out = append(out, newAssertion(key, it.Value, attribute.Put, it.Share))
			}
		}
		for _, v := range before[key] {
			if !slices.ContainsFunc(items, func(it Item) bool { return attribute.ItemKey(it.Value) == v.Item }) {
				out = append(out, newAssertion(key, v.Value, attribute.Remove, 1))
			}
		}
	}
	single(KeyActiveHours, h.ActiveHours)
	single(KeyMessageLength, h.Length)
	if h.LanguagesKnown {
		set(KeyLanguages, h.Languages)
	}
	set(KeyChannels, h.Channels)
	// Normalize fills a set's item; a value the tenant's schema refuses (a
	// max_chars below it) is left out.
	kept := out[:0]
	for _, a := range out {
		if attribute.Normalize(s, &a) == nil {
			kept = append(kept, a)
		}
	}
	return kept
}

func hasKey(s *attribute.Schema, name, kind string) bool {
	k, ok := s.Key(name)
	return ok && k.Kind == kind
}
