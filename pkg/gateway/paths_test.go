package gateway_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/gateway"
)

// raw sends one request to the gateway over a connection of its own, its
// request line written as it is given (as curl --path-as-is sends it): no
// client cleans or escapes the target first. hdr are name, value pairs.
func (r *rig) raw(t *testing.T, method, target, body string, hdr ...string) (*http.Response, []byte) {
	t.Helper()
	conn, err := net.DialTimeout("tcp", strings.TrimPrefix(r.url, "http://"), 5*time.Second)
	require.NoError(t, err)
	defer conn.Close()
	require.NoError(t, conn.SetDeadline(time.Now().Add(rigWait)))
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n", method, target, strings.TrimPrefix(r.url, "http://"))
	for i := 0; i+1 < len(hdr); i += 2 {
		fmt.Fprintf(&b, "%s: %s\r\n", hdr[i], hdr[i+1])
	}
	if body != "" {
		fmt.Fprintf(&b, "Content-Type: application/json\r\nContent-Length: %d\r\n", len(body))
	}
	b.WriteString("\r\n" + body)
	_, err = io.WriteString(conn, b.String())
	require.NoError(t, err)
	res, err := http.ReadResponse(bufio.NewReader(conn), &http.Request{Method: method})
	require.NoError(t, err)
	defer res.Body.Close()
	out, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res, out
}

// openAIError reads the gateway's error body.
func openAIError(t *testing.T, b []byte) (msg, typ string, code any) {
	t.Helper()
	var e struct {
		Error struct {
			Message string `json:"message"`
			Type    string `json:"type"`
			Code    any    `json:"code"`
		} `json:"error"`
	}
	require.NoError(t, json.Unmarshal(b, &e), string(b))
	require.NotEmpty(t, e.Error.Message, string(b))
	return e.Error.Message, e.Error.Type, e.Error.Code
}

const (
	tenantKey   = "acme-key-0123456789"
	operatorKey = "sk-operator-upstream"
)

// A path that would leave /v1 once decoded is a 400, and a path that is not
// one of the routes the gateway passes through is a 404: neither reaches
// the upstream, which would get the operator's key.
func TestPathsThatLeaveV1NeverReachTheUpstream(t *testing.T) {
	t.Parallel()
	r := newRig(t, func(o *rigOptions) { o.keys = tenant + ":" + tenantKey; o.cfg.UpstreamKey = operatorKey })
	auth := []string{"X-Tenant-ID", tenant, "Authorization", "Bearer " + tenantKey}
	bad := []struct{ method, target, body string }{
		{"GET", "/v1/%2e%2e/%2e%2e/internal/admin", ""},
		{"GET", "/v1/%2E%2E/%2E%2E/internal/admin", ""},
		{"GET", "/v1/..%2f..%2fbilling", ""},
		{"GET", "/v1/..%2F..%2Fbilling", ""},
		{"POST", "/v1/%2e%2e/danger", `{"drop":true}`},
		{"GET", "/v1/../internal/admin", ""},
		{"GET", "/v1/models/../../internal/admin", ""},
		{"GET", "/v1/models/%2e%2e/%2e%2e/internal/admin", ""},
		{"GET", "/v1/models/%2e%2e%2f%2e%2e%2finternal%2fadmin", ""},
		{"GET", "/v1/models/org%2F..%2F..%2Fadmin", ""},
		{"GET", "/v1/models/%2e%2e", ""},
		{"GET", "/v1/models/.", ""},
		{"POST", "/v1/embeddings/%2e%2e/%2e%2e/admin", `{"input":"x"}`},
		{"POST", "/v1/embeddings/..", `{"input":"x"}`},
		{"GET", "/v1/%252e%252e/%252e%252e/internal/admin", ""},
		{"GET", "/v1/models/%252e%252e%252f%252e%252e%252fadmin", ""},
		{"GET", `/v1/..\..\internal\admin`, ""},
		{"GET", "/v1/%5c..%5c..%5cinternal%5cadmin", ""},
		{"GET", "/v1/models/%5c..%5cadmin", ""},
		{"GET", "/v1/./models", ""},
		{"GET", "/v1/%2e/models", ""},
		{"GET", "/v1//models", ""},
		{"GET", "/v1/%2f/models", ""},
		{"GET", "/v1/models/", ""},
		{"GET", "/v1/models//x", ""},
		{"GET", "/v1/models/x%00y", ""},
		{"POST", "/v1/chat/completions/..", `{"model":"fake","messages":[{"role":"user","content":"hi"}]}`},
		{"POST", "/v1/chat/%2e%2e/%2e%2e/danger", `{"model":"fake","messages":[{"role":"user","content":"hi"}]}`},
		{"GET", "/%2e%2e/internal/admin", ""},
		{"POST", "/v1/embeddings%2f..%2fmodels", `{"input":"x"}`},
	}
	for _, c := range bad {
		t.Run("400 "+c.method+" "+c.target, func(t *testing.T) {
			res, b := r.raw(t, c.method, c.target, c.body, auth...)
			require.Equal(t, http.StatusBadRequest, res.StatusCode, string(b))
			require.Equal(t, "application/json", res.Header.Get("Content-Type"))
			msg, typ, code := openAIError(t, b)
			require.Equal(t, "invalid_request_error", typ)
			require.Equal(t, "invalid_path", code)
			require.Contains(t, msg, "leave /v1", msg)
		})
	}
	unknown := []struct{ method, target, body string }{
		{"GET", "/v1/internal/admin", ""},
		{"GET", "/v1/files", ""},
		{"POST", "/v1/files", `{}`},
		{"GET", "/v1/organization/costs", ""},
		{"POST", "/v1/responses", `{"model":"fake","input":"hi"}`},
		{"POST", "/v1/completions", `{"model":"fake","prompt":"hi"}`},
		{"POST", "/v1/fine_tuning/jobs", `{}`},
		{"DELETE", "/v1/models/fake-model", ""},
		{"POST", "/v1/models", `{}`},
		{"GET", "/v1/embeddings", ""},
		{"GET", "/v1/chat/completions", ""},
		{"GET", "/v1/embeddings%2fmodels", ""},
		{"GET", "/internal/admin", ""},
		{"GET", "/v1", ""},
	}
	for _, c := range unknown {
		t.Run("404 "+c.method+" "+c.target, func(t *testing.T) {
			res, b := r.raw(t, c.method, c.target, c.body, auth...)
			require.Equal(t, http.StatusNotFound, res.StatusCode, string(b))
			msg, typ, code := openAIError(t, b)
			require.Equal(t, "invalid_request_error", typ)
			require.Equal(t, "unknown_url", code)
			require.Contains(t, msg, "GET /v1/models")
		})
	}
	require.Empty(t, r.up.Requests(), "nothing reached the upstream")
}

