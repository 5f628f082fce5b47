// Package client is Recall's Go client, what a Go chat backend imports: it
// adds turns (over HTTP, or straight to JetStream), reads the context for the
// next prompt, searches a user's history, resolves "the user answered 3" to
// the real item, and reads and manages sessions, interests and presented
// items.
//
// Every call is retried with exponential backoff when the API answers 503 or
// cannot be reached, with the same ids, so a retry never stores a turn twice.
// Errors the API answers are *Error, carrying the fields it names.
package client

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/recallhq/recall/pkg/eventmsg"
	"github.com/recallhq/recall/pkg/events"
)

// Client talks to one Recall API as one tenant. It is safe for concurrent use.
type Client struct {
	base   *url.URL
	tenant string
	key    string
	hc     *http.Client
	js     jetstream.JetStream
	retry  Retry
	limits events.Limits
	now    func() time.Time
}

// Retry is how a call is retried when the API answers 503 or cannot be
// reached: exponential backoff from Initial up to Max between attempts, for
// at most Elapsed in all (0 tries once).
type Retry struct {
	Initial, Max, Elapsed time.Duration
}

// DefaultRetry rides out a restart of the API or of a dependency (the
// API's own publish timeout is 5 s) without holding a chat turn for long.
var DefaultRetry = Retry{Initial: 100 * time.Millisecond, Max: 2 * time.Second, Elapsed: 15 * time.Second}

// Option configures a Client.
type Option func(*Client)

// WithTenant sets the tenant every request is made as (X-Tenant-ID).
func WithTenant(tenant string) Option { return func(c *Client) { c.tenant = tenant } }

// WithKey sets the bearer key, needed when the API has API_KEYS set.
func WithKey(key string) Option { return func(c *Client) { c.key = key } }

// WithHTTPClient sets the HTTP client (timeouts, transport); the default is
// http.DefaultClient.
func WithHTTPClient(hc *http.Client) Option { return func(c *Client) { c.hc = hc } }

// WithJetStream makes AddTurns publish straight to JetStream instead of
// POSTing to the API: one hop less, for a backend that already holds a NATS
// connection. Everything else still goes over HTTP.
func WithJetStream(js jetstream.JetStream) Option { return func(c *Client) { c.js = js } }

// WithRetry sets the retry policy; Retry{} tries every call once.
func WithRetry(r Retry) Option { return func(c *Client) { c.retry = r } }

// WithLimits sets the limits turns are validated against before a publish
// to JetStream (the API and the workers' EVENT_* limits); the default is
// events.DefaultLimits.
func WithLimits(l events.Limits) Option { return func(c *Client) { c.limits = l } }

