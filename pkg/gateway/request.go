package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/recallhq/recall/pkg/events"
)

// Roles of the chat protocol's messages. System and developer messages are
// the caller's instructions, resent with every request: the gateway reads
// them to place its memory, and never stores them as turns.
const (
	roleSystem    = "system"
	roleDeveloper = "developer"
	roleUser      = "user"
	roleAssistant = "assistant"
	roleTool      = "tool"
	// roleFunction is the protocol's older form of a tool result.
	roleFunction = "function"
)

// chatRequest is a chat completions request as the gateway reads it: the
// body's fields as received (everything it does not read is passed on
// untouched), its messages, and its own extension, which is taken out
// before the body goes upstream.
type chatRequest struct {
	// fields are the body's top-level fields, raw, without "recall".
	fields map[string]json.RawMessage
	// raw are the messages as received; msgs as read.
	raw  []json.RawMessage
	msgs []message
	// stream asks for server-sent events.
	stream bool
	// user is the body's "user" field: the end user, as OpenAI defines it.
	user  string
	model string
	// ext is the body's "recall" object; hadExt says the body had one.
	ext    extension
	hadExt bool
}

// extension is the body's "recall" object, the gateway's own fields: who
// and which conversation, when headers cannot be set, and the items the
// reply presents, when the caller knows them.
type extension struct {
	UserID    string        `json:"user_id"`
	SessionID string        `json:"session_id"`
	AgentID   string        `json:"agent_id"`
	Items     []events.Item `json:"items"`
	// Memory false turns the memory off for this request: it passes
	// through, and nothing is stored.
	Memory *bool `json:"memory"`
}

// message is one chat message as the gateway reads it.
type message struct {
	Role string
	// Text is the message's text: its content string, or its text parts
	// joined by newlines.
	Text string
	// Calls are an assistant message's tool calls.
	Calls []call
	// CallID is a tool message's tool_call_id.
	CallID string
	// Name is a function message's function name.
	Name string
}

// call is one tool call of an assistant message.
type call struct {
	ID, Name, Arguments string
}

// wireMessage is a message as the protocol writes it.
type wireMessage struct {
	Role       *string         `json:"role"`
	Content    json.RawMessage `json:"content"`
	Name       string          `json:"name"`
	ToolCallID string          `json:"tool_call_id"`
	ToolCalls  json.RawMessage `json:"tool_calls"`
	// FunctionCall is the protocol's older form of a single tool call.
	FunctionCall json.RawMessage `json:"function_call"`
}

type wireCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// badRequest is a request the gateway cannot read, worded as the OpenAI
// API words it: a message, and the parameter at fault (param).
type badRequest struct {
	param, message string
}

func (e *badRequest) Error() string { return e.message }

func invalidParam(param, format string, args ...any) *badRequest {
	return &badRequest{param: param, message: fmt.Sprintf("Invalid '%s': %s", param, fmt.Sprintf(format, args...))}
}

// parseChat reads a chat completions request body. It checks what the
// gateway itself reads (the messages' roles, contents and tool calls,
// stream, user, its extension); every other field is the upstream's to
// judge.
func parseChat(body []byte, lim events.Limits) (*chatRequest, *badRequest) {
	if !utf8.Valid(body) {
		return nil, &badRequest{message: "The request body is not valid UTF-8."}
	}
	if events.HasLoneSurrogate(body) {
		return nil, &badRequest{message: "The request body holds a lone UTF-16 surrogate escape (\\ud800-\\udfff without its pair), which is not a character."}
	}
	fields, problem := bodyObject(body)
	if problem != "" {
		return nil, &badRequest{message: "We could not parse the JSON body of your request. (body): " + problem}
	}
	r := &chatRequest{fields: fields}
	if raw, ok := fields["recall"]; ok {
		delete(fields, "recall")
		r.hadExt = true
		if err := strictDecode(raw, &r.ext); err != nil {
			return nil, invalidParam("recall", "%v", err)
		}
		for i, it := range r.ext.Items {
			if it.Ref == "" {
				return nil, invalidParam(fmt.Sprintf("recall.items[%d].ref", i), "required: the item's stable reference")
			}
		}
		if lim.MaxItems > 0 && len(r.ext.Items) > lim.MaxItems {
			return nil, invalidParam("recall.items", "%d items, limit is %d", len(r.ext.Items), lim.MaxItems)
		}
	}
	if raw, ok := fields["stream"]; ok && !isNull(raw) {
		if err := json.Unmarshal(raw, &r.stream); err != nil {
			return nil, invalidParam("stream", "expected a boolean")
		}
	}
	if raw, ok := fields["user"]; ok && !isNull(raw) {
		if err := json.Unmarshal(raw, &r.user); err != nil {
			return nil, invalidParam("user", "expected a string")
		}
	}
	if raw, ok := fields["model"]; ok {
		_ = json.Unmarshal(raw, &r.model)
	}
	raw, ok := fields["messages"]
	if !ok || isNull(raw) {
		return nil, &badRequest{param: "messages", message: "Missing required parameter: 'messages'."}
	}
	if err := json.Unmarshal(raw, &r.raw); err != nil {
		return nil, invalidParam("messages", "expected an array of message objects")
	}
	if len(r.raw) == 0 {
		return nil, invalidParam("messages", "empty array. Expected an array with minimum length 1, but got an empty array instead.")
	}
	r.msgs = make([]message, len(r.raw))
	for i, m := range r.raw {
		msg, bad := parseMessage(m, fmt.Sprintf("messages[%d]", i))
		if bad != nil {
			return nil, bad
		}
		r.msgs[i] = msg
	}
	return r, nil
}

