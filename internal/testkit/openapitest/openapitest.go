// Package openapitest holds a server to its OpenAPI document in tests: a
// handler wrapped by Handler has every request it serves and every answer it
// gives validated against the document (kin-openapi's openapi3filter, which
// reads OpenAPI 3.1 with JSON Schema 2020-12), and a mismatch fails the test.
package openapitest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

// Load parses and validates an OpenAPI document (YAML or JSON).
func Load(data []byte) (*openapi3.T, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(data)
	if err != nil {
		return nil, fmt.Errorf("load: %w", err)
	}
	if err := doc.Validate(loader.Context); err != nil {
		return nil, fmt.Errorf("validate: %w", err)
	}
	return doc, nil
}

// Operations lists the document's operations as "METHOD /path" patterns,
// the form http.ServeMux patterns take.
func Operations(doc *openapi3.T) []string {
	var out []string
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			out = append(out, method+" "+path)
		}
	}
	slices.Sort(out)
	return out
}

// Unchecked are paths served beside the document's own, not described in it;
// an entry ending in "/" covers every path under it. They are the ops routes
// and the inspector's pages (/ui, /ui/...). The document is the contract of
// the API that programs call; the inspector is HTML, JavaScript and CSS for a
// browser, named after the files embedded in the binary, and describing them
// would only hand code generators calls no program should make. Every call
// those pages make is a /v1 request, which the document describes and the
// tests check like any other.
var Unchecked = []string{"/healthz", "/readyz", "/metrics", "/ui", "/ui/"}

// unchecked reports whether path is one of Unchecked or under one of them.
func unchecked(path string) bool {
	return slices.ContainsFunc(Unchecked, func(u string) bool {
		return path == u || strings.HasSuffix(u, "/") && strings.HasPrefix(path, u)
	})
}

// Handler wraps h so that every request and answer is checked against doc,
// which it leaves as it is (one loaded document may serve many tests).
// The test fails (t.Errorf, from the serving goroutine) when
//   - an answer does not match what the document declares for its
//     operation and status (body schema, declared status, headers);
//   - the document rejects a request that the server accepted (a 2xx or
//     3xx answer): the document is stricter than the server, or the server
//     too lax;
//   - a request outside the document got anything but the server's own 404
//     or 405 (a route served but not documented).
//
// A request the document rejects and the server answers with a 4xx is what
// tests of bad input do, and passes.
func Handler(t testing.TB, doc *openapi3.T, h http.Handler) http.Handler {
	t.Helper()
	// Any host: the test server's address is not the document's.
	anyHost := *doc
	anyHost.Servers = nil
	router, err := gorillamux.NewRouter(&anyHost)
	if err != nil {
		t.Fatalf("openapitest: router: %v", err)
	}
	opts := &openapi3filter.Options{
		AuthenticationFunc:  openapi3filter.NoopAuthenticationFunc,
		SkipSettingDefaults: true,
		MultiError:          true,
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			t.Errorf("openapitest: reading the request body: %v", err)
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		if unchecked(r.URL.Path) {
			h.ServeHTTP(w, r)
			return
		}
		what := r.Method + " " + r.URL.RequestURI()
		route, params, routeErr := router.FindRoute(r)
		var reqErr error
		var input *openapi3filter.RequestValidationInput
		if routeErr == nil {
			vr := r.Clone(context.WithoutCancel(r.Context()))
			vr.Body = io.NopCloser(bytes.NewReader(body))
			input = &openapi3filter.RequestValidationInput{Request: vr, PathParams: params, Route: route, Options: opts}
			reqErr = openapi3filter.ValidateRequest(r.Context(), input)
		}

		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())

		switch {
		case routeErr != nil:
			if rec.Code != http.StatusNotFound && rec.Code != http.StatusMethodNotAllowed {
				t.Errorf("openapitest: %s: not in the document (%v), but the server answered %d: %s", what, routeErr, rec.Code, rec.Body.String())
			}
			return
		case reqErr != nil && rec.Code < 400:
			t.Errorf("openapitest: %s: the document rejects the request, the server answered %d:\n%v", what, rec.Code, reqErr)
		}
		err = openapi3filter.ValidateResponse(r.Context(), &openapi3filter.ResponseValidationInput{
			RequestValidationInput: input,
			Status:                 rec.Code,
			Header:                 rec.Header(),
			Body:                   io.NopCloser(bytes.NewReader(rec.Body.Bytes())),
			Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
		})
		if err != nil {
			t.Errorf("openapitest: %s: the answer %d does not match the document:\n%v\nbody: %s", what, rec.Code, err, clip(rec.Body.String()))
		}
	})
}

func clip(s string) string {
	if len(s) > 2000 {
		return s[:2000] + "…"
	}
	return s
}
