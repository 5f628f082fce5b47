// Package httpbody reads a request's body within a size limit, the same way
// at every front door that reads one whole (the HTTP API, the chat gateway):
// a body over the limit is refused as too large (413), one that could not be
// read (the client went away, a broken chunked encoding) as a bad request
// (400). Each door words the refusal in its own protocol, as it words an
// access.Denial.
package httpbody

import (
	"errors"
	"io"
	"net/http"
)

// Read reads r's whole body, at most limit bytes. On failure it returns the
// status to answer with, http.StatusRequestEntityTooLarge when the body is
// over limit and http.StatusBadRequest when it could not be read, and the
// read's error; on success the status is 0. The body is read through
// http.MaxBytesReader, so a client sending more than limit has its
// connection closed after the answer rather than read to its end.
func Read(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, int, error) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err == nil {
		return body, 0, nil
	}
	if _, tooLarge := errors.AsType[*http.MaxBytesError](err); tooLarge {
		return nil, http.StatusRequestEntityTooLarge, err
	}
	return nil, http.StatusBadRequest, err
}
