// Package mcpserver offers Recall's memory to agents as Model Context Protocol
// tools: get_context, search_memory, remember, select_item, unseen_items,
// get_interests, get_attributes, set_preference, recommend, forget_user when
// allowed, and get_profile (deprecated: both of get_interests and
// get_attributes in one answer). The tools are written once, on top of
// contract.Memory, and served over stdio (`recall mcp`, its
// memory the Go client of a Recall API by URL) and over streamable HTTP (the
// API's own /mcp, its memory the memory service in-process).
//
// A server may be bound to one user: every tool then acts for that user only,
// and a user_id argument naming anyone else is a tool error, so an agent
// cannot read another user's memory whatever it is told.
package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recallhq/recall/pkg/client"
	"github.com/recallhq/recall/pkg/contract"
	"github.com/recallhq/recall/pkg/events"
)

// Binding is what a server's tools are limited to, beyond the tenant its
// client works as.
type Binding struct {
	// UserID, when set, is the only user the tools act for.
	UserID string
	// SessionID, when set, is the session the tools use when a call names
	// none.
	SessionID string
	// AllowForget offers forget_user, which erases a user's memory for good.
	AllowForget bool
}

// Config is `recall mcp`'s configuration: the API it talks to and the
// binding.
type Config struct {
	// URL is the Recall API's base URL.
	URL string `env:"RECALL_URL" envDefault:"http://127.0.0.1:8080"`
	// Tenant is the tenant the tools work in (X-Tenant-ID).
	Tenant string `env:"RECALL_TENANT"`
	// APIKey is the bearer key, when the API has API_KEYS set.
	APIKey string `env:"RECALL_API_KEY"`
	// UserID binds the tools to one user.
	UserID string `env:"RECALL_USER_ID"`
	// SessionID is the session the tools use when a call names none.
	SessionID string `env:"RECALL_SESSION_ID"`
	// AllowForget offers forget_user.
	AllowForget bool `env:"MCP_ALLOW_FORGET" envDefault:"false"`
	// Timeout bounds one attempt of a request to the API, its answer
	// included.
	Timeout time.Duration `env:"RECALL_TIMEOUT" envDefault:"30s"`
	// ConnectTimeout bounds how long a tool call keeps trying to reach the API
	// (connecting, and trying again while it is refused, unreachable or
	// answers 503) before it fails naming RECALL_URL. An agent waits on every
	// call, and a Recall that is down stays down for longer than a chat
	// backend's retries (15 s) would wait out.
	ConnectTimeout time.Duration `env:"RECALL_CONNECT_TIMEOUT" envDefault:"2s"`
}

// Client is the API client the config describes.
func (c Config) Client() (*client.Client, error) {
	if c.Tenant == "" {
		return nil, errors.New("RECALL_TENANT: required, the tenant the tools work in")
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	// A host that drops the connection attempts fails within ConnectTimeout too.
	tr.DialContext = (&net.Dialer{Timeout: c.ConnectTimeout, KeepAlive: 30 * time.Second}).DialContext
	return client.New(c.URL, client.WithTenant(c.Tenant), client.WithKey(c.APIKey),
		client.WithHTTPClient(&http.Client{Timeout: c.Timeout, Transport: tr}),
		client.WithRetry(client.Retry{Initial: 100 * time.Millisecond, Max: 500 * time.Millisecond, Elapsed: c.ConnectTimeout}))
}

// Binding is the config's binding.
func (c Config) Binding() Binding {
	return Binding{UserID: c.UserID, SessionID: c.SessionID, AllowForget: c.AllowForget}
}

// Version is the server's version as it introduces itself.
const Version = "1"

// New returns an MCP server whose tools use the memory c, limited to b.
func New(c contract.Memory, b Binding) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "recall", Title: "Recall memory", Version: Version}, &mcp.ServerOptions{
		Instructions: instructions,
	})
	for _, r := range registry(&tools{c: c, b: b}) {
		if !r.forget || b.AllowForget {
			r.add(s)
		}
	}
	return s
}

// Tool is a tool the server offers, as `recall mcp -h` lists it.
type Tool struct {
	Name, Title string
	// Forget: offered only with MCP_ALLOW_FORGET.
	Forget bool
}