// The routes the gateway passes through reach the upstream at exactly
// their path below the upstream's base, a model id escaped as one segment
// as the openai npm package escapes it, with the operator's key.
func TestDeclaredRoutesReachTheUpstreamWithTheOperatorsKey(t *testing.T) {
	t.Parallel()
	r := newRig(t, func(o *rigOptions) { o.keys = tenant + ":" + tenantKey; o.cfg.UpstreamKey = operatorKey })
	auth := []string{"X-Tenant-ID", tenant, "Authorization", "Bearer " + tenantKey, gateway.HeaderUser, "u1"}
	cases := []struct {
		method, target, body string
		status               int
		// path and rawPath are what the upstream got.
		path, rawPath, query string
	}{
		{"GET", "/v1/models", "", 200, "/v1/models", "/v1/models", ""},
		{"GET", "/v1/models?limit=2", "", 200, "/v1/models", "/v1/models", "limit=2"},
		{"GET", "/v1/models/fake-model", "", 200, "/v1/models/fake-model", "/v1/models/fake-model", ""},
		{"GET", "/v1/models/llama3:8b", "", 404, "/v1/models/llama3:8b", "/v1/models/llama3:8b", ""},
		{"GET", "/v1/models/llama3%3A8b", "", 404, "/v1/models/llama3:8b", "/v1/models/llama3:8b", ""},
		{"GET", "/v1/models/org%2Fmodel", "", 404, "/v1/models/org/model", "/v1/models/org%2Fmodel", ""},
		{"GET", "/v1/models/org/model", "", 404, "/v1/models/org/model", "/v1/models/org%2Fmodel", ""},
		{"GET", "/v1/models/hf.co/bartowski/Llama-3.2-1B-GGUF:Q4_K_M", "", 404,
			"/v1/models/hf.co/bartowski/Llama-3.2-1B-GGUF:Q4_K_M", "/v1/models/hf.co%2Fbartowski%2FLlama-3.2-1B-GGUF:Q4_K_M", ""},
		{"GET", "/v1/models/a%20b%3Fc%23d", "", 404, "/v1/models/a b?c#d", "/v1/models/a%20b%3Fc%23d", ""},
		{"GET", "/v1/models/ft:gpt-4o-mini:acme::abc123", "", 404, "/v1/models/ft:gpt-4o-mini:acme::abc123", "/v1/models/ft:gpt-4o-mini:acme::abc123", ""},
		{"POST", "/v1/embeddings", `{"model":"emb","input":"hello"}`, 200, "/v1/embeddings", "/v1/embeddings", ""},
		{"POST", "/v1/chat/completions", `{"model":"fake","messages":[{"role":"user","content":"hi"}]}`, 200, "/v1/chat/completions", "/v1/chat/completions", ""},
	}
	for i, c := range cases {
		t.Run(c.method+" "+c.target, func(t *testing.T) {
			res, b := r.raw(t, c.method, c.target, c.body, auth...)
			require.Equal(t, c.status, res.StatusCode, string(b))
			reqs := r.up.Requests()
			require.Len(t, reqs, i+1, "one request upstream")
			got := reqs[i]
			require.Equal(t, c.method, got.Method)
			require.Equal(t, c.path, got.Path)
			require.Equal(t, c.rawPath, got.RawPath)
			require.Equal(t, c.query, got.Query)
			require.Equal(t, "Bearer "+operatorKey, got.Header.Get("Authorization"))
			require.Empty(t, got.Header.Get("X-Tenant-Id"))
			require.Empty(t, got.Header.Get(gateway.HeaderUser))
		})
	}
	r.settled(t)
}

