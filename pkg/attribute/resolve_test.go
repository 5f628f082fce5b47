package attribute_test

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/attribute"
)

var t0 = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

func put(key, value, source, id string, day int) attribute.Assertion {
	return attribute.Assertion{Key: key, Value: value, Op: attribute.Put, Source: source, EventID: id, At: t0.AddDate(0, 0, day), Confidence: 1}
}

func remove(key, value, source, id string, day int) attribute.Assertion {
	a := put(key, value, source, id, day)
	a.Op = attribute.Remove
	return a
}

// current lists the current values as key=value.
func current(t *testing.T, s *attribute.Schema, as ...attribute.Assertion) []string {
	t.Helper()
	for i := range as {
		require.NoError(t, attribute.Normalize(s, &as[i]), "%+v", as[i])
	}
	var out []string
	for _, v := range attribute.Resolve(s, as).Current {
		out = append(out, v.Key+"="+v.Value)
	}
	return out
}

func TestResolvePrecedence(t *testing.T) {
	t.Parallel()
	s := attribute.Default()
	ex, st, inf, der := attribute.Explicit, attribute.Stated, attribute.Inferred, attribute.Derived
	cases := []struct {
		name string
		as   []attribute.Assertion
		want []string
	}{
		{"a move supersedes the old city", []attribute.Assertion{put("location", "Paris", st, "e1", 0), put("location", "Berlin", st, "e2", 5)},
			[]string{"location=Berlin"}},
		{"the user's newer word beats an older setting", []attribute.Assertion{put("location", "Paris", ex, "e1", 0), put("location", "Berlin", st, "e2", 5)},
			[]string{"location=Berlin"}},
		{"a newer setting beats an older statement", []attribute.Assertion{put("name", "Li", st, "e1", 0), put("name", "Xiao Li", ex, "e2", 5)},
			[]string{"name=Xiao Li"}},
		{"a newer inference reads the user's newer word over an older statement", []attribute.Assertion{put("occupation", "teacher", st, "e1", 0), put("occupation", "nurse", inf, "e2", 5)},
			[]string{"occupation=nurse"}},
		{"an inference does not override a setting", []attribute.Assertion{put("occupation", "teacher", ex, "e1", 0), put("occupation", "nurse", inf, "e2", 5)},
			[]string{"occupation=teacher"}},
		{"nor retract one", []attribute.Assertion{put("diet", "vegan", ex, "e1", 0), remove("diet", "vegan", inf, "e2", 5)},
			[]string{"diet=vegan"}},
		{"nor usage a setting", []attribute.Assertion{put("reply_language", "English", ex, "e1", 0), put("reply_language", "Chinese", der, "e2", 5)},
			[]string{"reply_language=English"}},
		{"nor usage a statement", []attribute.Assertion{put("languages", "French", st, "e1", 0), remove("languages", "French", der, "e2", 5)},
			[]string{"languages=French"}},
		{"nor usage an inference", []attribute.Assertion{put("occupation", "nurse", inf, "e1", 0), put("occupation", "doctor", der, "e2", 5)},
			[]string{"occupation=nurse"}},
		{"newer usage supersedes older usage", []attribute.Assertion{put("reply_length", "short", der, "e1", 0), put("reply_length", "long", der, "e2", 5)},
			[]string{"reply_length=long"}},
		{"a newer inference supersedes an older one", []attribute.Assertion{put("occupation", "nurse", inf, "e1", 0), put("occupation", "doctor", inf, "e2", 5)},
			[]string{"occupation=doctor"}},
		{"a statement supersedes an inference", []attribute.Assertion{put("occupation", "nurse", inf, "e1", 0), put("occupation", "teacher", st, "e2", 5)},
			[]string{"occupation=teacher"}},
		{"at the same time the stronger source wins", []attribute.Assertion{put("tone", "formal", ex, "e1", 3), put("tone", "casual", st, "e2", 3)},
			[]string{"tone=formal"}},
		{"a set accumulates, each item removable", []attribute.Assertion{put("allergies", "peanuts", st, "e1", 0), put("allergies", "Shellfish", st, "e2", 1),
			put("allergies", " PEANUTS ", ex, "e3", 2), remove("allergies", "shellfish", ex, "e4", 3)},
			[]string{"allergies=PEANUTS"}},
		{"a removal without an item clears the set", []attribute.Assertion{put("pets", "a cat", st, "e1", 0), put("pets", "a dog", st, "e2", 1),
			remove("pets", "", ex, "e3", 2)}, nil},
		{"a removal clears a single key", []attribute.Assertion{put("name", "Ann", st, "e1", 0), remove("name", "", st, "e2", 1)}, nil},
		{"a value said again after a removal is back", []attribute.Assertion{put("diet", "vegetarian", st, "e1", 0), remove("diet", "vegetarian", st, "e2", 1),
			put("diet", "vegetarian", st, "e3", 9)}, []string{"diet=vegetarian"}},
		{"current values follow the schema's order", []attribute.Assertion{put("assistant_name", "小书", st, "e1", 0), put("name", "小李", st, "e2", 1)},
			[]string{"name=小李", "assistant_name=小书"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, current(t, s, tc.as...))
			// Any order of the same assertions resolves alike.
			r := rand.New(rand.NewPCG(1, 2))
			for range 5 {
				shuffled := append([]attribute.Assertion(nil), tc.as...)
				r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
				require.Equal(t, tc.want, current(t, s, shuffled...))
			}
		})
	}
}

