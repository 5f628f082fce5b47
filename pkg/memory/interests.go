package memory

import (
	"context"
	"errors"

	"github.com/recallhq/recall/pkg/assemble"
	"github.com/recallhq/recall/pkg/contract"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/queue"
	"github.com/recallhq/recall/pkg/record"
	"github.com/recallhq/recall/pkg/store"
)

// Interests answers the user's interest facts by weight now (limit of them,
// 1 to 500, 0: 50) and the interest vector's metadata, with its values when
// vector is FlagTrue.
func (s *Service) Interests(ctx context.Context, tenant, userID string, limit int, vector Flag) (*contract.Interests, error) {
	if err := s.IDError("user_id", userID); err != nil {
		return nil, err
	}
	var fe []contract.FieldError
	limit = Count("limit", limit, 50, 500, &fe)
	withValues := vector.value("vector", &fe)
	if err := invalid("invalid parameter", fe); err != nil {
		return nil, err
	}
	var (
		facts []record.Fact
		prof  store.Profile
		found bool
	)
	err := s.read(ctx, tenant, func(t *store.Tenant) (err error) {
		if facts, err = t.Facts(ctx, userID, []string{record.FactActive}, min(max(4*limit, 200), 2000)); err != nil {
			return err
		}
		prof, err = t.Profile(ctx, userID)
		found = err == nil
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if !found && len(facts) == 0 {
		return nil, contract.Errorf(contract.CodeNotFound, "no interests known for this user")
	}
	now := s.now()
	top := assemble.TopFacts(s.policy, facts, now, limit)
	stored := make(map[[2]string]record.Fact, len(facts))
	for _, f := range facts {
		stored[[2]string{f.Type, f.Value}] = f
	}
	out := &contract.Interests{UserID: userID, At: now.UTC(), Facts: make([]contract.InterestFact, len(top.Facts)), Cuts: toCuts(top.Cuts)}
	for i, wf := range top.Facts {
		f := stored[[2]string{wf.Type, wf.Value}]
		out.Facts[i] = contract.InterestFact{
			Type: f.Type, Value: f.Value, Display: f.Display, BaseWeight: f.Weight, Weight: wf.Weight,
			MentionCount: f.MentionCount, LastMentionedAt: f.LastMentionedAt, ExpiresAt: f.ExpiresAt, Status: f.Status,
		}
	}
	if found {
		out.Vector = contract.InterestVector{
			Present: prof.Vector != nil, Dims: prof.Dims, Model: prof.Model, Sources: prof.Sources,
			ComputedFrom: &prof.ComputedFrom, UpdatedAt: &prof.UpdatedAt, Revision: prof.Revision,
		}
		if withValues {
			out.Vector.Values = prof.Vector
		}
	}
	return out, nil
}

// RefreshInterests queues a recompute of the user's interest vector; a
// refresh already queued takes it in (Duplicate).
func (s *Service) RefreshInterests(ctx context.Context, tenant, userID string) (*contract.InterestsRefresh, error) {
	if err := s.IDError("user_id", userID); err != nil {
		return nil, err
	}
	at := s.now().UTC()
	res, err := queue.NewRefresher(s.js, queue.DefaultRefreshBucket).Publish(ctx, []events.ProfileTask{{TenantID: tenant, UserID: userID, RequestedAt: at}})
	if err != nil {
		s.log.Error("publish profile refresh", "tenant_id", tenant, "error", err.Error())
		return nil, contract.Errorf(contract.CodeUnavailable, "the refresh could not be queued; retry")
	}
	return &contract.InterestsRefresh{UserID: userID, RequestedAt: at, Duplicate: res[0].Duplicate}, nil
}

// Recommendations answers the k catalog items (1 to 100, 0: 10) nearest
// to the user's interest vector; no_profile while the user has none.
func (s *Service) Recommendations(ctx context.Context, tenant, userID string, k int) (*contract.Recommendations, error) {
	if err := s.IDError("user_id", userID); err != nil {
		return nil, err
	}
	var fe []contract.FieldError
	k = Count("k", k, 10, 100, &fe)
	if err := invalid("invalid parameter", fe); err != nil {
		return nil, err
	}
	var (
		prof  store.Profile
		items []store.Recommendation
	)
	err := s.read(ctx, tenant, func(t *store.Tenant) (err error) {
		if prof, err = t.Profile(ctx, userID); err != nil || prof.Vector == nil {
			return err
		}
		items, err = t.Recommend(ctx, userID, prof.Vector, prof.Model, k)
		return err
	})
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil, contract.Errorf(contract.CodeNoProfile, "this user has no interest vector yet (no shelf items or interest facts processed); POST .../interests/refresh or add shelf entries")
	case err != nil:
		return nil, err
	case prof.Vector == nil:
		return nil, contract.Errorf(contract.CodeNoProfile, "this user's interest vector has no direction yet (nothing liked so far)")
	}
	return &contract.Recommendations{UserID: userID, K: k, Model: prof.Model, Items: nonNil(mapSlice(items, func(r store.Recommendation) contract.Recommendation {
		return contract.Recommendation{Ref: r.Ref, Type: r.Type, Title: r.Title, Attrs: r.Attrs, Distance: r.Distance, Score: r.Score}
	}))}, nil
}
