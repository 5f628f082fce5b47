package recallrun

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/recallhq/recall/pkg/pause"
)

// maxBatch is the most turns one POST /v1/turns takes (API_MAX_BATCH).
const maxBatch = 500

// client speaks Recall's HTTP API for one tenant.
type Client struct {
	base   string
	tenant string
	apiKey string
	http   *http.Client
	// getOnly is set once POST /v1/context has answered 404 or 405: the
	// server predates it, and the query goes in GET's parameters instead.
	getOnly atomic.Bool
}

// NewClient is a client of the Recall API at base, as tenant, with the
// bearer key apiKey when the server has API_KEYS set.
func NewClient(base, tenant, apiKey string) *Client {
	return &Client{base: base, tenant: tenant, apiKey: apiKey, http: &http.Client{Timeout: 60 * time.Second}}
}

// errStatus is an answer with an unexpected status.
type errStatus struct {
	Method, Path string
	Status       int
	Body         string
}

func (e *errStatus) Error() string {
	body := e.Body
	if len(body) > 500 {
		body = body[:500] + "…"
	}
	return fmt.Sprintf("%s %s: %d %s", e.Method, e.Path, e.Status, body)
}

// do sends body (JSON, when not nil) and decodes a 2xx answer into out.
func (c *Client) do(ctx context.Context, method, path string, body, out any) error {
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
		return &errStatus{Method: method, Path: path, Status: resp.StatusCode, Body: string(raw)}
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			return fmt.Errorf("%s %s: decode: %w", method, path, err)
		}
	}
	return nil
}

// Turn is one turn to post: a user's message or the assistant's answer.
type Turn struct {
	ID         string
	SessionID  string
	Role       string
	Content    string
	OccurredAt time.Time
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

// Refusal is a turn the API refused (400), with its reasons.
type Refusal struct {
	Turn    Turn
	Reasons []string
}

// refusedIndex reads the turn index of a field error of a batch ("[3].content").
var refusedIndex = regexp.MustCompile(`^\[(\d+)\]\.`)

// PostTurns posts a user's turns in batches of at most maxBatch. A batch the
// server could not store completely (503, network error) is sent again:
// event ids make a resend harmless. The API refuses a batch whole when a
// turn in it is invalid, naming the turn; that turn is set aside as a
// Refusal and the rest of the batch is sent again.
func (c *Client) PostTurns(ctx context.Context, userID string, turns []Turn) ([]Refusal, error) {
	var refused []Refusal
	for start := 0; start < len(turns); start += maxBatch {
		batch := turns[start:min(start+maxBatch, len(turns))]
		for len(batch) > 0 {
			body := make([]turnBody, len(batch))
			for i, t := range batch {
				body[i] = turnBody{ID: t.ID, UserID: userID, SessionID: t.SessionID, OccurredAt: t.OccurredAt, Role: t.Role, Content: t.Content}
			}
			var err error
			for attempt := range 5 {
				if err = c.do(ctx, http.MethodPost, "/v1/turns", body, nil); err == nil || !retryable(err) {
					break
				}
				if !pause.For(ctx, time.Duration(attempt+1)*time.Second) {
					return refused, ctx.Err()
				}
			}
			if err == nil {
				break
			}
			bad := refusedTurns(err, len(batch))
			if len(bad) == 0 {
				return refused, fmt.Errorf("post turns of %s: %w", userID, err)
			}
			kept := batch[:0:0]
			for i, t := range batch {
				if reasons, ok := bad[i]; ok {
					refused = append(refused, Refusal{Turn: t, Reasons: reasons})
				} else {
					kept = append(kept, t)
				}
			}
			batch = kept
		}
	}
	return refused, nil
}

// refusedTurns reads which turns of a refused batch of n were invalid, and
// why, from a 400's field errors; nil when err is no such answer.
func refusedTurns(err error, n int) map[int][]string {
	var se *errStatus
	if !errors.As(err, &se) || se.Status != http.StatusBadRequest {
		return nil
	}
	var body struct {
		Error struct {
			Fields []struct {
				Field   string `json:"field"`
				Message string `json:"message"`
			} `json:"fields"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(se.Body), &body) != nil {
		return nil
	}
	out := map[int][]string{}
	for _, f := range body.Error.Fields {
		m := refusedIndex.FindStringSubmatch(f.Field)
		if m == nil {
			return nil // a problem of the whole request: nothing to set aside
		}
		i, _ := strconv.Atoi(m[1])
		if i >= n {
			return nil
		}
		out[i] = append(out[i], f.Field[len(m[0]):]+": "+f.Message)
	}
	return out
}

// retryable is an error a resend may cure: the server was busy or away.
func retryable(err error) bool {
	var se *errStatus
	if errors.As(err, &se) {
		return se.Status >= 500 || se.Status == http.StatusTooManyRequests
	}
	return !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
}

// SessionCount is how many messages Recall holds for a session (0 when it
// does not know the session yet).
func (c *Client) SessionCount(ctx context.Context, sessionID string) (int64, error) {
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

// UserMessageCount is how many messages Recall holds for a user, over all
// their sessions (0 when it does not know the user yet).
func (c *Client) UserMessageCount(ctx context.Context, userID string) (int64, error) {
	var out struct {
		Rows map[string]int64 `json:"rows"`
	}
	err := c.do(ctx, http.MethodGet, "/v1/users/"+url.PathEscape(userID), nil, &out)
	var se *errStatus
	if errors.As(err, &se) && se.Status == http.StatusNotFound {
		return 0, nil
	}
	return out.Rows["messages"], err
}

// ContextRequest is the body of POST /v1/context (and GET's parameters).
type ContextRequest struct {
	UserID    string `json:"user_id"`
	SessionID string `json:"session_id"`
	Query     string `json:"query"`
	Budget    int    `json:"budget"`
	// At is the time to assemble the context as of (RFC 3339), for an
	// evaluation whose history is dated in the past; empty, it is not sent
	// and the context is assembled at the time of the run (an API older
	// than `at` refuses a request that names it).
	At string `json:"at,omitempty"`
}

// ContextPrompt asks for the context of the current message q.Query and
// returns its rendered prompt. POST carries a long message without URL
// limits; a server without POST /v1/context gets GET with the parameters.
func (c *Client) ContextPrompt(ctx context.Context, q ContextRequest) (string, error) {
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
	if q.At != "" {
		v.Set("at", q.At)
	}
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

// GetOnly reports whether contexts have been asked with GET, the server
// having no POST /v1/context.
func (c *Client) GetOnly() bool { return c.getOnly.Load() }