// The history keeps every value with when and by what it ended.
func TestResolveHistory(t *testing.T) {
	t.Parallel()
	s := attribute.Default()
	as := []attribute.Assertion{put("location", "Paris", attribute.Stated, "e1", 0), put("location", "Berlin", attribute.Stated, "e2", 5),
		put("location", "Lyon", attribute.Derived, "e3", 6), remove("location", "", attribute.Explicit, "e4", 9)}
	for i := range as {
		require.NoError(t, attribute.Normalize(s, &as[i]))
	}
	r := attribute.Resolve(s, as)
	require.Empty(t, r.Current)
	require.Len(t, r.History, 4)
	byID := map[string]attribute.Value{}
	for _, v := range r.History {
		byID[v.EventID] = v
	}
	require.Equal(t, "e4", r.History[0].EventID, "newest first")
	require.Equal(t, attribute.Superseded, byID["e1"].Status)
	require.Equal(t, t0.AddDate(0, 0, 5), *byID["e1"].ValidTo)
	require.Equal(t, "e2", byID["e1"].EndedBy)
	require.Equal(t, attribute.Retracted, byID["e2"].Status)
	require.Equal(t, "e4", byID["e2"].EndedBy)
	require.Equal(t, attribute.Ignored, byID["e3"].Status)
	require.Nil(t, byID["e3"].ValidTo)
	require.Equal(t, attribute.Removal, byID["e4"].Status)
}

func TestNormalizeNamesTheField(t *testing.T) {
	t.Parallel()
	s := attribute.Default()
	long := make([]rune, attribute.DefaultMaxChars+1)
	for i := range long {
		long[i] = 'x'
	}
	cases := []struct {
		a     attribute.Assertion
		field string
	}{
		{attribute.Assertion{Key: "shoe_size", Value: "42", Op: attribute.Put, Source: attribute.Explicit}, "key"},
		{attribute.Assertion{Key: "name", Value: "Ann", Op: attribute.Put, Source: "guessed"}, "source"},
		{attribute.Assertion{Key: "name", Value: "Ann", Op: "append", Source: attribute.Explicit}, "op"},
		{attribute.Assertion{Key: "name", Value: "  ", Op: attribute.Put, Source: attribute.Explicit}, "value"},
		{attribute.Assertion{Key: "name", Value: "A\x00nn", Op: attribute.Put, Source: attribute.Explicit}, "value"},
		{attribute.Assertion{Key: "name", Value: string(long), Op: attribute.Put, Source: attribute.Explicit}, "value"},
		{attribute.Assertion{Key: "name", Value: "Ann", Op: attribute.Put, Source: attribute.Explicit, Confidence: 1.5}, "confidence"},
		{attribute.Assertion{Key: "timezone", Value: "Mars/Olympus_Mons", Op: attribute.Put, Source: attribute.Explicit}, "value"},
		{attribute.Assertion{Key: "timezone", Value: "Local", Op: attribute.Put, Source: attribute.Stated}, "value"},
		{attribute.Assertion{Key: "timezone", Value: "+08:00", Op: attribute.Put, Source: attribute.Explicit}, "value"},
	}
	for _, tc := range cases {
		err := attribute.Normalize(s, &tc.a)
		var fe *attribute.FieldError
		require.ErrorAs(t, err, &fe, "%+v", tc.a)
		require.Equal(t, tc.field, fe.Field, "%v", err)
	}
	a := attribute.Assertion{Key: "allergies", Value: " Tree  Nuts ", Op: attribute.Put, Source: attribute.Stated}
	require.NoError(t, attribute.Normalize(s, &a))
	require.Equal(t, "tree nuts", a.Item)
	require.Equal(t, "Tree  Nuts", a.Value)
}

