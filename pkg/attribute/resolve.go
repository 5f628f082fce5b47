package attribute

import (
	"cmp"
	"slices"
	"time"
)

// Statuses of a value in its key's history.
const (
	// Current: the value holds now.
	Current = "current"
	// Superseded: a later value of the key (or item) took its place.
	Superseded = "superseded"
	// Retracted: a later removal ended it.
	Retracted = "retracted"
	// Removal: the assertion is a removal; it ended the value before it.
	Removal = "removal"
	// Ignored: it never applied: a model's inference or a usage statistic
	// does not override what the user or the app said.
	Ignored = "ignored"
)

// Value is an assertion as its key's history places it.
type Value struct {
	Assertion
	Status string
	// ValidTo is when a superseded or retracted value stopped being
	// current, and EndedBy the event that ended it.
	ValidTo *time.Time
	EndedBy string
}

// Resolved is a user's attributes: the current values, and every
// assertion with its place in its key's history.
type Resolved struct {
	// Current are the values that hold now, in the schema's order of keys
	// (a set's items in the order they were first put). Keys the schema no
	// longer has are left out.
	Current []Value
	// History is every assertion, newest first, each with its status.
	History []Value
}

// Resolve decides, from all of a user's assertions in any order, which
// values are current and when each earlier one ended. The rule (the
// precedence between sources), documented in docs/attributes.md:
//
//  1. Assertions take effect in event-time order; at the same time the
//     stronger source goes last, so it wins (explicit, stated, inferred,
//     derived), then the event id.
//  2. A put makes its value current for its key (a single key) or its item
//     (a set), ending the value current before it (superseded). A removal
//     ends the current value (retracted); a removal of a set without an
//     item ends every item.
//  3. The newest word of the user (stated) or of the app (explicit) wins
//     over an older one of either: "I moved to Berlin" in chat supersedes
//     a location set in the app's settings, and a later setting supersedes
//     a statement. A model reads the user's words too: a later inferred
//     assertion may end a stated (or inferred) value, never an explicit
//     one. A derived assertion (a usage statistic) ends only derived
//     values. What may not end a value is kept in the history as ignored.
//
// Nothing depends on the order the assertions are given in, so a replay
// or a late event resolves to the same attributes.
func Resolve(s *Schema, as []Assertion) Resolved {
	order := slices.Clone(as)
	// Each comparison stops at the first that differs (cmp.Or would
	// make them all): a user's history is sorted at every context.
	slices.SortStableFunc(order, func(a, b Assertion) int {
		if c := a.At.Compare(b.At); c != 0 {
			return c
		}
		if c := cmp.Compare(strength(b.Source), strength(a.Source)); c != 0 {
			return c
		}
		return cmp.Or(cmp.Compare(a.EventID, b.EventID), cmp.Compare(a.Key, b.Key), cmp.Compare(a.Item, b.Item), cmp.Compare(a.Op, b.Op))
	})
	type slot struct{ key, item string }
	vals := make([]Value, len(order))
	// current holds each key's current items (item -> index in vals):
	// an assertion looks at its own key's only, so that resolving a
	// history is not quadratic in it (a user's self-statements are one key
	// of hundreds of items, and every context resolves them).
	current := map[string]map[string]int{}
	firstPut := map[slot]int{}
	end := func(i int, at time.Time, by, status string) {
		vals[i].Status, vals[i].ValidTo, vals[i].EndedBy = status, &at, by
	}
	var ends []int
	for i, a := range order {
		vals[i] = Value{Assertion: a}
		k, known := s.Key(a.Key)
		single := known && k.Kind == Single || a.Item == ""
		items := current[a.Key]
		ends = ends[:0]
		switch {
		case single:
			// Every current value of the key ends (a removal without an
			// item is single too: it clears the set).
			for _, j := range items {
				ends = append(ends, j)
			}
		case a.Op == Remove:
			// A removal names its item by the item or by its current value:
			// a statement's item is its matter, and the user who corrects
			// it names it by its words.
			for item, j := range items {
				if item == a.Item || ItemKey(vals[j].Value) == a.Item {
					ends = append(ends, j)
				}
			}
		default:
			if j, ok := items[a.Item]; ok {
				ends = append(ends, j)
			}
		}
		slices.Sort(ends)
		if slices.ContainsFunc(ends, func(j int) bool { return !mayEnd(a.Source, vals[j].Source) }) {
			vals[i].Status = Ignored
			continue
		}
		for _, j := range ends {
			status := Superseded
			if a.Op == Remove {
				status = Retracted
			}
			end(j, a.At, a.EventID, status)
			delete(items, vals[j].Item)
		}
		if a.Op == Remove {
			vals[i].Status = Removal
			continue
		}
		sl := slot{a.Key, a.Item}
		vals[i].Status = Current
		if items == nil {
			items = map[string]int{}
			current[a.Key] = items
		}
		items[a.Item] = i
		if _, ok := firstPut[sl]; !ok {
			firstPut[sl] = i
		}
	}
	var out Resolved
	for _, k := range s.Keys {
		var cur []int
		for _, i := range current[k.Name] {
			cur = append(cur, i)
		}
		slices.SortFunc(cur, func(a, b int) int {
			return cmp.Compare(firstPut[slot{vals[a].Key, vals[a].Item}], firstPut[slot{vals[b].Key, vals[b].Item}])
		})
		for _, i := range cur {
			out.Current = append(out.Current, vals[i])
		}
	}
	out.History = make([]Value, len(vals))
	for i := range vals {
		out.History[len(vals)-1-i] = vals[i]
	}
	return out
}
