package recallrun

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestContextPromptPostOrGet checks both ways of asking: POST with a JSON
// body where the server has it, GET with the query parameter where POST
// answers 404 or 405, decided once.
func TestContextPromptPostOrGet(t *testing.T) {
	t.Parallel()
	req := ContextRequest{UserID: "conv-1", SessionID: "conv-1-q3", Query: "When did Caroline go?", Budget: 8000}
	for _, postStatus := range []int{0, http.StatusNotFound, http.StatusMethodNotAllowed} {
		var posts, gets atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			// Checks here report with Errorf: FailNow belongs to the test's goroutine.
			if r.Header.Get("X-Tenant-ID") != "eval" || r.URL.Path != "/v1/context" {
				t.Errorf("unexpected request %s %s tenant %q", r.Method, r.URL.Path, r.Header.Get("X-Tenant-ID"))
			}
			var got ContextRequest
			switch r.Method {
			case http.MethodPost:
				posts.Add(1)
				if postStatus != 0 {
					w.WriteHeader(postStatus)
					return
				}
				if err := json.NewDecoder(r.Body).Decode(&got); err != nil {
					t.Errorf("decode body: %v", err)
				}
			case http.MethodGet:
				gets.Add(1)
				q := r.URL.Query()
				got = ContextRequest{UserID: q.Get("user_id"), SessionID: q.Get("session_id"), Query: q.Get("query")}
				if q.Get("budget") == "8000" {
					got.Budget = 8000
				}
			}
			if got != req {
				t.Errorf("%s asked %+v, want %+v", r.Method, got, req)
			}
			_ = json.NewEncoder(w).Encode(map[string]any{"prompt": r.Method + " prompt"})
		}))
		c := NewClient(srv.URL, "eval", "")
		for range 2 {
			p, err := c.ContextPrompt(context.Background(), req)
			require.NoError(t, err)
			if postStatus == 0 {
				require.Equal(t, "POST prompt", p)
			} else {
				require.Equal(t, "GET prompt", p)
			}
		}
		if postStatus == 0 {
			require.Equal(t, int32(2), posts.Load())
			require.Equal(t, int32(0), gets.Load())
		} else {
			require.Equal(t, int32(1), posts.Load(), "POST is tried once")
			require.Equal(t, int32(2), gets.Load())
		}
		srv.Close()
	}
}
