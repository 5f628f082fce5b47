package httpbody_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/httpbody"
)

func TestRead(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		body       io.Reader
		wantBody   string
		wantStatus int
		wantErr    string
	}{
		{name: "within the limit", body: strings.NewReader(`{"a":1}`), wantBody: `{"a":1}`},
		{name: "exactly the limit", body: strings.NewReader(strings.Repeat("x", 16)), wantBody: strings.Repeat("x", 16)},
		{name: "empty", body: strings.NewReader(""), wantBody: ""},
		{name: "over the limit", body: strings.NewReader(strings.Repeat("x", 17)), wantStatus: http.StatusRequestEntityTooLarge,
			wantErr: "http: request body too large"},
		{name: "failed read", body: iotest.ErrReader(errors.New("connection reset")), wantStatus: http.StatusBadRequest, wantErr: "connection reset"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest(http.MethodPost, "/", tt.body)
			body, status, err := httpbody.Read(httptest.NewRecorder(), r, 16)
			require.Equal(t, tt.wantStatus, status)
			if tt.wantErr != "" {
				require.EqualError(t, err, tt.wantErr)
				require.Nil(t, body)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.wantBody, string(body))
		})
	}
}
