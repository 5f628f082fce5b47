// Package events is the contract between chat backends and Recall: the versioned
// JSON envelopes (chat turns, catalog items, shelf entries, the tasks workers
// hand each other), their validation, the subjects they are published on and
// the messages (subject, body, dedupe header) a producer sends. It holds no
// runtime: connecting, declaring streams, publishing and consuming live in
// package queue, so a producer imports only what it codes against.
package events

import (
	"bytes"
	"encoding/json"
	"errors"
	"sort"
	"time"

	fastjson "github.com/goccy/go-json"
)

// Version is the envelope version this build writes and understands. A producer may
// omit "v"; it then means Version. Any other value is rejected so that an old worker
// never half-understands a newer event.
const Version = 1

// Roles a turn may carry. Anything else is rejected at the edge: a misspelled role
// would otherwise end up as memory nobody can interpret.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleSystem    = "system"
	RoleTool      = "tool"
)

// Turn is one chat turn as a chat backend publishes it. It keeps everything the
// assistant showed or did in that turn (tool calls with their results, the ordered
// list of items presented to the user) because "the user answered 3" can only be
// resolved against the real structure, never against the rendered text.
type Turn struct {
	// V is the envelope version; 0 (omitted) means Version.
	V int `json:"v,omitempty"`
	// ID is assigned by the producer and unique within the tenant. It is the
	// idempotency key all the way down: JetStream dedupe and the database.
	ID        string `json:"id"`
	TenantID  string `json:"tenant_id"`
	SiteID    string `json:"site_id,omitempty"`
	UserID    string `json:"user_id"`
	SessionID string `json:"session_id"`
	// AgentID names the persona/NPC speaking for the assistant, when there are several.
	AgentID string `json:"agent_id,omitempty"`
	// OccurredAt is event time. Every time rule (TTL, thresholds, decay) uses it, so
	// a replay of the stream builds the same memory.
	OccurredAt time.Time  `json:"occurred_at"`
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	// Items is the ordered list presented to the user in this turn (search results,
	// recommendations). Position i+1 is what the user means by "i+1".
	Items []Item `json:"items,omitempty"`
	// Metadata is free-form, a JSON object, stored as sent.
	Metadata json.RawMessage `json:"metadata,omitempty"`

	// rawToolCalls and rawItems are the tool_calls and items arrays exactly as
	// received (ParseTurn), so that they are published and stored as sent: fields
	// this build does not know, zero values (a "title": "", a "duration_ms": 0) and
	// explicit nulls survive, which re-encoding the structs would drop. Nil for a
	// turn built in code, which is encoded from ToolCalls and Items.
	rawToolCalls, rawItems json.RawMessage

	// badTime keeps a decode problem with occurred_at for ValidateTurn, so that it
	// is reported together with every other problem of the turn.
	badTime string
	// unknown are the fields the envelope does not define, found by
	// ParseTurnStrict, for ValidateTurn to report with the rest.
	unknown []FieldError
	// unread is why a front door could not take the turn at all (ReadTurn,
	// MeasureTurn), for ValidateTurn to report alone.
	unread []FieldError
}

// ToolCall is a tool invocation made while producing the turn, with its result kept
// verbatim (raw JSON), never flattened to text.
type ToolCall struct {
	ID         string          `json:"id,omitempty"`
	Name       string          `json:"name"`
	Arguments  json.RawMessage `json:"arguments,omitempty"`
	Result     json.RawMessage `json:"result,omitempty"`
	Status     string          `json:"status,omitempty"`
	DurationMS int64           `json:"duration_ms,omitempty"`
}

// ResultStrings are the string values of the call's result, in document
// order with object keys sorted (the same result gives the same strings every
// time): what a tool returned for a reader of text (titles, names,
// snippets), for the workers that read tool results as text when configured
// to. A result that is not JSON has none.
func (c ToolCall) ResultStrings() []string {
	if len(c.Result) == 0 {
		return nil
	}
	var v any
	if json.Unmarshal(c.Result, &v) != nil {
		return nil
	}
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			out = append(out, x)
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				walk(x[k])
			}
		}
	}
	walk(v)
	return out
}

// ToolCallsJSON is the turn's tool_calls array as JSON: the bytes received when
// the turn was parsed, otherwise ToolCalls encoded; nil when the turn has none.
// A parsed turn's ToolCalls and Items are to be treated as read-only, since what
// is published and stored is what was received.
func (t *Turn) ToolCallsJSON() (json.RawMessage, error) {
	if t.rawToolCalls != nil {
		return t.rawToolCalls, nil
	}
	return encodeList(t.ToolCalls)
}

// ItemsJSON is the turn's items array as JSON, like ToolCallsJSON. An empty
// array that was sent ("items": []) is kept: it presents an empty list, which
// replaces the session's current list.
func (t *Turn) ItemsJSON() (json.RawMessage, error) {
	if t.rawItems != nil {
		return t.rawItems, nil
	}
	return encodeList(t.Items)
}

// HasList reports whether the turn presents a list (possibly empty).
func (t *Turn) HasList() bool { return len(t.Items) > 0 || t.rawItems != nil }

func encodeList[T any](list []T) (json.RawMessage, error) {
	if len(list) == 0 {
		return nil, nil
	}
	return json.Marshal(list)
}

