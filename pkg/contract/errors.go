package contract

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/recallhq/recall/pkg/events"
)

// FieldError names a parameter, header or body field and what is wrong with it.
type FieldError = events.FieldError

// Error codes the API answers with, each with one HTTP status (Status).
const (
	CodeInvalidRequest   = "invalid_request"
	CodeNotFound         = "not_found"
	CodeNoList           = "no_list"
	CodeOutOfRange       = "out_of_range"
	CodeNoProfile        = "no_profile"
	CodeUnauthorized     = "unauthorized"
	CodeForbidden        = "forbidden"
	CodeTooLarge         = "too_large"
	CodeUnavailable      = "unavailable"
	CodeStillDuplicate   = "still_duplicate"
	CodeSessionOwned     = "session_owned"
	CodeNotFailed        = "not_failed"
	CodeMethodNotAllowed = "method_not_allowed"
	CodeInternal         = "internal"
)

// statuses is the HTTP status of each code.
var statuses = map[string]int{
	CodeInvalidRequest:   http.StatusBadRequest,
	CodeNotFound:         http.StatusNotFound,
	CodeNoList:           http.StatusNotFound,
	CodeOutOfRange:       http.StatusNotFound,
	CodeNoProfile:        http.StatusConflict,
	CodeUnauthorized:     http.StatusUnauthorized,
	CodeForbidden:        http.StatusForbidden,
	CodeTooLarge:         http.StatusRequestEntityTooLarge,
	CodeUnavailable:      http.StatusServiceUnavailable,
	CodeStillDuplicate:   http.StatusConflict,
	CodeSessionOwned:     http.StatusConflict,
	CodeNotFailed:        http.StatusConflict,
	CodeMethodNotAllowed: http.StatusMethodNotAllowed,
	CodeInternal:         http.StatusInternalServerError,
}

// StatusOf is the HTTP status the API answers code with; 500 for a code it
// does not know.
func StatusOf(code string) int {
	if s, ok := statuses[code]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// Error is an error the API answered: its HTTP status, its code
// (invalid_request, not_found, no_list, out_of_range, no_profile,
// session_owned, unauthorized, forbidden, too_large, unavailable, ...), its
// message, and for a bad request every field that is wrong. Recall's front doors (HTTP, MCP)
// and its memory service speak it alike.
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

// Errorf is an *Error of code, with the status the code has.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Status: StatusOf(code), Code: code, Message: fmt.Sprintf(format, args...)}
}

// SessionOwned is the answer to a turn, or a read, that names a session of
// another user of the tenant: a session belongs to the user of its first
// turn, and no other user's turn enters it nor reads it.
func SessionOwned(message string, fields ...FieldError) *Error {
	return &Error{Status: http.StatusConflict, Code: CodeSessionOwned, Message: message, Fields: fields}
}

// Invalid is a bad request naming each field that is wrong.
func Invalid(message string, fields ...FieldError) *Error {
	return &Error{Status: http.StatusBadRequest, Code: CodeInvalidRequest, Message: message, Fields: fields}
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

// TrimFieldPrefix names the fields without prefix: a front door that made a
// one-edit request out of its own arguments answers in their names
// ("value", not "edits[0].value").
func (e *Error) TrimFieldPrefix(prefix string) {
	for i := range e.Fields {
		e.Fields[i].Field = strings.TrimPrefix(e.Fields[i].Field, prefix)
	}
}

// Temporary reports whether the request may succeed if sent again as it
// is: the API or a dependency of it was unavailable.
func (e *Error) Temporary() bool { return e.Status == http.StatusServiceUnavailable }

// ErrorBody is how every error is answered.
type ErrorBody struct {
	Error *Error `json:"error"`
}
