package api

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/recallhq/recall/pkg/client"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/store"
)

// maxSummarizeWait bounds ?wait.
const maxSummarizeWait = 30 * time.Second

// postSummarize asks for a summary of the session now. It is idempotent: with
// no message since the current summary it answers that summary (200, status
// current) and asks for nothing; otherwise it queues a request whose dedupe id
// is the session's unsummarized range, so a retry or a trigger asking for the
// same range adds nothing. With ?wait=10s it waits up to that long (30s at
// most; or a number of seconds) for the summary to be written (200, status summarized), else answers
// 202 (status queued).
func (s *Server) postSummarize(w http.ResponseWriter, r *http.Request, t *store.Tenant) {
	id, ok := s.sessionID(w, r)
	if !ok {
		return
	}
	var wait time.Duration
	if v := r.URL.Query().Get("wait"); v != "" {
		d, err := waitDuration(v)
		if err != nil || d < 0 || d > maxSummarizeWait {
			writeError(w, http.StatusBadRequest, "invalid_request", "invalid parameter",
				[]events.FieldError{{Field: "wait", Message: "want seconds from 0 to 30 (5) or a duration (5s, 1500ms)"}})
			return
		}
		wait = d
	}
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	st, err := t.SummaryState(ctx, id)
	if err != nil {
		s.readError(w, r, err)
		return
	}
	if st.Pending() <= 0 {
		sum, err := s.currentSummary(ctx, t, id)
		if err != nil {
			s.internalError(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, client.SummarizeResult{SessionID: id, Status: client.SummaryCurrent, Summary: sum})
		return
	}
	req := events.SummarizeRequest{TenantID: t.ID(), UserID: st.UserID, SessionID: id, Reason: events.SummarizeRequested,
		FromCount: st.Summarized, ThroughCount: st.Counted, RequestedAt: s.now().UTC()}
	res, err := s.pub.PublishSummarizeRequests(r.Context(), []events.SummarizeRequest{req})
	if err != nil {
		s.log.Error("publish summarize request", "tenant_id", t.ID(), "session_id", id, "error", err.Error())
		writeError(w, http.StatusServiceUnavailable, "unavailable", "the summary could not be queued; retry", nil)
		return
	}
	out := client.SummarizeResult{SessionID: id, Status: client.SummaryQueued,
		Request: &client.SummarizeRequest{FromCount: req.FromCount, ThroughCount: req.ThroughCount, Duplicate: res[0].Duplicate}}
	if wait > 0 && s.waitSummarized(r.Context(), t, id, req.ThroughCount, wait) {
		out.Status = client.SummarySummarized
	}
	rctx, rcancel := ctxTimeout(r) // the wait may have used up ctx
	defer rcancel()
	if out.Summary, err = s.currentSummary(rctx, t, id); err != nil {
		s.internalError(w, r, err)
		return
	}
	status := http.StatusAccepted
	if out.Status == client.SummarySummarized {
		status = http.StatusOK
	}
	writeJSON(w, status, out)
}

// currentSummary is the session's current summary, nil when it has none.
func (s *Server) currentSummary(ctx context.Context, t *store.Tenant, id string) (*store.Summary, error) {
	sum, err := t.CurrentSummary(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &sum, nil
}

// waitSummarized polls until the session's summary accounts for through
// messages, or wait has passed; it reports whether it does.
func (s *Server) waitSummarized(ctx context.Context, t *store.Tenant, id string, through int64, wait time.Duration) bool {
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

// waitDuration reads a wait: a number of seconds ("5", "2.5") or a Go
// duration ("5s", "1500ms"), so that clients may send either.
func waitDuration(v string) (time.Duration, error) {
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if math.IsNaN(secs) || math.IsInf(secs, 0) || secs < 0 || secs > maxSummarizeWait.Seconds() {
			return 0, fmt.Errorf("wait %q: out of range", v)
		}
		return time.Duration(secs * float64(time.Second)), nil
	}
	return time.ParseDuration(v)
}
