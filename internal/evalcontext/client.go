package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"sync/atomic"
	"time"
)

// maxBatch is the most turns one POST /v1/turns takes (API_MAX_BATCH).
const maxBatch = 500

// client speaks Recall's HTTP API for one tenant.
type client struct {
	base   string
	tenant string
	apiKey string
	http   *http.Client
	// getOnly is set once POST /v1/context has answered 404 or 405: the
	// server predates it, and the query goes in GET's parameters instead.
	getOnly atomic.Bool
}

func newClient(base, tenant, apiKey string) *client {
	return &client{base: base, tenant: tenant, apiKey: apiKey, http: &http.Client{Timeout: 60 * time.Second}}
}

// errStatus is an answer with an unexpected status.
type errStatus struct {
	Method, Path string
	Status       int
	Body         string
}

func (e *errStatus) Error() string {
	return fmt.Sprintf("%s %s: %d %s", e.Method, e.Path, e.Status, e.Body)
}

// do sends body (JSON, when not nil) and decodes a 2xx answer into out.
func (c *client) do(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("X-Tenant-ID", c.tenant)
	if c.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.apiKey)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("%s %s: read body: %w", method, path, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		if len(raw) > 500 {
			raw = raw[:500]
		}
		return &errStatus{Method: method, Path: path, Status: resp.StatusCode, Body: string(raw)}
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			return fmt.Errorf("%s %s: decode: %w", method, path, err)
		}
	}
	return nil
}

// turnBody is a turn as POST /v1/turns takes it; the tenant comes from the header.
type turnBody struct {
	ID         string    `json:"id"`
	UserID     string    `json:"user_id"`
	SessionID  string    `json:"session_id"`
	OccurredAt time.Time `json:"occurred_at"`
	Role       string    `json:"role"`
	Content    string    `json:"content"`
}

// postTurns posts a user's turns in batches of at most maxBatch. A batch the
// server could not store completely (503, network error) is sent again:
// event ids make a resend harmless.
func (c *client) postTurns(ctx context.Context, userID string, turns []turn) error {
	for start := 0; start < len(turns); start += maxBatch {
		batch := turns[start:min(start+maxBatch, len(turns))]
		body := make([]turnBody, len(batch))
		for i, t := range batch {
			body[i] = turnBody{ID: t.ID, UserID: userID, SessionID: t.SessionID, OccurredAt: t.OccurredAt, Role: t.Role, Content: t.Content}
		}
		var err error
		for attempt := range 5 {
			if err = c.do(ctx, http.MethodPost, "/v1/turns", body, nil); err == nil || !retryable(err) {
				break
			}
			if !sleep(ctx, time.Duration(attempt+1)*time.Second) {
				return ctx.Err()
			}
		}
		if err != nil {
			return fmt.Errorf("post turns of %s: %w", userID, err)
		}
	}
	return nil
}

// retryable is an error a resend may cure: the server was busy or away.
func retryable(err error) bool {
	var se *errStatus
	if errors.As(err, &se) {
		return se.Status >= 500 || se.Status == http.StatusTooManyRequests
	}
	return !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
}

// sessionCount is how many messages Recall holds for a session (0 when it
// does not know the session yet).
func (c *client) sessionCount(ctx context.Context, sessionID string) (int64, error) {
	var out struct {
		MessageCount int64 `json:"message_count"`
	}
	err := c.do(ctx, http.MethodGet, "/v1/sessions/"+url.PathEscape(sessionID)+"?recent=1", nil, &out)
	var se *errStatus
	if errors.As(err, &se) && se.Status == http.StatusNotFound {
		return 0, nil
	}
	return out.MessageCount, err
}

// contextRequest is the body of POST /v1/context (and GET's parameters).
type contextRequest struct {
	UserID    string `json:"user_id"`
	SessionID string `json:"session_id"`
	Query     string `json:"query"`
	Budget    int    `json:"budget"`
}

// contextPrompt asks for the context of the current message q.Query and
// returns its rendered prompt. POST carries a long message without URL
// limits; a server without POST /v1/context gets GET with the parameters.
func (c *client) contextPrompt(ctx context.Context, q contextRequest) (string, error) {
	var out struct {
		Prompt *string `json:"prompt"`
	}
	if !c.getOnly.Load() {
		err := c.do(ctx, http.MethodPost, "/v1/context", q, &out)
		var se *errStatus
		switch {
		case errors.As(err, &se) && (se.Status == http.StatusNotFound || se.Status == http.StatusMethodNotAllowed):
			c.getOnly.Store(true)
		case err != nil:
			return "", err
		default:
			return promptOf(out.Prompt)
		}
	}
	v := url.Values{}
	v.Set("user_id", q.UserID)
	v.Set("session_id", q.SessionID)
	v.Set("query", q.Query)
	v.Set("budget", strconv.Itoa(q.Budget))
	if err := c.do(ctx, http.MethodGet, "/v1/context?"+v.Encode(), nil, &out); err != nil {
		return "", err
	}
	return promptOf(out.Prompt)
}

func promptOf(p *string) (string, error) {
	if p == nil {
		return "", errors.New("context answer has no prompt field")
	}
	return *p, nil
}

// sleep waits d or until ctx ends; false when ctx ended.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
