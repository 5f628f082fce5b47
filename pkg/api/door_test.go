package api_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/api"
)

// A turn's fields are checked by name at the door, as every other POST's
// are: a misspelt field ("itmes") is a 400 naming it with its place, and
// nothing of the batch is published, instead of a 202 that silently loses
// the list. attrs, metadata, arguments and result stay free-form.
func TestPostTurnsUnknownFields(t *testing.T) {
	t.Parallel()
	b := setup(t)
	at := testNow.Add(-time.Hour)
	good := newTurn("e1", "u1", "s1", "hello", at)
	misspelt := newTurn("e2", "u1", "s1", "here", at).with(
		"itmes", []any{map[string]any{"ref": "/a"}},
		"tool_calls", []any{map[string]any{"name": "search", "argumnets": map[string]any{"q": "x"}}},
		"items", []any{map[string]any{"ref": "/b", "url": "https://example.com/b"}, map[string]any{"ref": "/c", "Title": "C"}},
	)
	res := b.post(t, "t1", good, misspelt)
	require.Equal(t, []string{"[1].itmes", "[1].tool_calls[0].argumnets", "[1].items[0].url", "[1].items[1].Title"}, requireFields(t, res, http.StatusBadRequest))
	e := decode[errorBody](t, res).Error
	require.Contains(t, e.Fields[0].Message, "metadata", "says where data of one's own goes")
	require.Contains(t, e.Fields[2].Message, "attrs")
	require.Zero(t, b.streamMsgs(t), "nothing of the batch is published")

	// Reported together with every other problem of the turn.
	res = b.post(t, "t1", good.with("role", "bot", "extra", 1))
	require.Equal(t, []string{"role", "extra"}, requireFields(t, res, http.StatusBadRequest))

	// Free-form objects hold anything.
	free := newTurn("e3", "u1", "s1", "", at).with(
		"metadata", map[string]any{"channel": "web", "itmes": 1},
		"tool_calls", []any{map[string]any{"name": "search", "arguments": map[string]any{"anything": 1}, "result": map[string]any{"url": "x"}}},
		"items", []any{map[string]any{"ref": "/a", "title": "A", "attrs": map[string]any{"url": "https://example.com/a", "nested": map[string]any{"x": 1}}}},
	)
	b.postOK(t, "t1", good, free)
}

// A query parameter given twice is a 400 naming it on every route, rather
// than the first value silently winning.
func TestRepeatedParams(t *testing.T) {
	t.Parallel()
	b := setup(t)
	wild := regexp.MustCompile(`\{[^}]+\}`)
	n := 0
	for pattern, params := range api.RouteParams() {
		method, path, _ := strings.Cut(pattern, " ")
		if pattern == "POST /mcp" || pattern == "GET /openapi.json" {
			continue
		}
		path = wild.ReplaceAllStringFunc(path, func(w string) string {
			if w == "{n}" || w == "{seq}" {
				return "1"
			}
			return "x"
		})
		name := "limit"
		if len(params) > 0 {
			name = params[0].Name
		}
		var body []byte
		if method != http.MethodGet && method != http.MethodDelete {
			body = []byte(`{}`)
		}
		res := b.do(t, method, path+"?"+name+"=1&"+name+"=2", "t1", body)
		require.Equal(t, []string{name}, requireFields(t, res, http.StatusBadRequest), pattern)
		if len(params) > 0 {
			require.Contains(t, decode[errorBody](t, res).Error.Fields[0].Message, "given 2 times", pattern)
			n++
		}
	}
	require.Greater(t, n, 10)
}

// oddIDs are ids a URL path carries only escaped: each reaches every route
// that takes one, as itself.
var oddIDs = []string{"/", "a/b", "%2F", "..x", "x..", "a b", "?", "#", "名字", "//", "a%b", "+"}

// idRoute is how TestIDsInPaths calls one route that takes an id in its
// path: the body it sends and the statuses that mean the route ran for
// that id (not a redirect, not the catch-all's 404).
type idRoute struct {
	body   string
	status []int
}

