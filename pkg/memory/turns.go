package memory

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/recallhq/recall/pkg/contract"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/store"
)

// AddTurns accepts turns (batch says they came as an array, so field
// errors name their place: "[2].role"); a turn without a tenant is the
// tenant's. The whole batch is validated first and rejected as a whole with
// every field error: nothing is published from a batch that has an
// invalid turn. A turn a front door could not read from its text
// (events.ReadTurn) is refused in its place, with why. A turn is reported
// accepted only once JetStream has stored it; when a publish fails, the
// answer lists what was and was not stored (its Error is set and the error
// is unavailable), and resending the same turns is safe (dedupe by id).
func (s *Service) AddTurns(ctx context.Context, tenant string, turns []events.Turn, batch bool) (*contract.TurnsResult, error) {
	out, _, err := s.addTurns(ctx, tenant, turns, batch)
	return out, err
}

// addTurns is AddTurns that also answers the subject each accepted turn
// was published on, by id.
func (s *Service) addTurns(ctx context.Context, tenant string, in []events.Turn, batch bool) (*contract.TurnsResult, map[string]string, error) {
	turns := slices.Clone(in)
	var fields []contract.FieldError
	for i := range turns {
		prefix := ""
		if batch {
			prefix = fmt.Sprintf("[%d].", i)
		}
		tn := &turns[i]
		if tn.TenantID == "" {
			tn.TenantID = tenant
		}
		err := events.ValidateTurn(tn, events.ValidateOptions{Limits: s.limits, Now: s.now})
		if tn.TenantID != tenant {
			fields = append(fields, contract.FieldError{Field: prefix + "tenant_id", Message: "does not match X-Tenant-ID"})
		}
		var ve *events.ValidationError
		if errors.As(err, &ve) {
			fields = append(fields, ve.Prefixed(prefix).Fields...)
		}
	}
	fields = append(fields, events.RepeatedIDs(turns)...)
	if len(fields) > 0 {
		s.turns("rejected", len(turns))
		return nil, nil, contract.Invalid("invalid turn(s); nothing was accepted", fields...)
	}
	if err := s.claimSessions(ctx, turns, batch); err != nil {
		s.turns("rejected", len(turns))
		return nil, nil, err
	}

	pctx, cancel := context.WithTimeout(ctx, s.cfg.PublishTimeout)
	defer cancel()
	results, err := s.pub.PublishTurns(pctx, turns)
	out := &contract.TurnsResult{Accepted: make([]contract.Accepted, 0, len(results))}
	subjects := make(map[string]string, len(turns))
	for i := range turns {
		subjects[turns[i].ID] = events.TurnSubject(turns[i].TenantID, turns[i].UserID, turns[i].SessionID)
	}
	for _, res := range results {
		if res.Err != nil {
			out.Failed = append(out.Failed, res.ID)
			continue
		}
		out.Accepted = append(out.Accepted, contract.Accepted{ID: res.ID, Sequence: res.Sequence, Duplicate: res.Duplicate})
		if res.Duplicate {
			s.turns("duplicate", 1)
		} else {
			s.turns("accepted", 1)
		}
	}
	if err != nil {
		s.turns("failed", len(out.Failed))
		s.log.Error("publish turns", "tenant_id", tenant, "failed", len(out.Failed), "error", err.Error())
		out.Error = contract.Errorf(contract.CodeUnavailable, "some turns were not stored; resend them (ids are deduplicated)")
		return out, subjects, out.Error
	}
	return out, subjects, nil
}

// claimSessions makes the sessions the turns name theirs, or finds them
// theirs already, before anything is published (store.ClaimSessions): a
// session belongs to the user of its first turn, and a turn of another
// user for it is refused here, with the rest of its batch, rather than by
// the workers after a 202. The primary: a session claimed a moment ago
// decides.
func (s *Service) claimSessions(ctx context.Context, turns []events.Turn, batch bool) error {
	claims := make([]store.SessionClaim, len(turns))
	for i := range turns {
		claims[i] = store.ClaimOf(&turns[i])
	}
	owners, err := s.store.ClaimSessions(ctx, claims)
	if err != nil {
		s.log.Error("claim sessions", "error", err.Error())
		return contract.Errorf(contract.CodeUnavailable, "the turns' sessions could not be checked; resend them (ids are deduplicated)")
	}
	var fields []contract.FieldError
	for i, owner := range owners {
		if owner == claims[i].UserID {
			continue
		}
		prefix := ""
		if batch {
			prefix = fmt.Sprintf("[%d].", i)
		}
		fields = append(fields, contract.FieldError{Field: prefix + "session_id",
			Message: fmt.Sprintf("session %q belongs to another user: a session holds the turns of the user of its first turn only; use a session id of this user's own", claims[i].SessionID)})
	}
	if len(fields) > 0 {
		return contract.SessionOwned("a turn's session belongs to another user; nothing was accepted", fields...)
	}
	return nil
}

// StoredTurns reports which of the tenant's turn ids are stored, so that a
// front door that sees a conversation again (the chat gateway: clients
// resend the whole history with every request) publishes only what is new.
func (s *Service) StoredTurns(ctx context.Context, tenant string, ids []string) (map[string]bool, error) {
	// The primary: a turn stored a moment ago that a lagging replica has
	// not seen yet would be published again.
	return s.store.Tenant(tenant).StoredIDs(ctx, ids)
}
