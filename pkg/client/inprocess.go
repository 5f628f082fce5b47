package client

import (
	"net/http"
	"net/http/httptest"
)

// HandlerTransport is an http.RoundTripper that serves every request with h in
// this process, without a socket: a Client on it calls a Recall API handler
// directly, through its whole route stack (tenant, key, validation), as the
// API's own /mcp endpoint does.
func HandlerTransport(h http.Handler) http.RoundTripper { return handlerTransport{h} }

type handlerTransport struct{ h http.Handler }

func (t handlerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	// The handler's mux records the route on the request; a RoundTripper
	// must leave the caller's request as it was.
	r = r.Clone(r.Context())
	if r.Body == nil {
		r.Body = http.NoBody
	}
	r.RequestURI = r.URL.RequestURI()
	rec := httptest.NewRecorder()
	t.h.ServeHTTP(rec, r)
	return rec.Result(), nil
}
