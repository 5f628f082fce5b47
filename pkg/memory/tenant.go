package memory

import (
	"context"
	"crypto/rand"

	"github.com/recallhq/recall/pkg/contract"
	"github.com/recallhq/recall/pkg/events"
)

// For is the service as one tenant's contract.Memory, for a front door in
// this process (the API's MCP endpoint, the chat gateway): each method is
// the service's own, called with the values as they are, and judged as a
// /v1 request's are.
func (s *Service) For(tenant string) contract.Memory { return tenantMemory{s: s, tenant: tenant} }

type tenantMemory struct {
	s      *Service
	tenant string
}

var _ contract.Memory = tenantMemory{}

func (m tenantMemory) AddTurns(ctx context.Context, turns ...*events.Turn) ([]contract.Accepted, error) {
	if len(turns) == 0 {
		return nil, contract.Invalid("no turns")
	}
	in := make([]events.Turn, len(turns))
	for i, t := range turns {
		if t.ID == "" {
			t.ID = rand.Text()
		}
		if t.TenantID == "" {
			t.TenantID = m.tenant
		}
		if t.OccurredAt.IsZero() {
			t.OccurredAt = m.s.now().UTC()
		}
		in[i] = *t
		// Built in code, not read from a request's bytes: held to the
		// same bound on its encoding as a turn read from them.
		events.MeasureTurn(&in[i], m.s.limits)
	}
	res, err := m.s.AddTurns(ctx, m.tenant, in, len(turns) > 1)
	if res == nil {
		return nil, err
	}
	return res.Accepted, err
}

func (m tenantMemory) Context(ctx context.Context, p contract.ContextParams) (*contract.Context, error) {
	return m.s.Context(ctx, m.tenant, p)
}

func (m tenantMemory) Search(ctx context.Context, userID string, p contract.SearchParams) (*contract.SearchResult, error) {
	return m.s.Search(ctx, m.tenant, userID, p)
}

func (m tenantMemory) Session(ctx context.Context, sessionID string, recent int) (*contract.Session, error) {
	return m.s.Session(ctx, m.tenant, sessionID, recent)
}

func (m tenantMemory) Selection(ctx context.Context, sessionID string, n int) (*contract.Selection, error) {
	return m.s.Selection(ctx, m.tenant, sessionID, n)
}

func (m tenantMemory) Unseen(ctx context.Context, userID string, req contract.UnseenRequest) (*contract.Unseen, error) {
	if req.MarkNotified && req.NotificationID == "" {
		req.NotificationID = rand.Text()
	}
	return m.s.Unseen(ctx, m.tenant, userID, req)
}

func (m tenantMemory) Interests(ctx context.Context, userID string, limit int, vector bool) (*contract.Interests, error) {
	return m.s.Interests(ctx, m.tenant, userID, limit, FlagOf(vector))
}

func (m tenantMemory) Recommendations(ctx context.Context, userID string, k int) (*contract.Recommendations, error) {
	return m.s.Recommendations(ctx, m.tenant, userID, k)
}

func (m tenantMemory) ForgetUser(ctx context.Context, userID string) (*contract.UserData, error) {
	return m.s.ForgetUser(ctx, m.tenant, userID)
}

func (m tenantMemory) Attributes(ctx context.Context, userID string, history bool) (*contract.Attributes, error) {
	return m.s.Attributes(ctx, m.tenant, userID, FlagOf(history))
}

func (m tenantMemory) EditAttributes(ctx context.Context, userID string, req contract.AttributeEdits) (*contract.AttributesAccepted, error) {
	return m.s.EditAttributes(ctx, m.tenant, userID, req)
}