// Tools are every tool the server can offer, in the order it lists them,
// read from the registry New adds them from, so that no list of them can
// leave one out.
func Tools() []Tool {
	var out []Tool
	for _, r := range registry(&tools{}) {
		out = append(out, Tool{Name: r.tool.Name, Title: r.tool.Title, Forget: r.forget})
	}
	return out
}

// registered is a tool of the registry and how it is added to a server.
type registered struct {
	tool   *mcp.Tool
	forget bool
	add    func(*mcp.Server)
}

func reg[A any](tool *mcp.Tool, h mcp.ToolHandlerFor[A, any]) registered {
	return registered{tool: tool, add: func(s *mcp.Server) { addTool(s, tool, h) }}
}

// registry is every tool, each with its handler on t: the one list New
// and Tools read.
func registry(t *tools) []registered {
	forget := reg(toolForget, userTool(t, func(ctx context.Context, user string, _ forgetArgs) (any, error) {
		return t.c.ForgetUser(ctx, user)
	}))
	forget.forget = true
	return []registered{
		reg(toolGetContext, t.getContext),
		reg(toolSearch, t.search),
		reg(toolRemember, t.remember),
		reg(toolSelect, t.selectItem),
		reg(toolUnseen, userTool(t, func(ctx context.Context, user string, a unseenArgs) (any, error) {
			return t.c.Unseen(ctx, user, contract.UnseenRequest{Refs: a.Refs, MarkNotified: a.MarkNotified, NotificationID: a.NotificationID})
		})),
		reg(toolInterests, userTool(t, func(ctx context.Context, user string, a interestsArgs) (any, error) {
			return t.interests(ctx, user, a.Limit)
		})),
		reg(toolAttributes, userTool(t, func(ctx context.Context, user string, _ attributesArgs) (any, error) {
			return t.c.Attributes(ctx, user, false)
		})),
		reg(toolProfile, userTool(t, func(ctx context.Context, user string, a interestsArgs) (any, error) {
			in, err := t.interests(ctx, user, a.Limit)
			if err != nil {
				return nil, err
			}
			attrs, err := t.c.Attributes(ctx, user, false)
			if err != nil {
				return nil, err
			}
			return profileAnswer{interestsAnswer: in, Attributes: attrs.Current}, nil
		})),
		reg(toolSetPreference, userTool(t, func(ctx context.Context, user string, a preferenceArgs) (any, error) {
			op := a.Op
			if op == "" {
				op = events.AttributePut
			}
			out, err := t.c.EditAttributes(ctx, user, contract.AttributeEdits{Edits: []contract.AttributeEdit{{Key: a.Key, Op: op, Value: a.Value}}})
			// One edit: its fields are the tool's own arguments.
			var e *contract.Error
			if errors.As(err, &e) {
				e.TrimFieldPrefix("edits[0].")
			}
			return out, err
		})),
		reg(toolRecommend, t.recommend),
		forget,
	}
}

// Handler serves the tools over streamable HTTP, stateless: every POST is
// one JSON-RPC message answered on its own, so any replica of the API can
// answer any request, and the tools of each request run as conn says (the
// memory of that request's tenant, and its binding). A nil memory answers
// 400.
func Handler(conn func(r *http.Request) (contract.Memory, Binding), maxBody int64, log *slog.Logger) http.Handler {
	return mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		c, b := conn(r)
		if c == nil {
			return nil
		}
		return New(c, b)
	}, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true, MaxRequestBodyBytes: maxBody, Logger: log})
}

const instructions = `Recall is this user's memory across conversations. Before answering, call get_context with the user's current message and put its prompt into your reasoning: it holds the list last shown to the user, the recent turns, what earlier conversations said about the message, summaries and interests. Memory is context and preference, never a source of facts. After each turn, call remember with what was said, the tool calls made and the items shown, so later turns can use them. When the user answers with a position ("3", "the second one"), call select_item and quote the item's ref exactly; never invent one.`

// tools are the tool handlers of one server.
type tools struct {
	c contract.Memory
	b Binding
}

