package worker

import (
	"context"
	"fmt"

	"github.com/recallhq/recall/pkg/queue"
	"github.com/recallhq/recall/pkg/store"
)

// OwnSessions is the Admit stage (queue.Batch) of every worker of the turn
// stream: each value's turn may enter its session only when the session is
// its user's, or becomes theirs (store.Store.ClaimSessions). Every worker
// judges a turn by the same session row, so a turn of another user
// published straight to the stream is refused by all of them alike: each
// dead-letters it with the reason, and none stores anything of it. claim
// is the claim of a value's turn.
func OwnSessions[T any](st *store.Store, claim func(*T) store.SessionClaim) func(context.Context, []T) []error {
	return func(ctx context.Context, vs []T) []error {
		claims := make([]store.SessionClaim, len(vs))
		for i := range vs {
			claims[i] = claim(&vs[i])
		}
		owners, err := st.ClaimSessions(ctx, claims)
		if err != nil {
			// The database's failure: every value is tried again.
			errs := make([]error, len(vs))
			for i := range errs {
				errs[i] = err
			}
			return errs
		}
		var errs []error
		for i, owner := range owners {
			if owner == claims[i].UserID {
				continue
			}
			if errs == nil {
				errs = make([]error, len(vs))
			}
			errs[i] = queue.Permanent(SessionOwnedError(claims[i].SessionID, owner))
		}
		return errs
	}
}

// SessionOwnedError is the reason a turn of another user for a session is
// refused, as its dead letter records it.
func SessionOwnedError(session, owner string) error {
	return fmt.Errorf("session_id: session %q belongs to user %q: a session's turns are its user's alone (%w)", session, owner, store.ErrSessionOwned)
}
