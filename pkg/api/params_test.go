package api_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/api"
)

// TestRouteParams: each route declares the query parameters the OpenAPI
// document gives it, with the same types, so that a parameter the server
// refuses as unknown is one the document does not promise, and the other way.
func TestRouteParams(t *testing.T) {
	t.Parallel()
	doc := openAPIDoc(t)
	declared := api.RouteParams()
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			pattern := method + " " + path
			var want []api.Param
			for _, p := range op.Parameters {
				if p.Value.In != "query" {
					continue
				}
				want = append(want, api.Param{Name: p.Value.Name, Kind: schemaKind(p.Value.Schema.Value.Type.Slice(), p.Value.Schema.Value.OneOf)})
			}
			got := slices.Clone(declared[pattern])
			slices.SortFunc(want, func(a, b api.Param) int { return strings.Compare(a.Name, b.Name) })
			slices.SortFunc(got, func(a, b api.Param) int { return strings.Compare(a.Name, b.Name) })
			require.Equal(t, want, got, "%s: the route's parameters (api endpoints) and the document's", pattern)
		}
	}
	// The POST twins take the GET's parameters as body fields.
	bodies := api.RouteBodies()
	require.Equal(t, []string{"POST /v1/context", "POST /v1/users/{user_id}/search"}, slices.Sorted(maps.Keys(bodies)))
	for post, fields := range bodies {
		require.Equal(t, declared["GET"+strings.TrimPrefix(post, "POST")], fields, post)
	}
}

// schemaKind names a parameter's schema as api.Param does: its type, or for
// a oneOf of types, each joined by "|" in order ("boolean|integer"); an enum is
// a "string".
func schemaKind(types []string, oneOf openapi3.SchemaRefs) string {
	if len(types) > 0 {
		return types[0]
	}
	var kinds []string
	for _, s := range oneOf {
		kinds = append(kinds, s.Value.Type.Slice()...)
	}
	if len(kinds) == 0 {
		return "string"
	}
	slices.Sort(kinds)
	return strings.Join(kinds, "|")
}

// TestUnknownParameters: GET (and every route) answers 400 naming a
// parameter it does not take, as POST bodies do; a mistyped name is never
// silently ignored.
func TestUnknownParameters(t *testing.T) {
	t.Parallel()
	b := setup(t)
	cases := []struct {
		path, field, says string
	}{
		{contextPath("u1", "s1", "now", "2026-01-01"), "now", "known: user_id, session_id, query"},
		{contextPath("u1", "s1", "max_message", "5"), "max_message", "known:"},
		{"/v1/users/u1/search?q=tea&limit=3", "limit", "known: q, k,"},
		{"/v1/sessions/s1?recnet=3", "recnet", "known: recent"},
		{"/v1/users/u1/shelf?limit=3", "limit", "this route takes none"},
		{"/v1/users?prefix=u&page=2", "page", "known: prefix, limit, cursor"},
	}
	for _, tc := range cases {
		res := b.get(t, "t1", tc.path)
		require.Equal(t, []string{tc.field}, requireFields(t, res, http.StatusBadRequest), tc.path)
		require.Contains(t, decode[errorBody](t, res).Error.Fields[0].Message, tc.says, tc.path)
	}
	// Several are all named, in order.
	res := b.get(t, "t1", contextPath("u1", "s1", "zeta", "1", "alpha", "2"))
	require.Equal(t, []string{"alpha", "zeta"}, requireFields(t, res, http.StatusBadRequest))
	// Known ones still work.
	res = b.get(t, "t1", contextPath("u1", "s1", "max_messages", "5"))
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	// A POST route with its parameters in the body takes none in the URL.
	body, _ := json.Marshal(map[string]any{"user_id": "u1", "session_id": "s1"})
	res = b.do(t, http.MethodPost, "/v1/context?budget=10", "t1", body)
	require.Equal(t, []string{"budget"}, requireFields(t, res, http.StatusBadRequest))
}

// TestBodyParameterTypes: in a POST body, counts are JSON numbers, text is a
// JSON string and flags are booleans; a count sent as a string is a 400
// naming the field, not read as the number it spells.
func TestBodyParameterTypes(t *testing.T) {
	t.Parallel()
	b := setup(t)
	cases := []struct {
		path  string
		body  map[string]any
		field string
		says  string
	}{
		{"/v1/context", map[string]any{"max_messages": "5"}, "max_messages", `want a JSON number, got the string "5"`},
		{"/v1/context", map[string]any{"budget": true}, "budget", "want a JSON number, got true"},
		{"/v1/context", map[string]any{"query": 3}, "query", "want a JSON string, got the number 3"},
		{"/v1/context", map[string]any{"ttl": []any{"1h"}}, "ttl", "got an array"},
		{"/v1/users/u1/search", map[string]any{"q": "tea", "k": "5"}, "k", "want a JSON number"},
		{"/v1/users/u1/search", map[string]any{"q": "tea", "neighbors": "true"}, "neighbors", "want a JSON number or boolean"},
	}
	for _, tc := range cases {
		body := map[string]any{"user_id": "u1", "session_id": "s1"}
		if tc.path != "/v1/context" {
			body = map[string]any{}
		}
		for k, v := range tc.body {
			body[k] = v
		}
		raw, _ := json.Marshal(body)
		res := b.do(t, http.MethodPost, tc.path, "t1", raw)
		require.Equal(t, []string{tc.field}, requireFields(t, res, http.StatusBadRequest), "%s %s", tc.path, raw)
		require.Contains(t, decode[errorBody](t, res).Error.Fields[0].Message, tc.says, "%s %s", tc.path, raw)
	}
	// The right types pass.
	res := b.do(t, http.MethodPost, "/v1/context", "t1", []byte(`{"user_id":"u1","session_id":"s1","max_messages":5,"lang":"en"}`))
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	for _, body := range []string{`{"q":"tea","k":5,"neighbors":true}`, `{"q":"tea","neighbors":2}`} {
		res := b.do(t, http.MethodPost, "/v1/users/u1/search", "t1", []byte(body))
		require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	}
}

// TestAuthorizationSaysWhatIsWrong: with API_KEYS set, a 401 names the
// Authorization header and says what is wrong with it.
func TestAuthorizationSaysWhatIsWrong(t *testing.T) {
	t.Parallel()
	const key = "t1-secret-key-0001"
	b := setup(t, withConfig(func(c *api.Config) { c.Keys = "t1:" + key }))
	cases := []struct{ auth, says string }{
		{"", `required header: want "Bearer <key>"`},
		{key, `got a value without a scheme: put "Bearer " before the key`},
		{"Basic " + key, `got the "Basic" scheme`},
		{"Bearer", `the key after "Bearer " is missing`},
		{"Bearer    ", `the key after "Bearer " is missing`},
		{"Bearer not-a-key-of-anyone", "no tenant has this key (API_KEYS)"},
	}
	for _, tc := range cases {
		var hdr []string
		if tc.auth != "" {
			hdr = []string{"Authorization", tc.auth}
		}
		res := b.do(t, http.MethodGet, contextPath("u1", "s1"), "t1", nil, hdr...)
		require.Equal(t, []string{"Authorization"}, requireFields(t, res, http.StatusUnauthorized), fmt.Sprintf("%q", tc.auth))
		require.Contains(t, decode[errorBody](t, res).Error.Fields[0].Message, tc.says, fmt.Sprintf("%q", tc.auth))
	}
}
