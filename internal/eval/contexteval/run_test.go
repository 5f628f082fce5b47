package contexteval

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/eval/datasets"
	"github.com/recallhq/recall/internal/eval/recallrun"
)

// TestPostSetsRefusedTurnsAside posts two users to a server that refuses
// every turn saying "too long": the refused turn is returned with its user
// and is no longer awaited; the rest of its batch is posted again.
func TestPostSetsRefusedTurnsAside(t *testing.T) {
	t.Parallel()
	var (
		mu     sync.Mutex
		stored = map[string]bool{}
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var turns []struct {
			ID, Content string
		}
		if err := json.NewDecoder(r.Body).Decode(&turns); err != nil {
			t.Errorf("decode: %v", err)
		}
		for i, tr := range turns {
			if strings.Contains(tr.Content, "too long") {
				w.WriteHeader(http.StatusBadRequest)
				fmt.Fprintf(w, `{"error":{"code":"invalid_request","fields":[{"field":"[%d].content","message":"70000 bytes, limit is 65536"}]}}`, i)
				return
			}
		}
		mu.Lock()
		defer mu.Unlock()
		for _, tr := range turns {
			stored[tr.ID] = true
		}
		w.WriteHeader(http.StatusAccepted)
	}))
	defer srv.Close()

	at := time.Date(2023, 5, 20, 9, 0, 0, 0, time.UTC)
	conv := func(user string, contents ...string) datasets.Conversation {
		cv := datasets.Conversation{SampleID: user, Sessions: []datasets.Session{{ID: user + "-s0", Turns: len(contents)}}}
		for j, c := range contents {
			cv.Turns = append(cv.Turns, datasets.Turn{ID: fmt.Sprintf("%s-%d", user, j), SessionID: user + "-s0", Role: "user", Content: c, OccurredAt: at})
		}
		return cv
	}
	convs := []datasets.Conversation{conv("a", "hi", "too long", "bye"), conv("b", "hello")}
	c := recallrun.NewClient(srv.URL, "eval", "")
	p, err := Post(context.Background(), c, convs, 2, slog.New(slog.NewTextHandler(io.Discard, nil)))
	require.NoError(t, err)
	require.Equal(t, map[string]int64{"a-s0": 2, "b-s0": 1}, p.Want)
	require.Equal(t, int64(3), p.Total)
	require.Len(t, p.Refused, 1)
	require.Equal(t, "a", p.Refused[0].User)
	require.Equal(t, "the API refused turn a-1 of a: content: 70000 bytes, limit is 65536", p.Refused[0].Error())
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, map[string]bool{"a-0": true, "a-2": true, "b-0": true}, stored)
}
