package testenv

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestStartRecall: the live Recall takes a turn and stores it through its own
// embedded JetStream and ingest worker.
func TestStartRecall(t *testing.T) {
	t.Parallel()
	l := StartRecall(t)
	require.True(t, strings.HasPrefix(l.NATSURL, "nats://"))
	turn := `{"id":"t-1","user_id":"u1","session_id":"s1","occurred_at":"` + time.Now().UTC().Format(time.RFC3339) + `","role":"user","content":"hello there"}`
	req, _ := http.NewRequest(http.MethodPost, l.URL+"/v1/turns", strings.NewReader(turn))
	req.Header.Set("X-Tenant-ID", "demo")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusAccepted, resp.StatusCode)
	require.Eventually(t, func() bool {
		var n int
		err := l.DB.Store.Pool().QueryRow(t.Context(), "SELECT count(*) FROM messages").Scan(&n)
		return err == nil && n == 1
	}, 20*time.Second, 50*time.Millisecond)
}