// argError is a tool error about one argument, named first.
func argError(arg, format string, a ...any) error {
	return fmt.Errorf("%s: %s", arg, fmt.Sprintf(format, a...))
}

// user is the user a call acts for: the bound user, or the user_id argument.
func (t *tools) user(arg string) (string, error) {
	switch {
	case t.b.UserID != "" && arg != "" && arg != t.b.UserID:
		return "", argError("user_id", "this server is bound to one user and cannot act for %q; leave user_id out", arg)
	case t.b.UserID != "":
		return t.b.UserID, nil
	case arg == "":
		return "", argError("user_id", "required: the user whose memory this is")
	}
	return arg, nil
}

// session is the session a call names, or the bound default.
func (t *tools) session(arg string) (string, error) {
	switch {
	case arg != "":
		return arg, nil
	case t.b.SessionID != "":
		return t.b.SessionID, nil
	}
	return "", argError("session_id", "required: the conversation this is about")
}

// addTool adds a tool whose arguments Recall checks itself. mcp.AddTool
// would validate them against the input schema first and refuse a bad one
// in the schema validator's words ("validating /properties/role: enum: bot
// does not equal any of ..."). Here the schema only describes the arguments
// (the roles, ranges and formats stay in it for the agent to read), and a
// bad value is refused by the rule the API applies, in its words, naming
// the argument ("role: unknown role \"bot\": one of user, assistant, system,
// tool"); only what the API cannot see is checked here: an argument the tool
// does not have, a value of the wrong JSON type. The answer is h's result,
// with out as its structured content (and as its text when h gives none),
// as mcp.AddTool makes it.
func addTool[A any](s *mcp.Server, tool *mcp.Tool, h mcp.ToolHandlerFor[A, any]) {
	known := tool.InputSchema.(*jsonschema.Schema).Properties
	s.AddTool(tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, out, err := callTool(ctx, req, known, h)
		if err != nil {
			var failed mcp.CallToolResult
			failed.SetError(err)
			return &failed, nil
		}
		if res == nil {
			res = &mcp.CallToolResult{}
		}
		if out != nil {
			b, err := json.Marshal(out)
			if err != nil {
				return nil, fmt.Errorf("%s: encode the answer: %w", tool.Name, err)
			}
			res.StructuredContent = json.RawMessage(b)
			if res.Content == nil {
				res.Content = []mcp.Content{&mcp.TextContent{Text: string(b)}}
			}
		}
		return res, nil
	})
}

// callTool decodes a call's arguments into A, refusing those the tool does
// not know (the names of known) and values of the wrong JSON type, and
// calls h with them.
func callTool[A any](ctx context.Context, req *mcp.CallToolRequest, known map[string]*jsonschema.Schema,
	h mcp.ToolHandlerFor[A, any]) (*mcp.CallToolResult, any, error) {
	var a A
	if raw := req.Params.Arguments; len(raw) == 0 || string(raw) == "null" {
		// No arguments are none: the handlers read them as an object.
		req.Params.Arguments = json.RawMessage("{}")
	}
	raw := req.Params.Arguments
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, nil, argError("arguments", "want a JSON object")
	}
	var unknown []string
	for name := range fields {
		if _, ok := known[name]; !ok {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		names := slices.Sorted(maps.Keys(known))
		parts := make([]string, len(unknown))
		for i, name := range unknown {
			parts[i] = name + ": unknown argument; known: " + strings.Join(names, ", ")
		}
		return nil, nil, errors.New(strings.Join(parts, "; "))
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return nil, nil, argError(events.FieldPath(te.Field), "want %s, got a JSON %s", events.JSONKind(te.Type.Kind().String()), te.Value)
		}
		return nil, nil, argError("arguments", "%v", err)
	}
	return h(ctx, req, a)
}

// schemaFor infers a tool's input schema from its argument struct: field
// descriptions from the jsonschema tags, JSON values (tool arguments and
// results, item attrs) of any type. adjust adds what tags cannot say.
func schemaFor[T any](adjust func(props map[string]*jsonschema.Schema)) *jsonschema.Schema {
	s, err := jsonschema.For[T](&jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[json.RawMessage](): {},
	}})
	if err != nil {
		panic(fmt.Sprintf("schema of %T: %v", *new(T), err))
	}
	if adjust != nil {
		adjust(s.Properties)
	}
	return s
}

