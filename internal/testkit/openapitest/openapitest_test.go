package openapitest_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/openapitest"
)

const doc = `
openapi: 3.1.0
info: {title: t, version: "1"}
paths:
  /things/{id}:
    get:
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
        - {name: k, in: query, schema: {type: integer, minimum: 1}}
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                type: object
                additionalProperties: false
                required: [id]
                properties:
                  id: {type: string}
        "400":
          description: bad
          content:
            application/json:
              schema: {type: object}
`

// recorder is a testing.TB that keeps what Handler reports.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}
func (r *recorder) Helper() {}

// TestHandlerReportsMismatches: each kind of mismatch fails the test, and
// what matches does not.
func TestHandlerReportsMismatches(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, path string
		status     int
		body       string
		want       string // "" for no report
	}{
		{"matches", "/things/a?k=2", 200, `{"id":"a"}`, ""},
		{"bad input answered 400", "/things/a?k=0", 400, `{}`, ""},
		{"a field the document lacks", "/things/a", 200, `{"id":"a","extra":1}`, "does not match the document"},
		{"a wrong type", "/things/a", 200, `{"id":1}`, "does not match the document"},
		{"an undeclared status", "/things/a", 404, `{}`, "does not match the document"},
		{"bad input accepted", "/things/a?k=0", 200, `{"id":"a"}`, "the document rejects the request"},
		{"a route not documented", "/other", 200, `{}`, "not in the document"},
		{"a route not documented, answered 404", "/other", 404, `{}`, ""},
		{"an ops route", "/healthz", 200, `ok`, ""},
		{"an inspector file", "/ui/app.js", 200, `x`, ""},
		{"the inspector's page", "/ui", 301, ``, ""},
		{"a path beside the inspector's", "/uix", 200, `{}`, "not in the document"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := openapitest.Load([]byte(doc))
			require.NoError(t, err)
			rec := &recorder{TB: t}
			h := openapitest.Handler(rec, d, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(c.status)
				_, _ = io.WriteString(w, c.body)
			}))
			res := httptest.NewRecorder()
			h.ServeHTTP(res, httptest.NewRequest(http.MethodGet, c.path, nil))
			require.Equal(t, c.status, res.Code)
			require.Equal(t, c.body, res.Body.String(), "the answer passes through unchanged")
			if c.want == "" {
				require.Empty(t, rec.errs)
				return
			}
			require.Len(t, rec.errs, 1)
			require.True(t, strings.Contains(rec.errs[0], c.want), rec.errs[0])
		})
	}
}
