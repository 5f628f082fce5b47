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
	require.Len(t, Kinds(), 7)
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
				{KindBookTitle, "三体", "《三体》"},
				{KindFilm, "三体", "三体"},
				{KindBookTitle, "三体", "三体"},
			},
			[]Fact{
				{KindBookTitle, "三体", "《三体》"},
				{KindFilm, "三体", "三体"},
			},
		},
		{
			"empty values are dropped",
			[]Fact{{KindTopic, "", ""}, {KindGenre, "jazz", "jazz"}},
			[]Fact{{KindGenre, "jazz", "jazz"}},
		},
		{
			"order is stable",
			[]Fact{{KindPerson, "b", "B"}, {KindPerson, "a", "A"}, {KindPerson, "b", "B"}},
			[]Fact{{KindPerson, "b", "B"}, {KindPerson, "a", "A"}},
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
	catalog := fixed{facts: []Fact{{KindFilm, "三体", "三体"}, {KindPerson, "刘慈欣", "刘慈欣"}}}
	rules := fixed{facts: []Fact{
		{KindBookTitle, "三体", "三体"}, // same value, other kind: the catalog wins
		{KindPerson, "刘慈欣", "刘慈欣"},  // duplicate
		{KindGenre, "科幻", "科幻"},
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
			[]Fact{{KindFilm, "三体", "三体"}, {KindPerson, "刘慈欣", "刘慈欣"}, {KindGenre, "科幻", "科幻"}},
			nil,
		},
		{
			"order decides which kind survives",
			Combine(rules, catalog),
			[]Fact{{KindBookTitle, "三体", "三体"}, {KindPerson, "刘慈欣", "刘慈欣"}, {KindGenre, "科幻", "科幻"}},
			nil,
		},
		{
			"one extractor keeps all its kinds",
			Combine(fixed{facts: []Fact{{KindFilm, "x", "x"}, {KindMusic, "x", "x"}}}),
			[]Fact{{KindFilm, "x", "x"}, {KindMusic, "x", "x"}},
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