// forUser is the user_id argument every tool takes.
type forUser struct {
	UserID string `json:"user_id,omitempty" jsonschema:"The user whose memory this is. Leave it out when the server is bound to a user."`
}

func (f forUser) userArg() string { return f.UserID }

// userTool is a tool that acts for one user and answers what do returns,
// as its structured content.
func userTool[A interface{ userArg() string }](t *tools, do func(ctx context.Context, user string, a A) (any, error)) mcp.ToolHandlerFor[A, any] {
	return func(ctx context.Context, _ *mcp.CallToolRequest, a A) (*mcp.CallToolResult, any, error) {
		user, err := t.user(a.userArg())
		if err != nil {
			return nil, nil, err
		}
		out, err := do(ctx, user, a)
		if err != nil {
			return nil, nil, apiError(err, nil)
		}
		return nil, out, nil
	}
}

type contextArgs struct {
	forUser
	SessionID string `json:"session_id,omitempty" jsonschema:"The conversation (session) id. May be left out when the server has a default session."`
	Message   string `json:"message,omitempty" jsonschema:"The user's current message, as they wrote it: the user's whole history is searched for what bears on it."`
	Budget    *int   `json:"budget,omitempty" jsonschema:"Total characters of the context (default 8000)."`
	Lang      string `json:"lang,omitempty" jsonschema:"Language of the rendered block: en, zh, or auto (by the conversation)."`
	At        string `json:"at,omitempty" jsonschema:"The context as it would have been assembled at this moment (RFC 3339 with its offset, such as 2023-05-30T23:42:00Z), for replaying an earlier turn: nothing from then on is in it. Leave it out for now."`
}

var toolGetContext = &mcp.Tool{
	Name:  "get_context",
	Title: "Get memory context",
	Description: "What to remember before answering the user's current message: the list last shown to the user " +
		"(numbered, with each item's ref), the recent turns of this conversation, what earlier conversations said that " +
		"bears on the message (dated), summaries of earlier conversations and the user's interests, rendered as one " +
		"block (prompt) within a character budget. Call it at the start of every turn with the user's message.",
	InputSchema: schemaFor[contextArgs](func(p map[string]*jsonschema.Schema) {
		p["budget"].Minimum, p["budget"].Maximum = ptr(0.0), ptr(1000000.0)
		p["lang"].Enum = []any{"en", "zh", "auto"}
	}),
	Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
}

func (t *tools) getContext(ctx context.Context, _ *mcp.CallToolRequest, a contextArgs) (*mcp.CallToolResult, any, error) {
	user, err := t.user(a.UserID)
	if err != nil {
		return nil, nil, err
	}
	session, err := t.session(a.SessionID)
	if err != nil {
		return nil, nil, err
	}
	c, err := t.c.Context(ctx, contract.ContextParams{UserID: user, SessionID: session, Query: a.Message, Budget: a.Budget, Lang: a.Lang, At: a.At})
	if err != nil {
		return nil, nil, apiError(err, map[string]string{"query": "message"})
	}
	return text(c.Prompt), c, nil
}

type searchArgs struct {
	forUser
	Query     string `json:"query" jsonschema:"What to look for in the user's earlier conversations, in the user's words."`
	K         int    `json:"k,omitempty" jsonschema:"How many hits (1 to 100, default 10)."`
	SessionID string `json:"session_id,omitempty" jsonschema:"Only this conversation."`
	Since     string `json:"since,omitempty" jsonschema:"Only from this time on: an RFC 3339 time or a date (2026-01-31)."`
	Until     string `json:"until,omitempty" jsonschema:"Only before this time: an RFC 3339 time or a date."`
	At        string `json:"at,omitempty" jsonschema:"Search the history as it stood at this moment (RFC 3339 with its offset, such as 2023-05-30T23:42:00Z): nothing from then on is found, and recency counts from then. Leave it out for now."`
}

