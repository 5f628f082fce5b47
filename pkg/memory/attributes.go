package memory

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"

	"github.com/recallhq/recall/pkg/attribute"
	"github.com/recallhq/recall/pkg/changefeed"
	"github.com/recallhq/recall/pkg/contract"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/store"
)

// MaxAttributeEdits bounds the edits of one request.
const MaxAttributeEdits = 100

// Attributes answers who the user is and what they asked for: the current
// values of their profile's keys, and with history (FlagTrue) every value's
// history. A user with none answers an empty profile, not an error.
func (s *Service) Attributes(ctx context.Context, tenant, userID string, history Flag) (*contract.Attributes, error) {
	if err := s.IDError("user_id", userID); err != nil {
		return nil, err
	}
	var fe []contract.FieldError
	withHistory := history.value("history", &fe)
	if err := invalid("invalid parameter", fe); err != nil {
		return nil, err
	}
	var as []attribute.Assertion
	err := s.read(ctx, tenant, func(t *store.Tenant) (err error) {
		as, err = t.Assertions(ctx, userID)
		return err
	})
	if err != nil {
		return nil, err
	}
	schema := s.schemas.For(tenant)
	r := attribute.Resolve(schema, as)
	out := &contract.Attributes{UserID: userID, Current: make([]contract.AttributeValue, len(r.Current))}
	for i, v := range r.Current {
		out.Current[i] = changefeed.AttributeValue(schema, v)
	}
	if withHistory {
		out.History = make([]contract.AttributeValue, len(r.History))
		for i, v := range r.History {
			out.History[i] = changefeed.AttributeValue(schema, v)
		}
	}
	return out, nil
}

// EditAttributes checks explicit edits of a user's attributes against the
// tenant's schema and publishes them as attribute edits; the worker of the
// signal stream stores them. Every edit is checked before any is published:
// a bad one refuses the request naming its field ("edits[2].value"), and
// nothing is published. Without an id, one is given, so a retry of the same
// call would store the edits again (as a repeated put: the same values).
func (s *Service) EditAttributes(ctx context.Context, tenant, userID string, req contract.AttributeEdits) (*contract.AttributesAccepted, error) {
	if err := s.IDError("user_id", userID); err != nil {
		return nil, err
	}
	var fe []contract.FieldError
	switch {
	case len(req.Edits) == 0:
		fe = append(fe, contract.FieldError{Field: "edits", Message: "required: at least one edit"})
	case len(req.Edits) > MaxAttributeEdits:
		fe = append(fe, contract.FieldError{Field: "edits", Message: fmt.Sprintf("%d edits, limit is %d per request", len(req.Edits), MaxAttributeEdits)})
	}
	id := req.ID
	if id == "" {
		id = rand.Text()
	} else if !s.ValidID(id) {
		fe = append(fe, contract.FieldError{Field: "id", Message: fmt.Sprintf("valid UTF-8 without control characters, at most %d bytes", s.limits.MaxIDBytes)})
	}
	at := s.now().UTC()
	if req.OccurredAt != nil {
		// Judged once, as the request's: the edits are then judged at now,
		// so that each does not repeat it.
		switch p := s.limits.TimeProblem(req.OccurredAt.UTC(), s.now); {
		case req.OccurredAt.IsZero():
			fe = append(fe, contract.FieldError{Field: "occurred_at", Message: events.ZeroTimeMessage})
		case p != "":
			fe = append(fe, contract.FieldError{Field: "occurred_at", Message: p})
		default:
			at = req.OccurredAt.UTC()
		}
	}
	schema := s.schemas.For(tenant)
	edits := make([]events.AttributeEdit, len(req.Edits))
	for i, e := range req.Edits {
		prefix := fmt.Sprintf("edits[%d].", i)
		edits[i] = events.AttributeEdit{ID: id, TenantID: tenant, UserID: userID, OccurredAt: at, Key: e.Key, Op: e.Op, Value: e.Value}
		if len(req.Edits) > 1 {
			edits[i].ID = fmt.Sprintf("%s-%d", id, i)
		}
		if err := events.ValidateAttributeEdit(&edits[i], events.ValidateOptions{Limits: s.limits, Now: s.now}); err != nil {
			var ve *events.ValidationError
			if errors.As(err, &ve) {
				fe = append(fe, ve.Prefixed(prefix).Fields...)
				continue
			}
			return nil, err
		}
		a := attribute.Assertion{Key: e.Key, Op: e.Op, Value: e.Value, Source: attribute.Explicit, EventID: edits[i].ID, Confidence: 1, At: at}
		if err := attribute.Normalize(schema, &a); err != nil {
			var ae *attribute.FieldError
			if errors.As(err, &ae) {
				fe = append(fe, contract.FieldError{Field: prefix + ae.Field, Message: ae.Message})
				continue
			}
			return nil, err
		}
	}
	if err := invalid("invalid attribute edit(s); nothing was published", fe); err != nil {
		return nil, err
	}
	res, err := s.pub.PublishAttributeEdits(ctx, edits)
	if err != nil {
		s.log.Error("publish attribute edits", "tenant_id", tenant, "error", err.Error())
		return nil, contract.Errorf(contract.CodeUnavailable, "the edits could not be published; retry with the same id")
	}
	out := &contract.AttributesAccepted{UserID: userID, Accepted: make([]contract.Accepted, len(res))}
	for i, r := range res {
		out.Accepted[i] = contract.Accepted{ID: r.ID, Sequence: r.Sequence, Duplicate: r.Duplicate}
	}
	return out, nil
}
