package attribute

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// resolveEveryPair is Resolve as it was before it kept each key's items
// apart: each assertion looked at every current value of every key. It is
// the reference the faster one is held to.
func resolveEveryPair(s *Schema, as []Assertion) Resolved {
	order := slices.Clone(as)
	slices.SortStableFunc(order, func(a, b Assertion) int {
		return cmp.Or(a.At.Compare(b.At), cmp.Compare(strength(b.Source), strength(a.Source)), cmp.Compare(a.EventID, b.EventID),
			cmp.Compare(a.Key, b.Key), cmp.Compare(a.Item, b.Item), cmp.Compare(a.Op, b.Op))
	})
	type slot struct{ key, item string }
	vals := make([]Value, len(order))
	current := map[slot]int{}
	firstPut := map[slot]int{}
	end := func(i int, at time.Time, by, status string) {
		vals[i].Status, vals[i].ValidTo, vals[i].EndedBy = status, &at, by
	}
	for i, a := range order {
		vals[i] = Value{Assertion: a}
		k, known := s.Key(a.Key)
		single := known && k.Kind == Single || a.Item == ""
		var ends []int
		for sl, j := range current {
			byValue := a.Op == Remove && a.Item != "" && ItemKey(vals[j].Value) == a.Item
			if sl.key == a.Key && (single || a.Op == Remove && a.Item == "" || sl.item == a.Item || byValue) {
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
			delete(current, slot{vals[j].Key, vals[j].Item})
		}
		if a.Op == Remove {
			vals[i].Status = Removal
			continue
		}
		sl := slot{a.Key, a.Item}
		vals[i].Status = Current
		current[sl] = i
		if _, ok := firstPut[sl]; !ok {
			firstPut[sl] = i
		}
	}
	var out Resolved
	for _, k := range s.Keys {
		var cur []int
		for sl, i := range current {
			if sl.key == k.Name {
				cur = append(cur, i)
			}
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

// randomAssertions are n assertions over few keys (single and set ones,
// and one the schema does not have), items, values, sources, times and
// event ids, so that they collide: a value put again, removed by its
// item, by its words or whole, at the same time as another.
func randomAssertions(r *rand.Rand, n int) []Assertion {
	keys := []string{"name", "location", "languages", KeyStatements, "no_longer_a_key"}
	values := []string{"Berlin", "Paris", "I love jazz.", "i love  JAZZ.", "en", "zh", "Ana"}
	items := []string{"", "jazz", "en", ItemKey("I love jazz."), ItemKey("Berlin")}
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	as := make([]Assertion, n)
	for i := range as {
		op := Put
		if r.IntN(5) == 0 {
			op = Remove
		}
		as[i] = Assertion{Key: keys[r.IntN(len(keys))], Item: items[r.IntN(len(items))], Value: values[r.IntN(len(values))], Op: op,
			Source: Sources[r.IntN(len(Sources))], EventID: fmt.Sprintf("e%d", r.IntN(n+1)), At: t0.Add(time.Duration(r.IntN(8)) * time.Hour)}
	}
	return as
}

// Resolving by each key's own items gives what looking at every current
// value of every key gave, value for value, status for status, whatever
// the assertions.
func TestResolveMatchesEveryPair(t *testing.T) {
	t.Parallel()
	s := Default()
	r := rand.New(rand.NewPCG(50, 1))
	for round := range 3000 {
		as := randomAssertions(r, r.IntN(40))
		require.Equal(t, resolveEveryPair(s, as), Resolve(s, as), "round %d: %+v", round, as)
	}
}

// BenchmarkResolveStatements resolves what a context reads of a user of a
// long history: a thousand self-statements of as many matters, and a few
// other keys.
func BenchmarkResolveStatements(b *testing.B) {
	s := Default()
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	var as []Assertion
	for i := range 1000 {
		text := fmt.Sprintf("I have been learning topic number %d.", i)
		as = append(as, Assertion{Key: KeyStatements, Item: ItemKey(fmt.Sprintf("topic %d", i)), Value: text, Op: Put, Source: Stated,
			EventID: fmt.Sprintf("e%d", i), At: t0.Add(time.Duration(i) * time.Hour)})
	}
	for i, k := range []string{"name", "location", "occupation", "timezone"} {
		as = append(as, Assertion{Key: k, Value: "v", Op: Put, Source: Stated, EventID: fmt.Sprintf("k%d", i), At: t0})
	}
	b.Run("by key", func(b *testing.B) {
		for b.Loop() {
			Resolve(s, as)
		}
	})
	b.Run("every pair", func(b *testing.B) {
		for b.Loop() {
			resolveEveryPair(s, as)
		}
	})
}
