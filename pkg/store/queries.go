package store

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"strings"

	"github.com/exaring/otelpgx"
)

// SQL lives in queries/*.sql next to this code; each statement is introduced by a
// `-- name: NounVerb` line. They are loaded once at start; a name that is asked for
// and missing is a programming error caught by the tests.
//
//go:embed queries/*.sql
var queryFS embed.FS

var queries = mustLoadQueries()

func mustLoadQueries() map[string]string {
	out := map[string]string{}
	files, err := fs.Glob(queryFS, "queries/*.sql")
	if err != nil {
		panic(err)
	}
	for _, f := range files {
		body, err := fs.ReadFile(queryFS, f)
		if err != nil {
			panic(err)
		}
		var name string
		var sb strings.Builder
		flush := func() {
			if name != "" {
				if _, dup := out[name]; dup {
					panic(fmt.Sprintf("query %s defined twice", name))
				}
				out[name] = strings.TrimSpace(sb.String())
			}
			sb.Reset()
		}
		for _, line := range strings.Split(string(body), "\n") {
			if n, ok := strings.CutPrefix(strings.TrimSpace(line), "-- name:"); ok {
				flush()
				name = strings.TrimSpace(n)
				continue
			}
			sb.WriteString(line)
			sb.WriteByte('\n')
		}
		flush()
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

// q returns the named query.
func q(name string) string {
	s, ok := queries[name]
	if !ok {
		panic("store: no query named " + name)
	}
	return s
}
