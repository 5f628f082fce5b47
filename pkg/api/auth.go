package api

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/recallhq/recall/pkg/events"
)

// parseKeys reads API_KEYS: tenant:key pairs separated by commas.
func parseKeys(s string) (map[string]string, error) {
	keys := map[string]string{}
	for _, pair := range strings.Split(s, ",") {
		pair = strings.TrimSpace(pair)
		if pair == "" {
			continue
		}
		tenant, key, ok := strings.Cut(pair, ":")
		if !ok || tenant == "" || len(key) < 16 {
			return nil, errors.New("API_KEYS: want tenant:key pairs separated by commas, keys of at least 16 characters")
		}
		keys[key] = tenant
	}
	return keys, nil
}

// authenticate reads the tenant from X-Tenant-ID and, when keys are configured,
// checks that the bearer key belongs to that tenant.
func (s *Server) authenticate(w http.ResponseWriter, r *http.Request) (string, bool) {
	tenant := r.Header.Get("X-Tenant-ID")
	switch {
	case tenant == "":
		writeError(w, http.StatusBadRequest, "invalid_request", "missing tenant", []events.FieldError{{Field: "X-Tenant-ID", Message: "required header"}})
		return "", false
	case !s.validID(tenant):
		writeError(w, http.StatusBadRequest, "invalid_request", "invalid tenant", []events.FieldError{{Field: "X-Tenant-ID", Message: fmt.Sprintf("must be valid UTF-8 without control characters, at most %d bytes", s.limits.MaxIDBytes)}})
		return "", false
	}
	if len(s.keys) == 0 {
		return tenant, true
	}
	key, problem := bearer(r.Header.Get("Authorization"))
	if problem != "" {
		w.Header().Set("WWW-Authenticate", `Bearer realm="recall"`)
		msg := "missing bearer key"
		if r.Header.Get("Authorization") != "" {
			msg = "malformed Authorization header"
		}
		writeError(w, http.StatusUnauthorized, "unauthorized", msg,
			[]events.FieldError{{Field: "Authorization", Message: problem}})
		return "", false
	}
	owner := ""
	for k, t := range s.keys {
		if subtle.ConstantTimeCompare([]byte(k), []byte(key)) == 1 {
			owner = t
		}
	}
	switch {
	case owner == "":
		w.Header().Set("WWW-Authenticate", `Bearer realm="recall", error="invalid_token"`)
		writeError(w, http.StatusUnauthorized, "unauthorized", "unknown key",
			[]events.FieldError{{Field: "Authorization", Message: "no tenant has this key (API_KEYS)"}})
		return "", false
	case owner != tenant:
		writeError(w, http.StatusForbidden, "forbidden", "key is not valid for this tenant", nil)
		return "", false
	}
	return tenant, true
}

// bearer reads the key of an "Authorization: Bearer <key>" header. The scheme is
// case-insensitive (RFC 9110, section 11.1). A header it cannot read gives
// what is wrong with it, in words a caller can act on.
func bearer(h string) (key, problem string) {
	const want = "want \"Bearer <key>\""
	h = strings.TrimSpace(h)
	if h == "" {
		return "", "required header: " + want + " (this server has API_KEYS set)"
	}
	scheme, key, ok := strings.Cut(h, " ")
	switch {
	case !ok && strings.EqualFold(scheme, "Bearer"):
		return "", "the key after \"Bearer \" is missing"
	case !ok:
		return "", want + ", got a value without a scheme: put \"Bearer \" before the key"
	case !strings.EqualFold(scheme, "Bearer"):
		return "", fmt.Sprintf("%s, got the %q scheme", want, scheme)
	}
	key = strings.TrimSpace(key)
	if key == "" {
		return "", "the key after \"Bearer \" is missing"
	}
	return key, ""
}
