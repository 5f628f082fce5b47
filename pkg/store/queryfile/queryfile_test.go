package queryfile_test

import (
	"go/format"
	"go/parser"
	"go/token"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/store/queryfile"
)

func TestParse(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		"queries/b.sql": {Data: []byte("-- name: BThing\n-- Why it is.\nSELECT 2;\n")},
		"queries/a.sql": {Data: []byte("-- a header comment\n\n-- name: AFirst\nSELECT 1;\n\n  -- name:  ASecond \nSELECT\n  3;\n")},
		"other.sql":     {Data: []byte("-- name: Ignored\nSELECT 4;\n")},
	}
	got, err := queryfile.Parse(fsys)
	require.NoError(t, err)
	require.Equal(t, []queryfile.Query{
		{Name: "AFirst", File: "queries/a.sql", SQL: "SELECT 1;"},
		{Name: "ASecond", File: "queries/a.sql", SQL: "SELECT\n  3;"},
		{Name: "BThing", File: "queries/b.sql", SQL: "-- Why it is.\nSELECT 2;"},
	}, got)
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	for name, files := range map[string]map[string]string{
		"twice":          {"queries/a.sql": "-- name: A\nSELECT 1;\n", "queries/b.sql": "-- name: A\nSELECT 2;\n"},
		"no sql":         {"queries/a.sql": "-- name: A\n-- only a comment\n\n-- name: B\nSELECT 1;\n"},
		"sql before":     {"queries/a.sql": "SELECT 0;\n-- name: A\nSELECT 1;\n"},
		"not identifier": {"queries/a.sql": "-- name: Noun-Verb\nSELECT 1;\n"},
		"empty name":     {"queries/a.sql": "-- name:\nSELECT 1;\n"},
		"no queries":     {"queries/a.sql": "-- nothing\n"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fsys := fstest.MapFS{}
			for f, body := range files {
				fsys[f] = &fstest.MapFile{Data: []byte(body)}
			}
			_, err := queryfile.Parse(fsys)
			require.Error(t, err)
		})
	}
}

func TestGenerate(t *testing.T) {
	t.Parallel()
	src, err := queryfile.Generate("store", []queryfile.Query{
		{Name: "SearchScan", File: "queries/search.sql", SQL: "SELECT 1;"},
		{Name: "UserCount", File: "queries/users.sql", SQL: "SELECT 2;"},
	})
	require.NoError(t, err)
	f, err := parser.ParseFile(token.NewFileSet(), "queries_gen.go", src, parser.ParseComments)
	require.NoError(t, err)
	require.Equal(t, "store", f.Name.Name)
	require.Regexp(t, `(?m)^// Code generated .* DO NOT EDIT\.$`, string(src))
	formatted, err := format.Source(src)
	require.NoError(t, err)
	require.Equal(t, string(formatted), string(src), "written as gofmt writes it")
	require.Contains(t, string(src), `qSearchScan = queryName{"SearchScan"}`)
	require.Contains(t, string(src), "var queryNameList = []queryName{\n\tqSearchScan,\n\tqUserCount,\n}")
}