// A key of format timezone takes IANA zone names, and only them: the
// zone a user's habits are reckoned in.
func TestTimezoneFormat(t *testing.T) {
	t.Parallel()
	s := attribute.Default()
	k, ok := s.Key("timezone")
	require.True(t, ok)
	require.Equal(t, attribute.FormatTimezone, k.Format)
	for _, zone := range []string{"Asia/Shanghai", "Europe/Berlin", "America/Argentina/Buenos_Aires", "UTC", " Asia/Tokyo "} {
		a := attribute.Assertion{Key: "timezone", Value: zone, Op: attribute.Put, Source: attribute.Explicit, Confidence: 1}
		require.NoError(t, attribute.Normalize(s, &a), zone)
		loc, err := attribute.Location(a.Value)
		require.NoError(t, err)
		require.Equal(t, a.Value, loc.String())
	}
	for _, bad := range []string{"Asia/Atlantis", "Local", "GMT+8 Beijing", "../etc/passwd"} {
		a := attribute.Assertion{Key: "timezone", Value: bad, Op: attribute.Put, Source: attribute.Explicit, Confidence: 1}
		err := attribute.Normalize(s, &a)
		var fe *attribute.FieldError
		require.ErrorAs(t, err, &fe, bad)
		require.Equal(t, "value", fe.Field)
		require.Contains(t, fe.Message, "time zone", bad)
	}
	// Any other key takes the same text as free text.
	a := attribute.Assertion{Key: "location", Value: "Asia/Atlantis", Op: attribute.Put, Source: attribute.Explicit, Confidence: 1}
	require.NoError(t, attribute.Normalize(s, &a))
}

func TestLoadSchemas(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(body string) string {
		p := filepath.Join(dir, "schema.json")
		require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
		return p
	}
	none, err := attribute.LoadSchemas("")
	require.NoError(t, err)
	require.Equal(t, attribute.Default().Names(), none.For("any").Names())

	s, err := attribute.LoadSchemas(write(`{"tenants": {"shop": {"drop": ["pets"],
		"keys": [{"key": "shoe_size", "kind": "single", "group": "about", "label": {"en": "shoe size"}},
		         {"key": "tone", "kind": "single", "group": "preference", "label": {"en": "voice"}}]}}}`))
	require.NoError(t, err)
	shop := s.For("shop")
	_, ok := shop.Key("pets")
	require.False(t, ok)
	k, ok := shop.Key("shoe_size")
	require.True(t, ok)
	require.Equal(t, attribute.Single, k.Kind)
	k, _ = shop.Key("tone")
	require.Equal(t, "voice", k.Label["en"])
	_, ok = s.For("other").Key("pets")
	require.True(t, ok, "other tenants keep the default")

	for body, want := range map[string]string{
		`{"tenants": {"t": {"drop": ["nope"]}}}`:                                                               `no key "nope"`,
		`{"tenants": {"t": {"keys": [{"key": "Bad Key", "kind": "single", "group": "about"}]}}}`:               "keys[",
		`{"keys": [{"key": "a", "kind": "list", "group": "about", "label": {"en": "a"}}]}`:                     `kind "list"`,
		`{"keys": [{"key": "a", "kind": "single", "group": "about", "label": {"en": "a"}, "x": 1}]}`:           "unknown field",
		`{"keys": [{"key": "a", "kind": "single", "group": "about", "label": {"en": "a"}, "format": "date"}]}`: `keys[0].format "date"`,
	} {
		_, err := attribute.LoadSchemas(write(body))
		require.ErrorContains(t, err, want, body)
		require.ErrorContains(t, err, "ATTRIBUTE_SCHEMA_FILE")
	}
}

// A statement's item is its matter: a newer statement on the same matter
// supersedes the older, one on another matter stands beside it; and the
// user or the app takes one out by its words.
func TestResolveStatements(t *testing.T) {
	t.Parallel()
	s := attribute.Default()
	said := func(matter, text, id string, day int) attribute.Assertion {
		a := put(attribute.KeyStatements, text, attribute.Stated, id, day)
		a.Item = attribute.ItemKey(matter)
		return a
	}
	require.Equal(t, []string{"statements=I no longer eat spicy food.", "statements=I'm a huge fan of jazz."}, current(t, s,
		said("spicy food", "I love spicy food.", "e1", 0),
		said("jazz", "I'm a huge fan of jazz.", "e2", 1),
		said("spicy food", "I no longer eat spicy food.", "e3", 2),
	))
	require.Equal(t, []string{"statements=I love spicy food."}, current(t, s,
		said("spicy food", "I love spicy food.", "e1", 0),
		said("jazz", "I'm a huge fan of jazz.", "e2", 1),
		remove(attribute.KeyStatements, "i'm a huge  fan of jazz.", attribute.Explicit, "e3", 2),
	))
}
