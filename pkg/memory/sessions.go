package memory

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"time"

	"github.com/recallhq/recall/pkg/contract"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/queue"
	"github.com/recallhq/recall/pkg/record"
	"github.com/recallhq/recall/pkg/store"
)

// Session answers a session's aggregates, its newest messages (oldest
// first; recent of them, 1 to 200, 0: 10) and its current summary.
func (s *Service) Session(ctx context.Context, tenant, sessionID string, recent int) (*contract.Session, error) {
	if err := s.IDError("session_id", sessionID); err != nil {
		return nil, err
	}
	var fe []contract.FieldError
	n := Count("recent", recent, 10, 200, &fe)
	if err := invalid("invalid parameter", fe); err != nil {
		return nil, err
	}
	var (
		sess store.Session
		msgs []record.Message
		sum  *record.Summary
	)
	err := s.read(ctx, tenant, func(t *store.Tenant) (err error) {
		sess, msgs, sum, err = t.SessionWithSummary(ctx, sessionID, n)
		return err
	})
	if err != nil {
		return nil, readError(err)
	}
	newest := make([]contract.Message, len(msgs))
	for i, m := range msgs {
		newest[len(msgs)-1-i] = toMessage(m)
	}
	return &contract.Session{SessionInfo: toSessionInfo(sess), Recent: newest, Summary: toSummaryPtr(sum)}, nil
}

// Messages pages through a session in event-time order (a page's limit 1
// to 500, 0: 50); the cursor is opaque to clients.
func (s *Service) Messages(ctx context.Context, tenant, sessionID string, page Page) (*contract.MessagePage, error) {
	if err := s.IDError("session_id", sessionID); err != nil {
		return nil, err
	}
	var fe []contract.FieldError
	limit := Count("limit", page.Limit, 50, 500, &fe)
	after := cursorParam(page.Cursor, func(c messageCursor) bool { return c.EventID != "" && !c.OccurredAt.IsZero() }, &fe)
	if err := invalid("invalid parameter", fe); err != nil {
		return nil, err
	}
	var (
		msgs []record.Message
		next *store.Cursor
		sum  *contract.Summary
	)
	err := s.read(ctx, tenant, func(t *store.Tenant) (err error) {
		if msgs, next, err = t.Messages(ctx, sessionID, store.Cursor(after), limit); err != nil {
			return err
		}
		if len(msgs) == 0 && after.EventID == "" {
			if _, err := t.Session(ctx, sessionID); err != nil {
				return err
			}
		}
		sum, err = currentSummary(ctx, t, sessionID)
		return err
	})
	if err != nil {
		return nil, readError(err)
	}
	out := &contract.MessagePage{Messages: nonNil(toMessages(msgs)), Summary: sum}
	if next != nil {
		out.NextCursor = encodeCursor(messageCursor(*next))
	}
	return out, nil
}

// messageCursor is a position in a session's messages as a client holds it.
type messageCursor struct {
	OccurredAt time.Time `json:"t"`
	EventID    string    `json:"id"`
}

// encodeCursor makes a page's position opaque to clients.
func encodeCursor(c any) string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

// cursorParam reads a page's cursor, v: a position this service returned
// (encodeCursor), which complete accepts. Empty: the zero value, the first
// page.
func cursorParam[T any](v string, complete func(T) bool, fe *[]contract.FieldError) T {
	var c T
	if v == "" {
		return c
	}
	b, err := base64.RawURLEncoding.DecodeString(v)
	if err == nil {
		err = json.Unmarshal(b, &c)
	}
	if err != nil || !complete(c) {
		*fe = append(*fe, contract.FieldError{Field: "cursor", Message: "not a cursor returned by this API"})
		var zero T
		return zero
	}
	return c
}

