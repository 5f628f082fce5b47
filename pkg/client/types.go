package client

import "github.com/recallhq/recall/pkg/contract"

// The API's wire format is pkg/contract's; these names let a backend write
// client.Context rather than import both packages.

type (
	// WebhookCreate registers a webhook endpoint; Webhook is one, Webhooks
	// the tenant's; WebhookDelivery is one change for one endpoint, and
	// WebhookDeliveries an endpoint's newest with its counts.
	WebhookCreate     = contract.WebhookCreate
	Webhook           = contract.Webhook
	Webhooks          = contract.Webhooks
	WebhookDelivery   = contract.WebhookDelivery
	WebhookDeliveries = contract.WebhookDeliveries
	// Accepted is the outcome of one turn.
	Accepted = contract.Accepted
	// Message is a stored turn with its full structure.
	Message = contract.Message
	// Summary is a session's summary.
	Summary = contract.Summary
	// FieldError names a parameter, header or body field and what is wrong
	// with it.
	FieldError = contract.FieldError
	// Note says why a search ran short of what it was asked without failing.
	Note = contract.Note
	// Session is a session's counts, its newest messages and its summary.
	Session = contract.Session
	// MessagePage is one page of a session's messages.
	MessagePage = contract.MessagePage
	// Context is what the backend puts into its next prompt.
	Context = contract.Context
	// ContextParams ask for a context.
	ContextParams = contract.ContextParams
	// SearchParams ask for a search of one user's history.
	SearchParams = contract.SearchParams
	// SearchResult is the raw hits of a search.
	SearchResult = contract.SearchResult
	// Interests is what Recall holds about a user's interests: the facts
	// and the vector gathered from what they talk about.
	Interests = contract.Interests
	// InterestFact is an interest fact with its weight now.
	InterestFact = contract.InterestFact
	// InterestVector describes the interest vector.
	InterestVector = contract.InterestVector
	// InterestsRefresh is a queued recompute of a user's interest vector.
	InterestsRefresh = contract.InterestsRefresh

	// Profile is the former name of Interests.
	//
	// Deprecated: use Interests.
	Profile = contract.Interests
	// ProfileFact is the former name of InterestFact.
	//
	// Deprecated: use InterestFact.
	ProfileFact = contract.InterestFact
	// ProfileVector is the former name of InterestVector.
	//
	// Deprecated: use InterestVector.
	ProfileVector = contract.InterestVector
	// ProfileRefresh is the former name of InterestsRefresh.
	//
	// Deprecated: use InterestsRefresh.
	ProfileRefresh = contract.InterestsRefresh
	// Recommendations are catalog items nearest to the user's interests.
	Recommendations = contract.Recommendations
	// ListInfo identifies the list an item was taken from.
	ListInfo = contract.ListInfo
	// Selection is item N of a session's current list.
	Selection = contract.Selection
	// UnseenRequest asks which candidate refs a user was never shown.
	UnseenRequest = contract.UnseenRequest
	// Unseen is the answer to an UnseenRequest.
	Unseen = contract.Unseen
	// Seen is a user's seen-item registry.
	Seen = contract.Seen
	// SummarizeResult is the answer to a summary asked for now.
	SummarizeResult = contract.SummarizeResult
	// SummarizeRequest is the range of messages a queued summary covers.
	SummarizeRequest = contract.SummarizeRequest
	// TurnsResult is the answer to a POST of turns.
	TurnsResult = contract.TurnsResult
	// TurnsWait is how the wait of AddTurnsWait ended.
	TurnsWait = contract.TurnsWait
	// TurnStatus is where one turn stands in the pipeline.
	TurnStatus = contract.TurnStatus
	// WorkerProgress is whether one worker has finished with a turn.
	WorkerProgress = contract.WorkerProgress
	// ErrorBody is how every error is answered.
	ErrorBody = contract.ErrorBody
	// Error is an error the API answered.
	Error = contract.Error
	// UserData counts what is stored about a user.
	UserData = contract.UserData
	// Attributes are who a user is and what they asked for.
	Attributes = contract.Attributes
	// AttributeEdits change a user's attributes explicitly.
	AttributeEdits = contract.AttributeEdits
	// AttributeEdit is one edit of an attribute key.
	AttributeEdit = contract.AttributeEdit
	// AttributesAccepted is the answer to attribute edits.
	AttributesAccepted = contract.AttributesAccepted
)

// What AddTurnsWait may wait for.
const (
	WaitStored     = contract.WaitStored
	WaitSearchable = contract.WaitSearchable
)

// Statuses of a SummarizeResult.
const (
	SummaryCurrent    = contract.SummaryCurrent
	SummarySummarized = contract.SummarySummarized
	SummaryQueued     = contract.SummaryQueued
)
