package store

import (
	"go/format"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/store/queryfile"
)

// TestQueriesGenUpToDate fails when queries_gen.go is not what the generator
// writes from queries/*.sql now: run go generate ./pkg/store (make generate).
func TestQueriesGenUpToDate(t *testing.T) {
	t.Parallel()
	parsed, err := queryfile.Parse(os.DirFS("."))
	require.NoError(t, err)
	want, err := queryfile.Generate("store", parsed)
	require.NoError(t, err)
	got, err := os.ReadFile(queryfile.GenFile)
	require.NoError(t, err)
	require.Equal(t, string(want), string(got), "%s is out of date with %s: run go generate ./pkg/store", queryfile.GenFile, queryfile.Glob)
	formatted, err := format.Source(got)
	require.NoError(t, err)
	require.Equal(t, string(formatted), string(got), "%s is as gofmt writes it", queryfile.GenFile)
}

// TestQueryNamesMatchQueries holds the typed names to the statements loaded at
// start: every loaded statement has a name, and every name a statement.
func TestQueryNamesMatchQueries(t *testing.T) {
	t.Parallel()
	named := make(map[string]bool, len(queryNameList))
	for _, n := range queryNameList {
		require.False(t, named[n.name], "name %s generated twice", n.name)
		named[n.name] = true
		require.Contains(t, queries, n.name, "name %s has no statement", n.name)
		require.NotEmpty(t, q(n))
	}
	for name := range queries {
		require.True(t, named[name], "statement %s has no typed name", name)
	}
}
