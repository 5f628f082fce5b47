package recallrun

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
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

// TestContextPromptAt checks that `at` is sent only when set: a request
// without a time must not name one (an empty `at` is no time, and an API
// older than the parameter refuses it).
func TestContextPromptAt(t *testing.T) {
	t.Parallel()
	var (
		mu     sync.Mutex
		bodies []map[string]any
		gotAt  []string
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if r.Method == http.MethodPost {
			var body map[string]any
			if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
				t.Errorf("decode body: %v", err)
			}
			bodies = append(bodies, body)
			if body["session_id"] == "get" {
				w.WriteHeader(http.StatusMethodNotAllowed)
				return
			}
		} else {
			gotAt = append(gotAt, r.URL.Query().Get("at"))
			if _, ok := r.URL.Query()["at"]; !ok {
				gotAt[len(gotAt)-1] = "(none)"
			}
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"prompt": "p"})
	}))
	defer srv.Close()
	seen := func() ([]map[string]any, []string) {
		mu.Lock()
		defer mu.Unlock()
		return bodies, gotAt
	}
	ctx := context.Background()
	c := NewClient(srv.URL, "eval", "")
	_, err := c.ContextPrompt(ctx, ContextRequest{UserID: "u", SessionID: "s", Query: "q", Budget: 10})
	require.NoError(t, err)
	_, err = c.ContextPrompt(ctx, ContextRequest{UserID: "u", SessionID: "s", Query: "q", Budget: 10, At: "2023-05-30T23:42:00Z"})
	require.NoError(t, err)
	posted, _ := seen()
	require.Len(t, posted, 2)
	require.NotContains(t, posted[0], "at")
	require.Equal(t, "2023-05-30T23:42:00Z", posted[1]["at"])

	// The same through GET, on a server without POST.
	_, err = c.ContextPrompt(ctx, ContextRequest{UserID: "u", SessionID: "get", Query: "q", Budget: 10})
	require.NoError(t, err)
	_, err = c.ContextPrompt(ctx, ContextRequest{UserID: "u", SessionID: "get", Query: "q", Budget: 10, At: "2023-05-30T23:42:00Z"})
	require.NoError(t, err)
	_, got := seen()
	require.Equal(t, []string{"(none)", "2023-05-30T23:42:00Z"}, got)
}

// TestUserCounter counts a user's stored messages through GET
// /v1/users/{id}, asks again only about users not complete yet, counts an
// unknown user as none, and fails on more messages than were posted.
func TestUserCounter(t *testing.T) {
	t.Parallel()
	var (
		mu     sync.Mutex
		stored = map[string]int64{"a": 3, "b": 1}
		asked  []string
	)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/users/{id}", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		id := r.PathValue("id")
		asked = append(asked, id)
		n, ok := stored[id]
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"user_id": id, "rows": map[string]int64{"messages": n, "sessions": 1}})
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	step := func(f func()) {
		mu.Lock()
		defer mu.Unlock()
		f()
	}

	c := NewClient(srv.URL, "eval", "")
	count := UserCounter(c, map[string]int64{"a": 3, "b": 2, "c": 1})
	got, err := count(context.Background())
	require.NoError(t, err)
	require.Equal(t, int64(4), got, "3 of a, 1 of b, c unknown")
	step(func() {
		require.ElementsMatch(t, []string{"a", "b", "c"}, asked)
		asked, stored["b"], stored["c"] = nil, 2, 1
	})
	got, err = count(context.Background())
	require.NoError(t, err)
	require.Equal(t, int64(6), got)
	step(func() {
		require.ElementsMatch(t, []string{"b", "c"}, asked, "a complete user is not asked again")
	})

	over := UserCounter(c, map[string]int64{"a": 2})
	_, err = over(context.Background())
	require.EqualError(t, err, "user a holds 3 messages, 2 were posted")
}
