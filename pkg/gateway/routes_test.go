package gateway

import (
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestUpstreamURLJoinsBelowTheBase(t *testing.T) {
	t.Parallel()
	cases := []struct{ base, route, query, want string }{
		{"http://up.example/v1", "chat/completions", "", "http://up.example/v1/chat/completions"},
		{"http://up.example/v1/", "models", "", "http://up.example/v1/models"},
		{"http://up.example", "models", "", "http://up.example/models"},
		{"http://up.example/openai/v1", "models/org%2Fmodel", "", "http://up.example/openai/v1/models/org%2Fmodel"},
		{"https://res.openai.azure.com/openai/v1/?api-version=preview", "embeddings", "", "https://res.openai.azure.com/openai/v1/embeddings?api-version=preview"},
		{"https://res.openai.azure.com/openai/deployments/gpt%2F4o?api-version=2024-10-21", "chat/completions", "x=1",
			"https://res.openai.azure.com/openai/deployments/gpt%2F4o/chat/completions?api-version=2024-10-21&x=1"},
		{"http://up.example/v1#frag", "models", "limit=2", "http://up.example/v1/models?limit=2"},
		{"http://up.example/v1", "models/llama3:8b", "", "http://up.example/v1/models/llama3:8b"},
	}
	for _, c := range cases {
		base, err := url.Parse(c.base)
		require.NoError(t, err)
		got := upstreamURL(base, c.route, c.query)
		require.Equal(t, c.want, got.String(), c.base)
		require.Equal(t, c.base, base.String(), "the base is not changed")
	}
}

func TestPathProblem(t *testing.T) {
	t.Parallel()
	for p, want := range map[string]string{
		"/":                          "",
		"/v1/models":                 "",
		"/v1/models/org/model":       "",
		"/v1/models/llama3:8b":       "",
		"/v1/models/a..b":            "",
		"/v1/models/...":             "",
		"/v1/models/.hidden":         "",
		"/v1/../admin":               "a '..' segment",
		"/v1/..":                     "a '..' segment",
		"/v1/..;x/admin":             "a '..' segment",
		"/v1/./models":               "a '.' segment",
		"/v1/.;/models":              "a '.' segment",
		"/v1//models":                "an empty segment",
		"/v1/models/":                "an empty segment",
		"/v1/%2e%2e/admin":           "a '%' left after decoding (encoded twice)",
		`/v1/..\admin`:               "a backslash",
		"/v1/a\x00b":                 "a control character",
		"/v1/a\x7fb":                 "a control character",
		"/v1/\xc0\xae\xc0\xae/admin": "bytes that are not UTF-8",
		"v1/models":                  "no leading '/'",
		"":                           "no leading '/'",
	} {
		require.Equal(t, want, pathProblem(p), "%q", p)
	}
}

func TestEscapeSegment(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"gpt-4o-mini":                 "gpt-4o-mini",
		"llama3:8b":                   "llama3:8b",
		"ft:gpt-4o-mini:acme::abc123": "ft:gpt-4o-mini:acme::abc123",
		"org/model":                   "org%2Fmodel",
		"hf.co/user/repo:Q4_K_M":      "hf.co%2Fuser%2Frepo:Q4_K_M",
		"a b?c#d;e%f":                 "a%20b%3Fc%23d%3Be%25f",
		"név":                         "n%C3%A9v",
		"user@host~x":                 "user@host~x",
	} {
		got := escapeSegment(in)
		require.Equal(t, want, got, in)
		back, err := url.PathUnescape(got)
		require.NoError(t, err)
		require.Equal(t, in, back)
	}
}