// currentSummary is the session's current summary, nil while it has none.
func currentSummary(ctx context.Context, t *store.Tenant, id string) (*contract.Summary, error) {
	sum, err := t.CurrentSummary(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := toSummary(sum)
	return &out, nil
}

// Summaries answers a session's summary versions, newest first (limit of
// them, 1 to 200, 0: 20).
func (s *Service) Summaries(ctx context.Context, tenant, sessionID string, limit int) (*contract.SummaryVersions, error) {
	if err := s.IDError("session_id", sessionID); err != nil {
		return nil, err
	}
	var fe []contract.FieldError
	limit = Count("limit", limit, 20, 200, &fe)
	if err := invalid("invalid parameter", fe); err != nil {
		return nil, err
	}
	var sums []record.Summary
	err := s.read(ctx, tenant, func(t *store.Tenant) (err error) {
		if sums, err = t.SummaryVersions(ctx, sessionID, limit); err != nil || len(sums) > 0 {
			return err
		}
		_, err = t.Session(ctx, sessionID)
		return err
	})
	if err != nil {
		return nil, readError(err)
	}
	return &contract.SummaryVersions{SessionID: sessionID, Summaries: nonNil(mapSlice(sums, toSummary))}, nil
}

// DeleteSession erases the session's messages from the streams (turns,
// summary requests, their dead letters: store.DeleteSession's counterpart
// in JetStream), so neither a redelivery nor a replay brings it back, then
// deletes its rows and what was derived from it alone (store.DeleteSession
// says what it keeps). When facts changed, the user's profile is asked to
// be computed again.
func (s *Service) DeleteSession(ctx context.Context, tenant, sessionID string) error {
	if err := s.IDError("session_id", sessionID); err != nil {
		return err
	}
	// The primary throughout: what is deleted is what the primary holds.
	t := s.store.Tenant(tenant)
	sess, err := t.Session(ctx, sessionID)
	if err != nil {
		return readError(err)
	}
	if _, err := queue.PurgeSession(ctx, s.js, tenant, sess.UserID, sessionID); err != nil {
		return err
	}
	d, err := t.DeleteSession(ctx, sessionID)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	if d.Rows["fact_mentions"] > 0 {
		// The profile is derived from the facts; a lost refresh is made up
		// by the next one, so its failure does not fail the delete.
		task := events.ProfileTask{TenantID: tenant, UserID: d.UserID, RequestedAt: s.now().UTC()}
		if _, err := queue.NewRefresher(s.js, queue.DefaultRefreshBucket).Publish(ctx, []events.ProfileTask{task}); err != nil {
			s.log.Warn("delete session: profile refresh not queued", "session_id", sessionID, "err", err)
		}
	}
	return nil
}

// MaxSummarizeWait bounds how long a summary asked for now is waited for.
const MaxSummarizeWait = 30 * time.Second

// Summarize asks for the session's summary now, and waits up to wait (0
// to MaxSummarizeWait; 0: not at all) for the summarizer to write it. A
// session without a message since its current summary answers status
// current and asks for nothing.
func (s *Service) Summarize(ctx context.Context, tenant, sessionID string, wait time.Duration) (*contract.SummarizeResult, error) {
	if err := s.IDError("session_id", sessionID); err != nil {
		return nil, err
	}
	if wait < 0 || wait > MaxSummarizeWait {
		return nil, contract.Invalid("invalid parameter", contract.FieldError{Field: "wait", Message: "want seconds from 0 to 30 (5) or a duration (5s, 1500ms)"})
	}
	// The primary: the state decides what to ask for, and the wait is for
	// the summarizer's write to land; a replica would see it later.
	t := s.store.Tenant(tenant)
	rctx, cancel := context.WithTimeout(ctx, readTimeout)
	defer cancel()
	st, err := t.SummaryState(rctx, sessionID)
	if err != nil {
		return nil, readError(err)
	}
	if st.Pending() <= 0 {
		sum, err := currentSummary(rctx, t, sessionID)
		if err != nil {
			return nil, err
		}
		return &contract.SummarizeResult{SessionID: sessionID, Status: contract.SummaryCurrent, Summary: sum}, nil
	}
	req := events.SummarizeRequest{TenantID: tenant, UserID: st.UserID, SessionID: sessionID, Reason: events.SummarizeRequested,
		FromCount: st.Summarized, ThroughCount: st.Counted, RequestedAt: s.now().UTC()}
	res, err := s.pub.PublishSummarizeRequests(ctx, []events.SummarizeRequest{req})
	if err != nil {
		s.log.Error("publish summarize request", "tenant_id", tenant, "session_id", sessionID, "error", err.Error())
		return nil, contract.Errorf(contract.CodeUnavailable, "the summary could not be queued; retry")
	}
	out := &contract.SummarizeResult{SessionID: sessionID, Status: contract.SummaryQueued,
		Request: &contract.SummarizeRequest{FromCount: req.FromCount, ThroughCount: req.ThroughCount, Duplicate: res[0].Duplicate}}
	if wait > 0 && waitSummarized(ctx, t, sessionID, req.ThroughCount, wait) {
		out.Status = contract.SummarySummarized
	}
	rctx, rcancel := context.WithTimeout(ctx, readTimeout) // the wait may have used up the first
	defer rcancel()
	if out.Summary, err = currentSummary(rctx, t, sessionID); err != nil {
		return nil, err
	}
	return out, nil
}

// readTimeout bounds the database work of one call.
const readTimeout = 10 * time.Second

// waitSummarized polls until the session's summary reaches through or wait
// is up.
func waitSummarized(ctx context.Context, t *store.Tenant, id string, through int64, wait time.Duration) bool {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	tick := time.NewTicker(25 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return false
		case <-tick.C:
			st, err := t.SummaryState(ctx, id)
			if err == nil && st.Summarized >= through {
				return true
			}
		}
	}
}