// idRoutes are every route whose path takes a user, session or turn id.
// The test requires each of api.Routes() with such a wildcard to be here,
// so that a new route is tested too.
var idRoutes = map[string]idRoute{
	"GET /v1/turns/{id}":                          {status: []int{200}},
	"GET /v1/sessions/{session_id}":               {status: []int{200}},
	"GET /v1/sessions/{session_id}/messages":      {status: []int{200}},
	"POST /v1/sessions/{session_id}/summarize":    {body: `{}`, status: []int{200, 202}},
	"GET /v1/users/{user_id}/search":              {status: []int{400}}, // q is required: the route ran and named it
	"POST /v1/users/{user_id}/search":             {body: `{"q":"hello"}`, status: []int{200}},
	"GET /v1/users/{user_id}/interests":           {status: []int{200, 404}},
	"POST /v1/users/{user_id}/interests/refresh":  {body: `{}`, status: []int{202}},
	"GET /v1/users/{user_id}/profile":             {status: []int{200, 404}},
	"POST /v1/users/{user_id}/profile/refresh":    {body: `{}`, status: []int{202}},
	"GET /v1/users/{user_id}/attributes":          {status: []int{200}},
	"PATCH /v1/users/{user_id}/attributes":        {body: `{"edits":[{"key":"name","op":"put","value":"Ada"}]}`, status: []int{202}},
	"PUT /v1/users/{user_id}/attributes/{key}":    {body: `{"value":"Berlin"}`, status: []int{202}},
	"DELETE /v1/users/{user_id}/attributes/{key}": {status: []int{202}},
	"GET /v1/users/{user_id}/recommendations":     {status: []int{200, 409}},
	"GET /v1/sessions/{session_id}/selection/{n}": {status: []int{200}},
	"POST /v1/users/{user_id}/items/unseen":       {body: `{"refs":["/a","/z"]}`, status: []int{200}},
	"GET /v1/users/{user_id}/items/seen":          {status: []int{200}},
	"GET /v1/users/{user_id}":                     {status: []int{200}},
	"GET /v1/users/{user_id}/facts":               {status: []int{200}},
	"GET /v1/users/{user_id}/sessions":            {status: []int{200}},
	"GET /v1/users/{user_id}/shelf":               {status: []int{200}},
	"GET /v1/sessions/{session_id}/summaries":     {status: []int{200}},
	// Last: they remove what the others read.
	"DELETE /v1/sessions/{session_id}": {status: []int{204}},
	"DELETE /v1/users/{user_id}":       {status: []int{200}},
}

// idPath is a route's path with its wildcards filled in, the ids escaped.
func idPath(pattern, id string) string {
	_, path, _ := strings.Cut(pattern, " ")
	r := strings.NewReplacer("{id}", url.PathEscape(id), "{user_id}", url.PathEscape(id), "{session_id}", url.PathEscape(id),
		"{key}", "location", "{n}", "1")
	return r.Replace(path)
}

// Every id a turn may have reaches every route that takes one in its path,
// escaped, over real HTTP: "/" and "%2F" included, which the standard
// router takes for a trailing slash or cleans away; and "." and "..", which
// no URL path can carry as a segment, are refused at the door naming the
// field, in the path and in a turn alike.
func TestIDsInPaths(t *testing.T) {
	t.Parallel()
	b := setup(t, withIngest)
	at := testNow.Add(-time.Hour)

	var patterns []string
	for _, p := range api.Routes() {
		if strings.Contains(p, "{id}") || strings.Contains(p, "{user_id}") || strings.Contains(p, "{session_id}") {
			patterns = append(patterns, p)
			require.Contains(t, idRoutes, p, "a route that takes an id must be in idRoutes")
		}
	}
	var last []string
	patterns = slices.DeleteFunc(patterns, func(p string) bool {
		if p == "DELETE /v1/sessions/{session_id}" || p == "DELETE /v1/users/{user_id}" {
			last = append(last, p)
			return true
		}
		return false
	})
	slices.Sort(last) // the session first, then the user
	patterns = append(patterns, last...)

	var turns []turn
	for _, id := range oddIDs {
		turns = append(turns, newTurn(id, id, id, "hello from "+id, at).with("role", "assistant",
			"items", []any{map[string]any{"ref": "/a", "title": "A"}}))
	}
	b.postOK(t, "t1", turns...)
	b.waitIngested(t)

	for _, id := range oddIDs {
		for _, p := range patterns {
			method, _, _ := strings.Cut(p, " ")
			rt := idRoutes[p]
			path := idPath(p, id)
			var body []byte
			if rt.body != "" {
				body = []byte(rt.body)
			}
			res := b.do(t, method, path, "t1", body)
			require.Contains(t, rt.status, res.Status, "%s %s: %s", method, path, res.Body)
			require.NotContains(t, string(res.Body), "0001-01-01", "%s %s: no unset time is written out", method, path)
			if res.Status >= 400 {
				require.NotContains(t, string(res.Body), "no route", "%s %s", method, path)
				continue
			}
			if len(res.Body) == 0 {
				continue
			}
			var got map[string]any
			require.NoError(t, json.Unmarshal(res.Body, &got), "%s %s", method, path)
			// What the answer says about whose it is names the id sent.
			for _, k := range []string{"id", "user_id", "session_id"} {
				if v, ok := got[k]; ok && (k != "id" || strings.Contains(p, "{id}")) {
					require.Equal(t, id, v, "%s %s: %s", method, path, k)
				}
			}
		}
	}

	for _, dot := range []string{".", "..", "%2E", "%2e%2E"} {
		id, _ := url.PathUnescape(dot)
		for _, p := range patterns {
			method, path, _ := strings.Cut(p, " ")
			field := "user_id"
			switch {
			case strings.Contains(path, "{session_id}"):
				field = "session_id"
			case strings.Contains(path, "{id}"):
				field = "id"
			}
			path = strings.NewReplacer("{id}", dot, "{user_id}", dot, "{session_id}", dot, "{key}", "location", "{n}", "1").Replace(path)
			var body []byte
			if rt := idRoutes[p]; rt.body != "" {
				body = []byte(rt.body)
			}
			res := b.do(t, method, path, "t1", body)
			require.Equal(t, http.StatusBadRequest, res.Status, "%s %s: %s", method, path, res.Body)
			e := decode[errorBody](t, res).Error
			require.Equal(t, field, e.Fields[0].Field, "%s %s: %s", method, path, res.Body)
			require.Contains(t, e.Fields[0].Message, "cannot be an id", "%s %s", method, path)
		}
		res := b.do(t, http.MethodGet, contextPath(id, id), "t1", nil)
		require.Equal(t, []string{"user_id", "session_id"}, requireFields(t, res, http.StatusBadRequest))
		res = b.post(t, "t1", newTurn(id, id, id, "x", at))
		require.Equal(t, []string{"id", "user_id", "session_id"}, requireFields(t, res, http.StatusBadRequest))
	}
}

