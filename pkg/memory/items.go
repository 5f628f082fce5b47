package memory

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/recallhq/recall/pkg/contract"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/store"
)

// MaxUnseenRefs bounds the candidate refs of one unseen request.
const MaxUnseenRefs = 1000

// Selection answers item n (1-based, as shown to the user) of the session's
// current list, exactly as it was sent. A session that presented no list
// is no_list; a position beyond the list out_of_range.
func (s *Service) Selection(ctx context.Context, tenant, sessionID string, n int) (*contract.Selection, error) {
	if err := s.IDError("session_id", sessionID); err != nil {
		return nil, err
	}
	if n < 1 {
		return nil, contract.Invalid("invalid position", contract.FieldError{Field: "n", Message: "want a whole number from 1: the position in the list as shown to the user"})
	}
	// The primary, not a replica: the list a user answers "3" to was
	// presented a moment ago, and an older list from a lagging replica would
	// resolve the number to another item.
	li, err := s.store.Tenant(tenant).ListItem(ctx, sessionID, n)
	switch {
	case errors.Is(err, store.ErrNoList):
		return nil, contract.Errorf(contract.CodeNoList, "no list has been presented in this session")
	case err != nil:
		return nil, readError(err)
	}
	if li.Item == nil {
		msg := fmt.Sprintf("the current list (event %s) has %d items", li.EventID, li.Count)
		want := fmt.Sprintf("want 1 to %d", li.Count)
		if li.Count == 0 {
			msg, want = fmt.Sprintf("the current list (event %s) is empty", li.EventID), "the list has no items"
		}
		e := contract.Errorf(contract.CodeOutOfRange, "%s", msg)
		e.Fields = []contract.FieldError{{Field: "n", Message: want}}
		return nil, e
	}
	return &contract.Selection{SessionID: sessionID, N: n, Item: li.Item,
		List: contract.ListInfo{EventID: li.EventID, OccurredAt: li.OccurredAt, Count: li.Count}}, nil
}

// Unseen answers which of the request's refs the user was never shown nor
// notified of, in the order asked; with mark_notified it records them as
// notified, once per notification_id.
func (s *Service) Unseen(ctx context.Context, tenant, userID string, req contract.UnseenRequest) (*contract.Unseen, error) {
	if err := s.IDError("user_id", userID); err != nil {
		return nil, err
	}
	refs, fe := s.checkUnseen(req)
	if err := invalid("invalid unseen request", fe); err != nil {
		return nil, err
	}
	unseen, marked, err := s.store.Tenant(tenant).Unseen(ctx, userID, refs, store.UnseenOptions{
		Mark: req.MarkNotified, At: s.now(), NotificationID: req.NotificationID,
	})
	if err != nil {
		return nil, err
	}
	return &contract.Unseen{UserID: userID, Unseen: unseen, Marked: marked}, nil
}

// checkUnseen checks an unseen request and answers its refs without
// repeats, in the order given.
func (s *Service) checkUnseen(req contract.UnseenRequest) ([]string, []contract.FieldError) {
	var fe []contract.FieldError
	var refs []string
	switch {
	case len(req.Refs) == 0:
		fe = append(fe, contract.FieldError{Field: "refs", Message: "required: a non-empty array of item refs"})
	case len(req.Refs) > MaxUnseenRefs:
		fe = append(fe, contract.FieldError{Field: "refs", Message: fmt.Sprintf("%d refs, limit is %d per request", len(req.Refs), MaxUnseenRefs)})
	default:
		seen := make(map[string]bool, len(req.Refs))
		refs = make([]string, 0, len(req.Refs))
		for i, ref := range req.Refs {
			field := fmt.Sprintf("refs[%d]", i)
			switch {
			case ref == "":
				fe = append(fe, contract.FieldError{Field: field, Message: "required: the stable reference of an item"})
			case len(ref) > events.MaxRefBytes:
				fe = append(fe, contract.FieldError{Field: field, Message: fmt.Sprintf("%d bytes, limit is %d", len(ref), events.MaxRefBytes)})
			case strings.IndexByte(ref, 0) >= 0:
				fe = append(fe, contract.FieldError{Field: field, Message: "contains a NUL character"})
			case !seen[ref]:
				seen[ref] = true
				refs = append(refs, ref)
			}
		}
	}
	if req.NotificationID != "" && !s.ValidID(req.NotificationID) {
		fe = append(fe, contract.FieldError{Field: "notification_id", Message: fmt.Sprintf("valid UTF-8 without control characters, at most %d bytes", s.limits.MaxIDBytes)})
	}
	return refs, fe
}

// Seen answers the user's seen items, most recently shown first (limit of
// them, 1 to 1000, 0: 100).
func (s *Service) Seen(ctx context.Context, tenant, userID string, limit int) (*contract.Seen, error) {
	if err := s.IDError("user_id", userID); err != nil {
		return nil, err
	}
	var fe []contract.FieldError
	limit = Count("limit", limit, 100, 1000, &fe)
	if err := invalid("invalid parameter", fe); err != nil {
		return nil, err
	}
	var items []store.SeenItem
	err := s.read(ctx, tenant, func(t *store.Tenant) (err error) {
		items, err = t.SeenItems(ctx, userID, limit)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &contract.Seen{UserID: userID, Items: nonNil(mapSlice(items, func(i store.SeenItem) contract.SeenItem {
		return contract.SeenItem{Ref: i.Ref, Title: i.Title, Attrs: i.Attrs, TimesShown: i.TimesShown, FirstSeenAt: i.FirstSeenAt,
			LastSeenAt: i.LastSeenAt, LastEventID: i.LastEventID, LastSessionID: i.LastSessionID}
	}))}, nil
}