var toolSearch = &mcp.Tool{
	Name:  "search_memory",
	Title: "Search memory",
	Description: "Search everything the user said and was told in earlier conversations, their summaries and the user's " +
		"interests, for a question get_context did not answer (\"what was that book I mentioned in May?\"). Hits are " +
		"most relevant first, dated, with the conversation they come from.",
	InputSchema: schemaFor[searchArgs](func(p map[string]*jsonschema.Schema) {
		p["query"].MinLength = ptr(1)
		p["k"].Minimum, p["k"].Maximum = ptr(1.0), ptr(100.0)
	}),
	Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
}

func (t *tools) search(ctx context.Context, _ *mcp.CallToolRequest, a searchArgs) (*mcp.CallToolResult, any, error) {
	user, err := t.user(a.UserID)
	if err != nil {
		return nil, nil, err
	}
	res, err := t.c.Search(ctx, user, contract.SearchParams{Q: a.Query, K: a.K, SessionID: a.SessionID, Since: a.Since, Until: a.Until, At: a.At})
	if err != nil {
		return nil, nil, apiError(err, map[string]string{"q": "query"})
	}
	var b strings.Builder
	for _, d := range res.During {
		// The times the query named, so the model reads the hits as of then.
		fmt.Fprintf(&b, "What happened from %s until %s (the time the query names) comes first.\n", d.From.Format(time.RFC3339), d.To.Format(time.RFC3339))
	}
	if len(res.Hits) == 0 {
		b.WriteString("Nothing found.")
	}
	for _, h := range res.Hits {
		who := h.Kind
		if h.Role != "" {
			who = h.Role
		}
		fmt.Fprintf(&b, "[%s] %s (session %s): %s\n", h.OccurredAt.Format(time.DateOnly), who, h.SessionID, h.Text)
	}
	return text(b.String()), res, nil
}

type rememberArgs struct {
	forUser
	SessionID string            `json:"session_id,omitempty" jsonschema:"The conversation (session) id. May be left out when the server has a default session."`
	ID        string            `json:"id,omitempty" jsonschema:"A unique id for this turn; sending the same id again stores it once. Assigned when left out."`
	Role      string            `json:"role" jsonschema:"Who spoke: user or assistant (system and tool turns are stored but never shown back)."`
	Content   string            `json:"content,omitempty" jsonschema:"What was said. May be empty only when the turn has tool_calls or items."`
	ToolCalls []events.ToolCall `json:"tool_calls,omitempty" jsonschema:"The tools called while producing this turn, with their arguments and results, kept as they are."`
	Items     []events.Item     `json:"items,omitempty" jsonschema:"The numbered list shown to the user in this turn, in the order shown: item 1 first. Each with its ref (the stable reference to quote later), title and attrs. An empty list replaces the last one."`
	AgentID   string            `json:"agent_id,omitempty" jsonschema:"The persona that spoke, when there are several."`
	// OccurredAt is when it was said; now when left out.
	OccurredAt string          `json:"occurred_at,omitempty" jsonschema:"When it was said, RFC 3339; now when left out."`
	Metadata   json.RawMessage `json:"metadata,omitempty" jsonschema:"Anything else about the turn, a JSON object, stored as sent."`
}

var toolRemember = &mcp.Tool{
	Name:  "remember",
	Title: "Remember a turn",
	Description: "Store one turn of the conversation: what the user or the assistant said, the tool calls made (with " +
		"arguments and results) and the numbered list of items shown to the user, so that later turns and later " +
		"conversations can use them and select_item can resolve \"the 3rd one\". Call it for the user's message and " +
		"for your answer.",
	InputSchema: schemaFor[rememberArgs](func(p map[string]*jsonschema.Schema) {
		p["role"].Enum = []any{"user", "assistant", "system", "tool"}
		p["occurred_at"].Format = "date-time"
		p["metadata"].Type = "object"
		// An item's and a tool call's fields are the envelope's, as the
		// API takes them (events.ParseTurnStrict): anything else about an
		// item goes in its attrs.
		item := p["items"].Items
		item.Properties["ref"].MinLength = ptr(1)
		item.Properties["attrs"].Type = "object"
		call := p["tool_calls"].Items
		call.Properties["name"].MinLength = ptr(1)
	}),
	Annotations: &mcp.ToolAnnotations{IdempotentHint: true, DestructiveHint: ptr(false)},
}