// New returns a client of the API at baseURL (http://host:port).
func New(baseURL string, opts ...Option) (*Client, error) {
	u, err := url.Parse(baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("recall client: base URL %q: want http(s)://host[:port]", baseURL)
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	c := &Client{base: u, hc: http.DefaultClient, retry: DefaultRetry, limits: events.DefaultLimits, now: time.Now}
	for _, o := range opts {
		o(c)
	}
	if c.tenant == "" {
		return nil, errors.New("recall client: no tenant (WithTenant)")
	}
	return c, nil
}

// Tenant is the tenant the client works as.
func (c *Client) Tenant() string { return c.tenant }

// NewID returns a new event id: 26 random characters, unique without
// coordination.
func NewID() string { return rand.Text() }

// AddTurns stores turns: over JetStream when the client has one
// (WithJetStream), otherwise by POST /v1/turns. It fills what a producer may
// leave out (ID, TenantID, OccurredAt: now), writing them into turns so the
// caller knows the ids, and validates every turn first: an invalid turn
// fails the whole call with an *Error naming each field ("[i].role" in a
// batch) and nothing is stored. The answer has one entry per turn, in order;
// a retry (after a 503, a lost connection or a missing publish ack) sends
// the same ids, which Recall stores once.
func (c *Client) AddTurns(ctx context.Context, turns ...*events.Turn) ([]Accepted, error) {
	if len(turns) == 0 {
		return nil, &Error{Status: http.StatusBadRequest, Code: "invalid_request", Message: "no turns"}
	}
	c.complete(turns)
	if c.js != nil {
		return c.publish(ctx, turns)
	}
	var body any = turns
	if len(turns) == 1 {
		body = turns[0]
	}
	var res TurnsResult
	if err := c.call(ctx, http.MethodPost, "/v1/turns", nil, body, &res); err != nil {
		return res.Accepted, err
	}
	return res.Accepted, nil
}

// Wait is what AddTurnsWait waits for after the turns are accepted: For is
// WaitStored or WaitSearchable, for at most Timeout (0: the API's default,
// API_TURN_WAIT, 2 s unless configured; at most API_TURN_WAIT_MAX, 10 s).
type Wait struct {
	For     string
	Timeout time.Duration
}

// AddTurnsWait is AddTurns that answers once every accepted turn is stored
// (WaitStored) or stored and searchable (WaitSearchable), or when the wait's
// bound passes: the answer's Wait says which (Reached), and names the turns
// it did not hold for. It always goes by POST /v1/turns, with or without
// WithJetStream: the API does the waiting. Each attempt's timeout is the
// caller's context; a retry sends the same ids.
func (c *Client) AddTurnsWait(ctx context.Context, w Wait, turns ...*events.Turn) (*TurnsResult, error) {
	if len(turns) == 0 {
		return nil, &Error{Status: http.StatusBadRequest, Code: "invalid_request", Message: "no turns"}
	}
	c.complete(turns)
	var body any = turns
	if len(turns) == 1 {
		body = turns[0]
	}
	q := url.Values{}
	if w.For != "" {
		q.Set("wait", w.For)
	}
	if w.Timeout > 0 {
		q.Set("timeout", w.Timeout.String())
	}
	var res TurnsResult
	err := c.call(ctx, http.MethodPost, "/v1/turns", q, body, &res)
	return &res, err
}

// TurnStatus returns where one turn stands: stored, each turn-stream
// worker done with it, searchable, summarized. A turn not stored yet is
// found only with seq, the sequence AddTurns answered (0 for none): without
// it, such a turn is a 404 *Error, as is another tenant's.
func (c *Client) TurnStatus(ctx context.Context, id string, seq uint64) (*TurnStatus, error) {
	q := url.Values{}
	if seq != 0 {
		q.Set("seq", strconv.FormatUint(seq, 10))
	}
	var out TurnStatus
	return &out, c.call(ctx, http.MethodGet, "/v1/turns/"+url.PathEscape(id), q, nil, &out)
}

// complete fills what a producer may leave out of turns (ID, TenantID,
// OccurredAt: now), writing them into the turns so the caller knows the ids.
func (c *Client) complete(turns []*events.Turn) {
	for _, t := range turns {
		if t.ID == "" {
			t.ID = NewID()
		}
		if t.TenantID == "" {
			t.TenantID = c.tenant
		}
		if t.OccurredAt.IsZero() {
			t.OccurredAt = c.now().UTC()
		}
	}
}

// publish validates turns as the API does and publishes them to JetStream,
// retrying those not acknowledged.
func (c *Client) publish(ctx context.Context, turns []*events.Turn) ([]Accepted, error) {
	batch := make([]events.Turn, len(turns))
	var fields []FieldError
	for i, t := range turns {
		if t.TenantID != c.tenant {
			fields = append(fields, FieldError{Field: prefix(i, len(turns)) + "tenant_id", Message: "does not match the client's tenant"})
		}
		err := events.ValidateTurn(t, events.ValidateOptions{Limits: c.limits, Now: c.now})
		var ve *events.ValidationError
		if errors.As(err, &ve) {
			fields = append(fields, ve.Prefixed(prefix(i, len(turns))).Fields...)
		}
		batch[i] = *t
	}
	fields = append(fields, events.RepeatedIDs(batch)...)
	if len(fields) > 0 {
		return nil, &Error{Status: http.StatusBadRequest, Code: "invalid_request", Message: "invalid turn(s); nothing was published", Fields: fields}
	}
	out := make([]Accepted, len(batch))
	pending := make([]int, len(batch))
	for i := range pending {
		pending[i] = i
	}
	err := c.withRetry(ctx, func() error {
		send := make([]events.Turn, len(pending))
		for j, i := range pending {
			send[j] = batch[i]
		}
		res, errs, err := publishTurns(ctx, c.js, send)
		var left []int
		for j, r := range res {
			if errs[j] != nil {
				left = append(left, pending[j])
				continue
			}
			out[pending[j]] = r
		}
		pending = left
		if err != nil {
			return &Error{Status: http.StatusServiceUnavailable, Code: "unavailable", Message: err.Error()}
		}
		return nil
	})
	return out, err
}

// publishTurns publishes turns to JetStream at once (async publish) and
// waits for every ack: the answer and error of each turn, in order, and
// all the errors joined. The message id is the turn's, so a retry is stored
// once.
func publishTurns(ctx context.Context, js jetstream.JetStream, turns []events.Turn) ([]Accepted, []error, error) {
	res := make([]Accepted, len(turns))
	errs := make([]error, len(turns))
	futures := make([]jetstream.PubAckFuture, len(turns))
	for i := range turns {
		res[i].ID = turns[i].ID
		m, err := eventmsg.Turn(&turns[i])
		if err == nil {
			futures[i], err = js.PublishMsgAsync(m)
		}
		if err != nil {
			errs[i] = fmt.Errorf("publish %s: %w", turns[i].ID, err)
		}
	}
	for i, f := range futures {
		if f == nil {
			continue
		}
		select {
		case ack := <-f.Ok():
			res[i].Sequence, res[i].Duplicate = ack.Sequence, ack.Duplicate
		case err := <-f.Err():
			errs[i] = fmt.Errorf("publish %s: %w", turns[i].ID, err)
		case <-ctx.Done():
			errs[i] = fmt.Errorf("publish %s: %w", turns[i].ID, ctx.Err())
		}
	}
	return res, errs, errors.Join(errs...)
}

func prefix(i, n int) string {
	if n == 1 {
		return ""
	}
	return fmt.Sprintf("[%d].", i)
}

// Context returns the assembled context for the next prompt. With a Query
// (the user's current message) it is asked for by POST, which keeps the
// message out of URLs and access logs and has no length limit short of 64
// KiB; without one by GET.
func (c *Client) Context(ctx context.Context, p ContextParams) (*Context, error) {
	body := p.Body()
	var out Context
	if p.Query != "" {
		return &out, c.call(ctx, http.MethodPost, "/v1/context", nil, body, &out)
	}
	q := url.Values{}
	for k, v := range body {
		q.Set(k, fmt.Sprint(v))
	}
	return &out, c.call(ctx, http.MethodGet, "/v1/context", q, nil, &out)
}

// Search searches one user's history (POST, the text in the body).
func (c *Client) Search(ctx context.Context, userID string, p SearchParams) (*SearchResult, error) {
	var out SearchResult
	return &out, c.call(ctx, http.MethodPost, userPath(userID, "search"), nil, p, &out)
}

// Session returns a session's counts, its recent newest messages (0: the
// API's default, 10) and its summary.
func (c *Client) Session(ctx context.Context, sessionID string, recent int) (*Session, error) {
	var out Session
	return &out, c.call(ctx, http.MethodGet, sessionPath(sessionID), intParam("recent", recent), nil, &out)
}

// Messages returns one page of a session's messages in event-time order:
// limit per page (0: the API's default, 50), after the cursor of the page
// before ("" for the first).
func (c *Client) Messages(ctx context.Context, sessionID string, limit int, cursor string) (*MessagePage, error) {
	q := intParam("limit", limit)
	if cursor != "" {
		q.Set("cursor", cursor)
	}
	var out MessagePage
	return &out, c.call(ctx, http.MethodGet, sessionPath(sessionID, "messages"), q, nil, &out)
}

// AllMessages iterates over every message of a session, a page of limit at
// a time; it stops at the first error, which it yields.
func (c *Client) AllMessages(ctx context.Context, sessionID string, limit int) iter.Seq2[Message, error] {
	return func(yield func(Message, error) bool) {
		cursor := ""
		for {
			page, err := c.Messages(ctx, sessionID, limit, cursor)
			if err != nil {
				yield(Message{}, err)
				return
			}
			for _, m := range page.Messages {
				if !yield(m, nil) {
					return
				}
			}
			if page.NextCursor == "" {
				return
			}
			cursor = page.NextCursor
		}
	}
}

// Selection returns item n (1-based, as shown to the user) of the session's
// current list, exactly as it was sent. A session that presented no list, a
// position beyond the list and an unknown session are 404 *Errors (codes
// no_list, out_of_range, not_found).
func (c *Client) Selection(ctx context.Context, sessionID string, n int) (*Selection, error) {
	var out Selection
	return &out, c.call(ctx, http.MethodGet, sessionPath(sessionID, "selection", strconv.Itoa(n)), nil, nil, &out)
}

// Unseen answers which of the refs the user was never shown nor notified
// of. With MarkNotified and no NotificationID, one is assigned before the
// first attempt, so that a retry gets the same answer.
func (c *Client) Unseen(ctx context.Context, userID string, req UnseenRequest) (*Unseen, error) {
	if req.MarkNotified && req.NotificationID == "" {
		req.NotificationID = NewID()
	}
	var out Unseen
	return &out, c.call(ctx, http.MethodPost, userPath(userID, "items", "unseen"), nil, req, &out)
}

// Seen returns the user's seen items, most recently shown first (limit 0:
// the API's default, 100).
func (c *Client) Seen(ctx context.Context, userID string, limit int) (*Seen, error) {
	var out Seen
	return &out, c.call(ctx, http.MethodGet, userPath(userID, "items", "seen"), intParam("limit", limit), nil, &out)
}

// Interests returns the user's interest facts by weight now (limit 0: the
// API's default, 50) and the interest vector's metadata, with its values
// when vector is true.
func (c *Client) Interests(ctx context.Context, userID string, limit int, vector bool) (*Interests, error) {
	q := intParam("limit", limit)
	if vector {
		q.Set("vector", "true")
	}
	var out Interests
	return &out, c.call(ctx, http.MethodGet, userPath(userID, "interests"), q, nil, &out)
}

// RefreshInterests queues a recompute of the user's interest vector.
func (c *Client) RefreshInterests(ctx context.Context, userID string) (*InterestsRefresh, error) {
	var out InterestsRefresh
	return &out, c.call(ctx, http.MethodPost, userPath(userID, "interests", "refresh"), nil, nil, &out)
}

// Profile returns the user's interests.
//
// Deprecated: use Interests.
func (c *Client) Profile(ctx context.Context, userID string, limit int, vector bool) (*Interests, error) {
	return c.Interests(ctx, userID, limit, vector)
}

// RefreshProfile queues a recompute of the user's interest vector.
//
// Deprecated: use RefreshInterests.
func (c *Client) RefreshProfile(ctx context.Context, userID string) (*InterestsRefresh, error) {
	return c.RefreshInterests(ctx, userID)
}

// Recommendations returns the k catalog items (0: the API's default, 10)
// nearest to the user's interest vector; a 409 *Error with code no_profile
// while the user has none.
func (c *Client) Recommendations(ctx context.Context, userID string, k int) (*Recommendations, error) {
	var out Recommendations
	return &out, c.call(ctx, http.MethodGet, userPath(userID, "recommendations"), intParam("k", k), nil, &out)
}

// Summarize asks for the session's summary now, waiting up to wait (at most
// 30 s) for it to be written.
func (c *Client) Summarize(ctx context.Context, sessionID string, wait time.Duration) (*SummarizeResult, error) {
	q := url.Values{}
	if wait > 0 {
		q.Set("wait", wait.String())
	}
	var out SummarizeResult
	return &out, c.call(ctx, http.MethodPost, sessionPath(sessionID, "summarize"), q, nil, &out)
}

// DeleteSession removes a session, its messages and its turns in the stream.
func (c *Client) DeleteSession(ctx context.Context, sessionID string) error {
	return c.call(ctx, http.MethodDelete, sessionPath(sessionID), nil, nil, nil)
}

// ForgetUser removes a user completely: every row and stream message of
// theirs. It is idempotent.
func (c *Client) ForgetUser(ctx context.Context, userID string) (*UserData, error) {
	var out UserData
	return &out, c.call(ctx, http.MethodDelete, userPath(userID), nil, nil, &out)
}

// CreateWebhook registers an endpoint for the tenant's change feed
// (docs/webhooks.md). The answer holds the endpoint's secret, which no
// later call returns. Unlike the other calls it is not sent again once the
// server may have received it (a connection lost after the request went
// out): that could register the endpoint twice. A 503 or a refused
// connection, which register nothing, are retried.
func (c *Client) CreateWebhook(ctx context.Context, req WebhookCreate) (*Webhook, error) {
	var out Webhook
	return &out, c.callWith(ctx, http.MethodPost, "/v1/webhooks", nil, req, &out, false)
}

// Webhooks returns the tenant's endpoints, without their secrets.
func (c *Client) Webhooks(ctx context.Context) (*Webhooks, error) {
	var out Webhooks
	return &out, c.call(ctx, http.MethodGet, "/v1/webhooks", nil, nil, &out)
}

// DeleteWebhook removes an endpoint and its deliveries.
func (c *Client) DeleteWebhook(ctx context.Context, id string) error {
	return c.call(ctx, http.MethodDelete, webhookPath(id), nil, nil, nil)
}

// WebhookDeliveries returns an endpoint's newest deliveries (at most limit,
// 0 for the server's default; of status, "" for any) and its counts.
func (c *Client) WebhookDeliveries(ctx context.Context, id, status string, limit int) (*WebhookDeliveries, error) {
	q := url.Values{}
	if status != "" {
		q.Set("status", status)
	}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	var out WebhookDeliveries
	return &out, c.call(ctx, http.MethodGet, webhookPath(id, "deliveries"), q, nil, &out)
}

// RedriveWebhookDelivery makes a failed delivery pending again, due now.
func (c *Client) RedriveWebhookDelivery(ctx context.Context, id, changeID string) (*WebhookDelivery, error) {
	var out WebhookDelivery
	return &out, c.call(ctx, http.MethodPost, webhookPath(id, "deliveries", url.PathEscape(changeID), "redrive"), nil, nil, &out)
}

// Attributes returns who the user is and what they asked for: the current
// values of their attributes' keys, and with history every earlier value.
func (c *Client) Attributes(ctx context.Context, userID string, history bool) (*Attributes, error) {
	q := url.Values{}
	if history {
		q.Set("history", "true")
	}
	var out Attributes
	return &out, c.call(ctx, http.MethodGet, userPath(userID, "attributes"), q, nil, &out)
}

// EditAttributes sets and removes values of the user's attributes explicitly
// (PATCH .../attributes). An id is assigned before the first attempt when
// the request has none, so a retry stores nothing twice.
func (c *Client) EditAttributes(ctx context.Context, userID string, req AttributeEdits) (*AttributesAccepted, error) {
	if req.ID == "" {
		req.ID = NewID()
	}
	var out AttributesAccepted
	return &out, c.call(ctx, http.MethodPatch, userPath(userID, "attributes"), nil, req, &out)
}

func sessionPath(id string, rest ...string) string {
	return "/v1/sessions/" + url.PathEscape(id) + joinRest(rest)
}

func webhookPath(id string, rest ...string) string {
	return "/v1/webhooks/" + url.PathEscape(id) + joinRest(rest)
}

func userPath(id string, rest ...string) string {
	return "/v1/users/" + url.PathEscape(id) + joinRest(rest)
}

func joinRest(rest []string) string {
	if len(rest) == 0 {
		return ""
	}
	return "/" + strings.Join(rest, "/")
}

func intParam(name string, v int) url.Values {
	q := url.Values{}
	if v != 0 {
		q.Set(name, strconv.Itoa(v))
	}
	return q
}

// call sends one request (retrying as the policy says) and decodes a 2xx
// answer into out; any other answer is an *Error.
func (c *Client) call(ctx context.Context, method, path string, q url.Values, body, out any) error {
	return c.callWith(ctx, method, path, q, body, out, true)
}

// callWith is call; a request that is not safe to repeat (repeatable
// false) is sent again only after a failure that shows the server did
// nothing with it (notSent).
func (c *Client) callWith(ctx context.Context, method, path string, q url.Values, body, out any, repeatable bool) error {
	var data []byte
	if body != nil {
		var err error
		if data, err = json.Marshal(body); err != nil {
			return fmt.Errorf("recall client: encode request: %w", err)
		}
	}
	u := c.base.String() + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	err := c.withRetry(ctx, func() error {
		err := c.once(ctx, method, u, data, out)
		if err != nil && !repeatable && !notSent(err) {
			return backoff.Permanent(err)
		}
		return err
	})
	// No answer at all, and not because the caller gave up: say where the
	// API was looked for.
	var ue *url.Error
	if errors.As(err, &ue) && ue.Op != "parse" && ctx.Err() == nil {
		return &UnreachableError{URL: c.base.String(), Err: err}
	}
	return err
}

func (c *Client) once(ctx context.Context, method, u string, data []byte, out any) error {
	var rd io.Reader
	if data != nil {
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return backoff.Permanent(err)
	}
	req.Header.Set("X-Tenant-ID", c.tenant)
	req.Header.Set("Accept", "application/json")
	if data != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	res, err := c.hc.Do(req)
	if err != nil {
		return fmt.Errorf("recall client: %s %s: %w", method, req.URL.Path, err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return fmt.Errorf("recall client: %s %s: reading the answer: %w", method, req.URL.Path, err)
	}
	if res.StatusCode >= 200 && res.StatusCode < 300 {
		if out == nil || len(raw) == 0 {
			return nil
		}
		if err := json.Unmarshal(raw, out); err != nil {
			return backoff.Permanent(fmt.Errorf("recall client: %s %s: decode the answer: %w", method, req.URL.Path, err))
		}
		return nil
	}
	e := &Error{Status: res.StatusCode}
	var eb ErrorBody
	if json.Unmarshal(raw, &eb) == nil && eb.Error != nil {
		*e = *eb.Error
		e.Status = res.StatusCode
	} else {
		e.Code, e.Message = http.StatusText(res.StatusCode), strings.TrimSpace(string(raw))
	}
	if res.StatusCode == http.StatusServiceUnavailable {
		// A 503 of POST /v1/turns lists what was stored; keep it for the
		// caller should the retries run out.
		if out != nil {
			_ = json.Unmarshal(raw, out)
		}
		return e
	}
	return backoff.Permanent(e)
}

// withRetry runs op until it succeeds, fails for good (a permanent error: any
// answer but 503) or the policy's time runs out.
func (c *Client) withRetry(ctx context.Context, op func() error) error {
	if c.retry.Elapsed <= 0 {
		err := op()
		var pe *backoff.PermanentError
		if errors.As(err, &pe) {
			return pe.Err
		}
		return err
	}
	b := backoff.NewExponentialBackOff()
	b.InitialInterval, b.MaxInterval, b.MaxElapsedTime = c.retry.Initial, c.retry.Max, c.retry.Elapsed
	return backoff.Retry(func() error {
		err := op()
		if err != nil && !retryable(err) {
			return backoff.Permanent(err)
		}
		return err
	}, backoff.WithContext(b, ctx))
}

// notSent reports whether a request that failed with err surely did
// nothing at the server: it answered 503 (unavailable: it did not take the
// request), or no connection was made.
func notSent(err error) bool {
	var e *Error
	if errors.As(err, &e) {
		return e.Temporary()
	}
	var oe *net.OpError
	return errors.As(err, &oe) && oe.Op == "dial"
}

// retryable reports whether a request that failed with err may succeed if
// sent again: a 503, or no answer at all (refused, reset, timed out).
func retryable(err error) bool {
	var e *Error
	if errors.As(err, &e) {
		return e.Temporary()
	}
	var pe *backoff.PermanentError
	if errors.As(err, &pe) || errors.Is(err, context.Canceled) {
		return false
	}
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, jetstream.ErrNoStreamResponse) || errors.Is(err, context.DeadlineExceeded)
}
