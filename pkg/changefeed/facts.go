package changefeed

import (
	"time"

	"github.com/recallhq/recall/pkg/contract"
	"github.com/recallhq/recall/pkg/decay"
	"github.com/recallhq/recall/pkg/record"
	"github.com/recallhq/recall/pkg/store"
)

// FactsNew are the changes of facts first mentioned (fact.new): one per
// fact, at its first mention's event time, its id derived from the fact and
// that mention's event, so that deriving it again from what is stored (a
// redelivery: store.Tenant.FirstMentioned) gives the same id.
func FactsNew(facts []store.FactRow) []contract.Change {
	out := make([]contract.Change, 0, len(facts))
	for _, f := range facts {
		wire := changedFact(f.Fact, f.Weight)
		wire.Status, wire.EventID = record.FactActive, f.FirstEventID
		out = append(out, contract.Change{V: contract.ChangeVersion,
			ID:   ID(contract.ChangeFactNew, f.TenantID, f.UserID, f.Type, f.Value, f.FirstEventID),
			Type: contract.ChangeFactNew, TenantID: f.TenantID, UserID: f.UserID, At: f.FirstEventAt.UTC(), Fact: &wire})
	}
	Sort(out)
	return out
}

// FactsEnded are the changes of facts a decay run archived or expired
// (fact.archived, fact.expired), each at the event time its rule counts
// from the last mention: the expiry for an expired fact, the end of the
// period that took its weight below the floor (decay.Policy.ArchivedAt) for
// an archived one; never the run's clock, so that a run at another time
// derives the same change. The id is derived from the fact and that time: a
// fact mentioned again and archived again later is another change.
func FactsEnded(p *decay.Policy, facts []store.DecayedFact) []contract.Change {
	out := make([]contract.Change, 0, len(facts))
	for _, f := range facts {
		typ, at := contract.ChangeFactExpired, f.ExpiresAt
		if f.Status == decay.Archived {
			typ = contract.ChangeFactArchived
			if a, ok := p.ArchivedAt(f.Type, f.Weight, f.LastMentionedAt); ok {
				at = a
			} else {
				// A base weight below the floor from the start (none is
				// stored so): archived from its last mention.
				at = f.LastMentionedAt
			}
		}
		at = at.UTC()
		wire := changedFact(f.Fact, f.DecayedWeight)
		out = append(out, contract.Change{V: contract.ChangeVersion,
			ID:   ID(typ, f.TenantID, f.UserID, f.Type, f.Value, at.Format(time.RFC3339Nano)),
			Type: typ, TenantID: f.TenantID, UserID: f.UserID, At: at, Fact: &wire})
	}
	Sort(out)
	return out
}

// changedFact is a stored fact as the change feed carries it, with its
// weight at the change's time.
func changedFact(f record.Fact, weight float64) contract.ChangedFact {
	return contract.ChangedFact{Type: f.Type, Value: f.Value, Display: f.Display, Status: f.Status, Source: f.Source,
		SessionID: f.SourceSessionID, BaseWeight: f.Weight, Weight: weight, MentionCount: f.MentionCount,
		FirstSeenAt: f.FirstSeenAt.UTC(), LastMentionedAt: f.LastMentionedAt.UTC(), ExpiresAt: f.ExpiresAt.UTC()}
}