func (t *tools) remember(ctx context.Context, req *mcp.CallToolRequest, a rememberArgs) (*mcp.CallToolResult, any, error) {
	user, err := t.user(a.UserID)
	if err != nil {
		return nil, nil, err
	}
	session, err := t.session(a.SessionID)
	if err != nil {
		return nil, nil, err
	}
	if a.OccurredAt != "" {
		if _, err := time.Parse(time.RFC3339Nano, a.OccurredAt); err != nil {
			return nil, nil, argError("occurred_at", "want an RFC 3339 time such as 2026-11-22T08:15:00Z")
		}
	}
	// The arguments are a turn as a producer sends it, less the tenant: it
	// is parsed from them as the API parses a POST, so that tool calls and
	// items keep their values as sent, and a field the envelope does not
	// define (an item's url) is refused naming it (validated with the rest
	// of the turn where the memory takes it).
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(req.Params.Arguments, &fields); err != nil {
		return nil, nil, err
	}
	fields["user_id"], _ = json.Marshal(user)
	fields["session_id"], _ = json.Marshal(session)
	raw, err := json.Marshal(fields)
	if err != nil {
		return nil, nil, err
	}
	turn, err := events.ParseTurnStrict(raw, events.Limits{})
	var ve *events.ValidationError
	if errors.As(err, &ve) {
		return nil, nil, apiError(&contract.Error{Code: "invalid_request", Fields: ve.Fields}, nil)
	}
	acc, err := t.c.AddTurns(ctx, &turn)
	if err != nil {
		return nil, nil, apiError(err, nil)
	}
	out := map[string]any{"id": turn.ID, "session_id": session, "stored": true, "duplicate": acc[0].Duplicate}
	msg := fmt.Sprintf("Remembered turn %s in session %s", turn.ID, session)
	if len(a.Items) > 0 {
		msg += fmt.Sprintf(", with a list of %d items", len(a.Items))
	}
	return text(msg + "."), out, nil
}

type selectArgs struct {
	forUser
	SessionID string `json:"session_id,omitempty" jsonschema:"The conversation (session) id. May be left out when the server has a default session."`
	N         int    `json:"n" jsonschema:"The position the user named in the list last shown to them, as shown (1 for the first item)."`
}

var toolSelect = &mcp.Tool{
	Name:  "select_item",
	Title: "Resolve a list position",
	Description: "The item the user means by a position (\"3\", \"the second one\") in the numbered list last shown to " +
		"them in this conversation, exactly as it was shown, with its real ref. Quote the ref as it is; never make one up.",
	InputSchema: schemaFor[selectArgs](func(p map[string]*jsonschema.Schema) {
		p["n"].Minimum = ptr(1.0)
	}),
	Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
}

func (t *tools) selectItem(ctx context.Context, _ *mcp.CallToolRequest, a selectArgs) (*mcp.CallToolResult, any, error) {
	user, err := t.user(a.UserID)
	if err != nil {
		return nil, nil, err
	}
	session, err := t.session(a.SessionID)
	if err != nil {
		return nil, nil, err
	}
	// A list belongs to a session, and the session to a user: the user's
	// own sessions only.
	sess, err := t.c.Session(ctx, session, 1)
	switch {
	case isNotFound(err):
		return nil, nil, argError("session_id", "no conversation %q has been stored for this user", session)
	case err != nil:
		return nil, nil, apiError(err, nil)
	case sess.UserID != user:
		return nil, nil, argError("session_id", "no conversation %q has been stored for this user", session)
	}
	sel, err := t.c.Selection(ctx, session, a.N)
	if err != nil {
		return nil, nil, apiError(err, nil)
	}
	var it struct {
		Title string `json:"title"`
	}
	_ = json.Unmarshal(sel.Item, &it)
	return text(fmt.Sprintf("Item %d of %d: %q, ref: %s\n%s", sel.N, sel.List.Count, it.Title, sel.Ref(), sel.Item)), sel, nil
}

