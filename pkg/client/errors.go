package client

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
)

// IsNotFound reports whether err is an API answer of 404 (an unknown session,
// no list presented, a position beyond the list, no profile).
func IsNotFound(err error) bool { return hasStatus(err, http.StatusNotFound) }

func hasStatus(err error, status int) bool {
	var e *Error
	return errors.As(err, &e) && e.Status == status
}

// UnreachableError is a call that got no answer from the API at all, on
// every attempt the retry policy allowed: the connection was refused, the
// host not found, or nothing came back in time. The API is down or the
// client's URL is wrong, so the error names the URL: the fix is usually
// there (RECALL_URL, a port), not in the request.
type UnreachableError struct {
	// URL is the API's base URL the client was made with.
	URL string
	// Err is the last attempt's failure; errors.Is sees through it
	// (syscall.ECONNREFUSED, a *net.DNSError, ...).
	Err error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("Recall at %s is not reachable: %s", e.URL, reason(e.Err))
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// reason is why a request got no answer, in the fewest words that say it:
// "connection refused" rather than the dial's whole chain.
func reason(err error) string {
	var sys *os.SyscallError
	if errors.As(err, &sys) {
		return sys.Err.Error()
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return dns.Error()
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		var op *net.OpError
		if errors.As(ue.Err, &op) && op.Err != nil {
			return op.Err.Error()
		}
		return ue.Err.Error()
	}
	return err.Error()
}
