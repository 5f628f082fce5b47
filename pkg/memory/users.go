package memory

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/recallhq/recall/pkg/contract"
	"github.com/recallhq/recall/pkg/decay"
	"github.com/recallhq/recall/pkg/forget"
	"github.com/recallhq/recall/pkg/record"
	"github.com/recallhq/recall/pkg/store"
)

// activityCursor is a position in a list ordered by last activity as a
// client holds it.
type activityCursor struct {
	At time.Time `json:"at"`
	ID string    `json:"id"`
}

// factCursor is a position in a user's facts as a client holds it.
type factCursor struct {
	LastMentionedAt time.Time `json:"at"`
	Type            string    `json:"type"`
	Value           string    `json:"value"`
}

// Users answers a page of the tenant's users whose id starts with prefix
// (empty: all), most recently active first (a page's limit 1 to 500, 0:
// 50).
func (s *Service) Users(ctx context.Context, tenant, prefix string, page Page) (*contract.Users, error) {
	var fe []contract.FieldError
	limit := Count("limit", page.Limit, 50, 500, &fe)
	after := cursorParam(page.Cursor, func(c activityCursor) bool { return c.ID != "" && !c.At.IsZero() }, &fe)
	if prefix != "" && !s.ValidID(prefix) {
		fe = append(fe, contract.FieldError{Field: "prefix", Message: "valid UTF-8 without control characters, at most an id's length"})
	}
	if err := invalid("invalid parameter", fe); err != nil {
		return nil, err
	}
	var (
		users []store.UserActivity
		next  *store.ActivityCursor
	)
	err := s.read(ctx, tenant, func(t *store.Tenant) (err error) {
		users, next, err = t.Users(ctx, prefix, store.ActivityCursor(after), limit)
		return err
	})
	if err != nil {
		return nil, err
	}
	out := &contract.Users{Users: nonNil(mapSlice(users, func(u store.UserActivity) contract.UserActivity {
		return contract.UserActivity{UserID: u.UserID, Sessions: u.Sessions, Messages: u.Messages, FirstMessageAt: u.FirstMessageAt, LastMessageAt: u.LastMessageAt}
	}))}
	if next != nil {
		out.NextCursor = encodeCursor(activityCursor(*next))
	}
	return out, nil
}

// User answers what is stored about a user, as forgetting them would
// remove it: rows per table, stream messages per stream. Nothing at all is
// not_found.
func (s *Service) User(ctx context.Context, tenant, userID string) (*contract.UserData, error) {
	if err := s.IDError("user_id", userID); err != nil {
		return nil, err
	}
	var rep forget.Report
	err := s.store.Read(ctx, func(r *store.Store) (err error) {
		rep, err = forget.Count(ctx, r, s.js, tenant, userID)
		return err
	})
	if err != nil {
		return nil, err
	}
	var n uint64
	for _, c := range rep.Rows {
		n += uint64(c)
	}
	for _, c := range rep.StreamMessages {
		n += c
	}
	if n == 0 {
		return nil, contract.Errorf(contract.CodeNotFound, "nothing is stored about this user")
	}
	return toUserData(rep), nil
}

// ForgetUser removes a user completely: every stored row and every stream
// message of theirs. It answers what was removed; forgetting twice is no
// error.
func (s *Service) ForgetUser(ctx context.Context, tenant, userID string) (*contract.UserData, error) {
	if err := s.IDError("user_id", userID); err != nil {
		return nil, err
	}
	rep, err := forget.User(ctx, s.store, s.js, tenant, userID)
	if err != nil {
		return nil, err
	}
	// What this process kept of the user's attributes goes too (another
	// process's is never served again: their revision is gone, and the
	// next is a new one; it leaves as the least recently used).
	s.attrCache.drop(tenant, userID)
	s.log.Info("user forgotten", "tenant_id", tenant, "user_id", userID, "rows", rep.Rows, "stream_messages", rep.StreamMessages)
	return toUserData(rep), nil
}

func toUserData(r forget.Report) *contract.UserData {
	return &contract.UserData{TenantID: r.TenantID, UserID: r.UserID, Rows: r.Rows, StreamMessages: r.StreamMessages}
}

// factStatuses are the statuses a fact can have, in the order they are
// listed by default.
var factStatuses = []string{record.FactActive, record.FactArchived, record.FactExpired}

