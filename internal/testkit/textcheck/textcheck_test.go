package textcheck_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/internal/testkit/textcheck"
)

func TestProblem(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		value string
		bound textcheck.Bound
		want  string // part of the problem; "" for none
	}{
		{"plain", "Marlene", textcheck.Bound{}, ""},
		{"multi-byte within runes", "《三体》", textcheck.Bound{Runes: 4}, ""},
		{"a rune cut in two", "Marlene\xe2\x80", textcheck.Bound{}, "not valid UTF-8"},
		{"a surrogate", "\xed\xa0\x80", textcheck.Bound{}, "not valid UTF-8"},
		{"NUL", "a\x00b", textcheck.Bound{}, "NUL at byte 1"},
		{"over its bytes", "三体", textcheck.Bound{Bytes: 5}, "6 bytes, over its bound of 5"},
		{"over its runes", "三体x", textcheck.Bound{Runes: 2}, "3 characters, over its bound of 2"},
		{"at its bounds", "三体", textcheck.Bound{Runes: 2, Bytes: 6}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := textcheck.Problem(tt.value, tt.bound)
			if tt.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tt.want)
		})
	}
}

func TestAcceptable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want bool
	}{
		{"I loved Marlene’s book.", true},
		{"", true},
		{"Marlene\xe2\x80", false},
		{"a\x00b", false},
		{"\xc0\x80", false},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, textcheck.Acceptable(tt.in), "%q", tt.in)
	}
}

func TestInputBound(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want int
	}{
		{"abc", 9},
		{"\uFDFA", 99}, // NFKC makes its 3 bytes 33
		{"\u1100\u1161\u11a8", 27},
		{"", 0},
	}
	for _, tt := range tests {
		require.Equal(t, textcheck.Bound{Bytes: tt.want}, textcheck.InputBound(tt.in), "%q", tt.in)
	}
}

// TestStore checks that PostgreSQL is what judges the values: what it
// takes is stored, what it refuses is named with the input it came from.
func TestStore(t *testing.T) {
	t.Parallel()
	db := testenv.NewDB(t)
	ctx := context.Background()
	good := []textcheck.Value{
		{Column: textcheck.Text, In: "I loved Marlene’s book.", Out: "marlene"},
		{Column: textcheck.Key, In: "x", Out: strings.Repeat("ab", 5000)}, // compresses under the index's limit
		{Column: textcheck.TSVector, In: "x", Out: "'marlen':1 'book':2"},
		{Column: textcheck.TSQuery, In: "x", Out: "'marlen' | 'book'"},
		{Column: textcheck.TSQuery, In: "x", Out: strings.Repeat("'ab' | ", 5000) + "'c'"}, // too long for a row, fine as a parameter
	}
	require.NoError(t, textcheck.Store(ctx, db.URL, good))
	// A long text is no key, but a text column takes it.
	seeds := textcheck.Nasty()
	long := seeds[slices.IndexFunc(seeds, func(s string) bool { return strings.HasPrefix(s, "I met ") })]
	require.NoError(t, textcheck.Store(ctx, db.URL, []textcheck.Value{{Column: textcheck.Text, In: long, Out: long}}))

	tests := []struct {
		name string
		bad  textcheck.Value
		want string
	}{
		{"a rune cut in two", textcheck.Value{Column: textcheck.Text, In: "I loved Marlene’s book.", Out: "Marlene\xe2\x80"}, "invalid byte sequence"},
		{"NUL", textcheck.Value{Column: textcheck.Text, In: "a\x00b", Out: "a\x00b"}, "invalid byte sequence"},
		{"a key too long for its index", textcheck.Value{Column: textcheck.Key, In: long, Out: long}, "index row"},
		{"a tsvector with an open quote", textcheck.Value{Column: textcheck.TSVector, In: "x", Out: "'a"}, "syntax"},
		{"a tsquery with an open quote", textcheck.Value{Column: textcheck.TSQuery, In: "x", Out: "'a' | 'b"}, "syntax"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := textcheck.Store(ctx, db.URL, append(append([]textcheck.Value{}, good...), tt.bad))
			require.ErrorContains(t, err, tt.want)
			require.ErrorContains(t, err, "made from")
		})
	}
}

// TestSeeds: the corpus holds the real conversations of each data set, then
// the hand-written inputs, the same at every call.
func TestSeeds(t *testing.T) {
	t.Parallel()
	seeds := textcheck.Seeds(t)
	nasty := textcheck.Nasty()
	require.Greater(t, len(seeds), len(nasty)+300)
	require.Equal(t, nasty, seeds[len(seeds)-len(nasty):])
	han := slices.IndexFunc(seeds, func(s string) bool { return strings.ContainsRune(s, '的') })
	require.GreaterOrEqual(t, han, 0, "KdConv's Chinese turns")
	require.GreaterOrEqual(t, slices.IndexFunc(seeds[han:], func(s string) bool { return strings.Contains(s, " the ") }), 0, "LoCoMo's and LongMemEval's English turns")
	require.Equal(t, seeds, textcheck.Seeds(t))
}
