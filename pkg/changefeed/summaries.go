package changefeed

import (
	"strconv"

	"github.com/recallhq/recall/pkg/contract"
	"github.com/recallhq/recall/pkg/record"
)

// SummaryUpdated is the change of a session's new summary version
// (summary.updated), at the event time of the newest turn it covers, its id
// derived from the session, the version and the range of messages it read.
func SummaryUpdated(tenantID string, s record.Summary) contract.Change {
	wire := SummaryValue(s)
	return contract.Change{V: contract.ChangeVersion,
		ID: ID(contract.ChangeSummaryUpdated, tenantID, s.UserID, s.SessionID, strconv.Itoa(s.Version),
			strconv.FormatInt(s.FromCount, 10), strconv.FormatInt(s.ThroughCount, 10)),
		Type: contract.ChangeSummaryUpdated, TenantID: tenantID, UserID: s.UserID, At: s.CoversTo.UTC(), Summary: &wire}
}

// SummaryValue is a summary version as the contract carries it: the one
// mapping, which the API's sessions and summaries (pkg/memory) use too.
func SummaryValue(s record.Summary) contract.Summary {
	return contract.Summary{SessionID: s.SessionID, UserID: s.UserID, Version: s.Version,
		FromCount: s.FromCount, ThroughCount: s.ThroughCount,
		FirstEventID: s.FirstEventID, FirstAt: s.FirstAt, LastEventID: s.LastEventID, LastAt: s.LastAt,
		CoversFrom: s.CoversFrom, CoversTo: s.CoversTo, MessagesRead: s.MessagesRead,
		Text: s.Text, KeyTopics: s.KeyTopics, Model: s.Model, Reason: s.Reason, CreatedAt: s.CreatedAt}
}