// UserFacts answers a page of the user's facts with their decay (a page's
// limit 1 to 200, 0: 50): each fact's weight and status now, its mentions
// (the newest mentions of them, 1 to 500, 0: 50) and curve, and the rule of
// each type shown. status, comma-separated, narrows them to those
// statuses (empty: all).
func (s *Service) UserFacts(ctx context.Context, tenant, userID, status string, mentions int, page Page) (*contract.UserFacts, error) {
	if err := s.IDError("user_id", userID); err != nil {
		return nil, err
	}
	var fe []contract.FieldError
	limit := Count("limit", page.Limit, 50, 200, &fe)
	mentions = Count("mentions", mentions, 50, 500, &fe)
	after := cursorParam(page.Cursor, func(c factCursor) bool { return c.Type != "" && !c.LastMentionedAt.IsZero() }, &fe)
	statuses := factStatuses
	if v := status; v != "" {
		statuses = strings.Split(v, ",")
		for _, st := range statuses {
			if !slices.Contains(factStatuses, st) {
				fe = append(fe, contract.FieldError{Field: "status", Message: "comma-separated, each one of active, archived, expired"})
				break
			}
		}
	}
	if err := invalid("invalid parameter", fe); err != nil {
		return nil, err
	}
	var (
		facts []store.FactHistory
		next  *store.FactCursor
	)
	err := s.read(ctx, tenant, func(t *store.Tenant) (err error) {
		facts, next, err = t.FactPage(ctx, userID, statuses, store.FactCursor(after), limit, mentions)
		return err
	})
	if err != nil {
		return nil, err
	}
	now := s.now()
	out := &contract.UserFacts{UserID: userID, At: now.UTC(), Policy: map[string]contract.DecayRule{}, Facts: make([]contract.FactView, len(facts))}
	for i, f := range facts {
		weight, status := s.policy.Assess(f.Type, f.Weight, f.LastMentionedAt, f.ExpiresAt, now)
		out.Facts[i] = contract.FactView{Type: f.Type, Value: f.Value, Display: f.Display, BaseWeight: f.Weight,
			MentionCount: f.MentionCount, FirstSeenAt: f.FirstSeenAt, LastMentionedAt: f.LastMentionedAt, ExpiresAt: f.ExpiresAt,
			Status: f.Status, Source: f.Source, SourceSessionID: f.SourceSessionID, Mentions: f.Mentions,
			Weight: weight, StatusNow: status,
			Curve: nonNil(mapSlice(s.policy.Curve(f.Type, f.Weight, f.Mentions, f.ExpiresAt), func(p decay.CurvePoint) contract.CurvePoint {
				return contract.CurvePoint{At: p.At, Weight: p.Weight, Kind: p.Kind}
			}))}
		r := s.policy.Rule(f.Type)
		out.Policy[f.Type] = contract.DecayRule{PeriodSeconds: r.Period.Seconds(), Factor: r.Factor, Floor: r.Floor,
			TTLSeconds: r.TTL.Seconds(), ArchivedAfter: r.ArchivedAfter()}
	}
	if next != nil {
		out.NextCursor = encodeCursor(factCursor(*next))
	}
	return out, nil
}

// UserSessions answers a page of the user's sessions, most recent first,
// each with its current summary (a page's limit 1 to 200, 0: 20).
func (s *Service) UserSessions(ctx context.Context, tenant, userID string, page Page) (*contract.UserSessions, error) {
	if err := s.IDError("user_id", userID); err != nil {
		return nil, err
	}
	var fe []contract.FieldError
	limit := Count("limit", page.Limit, 20, 200, &fe)
	after := cursorParam(page.Cursor, func(c activityCursor) bool { return c.ID != "" && !c.At.IsZero() }, &fe)
	if err := invalid("invalid parameter", fe); err != nil {
		return nil, err
	}
	var (
		sessions []store.UserSession
		next     *store.ActivityCursor
	)
	err := s.read(ctx, tenant, func(t *store.Tenant) (err error) {
		sessions, next, err = t.UserSessions(ctx, userID, store.ActivityCursor(after), limit)
		return err
	})
	if err != nil {
		return nil, err
	}
	out := &contract.UserSessions{UserID: userID, Sessions: nonNil(mapSlice(sessions, func(us store.UserSession) contract.UserSession {
		return contract.UserSession{SessionInfo: toSessionInfo(us.Session), Summary: toSummaryPtr(us.Summary)}
	}))}
	if next != nil {
		out.NextCursor = encodeCursor(activityCursor(*next))
	}
	return out, nil
}

// Shelf answers the user's shelf: the items they marked, each with whether
// the catalog holds its vector.
func (s *Service) Shelf(ctx context.Context, tenant, userID string) (*contract.Shelf, error) {
	if err := s.IDError("user_id", userID); err != nil {
		return nil, err
	}
	var shelf []store.ShelfVector
	err := s.read(ctx, tenant, func(t *store.Tenant) (err error) {
		shelf, err = t.Shelf(ctx, userID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &contract.Shelf{UserID: userID, Items: mapSlice(nonNil(shelf), func(sv store.ShelfVector) contract.ShelfItem {
		return contract.ShelfItem{Ref: sv.Ref, Status: sv.Status, OccurredAt: sv.OccurredAt, Title: sv.Title, Type: sv.Type, Embedded: sv.Embedding != nil}
	})}, nil
}
