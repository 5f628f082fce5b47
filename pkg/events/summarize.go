package events

import (
	"fmt"
	"strconv"
	"time"
)

// Reasons a session summary is asked for.
const (
	// SummarizeThreshold: an ingest batch took the session past the count
	// (and time) threshold since its last summary.
	SummarizeThreshold = "threshold"
	// SummarizeRequested: a client asked through the API.
	SummarizeRequested = "request"
	// SummarizeIdle: the session has had no message for a while and still has
	// messages no summary accounts for; this is its final summary.
	SummarizeIdle = "idle"
)

// SummarizeRequest asks the summarizer for a new summary of one session. The
// range is in counts of the session's non-system messages: FromCount is what
// the session's current summary accounted for when the request was made,
// ThroughCount how many there were. The summarizer summarizes whatever is new
// when it runs (so possibly more), and does nothing when the session's summary
// already reaches ThroughCount: requests are safe to repeat.
type SummarizeRequest struct {
	V            int    `json:"v"`
	TenantID     string `json:"tenant_id"`
	UserID       string `json:"user_id"`
	SessionID    string `json:"session_id"`
	Reason       string `json:"reason"`
	FromCount    int64  `json:"from_count"`
	ThroughCount int64  `json:"through_count"`
	// RequestedAt is the event time of the newest message the trigger saw
	// (threshold, idle) or the time of the API request.
	RequestedAt time.Time `json:"requested_at"`

	badTime string
}

type wireSummarizeRequest struct {
	V            int      `json:"v"`
	TenantID     string   `json:"tenant_id"`
	UserID       string   `json:"user_id"`
	SessionID    string   `json:"session_id"`
	Reason       string   `json:"reason"`
	FromCount    int64    `json:"from_count"`
	ThroughCount int64    `json:"through_count"`
	RequestedAt  wireTime `json:"requested_at"`
}

// DecodeSummarizeRequest parses and validates one encoded request.
func DecodeSummarizeRequest(raw []byte, opts ValidateOptions) (SummarizeRequest, error) {
	var w wireSummarizeRequest
	if err := decodeEnvelope(raw, opts.Limits, &w); err != nil {
		return SummarizeRequest{}, err
	}
	r := SummarizeRequest{V: w.V, TenantID: w.TenantID, UserID: w.UserID, SessionID: w.SessionID, Reason: w.Reason,
		FromCount: w.FromCount, ThroughCount: w.ThroughCount, RequestedAt: w.RequestedAt.t, badTime: w.RequestedAt.bad}
	return r, ValidateSummarizeRequest(&r, opts)
}

// ValidateSummarizeRequest checks a request and fills defaults (V).
func ValidateSummarizeRequest(r *SummarizeRequest, opts ValidateOptions) error {
	var fe fieldErrors
	checkVersion(&fe, &r.V)
	checkID(&fe, "tenant_id", r.TenantID, true, opts.Limits)
	checkID(&fe, "user_id", r.UserID, true, opts.Limits)
	checkID(&fe, "session_id", r.SessionID, true, opts.Limits)
	switch r.Reason {
	case SummarizeThreshold, SummarizeRequested, SummarizeIdle:
	case "":
		fe.add("reason", "required: one of threshold, request, idle")
	default:
		fe.add("reason", "unknown reason %q: one of threshold, request, idle", ClipUTF8(r.Reason, 32, "…"))
	}
	if r.FromCount < 0 {
		fe.add("from_count", "must not be negative")
	}
	if r.ThroughCount <= r.FromCount {
		fe.add("through_count", "must be above from_count (%d)", r.FromCount)
	}
	checkTime(&fe, "requested_at", r.RequestedAt, r.badTime, opts)
	return fe.err()
}

// CheckSummarizeSubject verifies that a request arrived on its session's subject.
func CheckSummarizeSubject(subject string, r *SummarizeRequest) error {
	ids, err := ParseSignalSubject(subject)
	if err == nil && ids.Kind != KindSummarizeTask {
		err = fmt.Errorf("subject %q is a %s subject, not %s", subject, ids.Kind, KindSummarizeTask)
	}
	if err != nil {
		return &ValidationError{Fields: []FieldError{{Field: "(subject)", Message: err.Error()}}}
	}
	var fe fieldErrors
	if ids.TenantID != r.TenantID {
		fe.add("tenant_id", "body says %q but the subject is for tenant %q", ClipUTF8(r.TenantID, 64, "…"), ClipUTF8(ids.TenantID, 64, "…"))
	}
	if ids.UserID != r.UserID {
		fe.add("user_id", "body says %q but the subject is for user %q", ClipUTF8(r.UserID, 64, "…"), ClipUTF8(ids.UserID, 64, "…"))
	}
	if ids.SessionID != r.SessionID {
		fe.add("session_id", "body says %q but the subject is for session %q", ClipUTF8(r.SessionID, 64, "…"), ClipUTF8(ids.SessionID, 64, "…"))
	}
	return fe.err()
}

// SummarizeMsgID is the dedupe id of a request: the session and the range it
// covers, whatever asked for it. A trigger that fires twice for the same
// state of a session (an ingest redelivery, two sweeps, a client retrying, a
// threshold and an API call at once) publishes the same id, and JetStream
// keeps one. The ids are encoded as subject tokens, so that a ':' inside an id
// cannot make two sessions' keys equal.
func SummarizeMsgID(tenantID, sessionID string, fromCount, throughCount int64) string {
	return EncodeToken(tenantID) + ":summarize:" + EncodeToken(sessionID) + ":" +
		strconv.FormatInt(fromCount, 10) + "-" + strconv.FormatInt(throughCount, 10)
}