// A time sent as year 1 is an unset date written out: it is refused in
// words of its own, not as a missing field; times PostgreSQL cannot hold
// (or that are not times) are refused naming the field.
func TestPostTurnsZeroAndUnstorableTimes(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, tc := range []struct {
		at, words string
	}{
		{"0001-01-01T00:00:00Z", "year 1"},
		{"", "required"},
		{"+294277-01-01T00:00:00Z", "RFC 3339"},
		{"-4714-11-24T00:00:00Z", "RFC 3339"},
		{"294277-01-01T00:00:00Z", "RFC 3339"},
		{"9999-12-31T23:59:59-23:59", "in the future"},
		{"0000-01-01T00:00:00Z", "before 2000"},
	} {
		tn := newTurn("e1", "u1", "s1", "x", testNow).with("occurred_at", tc.at)
		if tc.at == "" {
			tn = tn.with("occurred_at", nil)
		}
		res := b.post(t, "t1", tn)
		require.Equal(t, []string{"occurred_at"}, requireFields(t, res, http.StatusBadRequest), tc.at)
		require.Contains(t, decode[errorBody](t, res).Error.Fields[0].Message, tc.words, tc.at)
	}
	require.Zero(t, b.streamMsgs(t))
}

// An attribute edit's occurred_at is judged once, as the request's, and
// named as the body names it: year 1, a year PostgreSQL and RFC 3339
// cannot hold, before 2000.
func TestAttributeEditTimes(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, tc := range []struct {
		at, words string
	}{
		{"0001-01-01T00:00:00Z", "year 1"},
		{"+294277-01-01T00:00:00Z", "RFC 3339"},
		{"1999-12-31T00:00:00Z", "before 2000"},
		{"2026-12-24T00:00:00Z", "in the future"},
	} {
		for _, req := range []struct{ method, path, body string }{
			{http.MethodPatch, "/v1/users/u1/attributes", `{"occurred_at":"` + tc.at + `","edits":[{"key":"name","op":"put","value":"Ada"},{"key":"location","op":"put","value":"Berlin"}]}`},
			{http.MethodPut, "/v1/users/u1/attributes/location", `{"occurred_at":"` + tc.at + `","value":"Berlin"}`},
		} {
			res := b.do(t, req.method, req.path, "t1", []byte(req.body))
			require.Equal(t, []string{"occurred_at"}, requireFields(t, res, http.StatusBadRequest), "%s %s", req.method, tc.at)
			require.Contains(t, decode[errorBody](t, res).Error.Fields[0].Message, tc.words, tc.at)
		}
	}
}
