package api_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/openapitest"
	"github.com/recallhq/recall/pkg/api"
)

// openAPIDoc is the API's OpenAPI document, loaded and validated once.
func openAPIDoc(t *testing.T) *openapi3.T {
	t.Helper()
	doc, err := loadOpenAPI()
	require.NoError(t, err, "the OpenAPI document is not valid")
	return doc
}

var loadOpenAPI = sync.OnceValues(func() (*openapi3.T, error) { return openapitest.Load(api.OpenAPI()) })

// TestOpenAPIRoutes: the document describes exactly the routes the server
// registers, no more and no fewer.
func TestOpenAPIRoutes(t *testing.T) {
	t.Parallel()
	doc := openAPIDoc(t)
	require.Equal(t, "3.1.0", doc.OpenAPI)
	served := api.Routes()
	slices.Sort(served)
	require.Equal(t, served, openapitest.Operations(doc),
		"the document's paths and methods must be the server's routes (api.Routes)")
}

// TestOpenAPIServed: GET /openapi.json needs no tenant and answers the
// document as JSON.
func TestOpenAPIServed(t *testing.T) {
	t.Parallel()
	b := setup(t)
	res := b.get(t, "", "/openapi.json")
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	require.Equal(t, "application/json", res.Header.Get("Content-Type"))
	var doc map[string]any
	require.NoError(t, json.Unmarshal(res.Body, &doc))
	require.Equal(t, "3.1.0", doc["openapi"])
	require.Contains(t, doc["paths"], "/v1/context")
}
