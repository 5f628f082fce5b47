package testenv

import (
	"encoding/json"
	"io"
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

// TestStartRecallServesTheGateway: GatewayURL is the gateway's API root; it
// answers a malformed chat request itself, in the OpenAI protocol's words,
// without calling its upstream.
func TestStartRecallServesTheGateway(t *testing.T) {
	t.Parallel()
	l := StartRecall(t)
	require.True(t, strings.HasSuffix(l.GatewayURL, "/v1"), l.GatewayURL)
	require.NotEqual(t, strings.TrimSuffix(l.GatewayURL, "/v1"), l.URL, "the gateway listens on its own address")
	req, _ := http.NewRequest(http.MethodPost, l.GatewayURL+"/chat/completions", strings.NewReader(`{"model":"m","messages":[]}`))
	req.Header.Set("X-Tenant-ID", "demo")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	var e struct {
		Error struct {
			Type  string `json:"type"`
			Param string `json:"param"`
		} `json:"error"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&e))
	require.Equal(t, "invalid_request_error", e.Error.Type)
	require.Equal(t, "messages", e.Error.Param)
}

// TestReadAddressesFailsOnAMissingLine: a process that never prints one of
// the address lines fails the start, naming the line, instead of hanging.
func TestReadAddressesFailsOnAMissingLine(t *testing.T) {
	t.Parallel()
	r, w := io.Pipe()
	t.Cleanup(func() { _ = w.Close() })
	go func() {
		_, _ = io.WriteString(w, "NATS (embedded JetStream): nats://127.0.0.1:4222\nAPI: http://127.0.0.1:1\n  try: curl ...\nInspector: http://127.0.0.1:1/ui/  (what Recall remembers)\n")
	}()
	l := &Live{}
	err := l.readAddresses(r, make(chan struct{}), 300*time.Millisecond)
	require.EqualError(t, err, "no Gateway line within 300ms")
	require.Equal(t, "http://127.0.0.1:1", l.URL)
	require.Equal(t, "nats://127.0.0.1:4222", l.NATSURL)

	// Every line, in any order; what follows is read and discarded.
	r, w = io.Pipe()
	written := make(chan struct{})
	go func() {
		defer close(written)
		_, _ = io.WriteString(w, "Gateway (OpenAI-compatible, upstream http://127.0.0.1:9/v1): http://127.0.0.1:2/v1\nInspector: http://127.0.0.1:1/ui/\nAPI: http://127.0.0.1:1\n")
		_, _ = io.WriteString(w, strings.Repeat("more output\n", 10000))
		_ = w.Close()
	}()
	l = &Live{}
	require.NoError(t, l.readAddresses(r, make(chan struct{}), 10*time.Second))
	require.Equal(t, "http://127.0.0.1:2/v1", l.GatewayURL)
	select {
	case <-written:
	case <-time.After(10 * time.Second):
		t.Fatal("the output after the addresses was not read: the process would block writing it")
	}

	// A process that exits first.
	exited := make(chan struct{})
	close(exited)
	err = (&Live{}).readAddresses(strings.NewReader(""), exited, 10*time.Second)
	require.Error(t, err)
	require.Contains(t, err.Error(), "API or Inspector or Gateway")
}
