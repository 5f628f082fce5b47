package api

import (
	_ "embed"
	"net/http"
	"strconv"
	"sync"

	"sigs.k8s.io/yaml"
)

// openapiYAML is the API's contract (OpenAPI 3.1), kept as YAML for its
// comments and served as JSON.
//
//go:embed openapi.yaml
var openapiYAML []byte

// OpenAPI is the OpenAPI document of the API, as JSON.
var OpenAPI = sync.OnceValue(func() []byte {
	doc, err := yaml.YAMLToJSON(openapiYAML)
	if err != nil {
		panic("pkg/api/openapi.yaml: " + err.Error()) // embedded and tested: a build bug
	}
	return doc
})

// getOpenAPI serves the OpenAPI document; it needs no tenant.
func (s *Server) getOpenAPI(w http.ResponseWriter, _ *http.Request) {
	doc := OpenAPI()
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(doc)))
	_, _ = w.Write(doc)
}
