package extract

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestKind(t *testing.T) {
	t.Parallel()
	tests := []struct {
		kind                   Kind
		valid, entity, isTitle bool
	}{
		{KindBookTitle, true, true, true},
		{KindAuthor, true, true, false},
		{KindFilm, true, true, true},
		{KindMusic, true, true, true},
		{KindPerson, true, true, false},
		{KindGenre, true, false, false},
		{KindTopic, true, false, false},
		{KindName, true, true, false},
		{"place", false, false, false},
		{"", false, false, false},
	}
	for _, tt := range tests {
		t.Run(string(tt.kind), func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.valid, tt.kind.Valid())
			require.Equal(t, tt.entity, tt.kind.IsEntity())
			require.Equal(t, tt.isTitle, tt.kind.IsTitle())
		})
	}
	require.Len(t, Kinds(), 8)
	for _, k := range Kinds() {
		require.True(t, k.Valid())
	}
}

func TestDedupe(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   []Fact
		want []Fact
	}{
		{"nil", nil, nil},
		{
			"same kind and value keeps the first",
			[]Fact{
				{Kind: KindBookTitle, Value: "三体", Display: "《三体》"},
				{Kind: KindFilm, Value: "三体", Display: "三体"},
				{Kind: KindBookTitle, Value: "三体", Display: "三体"},
			},
			[]Fact{
				{Kind: KindBookTitle, Value: "三体", Display: "《三体》"},
				{Kind: KindFilm, Value: "三体", Display: "三体"},
			},
		},
		{
			"empty values are dropped",
			[]Fact{{Kind: KindTopic, Value: "", Display: ""}, {Kind: KindGenre, Value: "jazz", Display: "jazz"}},
			[]Fact{{Kind: KindGenre, Value: "jazz", Display: "jazz"}},
		},
		{
			"order is stable",
			[]Fact{{Kind: KindPerson, Value: "b", Display: "B"}, {Kind: KindPerson, Value: "a", Display: "A"}, {Kind: KindPerson, Value: "b", Display: "B"}},
			[]Fact{{Kind: KindPerson, Value: "b", Display: "B"}, {Kind: KindPerson, Value: "a", Display: "A"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, Dedupe(tt.in))
		})
	}
}

// fixed is an Extractor that returns canned facts, for testing Combine.
type fixed struct {
	facts []Fact
	err   error
}

func (f fixed) Extract(context.Context, Input) ([]Fact, error) { return f.facts, f.err }

func TestCombine(t *testing.T) {
	t.Parallel()
	catalog := fixed{facts: []Fact{{Kind: KindFilm, Value: "三体", Display: "三体"}, {Kind: KindPerson, Value: "刘慈欣", Display: "刘慈欣"}}}
	rules := fixed{facts: []Fact{
		{Kind: KindBookTitle, Value: "三体", Display: "三体"}, // same value, other kind: the catalog wins
		{Kind: KindPerson, Value: "刘慈欣", Display: "刘慈欣"},  // duplicate
		{Kind: KindGenre, Value: "科幻", Display: "科幻"},
	}}
	boom := errors.New("boom")

	tests := []struct {
		name    string
		ex      Extractor
		want    []Fact
		wantErr error
	}{
		{"no extractors", Combine(), nil, nil},
		{"nil extractors are skipped", Combine(nil, catalog, nil), catalog.facts, nil},
		{
			"earlier extractor wins a value",
			Combine(catalog, rules),
			[]Fact{{Kind: KindFilm, Value: "三体", Display: "三体"}, {Kind: KindPerson, Value: "刘慈欣", Display: "刘慈欣"}, {Kind: KindGenre, Value: "科幻", Display: "科幻"}},
			nil,
		},
		{
			"order decides which kind survives",
			Combine(rules, catalog),
			[]Fact{{Kind: KindBookTitle, Value: "三体", Display: "三体"}, {Kind: KindPerson, Value: "刘慈欣", Display: "刘慈欣"}, {Kind: KindGenre, Value: "科幻", Display: "科幻"}},
			nil,
		},
		{
			"one extractor keeps all its kinds",
			Combine(fixed{facts: []Fact{{Kind: KindFilm, Value: "x", Display: "x"}, {Kind: KindMusic, Value: "x", Display: "x"}}}),
			[]Fact{{Kind: KindFilm, Value: "x", Display: "x"}, {Kind: KindMusic, Value: "x", Display: "x"}},
			nil,
		},
		{"errors propagate", Combine(catalog, fixed{err: boom}), nil, boom},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := tt.ex.Extract(context.Background(), Input{Text: "anything"})
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				require.Nil(t, got)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestCombineStopsWhenCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Combine(fixed{}).Extract(ctx, Input{Text: "x"})
	require.ErrorIs(t, err, context.Canceled)
}