// bodyObject reads a body that must be one JSON object into its fields;
// when it is not, it says what is wrong and where, as a byte offset into
// the body: cut short, malformed, another JSON value, or more after it.
func bodyObject(body []byte) (map[string]json.RawMessage, string) {
	var fields map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(body))
	err := dec.Decode(&fields)
	if se, ok := errors.AsType[*json.SyntaxError](err); ok {
		return nil, fmt.Sprintf("malformed JSON at offset %d: %s.", se.Offset, se.Error())
	}
	if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		return nil, fmt.Sprintf("a JSON %s, want a JSON object.", te.Value)
	}
	switch {
	case errors.Is(err, io.EOF):
		return nil, "empty, want a JSON object."
	case errors.Is(err, io.ErrUnexpectedEOF):
		return nil, fmt.Sprintf("malformed JSON, truncated: the body ends at offset %d, before its JSON object is complete.", len(body))
	case err != nil:
		return nil, "malformed JSON: " + err.Error() + "."
	case fields == nil:
		return nil, "JSON null, want a JSON object."
	case dec.More(): // it has read the spaces before what follows
		return nil, fmt.Sprintf("more after the JSON object, at offset %d; want one JSON object.", dec.InputOffset())
	}
	return fields, ""
}

// parseMessage reads one message; param names it in errors.
func parseMessage(raw json.RawMessage, param string) (message, *badRequest) {
	var w wireMessage
	if err := json.Unmarshal(raw, &w); err != nil || !bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{")) {
		return message{}, invalidParam(param, "expected an object")
	}
	if w.Role == nil {
		return message{}, &badRequest{param: param + ".role", message: fmt.Sprintf("Missing required parameter: '%s.role'.", param)}
	}
	m := message{Role: *w.Role, CallID: w.ToolCallID, Name: w.Name}
	switch m.Role {
	case roleSystem, roleDeveloper, roleUser, roleAssistant, roleTool, roleFunction:
	default:
		return message{}, invalidParam(param+".role", "%q is not one of 'system', 'developer', 'user', 'assistant', 'tool', 'function'", m.Role)
	}
	text, ok := contentText(w.Content)
	if !ok {
		return message{}, invalidParam(param+".content", "expected a string, an array of content parts or null")
	}
	m.Text = text
	if len(w.ToolCalls) > 0 && !isNull(w.ToolCalls) {
		var calls []wireCall
		if err := json.Unmarshal(w.ToolCalls, &calls); err != nil {
			return message{}, invalidParam(param+".tool_calls", "expected an array of tool calls with id and function {name, arguments}")
		}
		for _, c := range calls {
			m.Calls = append(m.Calls, call{ID: c.ID, Name: c.Function.Name, Arguments: c.Function.Arguments})
		}
	}
	if len(w.FunctionCall) > 0 && !isNull(w.FunctionCall) {
		var f struct{ Name, Arguments string }
		if err := json.Unmarshal(w.FunctionCall, &f); err != nil {
			return message{}, invalidParam(param+".function_call", "expected an object with name and arguments")
		}
		m.Calls = append(m.Calls, call{Name: f.Name, Arguments: f.Arguments})
	}
	return m, nil
}

// contentText is a message content's text: a string, or the text of an
// array of content parts ({"type": "text", "text": ...}; images, audio
// and files have none), joined by newlines; null is empty.
func contentText(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || isNull(raw) {
		return "", true
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, true
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", false
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Text == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p.Text)
	}
	return b.String(), true
}

// strictDecode decodes raw into v, refusing fields v does not have.
func strictDecode(raw json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("expected an object with user_id, session_id, agent_id, items, memory: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
	return nil
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// lastUser is the index of the conversation's last user message, -1 when
// it has none.
func lastUser(msgs []message) int {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == roleUser {
			return i
		}
	}
	return -1
}
