package changefeed

import (
	"github.com/recallhq/recall/pkg/contract"
	"github.com/recallhq/recall/pkg/events"
)

// ListPresented is the change of the list an assistant's turn presented
// (list.presented), at the turn's event time, numbered from 1 as the user
// saw it; its id is derived from the turn, so that the turn's list is one
// change however often it is recorded.
func ListPresented(t *events.Turn) contract.Change {
	items := make([]contract.ListEntry, len(t.Items))
	for i, it := range t.Items {
		items[i] = contract.ListEntry{N: i + 1, Ref: it.Ref, Title: it.Title, Attrs: it.Attrs}
	}
	return contract.Change{V: contract.ChangeVersion,
		ID:   ID(contract.ChangeListPresented, t.TenantID, t.UserID, t.ID),
		Type: contract.ChangeListPresented, TenantID: t.TenantID, UserID: t.UserID, At: t.OccurredAt.UTC(),
		List: &contract.ChangedList{SessionID: t.SessionID, EventID: t.ID, Count: len(items), Items: items}}
}
