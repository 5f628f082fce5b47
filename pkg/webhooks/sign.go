package webhooks

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"
	"time"
)

// The headers of a delivery.
const (
	// HeaderID is the change's id: the same for every attempt of a
	// delivery, so that a receiver dedupes on it.
	HeaderID = "Recall-Webhook-Id"
	// HeaderType is the change's type.
	HeaderType = "Recall-Webhook-Type"
	// HeaderTimestamp is when the attempt was signed, in Unix seconds.
	HeaderTimestamp = "Recall-Webhook-Timestamp"
	// HeaderSignature is "v1=" and the signature's hex (Signature).
	HeaderSignature = "Recall-Webhook-Signature"
	// HeaderEndpoint is on a delivery's dead letter (not on a delivery): the
	// endpoint it was for, so that re-driving the dead letter (`recall dlq
	// redrive`) re-drives that endpoint's delivery.
	HeaderEndpoint = "Recall-Webhook-Endpoint"
)

// Signature is the v1 signature of a delivery's body signed at ts: the
// hex of HMAC-SHA256 over "<ts>.<body>" (ts in Unix seconds, as
// HeaderTimestamp carries it) with the endpoint's secret.
func Signature(secret string, ts int64, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(strconv.FormatInt(ts, 10)))
	mac.Write([]byte{'.'})
	mac.Write(body)
	return hex.EncodeToString(mac.Sum(nil))
}

// Sign sets a delivery's headers on h: the change's id and type, the time
// and the signature of body at it.
func Sign(h http.Header, secret, changeID, changeType string, at time.Time, body []byte) {
	ts := at.Unix()
	h.Set(HeaderID, changeID)
	h.Set(HeaderType, changeType)
	h.Set(HeaderTimestamp, strconv.FormatInt(ts, 10))
	h.Set(HeaderSignature, "v1="+Signature(secret, ts, body))
}