type unseenArgs struct {
	forUser
	Refs           []string `json:"refs" jsonschema:"Candidate item refs, e.g. new releases."`
	MarkNotified   bool     `json:"mark_notified,omitempty" jsonschema:"Record the unseen ones as notified, so the next call leaves them out. Set it when you are about to tell the user about them."`
	NotificationID string   `json:"notification_id,omitempty" jsonschema:"An id for this notification: a retry with the same id gets the same answer."`
}

var toolUnseen = &mcp.Tool{
	Name:  "unseen_items",
	Title: "Items the user has not seen",
	Description: "Which of the candidate refs the user was never shown nor told about, in the order given: ask before " +
		"suggesting something \"new\". With mark_notified they are recorded as told.",
	InputSchema: schemaFor[unseenArgs](func(p map[string]*jsonschema.Schema) {
		p["refs"].MinItems, p["refs"].MaxItems = ptr(1), ptr(1000)
		p["refs"].Items.MinLength = ptr(1)
	}),
	Annotations: &mcp.ToolAnnotations{IdempotentHint: true, DestructiveHint: ptr(false)},
}

type interestsArgs struct {
	forUser
	Limit int `json:"limit,omitempty" jsonschema:"How many interests (1 to 500, default 50)."`
}

var toolInterests = &mcp.Tool{
	Name:  "get_interests",
	Title: "The user's interests",
	Description: "The user's interests Recall has gathered from what they talk about (books, authors, topics, " +
		"genres...), strongest first, each with its weight now (mentions fade with time) and when it was last mentioned.",
	InputSchema: schemaFor[interestsArgs](func(p map[string]*jsonschema.Schema) {
		p["limit"].Minimum, p["limit"].Maximum = ptr(1.0), ptr(500.0)
	}),
	Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
}

// interestsAnswer is get_interests' answer: the user's interests.
type interestsAnswer struct {
	*contract.Interests
	// At shadows the interests': left out when nothing was computed (no
	// interests gathered yet) rather than written as year 1.
	At *time.Time `json:"at,omitempty"`
}

// interests are the user's interests, none yet being an answer too.
func (t *tools) interests(ctx context.Context, user string, limit int) (interestsAnswer, error) {
	in, err := t.c.Interests(ctx, user, limit, false)
	if isNotFound(err) {
		// Nothing gathered yet is an answer, not a failure.
		in, err = &contract.Interests{UserID: user, Facts: []contract.InterestFact{}}, nil
	}
	if err != nil {
		return interestsAnswer{}, err
	}
	out := interestsAnswer{Interests: in}
	if !in.At.IsZero() {
		out.At = &in.At
	}
	return out, nil
}

type attributesArgs struct{ forUser }

var toolAttributes = &mcp.Tool{
	Name:  "get_attributes",
	Title: "Who the user is and what they asked for",
	Description: "Who the user is and what they asked for (name, location, allergies, reply language, standing " +
		"requests...): the current value of each attribute, with its source and since when it holds. set_preference " +
		"changes them.",
	InputSchema: schemaFor[attributesArgs](nil),
	Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
}

var toolProfile = &mcp.Tool{
	Name:  "get_profile",
	Title: "The user's interests and attributes (deprecated)",
	Description: "Deprecated: use get_interests and get_attributes. The user's interests Recall has gathered (books, " +
		"authors, topics, genres...), strongest first, each with its weight now (mentions fade with time) and when it " +
		"was last mentioned; and under attributes who the user is and what they asked for (name, location, allergies, " +
		"reply language, standing requests...), each with its source and since when it holds.",
	InputSchema: schemaFor[interestsArgs](func(p map[string]*jsonschema.Schema) {
		p["limit"].Minimum, p["limit"].Maximum = ptr(1.0), ptr(500.0)
	}),
	Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
}

// profileAnswer is get_profile's answer: get_interests' and, under
// attributes, get_attributes' current values.
type profileAnswer struct {
	interestsAnswer
	Attributes []contract.AttributeValue `json:"attributes"`
}

type preferenceArgs struct {
	forUser
	Key   string `json:"key" jsonschema:"The attribute key: reply_language, reply_length, reply_format, tone, assistant_name, requests (any other standing request), or what the user asked you to remember about them: name, location, occupation, languages, family, pets, diet, allergies, avoid, goals."`
	Value string `json:"value,omitempty" jsonschema:"The value, in the user's words (\"English\", \"short\", \"never suggest recipes with peanuts\"). With op remove on a list key, the item to take out (none: all)."`
	Op    string `json:"op,omitempty" jsonschema:"put (the default) or remove."`
}

