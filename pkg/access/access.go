// Package access decides which tenant a request speaks for: its X-Tenant-ID
// header, and, when keys are configured (API_KEYS), a bearer key that
// belongs to that tenant. Every front door (the HTTP API, its MCP endpoint,
// the chat gateway) applies the same rule through it, and words a refusal in
// its own protocol from the Denial it gets.
package access

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// TenantHeader is the header that names a request's tenant.
const TenantHeader = "X-Tenant-ID"

// Keys are the tenants' bearer keys (API_KEYS). The zero value, and nil,
// has none: authentication is off and X-Tenant-ID alone names the tenant,
// for local use.
type Keys struct {
	owner map[string]string // key -> tenant
}

// ParseKeys reads API_KEYS: tenant:key pairs separated by commas, keys of
// at least 16 characters.
func ParseKeys(s string) (*Keys, error) {
	k := &Keys{owner: map[string]string{}}
	for _, pair := range strings.Split(s, ",") {
		pair = strings.TrimSpace(pair)
		if pair == "" {
			continue
		}
		tenant, key, ok := strings.Cut(pair, ":")
		if !ok || tenant == "" || len(key) < 16 {
			return nil, errors.New("API_KEYS: want tenant:key pairs separated by commas, keys of at least 16 characters")
		}
		k.owner[key] = tenant
	}
	return k, nil
}

// Enabled reports whether keys are configured, so that every request must
// present its tenant's.
func (k *Keys) Enabled() bool { return k != nil && len(k.owner) > 0 }

// Denial is why a request was refused: the HTTP status, a code and message
// for the caller, the header at fault with what is wrong with it, and the
// WWW-Authenticate challenge to send with a 401.
type Denial struct {
	Status    int
	Code      string
	Message   string
	Field     string
	Problem   string
	Challenge string
}

// Request reads a request's tenant from X-Tenant-ID and, when keys are
// configured, checks the bearer key in the header keyHeader (Authorization
// for the API; the gateway may read it from another header when the
// caller's Authorization is meant for the upstream model). validID judges
// the tenant id as a stored event's, whose ids are at most maxIDBytes long.
func (k *Keys) Request(r *http.Request, keyHeader string, validID func(string) bool, maxIDBytes int) (string, *Denial) {
	tenant := r.Header.Get(TenantHeader)
	switch {
	case tenant == "":
		return "", &Denial{Status: http.StatusBadRequest, Code: "invalid_request", Message: "missing tenant", Field: TenantHeader, Problem: "required header"}
	case !validID(tenant):
		return "", &Denial{Status: http.StatusBadRequest, Code: "invalid_request", Message: "invalid tenant", Field: TenantHeader,
			Problem: fmt.Sprintf("must be valid UTF-8 without control characters, at most %d bytes", maxIDBytes)}
	}
	if !k.Enabled() {
		return tenant, nil
	}
	h := r.Header.Get(keyHeader)
	key, problem := bearer(h)
	if problem != "" {
		msg := "missing bearer key"
		if h != "" {
			msg = "malformed " + keyHeader + " header"
		}
		return "", &Denial{Status: http.StatusUnauthorized, Code: "unauthorized", Message: msg, Field: keyHeader, Problem: problem,
			Challenge: `Bearer realm="recall"`}
	}
	owner := ""
	for k, t := range k.owner {
		if subtle.ConstantTimeCompare([]byte(k), []byte(key)) == 1 {
			owner = t
		}
	}
	switch {
	case owner == "":
		return "", &Denial{Status: http.StatusUnauthorized, Code: "unauthorized", Message: "unknown key", Field: keyHeader,
			Problem: "no tenant has this key (API_KEYS)", Challenge: `Bearer realm="recall", error="invalid_token"`}
	case owner != tenant:
		return "", &Denial{Status: http.StatusForbidden, Code: "forbidden", Message: "key is not valid for this tenant"}
	}
	return tenant, nil
}

// bearer reads the key of a "Bearer <key>" header value. The scheme is
// case-insensitive (RFC 9110, section 11.1). A value it cannot read gives
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
