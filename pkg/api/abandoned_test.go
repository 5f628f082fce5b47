package api

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"
)

// A request its client abandoned is not a failure of the server: it is
// logged at debug level and counted as 499, while the same error with the
// client still there (a statement cancelled for another reason) stays an
// error with a 500.
func TestAbandonedRequestIsNotAnError(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	s := &Server{log: slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	err := fmt.Errorf("context: search: %w", context.Canceled)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	w := httptest.NewRecorder()
	s.internalError(w, httptest.NewRequest(http.MethodGet, "/v1/context", nil).WithContext(ctx), err)
	require.Equal(t, statusClientClosed, w.Code)
	require.Contains(t, logs.String(), `"level":"DEBUG"`)
	require.NotContains(t, logs.String(), `"level":"ERROR"`)

	logs.Reset()
	w = httptest.NewRecorder()
	s.internalError(w, httptest.NewRequest(http.MethodGet, "/v1/context", nil), err)
	require.Equal(t, http.StatusInternalServerError, w.Code)
	require.Contains(t, logs.String(), `"level":"ERROR"`)

	logs.Reset()
	w = httptest.NewRecorder()
	s.internalError(w, httptest.NewRequest(http.MethodGet, "/v1/context", nil).WithContext(ctx), errors.New("disk full"))
	require.Equal(t, http.StatusInternalServerError, w.Code, "a real failure while the client left is still one")
}
