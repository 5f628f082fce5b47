package contract

import "time"

// Webhook delivery statuses (WebhookDelivery.Status).
const (
	// WebhookPending: waiting for its next attempt, or in one.
	WebhookPending = "pending"
	// WebhookDelivered: the endpoint answered 2xx.
	WebhookDelivered = "delivered"
	// WebhookFailed: given up on after the last attempt (and dead-lettered);
	// a re-drive makes it pending again.
	WebhookFailed = "failed"
)

// WebhookCreate is POST /v1/webhooks's body: where the tenant's changes
// go, which of them, and the secret their signatures are made with (left
// out: the server makes one, answered once).
type WebhookCreate struct {
	URL string `json:"url"`
	// Types are the change types the endpoint wants: a type
	// ("attribute.asserted"), a prefix ("attribute.*"), or "*" for all.
	Types  []string `json:"types"`
	Secret string   `json:"secret,omitempty"`
}

// Webhook is a tenant's webhook endpoint. Its secret is answered once, by
// the POST that made it, and never again.
type Webhook struct {
	ID        string    `json:"id"`
	URL       string    `json:"url"`
	Types     []string  `json:"types"`
	CreatedAt time.Time `json:"created_at"`
	Secret    string    `json:"secret,omitempty"`
}

// Webhooks are the tenant's endpoints, oldest first.
type Webhooks struct {
	Webhooks []Webhook `json:"webhooks"`
}

// WebhookDelivery is one change for one endpoint, as its delivery stands:
// a change reaches an endpoint in one delivery, however often it is seen.
type WebhookDelivery struct {
	// ChangeID is the change's id, the Recall-Webhook-Id of every attempt.
	ChangeID string `json:"change_id"`
	Type     string `json:"type"`
	UserID   string `json:"user_id"`
	// Status is pending, delivered or failed.
	Status string `json:"status"`
	// Attempts are the requests made since the delivery began or was last
	// re-driven (Redrives: how often).
	Attempts int `json:"attempts"`
	Redrives int `json:"redrives"`
	// InFlight: an attempt is being made now.
	InFlight bool `json:"in_flight"`
	// NextAttemptAt is when a pending delivery is tried next.
	NextAttemptAt *time.Time `json:"next_attempt_at,omitempty"`
	// LastStatusCode is the last answer's HTTP status (absent: no answer
	// yet, as when every attempt timed out or could not connect).
	LastStatusCode int `json:"last_status_code,omitempty"`
	// LastError is why the last failed attempt failed (it stays after a
	// later success).
	LastError     string     `json:"last_error,omitempty"`
	LastAttemptAt *time.Time `json:"last_attempt_at,omitempty"`
	CreatedAt     time.Time  `json:"created_at"`
	// FinishedAt is when it was delivered or given up on.
	FinishedAt *time.Time `json:"finished_at,omitempty"`
}

// WebhookCounts are how many deliveries an endpoint has of each status.
type WebhookCounts struct {
	Pending   int64 `json:"pending"`
	Delivered int64 `json:"delivered"`
	Failed    int64 `json:"failed"`
}

// WebhookDeliveries are an endpoint's recent deliveries, newest first, and
// how many it has of each status.
type WebhookDeliveries struct {
	WebhookID  string            `json:"webhook_id"`
	Counts     WebhookCounts     `json:"counts"`
	Deliveries []WebhookDelivery `json:"deliveries"`
}
