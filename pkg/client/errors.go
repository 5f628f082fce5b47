package client

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
)

// Error is an error the API answered: its HTTP status, its code
// (invalid_request, not_found, no_list, out_of_range, no_profile,
// unauthorized, forbidden, too_large, unavailable, ...), its message, and for
// a bad request every field that is wrong. Turns rejected before a publish to
// JetStream are reported the same way, with the status the API would answer
// (400).
type Error struct {
	// Status is the HTTP status (not part of the body).
	Status  int          `json:"-"`
	Code    string       `json:"code"`
	Message string       `json:"message"`
	Fields  []FieldError `json:"fields,omitempty"`
	// RetryAt is when the same request will work, where the server knows
	// (still_duplicate: when the stream forgets the message id).
	RetryAt *time.Time `json:"retry_at,omitempty"`
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Status != 0 {
		fmt.Fprintf(&b, "recall: %d %s: %s", e.Status, e.Code, e.Message)
	} else {
		fmt.Fprintf(&b, "recall: %s: %s", e.Code, e.Message)
	}
	for i, f := range e.Fields {
		sep := "; "
		if i == 0 {
			sep = " ("
		}
		b.WriteString(sep + f.Field + ": " + f.Message)
	}
	if len(e.Fields) > 0 {
		b.WriteString(")")
	}
	return b.String()
}

// Field is the message of the field error naming field, and whether there is one.
func (e *Error) Field(field string) (string, bool) {
	for _, f := range e.Fields {
		if f.Field == field {
			return f.Message, true
		}
	}
	return "", false
}

// Temporary reports whether the request may succeed if sent again as it
// is: the API or a dependency of it was unavailable.
func (e *Error) Temporary() bool { return e.Status == http.StatusServiceUnavailable }

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