// MarshalJSON encodes the turn with its tool_calls and items as received (see
// ToolCallsJSON), so that a turn the API parsed reaches the stream unchanged.
func (t Turn) MarshalJSON() ([]byte, error) {
	type plain Turn // the same fields without this method
	tc, err := t.ToolCallsJSON()
	if err != nil {
		return nil, err
	}
	items, err := t.ItemsJSON()
	if err != nil {
		return nil, err
	}
	return json.Marshal(struct {
		plain
		ToolCalls json.RawMessage `json:"tool_calls,omitempty"`
		Items     json.RawMessage `json:"items,omitempty"`
	}{plain(t), tc, items})
}

// Item is one entry of a list shown to the user. Ref is the stable reference the
// assistant must quote (for example "/mv/823D"), never a reconstructed URL.
type Item struct {
	Ref   string          `json:"ref"`
	Title string          `json:"title,omitempty"`
	Attrs json.RawMessage `json:"attrs,omitempty"`
}

// MsgID is the JetStream Nats-Msg-Id of an event. Ids are unique per tenant, and
// the dedupe window is per stream, so the tenant is part of the key: two tenants
// that both use "1" as an event id must not dedupe each other away. The tenant is
// written as its subject token (EncodeToken: the id itself when it is plain), which
// never contains ':', so tenant "a:b" with id "c" and tenant "a" with id "b:c"
// stay apart.
func MsgID(tenantID, eventID string) string {
	return EncodeToken(tenantID) + ":" + eventID
}

// wireTurn is how a turn is decoded: the same fields, with occurred_at read by a
// type that records a bad value instead of aborting, so that ValidateTurn reports
// it together with every other problem, naming the field.
type wireTurn struct {
	V          int             `json:"v"`
	ID         string          `json:"id"`
	TenantID   string          `json:"tenant_id"`
	SiteID     string          `json:"site_id"`
	UserID     string          `json:"user_id"`
	SessionID  string          `json:"session_id"`
	AgentID    string          `json:"agent_id"`
	OccurredAt wireTime        `json:"occurred_at"`
	Role       string          `json:"role"`
	Content    string          `json:"content"`
	ToolCalls  keptToolCalls   `json:"tool_calls"`
	Items      keptItems       `json:"items"`
	Metadata   json.RawMessage `json:"metadata"`
}

// keptList decodes a JSON array into its elements and keeps the array's bytes.
type keptList[T any] struct {
	raw  json.RawMessage
	list []T
}

func (k *keptList[T]) decode(field string, b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		*k = keptList[T]{}
		return nil
	}
	var list []T
	if err := fastjson.Unmarshal(b, &list); err != nil {
		// Name the field from the turn's top, as the decoder does for the others.
		var te *fastjson.UnmarshalTypeError
		if errors.As(err, &te) {
			named := *te
			named.Field = field
			if te.Field != "" {
				named.Field += "." + te.Field
			}
			return &named
		}
		return err
	}
	k.list, k.raw = list, append(json.RawMessage(nil), b...)
	return nil
}

type keptToolCalls struct{ keptList[ToolCall] }

func (k *keptToolCalls) UnmarshalJSON(b []byte) error { return k.decode("tool_calls", b) }

type keptItems struct{ keptList[Item] }

func (k *keptItems) UnmarshalJSON(b []byte) error { return k.decode("items", b) }

type wireTime struct {
	t   time.Time
	bad string
}

func (w *wireTime) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		return nil
	}
	if len(b) < 2 || b[0] != '"' {
		w.bad = "want an RFC 3339 time string such as 2026-11-22T08:00:00Z"
		return nil
	}
	s := string(b[1 : len(b)-1])
	if bytes.IndexByte(b, '\\') >= 0 { // escapes in a time string: rare, decode properly
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		w.bad = "want an RFC 3339 time such as 2026-11-22T08:00:00Z, got " + strconvQuote(ClipUTF8(s, 40, "…"))
		return nil
	}
	if t.IsZero() {
		// Sent, not left out: the zero time of a language's date type
		// (Go's time.Time{}, .NET's DateTime.MinValue) written out unset.
		w.bad = ZeroTimeMessage
		return nil
	}
	w.t = t
	return nil
}

// ZeroTimeMessage is the field error of a time sent as year 1
// (0001-01-01T00:00:00Z): an unset date written out, not a time anything
// happened.
const ZeroTimeMessage = "0001-01-01T00:00:00Z (year 1) is an unset time written out, not a time this happened; " +
	"send when it happened, e.g. 2026-11-22T08:00:00Z"

func (w *wireTurn) turn() Turn {
	return Turn{
		V: w.V, ID: w.ID, TenantID: w.TenantID, SiteID: w.SiteID, UserID: w.UserID, SessionID: w.SessionID,
		AgentID: w.AgentID, OccurredAt: w.OccurredAt.t, Role: w.Role, Content: w.Content,
		ToolCalls: w.ToolCalls.list, Items: w.Items.list, Metadata: w.Metadata, badTime: w.OccurredAt.bad,
		rawToolCalls: w.ToolCalls.raw, rawItems: w.Items.raw,
	}
}

func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
