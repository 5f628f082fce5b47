package api

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/require"
)

// A client that sends too much, and one that goes away halfway through its
// body: every route that reads a body (turns, unseen items, attribute
// edits, the POST twins of GET routes) answers these, word for word.
func TestReadBody(t *testing.T) {
	t.Parallel()
	s := &Server{cfg: Config{MaxBodyBytes: 16}}
	tests := []struct {
		name       string
		body       io.Reader
		wantStatus int
		wantAnswer string
	}{
		{"too large", strings.NewReader(strings.Repeat("x", 17)), http.StatusRequestEntityTooLarge,
			`{"error":{"code":"too_large","message":"body over 16 bytes"}}`},
		{"failed read", io.MultiReader(strings.NewReader("{"), iotest.ErrReader(errors.New("connection reset"))), http.StatusBadRequest,
			`{"error":{"code":"invalid_request","message":"reading body: connection reset"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := httptest.NewRecorder()
			body, ok := s.readBody(w, httptest.NewRequest(http.MethodPost, "/v1/turns", tt.body))
			require.False(t, ok)
			require.Nil(t, body)
			require.Equal(t, tt.wantStatus, w.Code)
			require.JSONEq(t, tt.wantAnswer, w.Body.String())
		})
	}
	w := httptest.NewRecorder()
	body, ok := s.readBody(w, httptest.NewRequest(http.MethodPost, "/v1/turns", strings.NewReader(`{"a":1}`)))
	require.True(t, ok)
	require.Equal(t, `{"a":1}`, string(body))
	require.Zero(t, w.Body.Len(), "nothing answered")
}
