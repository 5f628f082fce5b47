package store

import (
	"context"
	"embed"

	"github.com/exaring/otelpgx"

	"github.com/recallhq/recall/pkg/store/queryfile"
)

//go:generate go run ./queryfile/gen

// SQL lives in queries/*.sql next to this code; each statement is introduced by a
// `-- name: NounVerb` line. They are loaded once at start. Code names a statement
// by its typed name from queries_gen.go (qNounVerb), generated from the same
// files, so a misspelt name does not compile; a test fails when that file is
// older than the SQL.
//
//go:embed queries/*.sql
var queryFS embed.FS

// queryName names one statement of queries/*.sql. It is a struct so that only
// the generated names (and no string) can be given to q.
type queryName struct{ name string }

// String is the statement's name as written after `-- name:`.
func (n queryName) String() string { return n.name }

var queries = mustLoadQueries()

func mustLoadQueries() map[string]string {
	parsed, err := queryfile.Parse(queryFS)
	if err != nil {
		panic("store: " + err.Error())
	}
	out := make(map[string]string, len(parsed))
	for _, p := range parsed {
		out[p.Name] = p.SQL
	}
	return out
}

// queryNames maps each query's text back to its name, for span names.
var queryNames = func() map[string]string {
	out := make(map[string]string, len(queries))
	for name, sql := range queries {
		out[sql] = name
	}
	return out
}()

// querySpanName names a statement's span: the query's name when it is one of
// queries/*.sql as written there, otherwise its first keyword.
func querySpanName(ctx context.Context, sql string) string {
	if name, ok := queryNames[sql]; ok {
		return name
	}
	return otelpgx.SQLOperationName(ctx, sql)
}

// q returns the named query. Every generated name has its statement (the
// store's tests check it), so the panic marks a queries_gen.go older than
// the SQL files.
func q(name queryName) string {
	s, ok := queries[name.name]
	if !ok {
		panic("store: no query named " + name.name + " (run go generate ./pkg/store)")
	}
	return s
}
