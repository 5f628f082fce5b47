package gateway

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"
)

// passRoute is a route the gateway passes to the upstream as it is, for an
// authenticated tenant. Only the routes in passRoutes reach the upstream
// besides chat completions: the upstream's key may be the operator's
// (GATEWAY_UPSTREAM_API_KEY), and the upstream serves more than a chat
// backend needs (files, batches, fine-tuning, an organization's usage and
// admin routes, and whatever else lies beside its base path), none of which
// a tenant may reach with that key.
type passRoute struct {
	// pattern is the route's ServeMux pattern, matched on the decoded path
	// once checked (pathProblem).
	pattern string
	// upstream is the route's path below the upstream's base for r,
	// escaped: made from the route's own words and the parts it names,
	// never from the path as the caller sent it.
	upstream func(r *http.Request) string
}

// passRoutes are what OpenAI-compatible clients call beside chat
// completions and the gateway passes on: the models (a client's check of
// its configuration, a UI's model picker) and embeddings (a retrieval
// pipeline configured with the same base URL). Routes that generate text
// without the chat's memory (legacy completions, the Responses API) and
// routes that act on the upstream account (files, batches, fine-tuning,
// deleting a model) are left out on purpose: an answer without memory
// would go unnoticed, and the account is the operator's, shared by every
// tenant.
var passRoutes = []passRoute{
	{"GET /v1/models", func(*http.Request) string { return "models" }},
	{"GET /v1/models/{model...}", func(r *http.Request) string {
		return "models/" + escapeSegment(strings.TrimPrefix(r.URL.Path, "/v1/models/"))
	}},
	{"POST /v1/embeddings", func(*http.Request) string { return "embeddings" }},
}

// Routes are the gateway's routes besides /healthz, /readyz and /metrics:
// chat completions, and the routes it passes to the upstream as they are.
var Routes = func() []string {
	out := []string{"POST /v1/chat/completions"}
	for _, p := range passRoutes {
		out = append(out, strings.Replace(p.pattern, "{model...}", "{model}", 1))
	}
	return out
}()

// pathProblem says what in a request's path, decoded, could make it leave
// the upstream's base path once joined to it or decoded again on the way,
// "" when nothing does: a '.' or '..' segment (also as '..;', which some
// servers read as '..' with a path parameter), an empty segment, a
// backslash (a separator to some servers), a '%' left after decoding (the
// path was encoded twice), a control character, or bytes that are not
// UTF-8 (an overlong '.', for one).
func pathProblem(p string) string {
	if !strings.HasPrefix(p, "/") {
		return "no leading '/'"
	}
	if p == "/" {
		return ""
	}
	switch {
	case !utf8.ValidString(p):
		return "bytes that are not UTF-8"
	case strings.ContainsRune(p, '\\'):
		return "a backslash"
	case strings.ContainsRune(p, '%'):
		return "a '%' left after decoding (encoded twice)"
	case strings.ContainsFunc(p, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return "a control character"
	}
	for seg := range strings.SplitSeq(p[1:], "/") {
		name, _, _ := strings.Cut(seg, ";")
		switch name {
		case "":
			if seg == "" {
				return "an empty segment"
			}
		case ".":
			return "a '.' segment"
		case "..":
			return "a '..' segment"
		}
	}
	return ""
}

// checkedPaths refuses, before any route is matched or the caller is
// authenticated, a request whose path could leave the upstream's base
// path (pathProblem), with a 400 in the OpenAI API's words; the others go
// to next matched on their decoded path, so that /v1/models/org%2Fmodel
// and /v1/models/org/model are one route, the model "org/model".
func checkedPaths(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if problem := pathProblem(r.URL.Path); problem != "" {
			sent, _, _ := strings.Cut(r.RequestURI, "?")
			if sent == "" {
				sent = r.URL.EscapedPath()
			}
			writeOpenAIError(w, http.StatusBadRequest, "invalid_request_error", "invalid_path", "",
				fmt.Sprintf("Invalid request URL: %s %s: its path, decoded, holds %s, which could leave /v1 on the way to the upstream. The gateway passes no such path on.", r.Method, sent, problem))
			return
		}
		if r.URL.RawPath != "" {
			u := *r.URL
			u.RawPath = ""
			r2 := *r
			r2.URL = &u
			r = &r2
		}
		next.ServeHTTP(w, r)
	})
}

// escapeSegment escapes s as one path segment: a '/' in it (a model id
// such as org/model) stays inside the segment as %2F, as the openai npm
// package sends it. Only letters, digits, "-._~" and ':' and '@' (a model
// id such as llama3:8b or ft:gpt-4o-mini:acme::abc123) are left as they
// are; the sub-delimiters are escaped too, so that no server reads a ';'
// as the start of a path parameter.
func escapeSegment(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9',
			c == '-', c == '.', c == '_', c == '~', c == ':', c == '@':
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	return b.String()
}

// upstreamURL is the URL of route below the upstream's base: route is an
// escaped path ("chat/completions", "models/org%2Fmodel"), joined to the
// base's own path (https://host/openai/v1), the base's query kept (Azure's
// api-version) and the caller's query, when there is one, after it.
func upstreamURL(base *url.URL, route, query string) *url.URL {
	u := *base
	u.Fragment, u.RawFragment = "", ""
	u.RawPath = strings.TrimRight(base.EscapedPath(), "/") + "/" + route
	// Both halves are escaped as url writes them: this never fails.
	u.Path, _ = url.PathUnescape(u.RawPath)
	switch {
	case query == "":
	case u.RawQuery == "":
		u.RawQuery = query
	default:
		u.RawQuery += "&" + query
	}
	return &u
}
