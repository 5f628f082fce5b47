// Package contract is Recall's public /v1 wire format: every request the
// HTTP API reads, every answer it writes and its error shape, as Go types
// with their JSON names. It depends only on the standard library and
// pkg/events (whose turn and item types are the events' own wire format), so
// a backend imports it, or the client built on it, without compiling the
// server.
//
// The server's own types (store rows, the assembler's parts) carry no JSON
// tags: the API maps them to these types at its edge, so a renamed column or
// field cannot change the wire by accident. The OpenAPI document
// (pkg/api/openapi.yaml) and the Python and TypeScript clients' types are
// checked field by field against these types by tests.
package contract

import (
	"context"

	"github.com/recallhq/recall/pkg/events"
)

// Memory is what Recall's memory offers one tenant through a front door:
// the operations an agent's tools need. The Go client implements it over
// HTTP (a remote Recall); the memory service implements it in-process (the
// API's own MCP endpoint, a gateway: memory.Service.For, whose methods are
// the service's own, with the tenant, called with these values as they
// are), so a front door written once on it runs either way. Errors the
// caller can act on are *Error.
type Memory interface {
	// AddTurns stores turns; ids, the tenant and the event time are filled
	// where left out (written into the turns).
	AddTurns(ctx context.Context, turns ...*events.Turn) ([]Accepted, error)
	// Context assembles the context for the next prompt.
	Context(ctx context.Context, p ContextParams) (*Context, error)
	// Search searches one user's history.
	Search(ctx context.Context, userID string, p SearchParams) (*SearchResult, error)
	// Session answers a session's counts, its recent messages (0: the
	// default) and its summary.
	Session(ctx context.Context, sessionID string, recent int) (*Session, error)
	// Selection answers item n of the session's current list.
	Selection(ctx context.Context, sessionID string, n int) (*Selection, error)
	// Unseen answers which refs the user was never shown nor notified of.
	Unseen(ctx context.Context, userID string, req UnseenRequest) (*Unseen, error)
	// Interests answers the user's interest facts (limit 0: the default) and
	// vector, with its values when vector is true.
	Interests(ctx context.Context, userID string, limit int, vector bool) (*Interests, error)
	// Recommendations answers the k catalog items (0: the default) nearest
	// to the user's interests.
	Recommendations(ctx context.Context, userID string, k int) (*Recommendations, error)
	// ForgetUser removes everything stored about a user.
	ForgetUser(ctx context.Context, userID string) (*UserData, error)
	// Attributes answers who the user is and what they asked for, with
	// every earlier value when history is true.
	Attributes(ctx context.Context, userID string, history bool) (*Attributes, error)
	// EditAttributes sets and removes values of the user's attributes
	// explicitly; an id is given when the request has none.
	EditAttributes(ctx context.Context, userID string, req AttributeEdits) (*AttributesAccepted, error)
}
