package events

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// Subject layout. Every event subject carries tenant, user and session so one user's
// events can be filtered, replayed and purged:
//
//	recall.turns.<tenant>.<user>.<session>
//	recall.dlq.<consumer>.<original subject without "recall.">
const (
	SubjectRoot   = "recall"
	TurnsSubjects = SubjectRoot + ".turns.>"
	DLQSubjects   = SubjectRoot + ".dlq.>"
)

// encodedPrefix marks a token that holds base64url of the id. It is outside the
// plain alphabet, so plain and encoded tokens never collide.
const encodedPrefix = "~"

// EncodeToken turns any id into a NATS subject token. Ids made only of ASCII letters,
// digits, '-' and '_' are used as they are (readable in `nats` tooling); anything
// else (dots, spaces, wildcards, non-ASCII) is "~" + unpadded base64url.
func EncodeToken(id string) string {
	if isPlainToken(id) {
		return id
	}
	return encodedPrefix + base64.RawURLEncoding.EncodeToString([]byte(id))
}

// DecodeToken reverses EncodeToken.
func DecodeToken(tok string) (string, error) {
	if tok == "" {
		return "", errors.New("empty subject token")
	}
	if !strings.HasPrefix(tok, encodedPrefix) {
		if !isPlainToken(tok) {
			return "", fmt.Errorf("subject token %q is neither plain nor encoded", tok)
		}
		return tok, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(tok[len(encodedPrefix):])
	if err != nil {
		return "", fmt.Errorf("subject token %q: %w", tok, err)
	}
	return string(b), nil
}

func isPlainToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// TurnSubject is the subject a turn is published on.
func TurnSubject(tenantID, userID, sessionID string) string {
	return SubjectRoot + ".turns." + EncodeToken(tenantID) + "." + EncodeToken(userID) + "." + EncodeToken(sessionID)
}

// UserTurnsFilter matches every turn of one user, for replay and purge.
func UserTurnsFilter(tenantID, userID string) string {
	return SubjectRoot + ".turns." + EncodeToken(tenantID) + "." + EncodeToken(userID) + ".>"
}

// SessionTurnsFilter matches every turn of one session, whoever's user it
// names: a session belongs to one user, but turns of others may have been
// published for it (and refused, or stored before that rule).
func SessionTurnsFilter(tenantID, sessionID string) string {
	return SubjectRoot + ".turns." + EncodeToken(tenantID) + ".*." + EncodeToken(sessionID)
}

// SubjectIDs are the ids a subject carries.
type SubjectIDs struct {
	Kind      string // "turns", ...
	TenantID  string
	UserID    string
	SessionID string
}

// ParseSubject reads the ids back out of an event subject, so a worker can check
// that the body claims the same tenant, user and session as the subject it came on.
func ParseSubject(subject string) (SubjectIDs, error) {
	parts := strings.Split(subject, ".")
	if len(parts) != 5 || parts[0] != SubjectRoot {
		return SubjectIDs{}, fmt.Errorf("subject %q is not recall.<kind>.<tenant>.<user>.<session>", subject)
	}
	var ids SubjectIDs
	var err error
	ids.Kind = parts[1]
	if ids.TenantID, err = DecodeToken(parts[2]); err != nil {
		return ids, err
	}
	if ids.UserID, err = DecodeToken(parts[3]); err != nil {
		return ids, err
	}
	if ids.SessionID, err = DecodeToken(parts[4]); err != nil {
		return ids, err
	}
	return ids, nil
}

// CheckSubject verifies that a turn's body matches the subject it arrived on. A
// mismatch means a producer bug or an attempt to write into another tenant.
func CheckSubject(subject string, t *Turn) error {
	ids, err := ParseSubject(subject)
	if err != nil {
		return &ValidationError{Fields: []FieldError{{Field: "(subject)", Message: err.Error()}}}
	}
	var fe fieldErrors
	if ids.TenantID != t.TenantID {
		fe.add("tenant_id", "body says %q but the subject is for tenant %q", ClipUTF8(t.TenantID, 64, "…"), ClipUTF8(ids.TenantID, 64, "…"))
	}
	if ids.UserID != t.UserID {
		fe.add("user_id", "body says %q but the subject is for user %q", ClipUTF8(t.UserID, 64, "…"), ClipUTF8(ids.UserID, 64, "…"))
	}
	if ids.SessionID != t.SessionID {
		fe.add("session_id", "body says %q but the subject is for session %q", ClipUTF8(t.SessionID, 64, "…"), ClipUTF8(ids.SessionID, 64, "…"))
	}
	return fe.err()
}

// SubjectTenant is the tenant an event subject belongs to: a turn's, a
// catalog item's, a shelf entry's or a task's.
func SubjectTenant(subject string) (string, error) {
	if ids, err := ParseSubject(subject); err == nil && ids.Kind == "turns" {
		return ids.TenantID, nil
	}
	ids, err := ParseSignalSubject(subject)
	return ids.TenantID, err
}