var toolSetPreference = &mcp.Tool{
	Name:  "set_preference",
	Title: "Remember what the user asked for",
	Description: "Records, for every later conversation, how the user wants to be answered or what they asked you to " +
		"remember about them: call it when the user says so (\"answer in English from now on\", \"call me Xiao Li\", " +
		"\"never suggest peanuts, my daughter is allergic\"). A later call supersedes an earlier value of the same key; " +
		"list keys (requests, allergies, family...) gather items. get_context then carries it in every context.",
	InputSchema: schemaFor[preferenceArgs](func(p map[string]*jsonschema.Schema) {
		p["op"].Enum = []any{events.AttributePut, events.AttributeRemove}
	}),
	Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(false), IdempotentHint: false},
}

type recommendArgs struct {
	forUser
	K int `json:"k,omitempty" jsonschema:"How many items (1 to 100, default 10)."`
}

var toolRecommend = &mcp.Tool{
	Name:  "recommend",
	Title: "Recommend from the catalog",
	Description: "Items of the catalog closest to the user's interests, nearest first, leaving out what is already on " +
		"their shelf. Each has its ref, title and score. While Recall knows too little of the user, it says so and " +
		"what to do instead of listing items.",
	InputSchema: schemaFor[recommendArgs](func(p map[string]*jsonschema.Schema) {
		p["k"].Minimum, p["k"].Maximum = ptr(1.0), ptr(100.0)
	}),
	Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
}

// noInterestsYet is recommend's answer while Recall knows too little of the
// user to rank the catalog by (the API's 409 no_profile): what the agent can
// do about it, in the tools it has.
const noInterestsYet = "No recommendations yet: Recall has not gathered enough of this user's interests to rank the " +
	"catalog by. Interests come from what the user says they like (books, authors, topics, genres) and from their " +
	"shelf. Keep calling remember with every turn, ask the user what they enjoy if that fits the conversation, and " +
	"call recommend again after a few more turns."

func (t *tools) recommend(ctx context.Context, _ *mcp.CallToolRequest, a recommendArgs) (*mcp.CallToolResult, any, error) {
	user, err := t.user(a.UserID)
	if err != nil {
		return nil, nil, err
	}
	r, err := t.c.Recommendations(ctx, user, a.K)
	var e *contract.Error
	switch {
	case errors.As(err, &e) && e.Code == "no_profile":
		// Nothing to rank by is an answer, not a failure; the API's advice
		// (a route to POST) is not something an agent can do.
		return text(noInterestsYet), nil, nil
	case err != nil:
		return nil, nil, apiError(err, nil)
	}
	return nil, r, nil
}

type forgetArgs struct{ forUser }

var toolForget = &mcp.Tool{
	Name:  "forget_user",
	Title: "Forget the user",
	Description: "Erase everything Recall holds about the user, for good: every conversation, summary, interest and " +
		"presented item. Only when the user asks to be forgotten.",
	InputSchema: schemaFor[forgetArgs](nil),
	Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true), IdempotentHint: true},
}

// apiError is an API error as a tool error: the fields it names, under the
// names of the tool's arguments (rename maps an API field to the argument
// that carries it).
func apiError(err error, rename map[string]string) error {
	var e *contract.Error
	if !errors.As(err, &e) {
		return err
	}
	if len(e.Fields) == 0 {
		return fmt.Errorf("%s: %s", e.Code, e.Message)
	}
	parts := make([]string, len(e.Fields))
	for i, f := range e.Fields {
		name := f.Field
		if r, ok := rename[name]; ok {
			name = r
		}
		parts[i] = name + ": " + f.Message
	}
	return errors.New(strings.Join(parts, "; "))
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func ptr[T any](v T) *T { return &v }

// isNotFound reports whether err is a not_found-class answer (404: an
// unknown session or user, no list, a position beyond it).
func isNotFound(err error) bool {
	var e *contract.Error
	return errors.As(err, &e) && e.Status == http.StatusNotFound
}