// Without an operator's key the caller's own Authorization is forwarded on
// the declared routes, and its Recall key is not.
func TestDeclaredRoutesForwardTheCallersKeyWithoutAnOperatorsKey(t *testing.T) {
	t.Parallel()
	r := newRig(t, func(o *rigOptions) { o.keys = tenant + ":" + tenantKey })
	auth := []string{"X-Tenant-ID", tenant, "Authorization", "Bearer sk-callers-own", gateway.HeaderKey, "Bearer " + tenantKey}
	for i, c := range []struct{ method, target, body, path string }{
		{"GET", "/v1/models", "", "/v1/models"},
		{"GET", "/v1/models/fake-model", "", "/v1/models/fake-model"},
		{"POST", "/v1/embeddings", `{"model":"emb","input":["a","b"]}`, "/v1/embeddings"},
	} {
		res, b := r.raw(t, c.method, c.target, c.body, auth...)
		require.Equal(t, http.StatusOK, res.StatusCode, string(b))
		got := r.up.Requests()[i]
		require.Equal(t, c.path, got.RawPath)
		require.Equal(t, "Bearer sk-callers-own", got.Header.Get("Authorization"))
		require.Empty(t, got.Header.Get(gateway.HeaderKey))
	}
	// Without its Recall key the caller is refused before the upstream.
	res, _ := r.raw(t, "GET", "/v1/models", "", "X-Tenant-ID", tenant, "Authorization", "Bearer sk-callers-own")
	require.Equal(t, http.StatusUnauthorized, res.StatusCode)
	require.Len(t, r.up.Requests(), 3)
}

// An upstream whose base has a path of its own, and a query (Azure's
// api-version), gets each route below that path, the base's query kept.
func TestUpstreamBaseWithItsOwnPath(t *testing.T) {
	t.Parallel()
	r := newRig(t, func(o *rigOptions) {
		o.cfg.UpstreamKey = operatorKey
		o.cfg.UpstreamURL = strings.TrimSuffix(o.cfg.UpstreamURL, "/v1") + "/openai/v1/?api-version=2024-10-21"
	})
	cases := []struct{ method, target, body, rawPath, query string }{
		{"GET", "/v1/models", "", "/openai/v1/models", "api-version=2024-10-21"},
		{"GET", "/v1/models/org%2Fmodel?x=1", "", "/openai/v1/models/org%2Fmodel", "api-version=2024-10-21&x=1"},
		{"POST", "/v1/embeddings", `{"input":"x"}`, "/openai/v1/embeddings", "api-version=2024-10-21"},
		{"POST", "/v1/chat/completions", `{"model":"fake","messages":[{"role":"user","content":"hi"}]}`, "/openai/v1/chat/completions", "api-version=2024-10-21"},
	}
	for i, c := range cases {
		res, b := r.raw(t, c.method, c.target, c.body, "X-Tenant-ID", tenant)
		// The fake serves no /openai prefix: its 404 comes back as it is.
		require.Equal(t, http.StatusNotFound, res.StatusCode, string(b))
		require.Contains(t, string(b), "Invalid URL ("+c.method+" "+c.rawPath+")")
		got := r.up.Requests()[i]
		require.Equal(t, c.rawPath, got.RawPath)
		require.Equal(t, c.query, got.Query)
		require.Equal(t, "Bearer "+operatorKey, got.Header.Get("Authorization"))
	}
}
