package contract_test

import (
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/openapitest"
	"github.com/recallhq/recall/pkg/contract"
	"github.com/recallhq/recall/pkg/events"
)

// shape is one wire shape and where each description of it lives: its
// schema in the OpenAPI document ("Name", or a property of one:
// "Context.limits", "Seen.items[]"), its TypeScript interface and its
// Python TypedDict ("" where that client has none: the inspector's and
// operators' answers).
type shape struct {
	v               any
	openapi, ts, py string
	// request: what a caller writes, so which fields must be sent is the
	// route's rule (OpenAPI's required), not what Go writes always; only
	// the fields' names are compared.
	request bool
	// extra are fields the Go type writes itself (a MarshalJSON, or a
	// client's Body) beyond its tagged ones; always optional.
	extra []string
	// tsArgs are fields the TypeScript client takes as arguments of its
	// call rather than in the type (search's q).
	tsArgs []string
}

var shapes = []shape{
	{v: contract.Error{}, openapi: "ErrorDetail", ts: "ErrorDetail", py: "ErrorDetail"},
	{v: contract.ErrorBody{}, openapi: "Error"},
	{v: contract.FieldError{}, openapi: "FieldError", ts: "FieldError", py: "FieldError"},
	{v: events.Turn{}, openapi: "Turn", ts: "Turn", py: "Turn", request: true},
	{v: events.ToolCall{}, openapi: "ToolCall", ts: "ToolCall", py: "ToolCall", request: true},
	{v: events.Item{}, openapi: "Item", ts: "Item", py: "Item", request: true},
	{v: contract.Accepted{}, openapi: "Accepted", ts: "AcceptedTurn", py: "AcceptedTurn"},
	{v: contract.TurnsResult{}, openapi: "", ts: "", py: ""},
	{v: contract.TurnsWait{}, openapi: "TurnsWait", ts: "TurnsWait", py: "TurnsWait"},
	{v: contract.TurnStatus{}, openapi: "TurnStatus", ts: "TurnStatus", py: "TurnStatus"},
	{v: contract.WorkerProgress{}, openapi: "WorkerProgress", ts: "WorkerProgress", py: "WorkerProgress"},
	{v: contract.Message{}, openapi: "Message", ts: "Message", py: "Message"},
	{v: contract.Summary{}, openapi: "SummaryVersion", ts: "Summary", py: "Summary"},
	{v: contract.Session{}, openapi: "Session", ts: "Session", py: "Session"},
	{v: contract.SessionInfo{}}, // inline in Session and UserSession
	{v: contract.MessagePage{}, openapi: "MessagePage", ts: "MessagesPage", py: "MessagesPage"},
	{v: contract.SummaryVersions{}, openapi: "SummaryVersions"},
	{v: contract.SummarizeResult{}, openapi: "SummarizeResult", ts: "SummarizeResult", py: "SummarizeResult"},
	{v: contract.SummarizeRequest{}, openapi: "SummarizeResult.request", ts: "SummarizeRequest", py: "SummarizeRequest"},
	{v: contract.ContextParams{}, openapi: "ContextParams", ts: "ContextParams", request: true, extra: []string{"ttl"}},
	{v: contract.Context{}, openapi: "Context", ts: "Context", py: "Context"},
	{v: contract.WindowLimits{}, openapi: "Context.limits", ts: "WindowLimits", py: "WindowLimits"},
	{v: contract.Budget{}, openapi: "Context.budget", ts: "Budget", py: "Budget"},
	{v: contract.PartSpend{}, openapi: "Context.budget.parts", ts: "PartSpend", py: "PartSpend"},
	{v: contract.ContextAttributes{}, openapi: "Context.attributes", ts: "ContextAttributes", py: "ContextAttributes"},
	{v: contract.AttributeEntry{}, openapi: "Context.attributes.about[]", ts: "AttributeEntry", py: "AttributeEntry"},
	{v: contract.AttributeStatement{}, openapi: "Context.attributes.statements[]", ts: "AttributeStatement", py: "AttributeStatement"},
	{v: contract.List{}, openapi: "Context.list", ts: "PresentedList", py: "PresentedList"},
	{v: contract.ListEntry{}, openapi: "Context.list.items[]", ts: "ListEntry", py: "ListEntry"},
	{v: contract.Window{}, openapi: "Context.window", ts: "Window", py: "Window"},
	{v: contract.Facts{}, openapi: "Context.facts", ts: "Facts", py: "Facts"},
	{v: contract.WeightedFact{}, openapi: "Context.facts.facts[]", ts: "WeightedFact", py: "WeightedFact"},
	{v: contract.Summaries{}, openapi: "Context.summaries", ts: "Summaries", py: "Summaries"},
	{v: contract.SessionSummary{}, openapi: "SessionSummary", ts: "SessionSummary", py: "SessionSummary"},
	{v: contract.Recalled{}, openapi: "Context.recalled", ts: "Recalled", py: "Recalled"},
	{v: contract.RecalledHit{}, openapi: "Context.recalled.hits[]", ts: "RecalledHit", py: "RecalledHit"},
	{v: contract.Note{}, openapi: "Note", ts: "Note", py: "Note"},
	{v: contract.Span{}, openapi: "Context.recalled.during[]", ts: "Span", py: "Span"},
	{v: contract.Cut{}, openapi: "Cut", ts: "Cut", py: "Cut"},
	{v: contract.SearchParams{}, openapi: "SearchParams", ts: "SearchParams", request: true, extra: []string{"neighbors"}, tsArgs: []string{"q"}},
	{v: contract.SearchResult{}, openapi: "SearchResult", ts: "SearchResult", py: "SearchResult"},
	{v: contract.SearchHit{}, openapi: "SearchHit", ts: "SearchHit", py: "SearchHit"},
	{v: contract.Neighbor{}, openapi: "Neighbor", ts: "Neighbor", py: "Neighbor"},
	{v: contract.Interests{}, openapi: "Interests", ts: "Interests", py: "Interests"},
	{v: contract.InterestFact{}, openapi: "Interests.facts[]", ts: "InterestFact", py: "InterestFact"},
	{v: contract.InterestVector{}, openapi: "Interests.vector", ts: "InterestVector", py: "InterestVector"},
	{v: contract.InterestsRefresh{}, openapi: "InterestsRefresh", ts: "InterestsRefresh", py: "InterestsRefresh"},
	{v: contract.Recommendations{}, openapi: "Recommendations", ts: "Recommendations", py: "Recommendations"},
	{v: contract.Recommendation{}, openapi: "Recommendations.items[]", ts: "Recommendation", py: "Recommendation"},
	{v: contract.ListInfo{}, openapi: "Selection.list", ts: "ListInfo", py: "ListInfo"},
	{v: contract.Selection{}, openapi: "Selection", ts: "Selection", py: "Selection"},
	{v: contract.UnseenRequest{}, openapi: "UnseenRequest", ts: "UnseenRequest", request: true},
	{v: contract.Unseen{}, openapi: "Unseen", ts: "Unseen", py: "Unseen"},
	{v: contract.Seen{}, openapi: "Seen", ts: "Seen", py: "Seen"},
	{v: contract.SeenItem{}, openapi: "Seen.items[]", ts: "SeenItem", py: "SeenItem"},
	{v: contract.UserData{}, openapi: "ForgetReport", ts: "ForgetReport", py: "ForgetReport"},
	{v: contract.Change{}, openapi: "Change", ts: "Change", py: "Change"},
	{v: contract.ChangedFact{}, openapi: "ChangedFact", ts: "ChangedFact", py: "ChangedFact"},
	{v: contract.ChangedList{}, openapi: "ChangedList", ts: "ChangedList", py: "ChangedList"},
	{v: contract.Attributes{}, openapi: "Attributes", ts: "Attributes", py: "Attributes"},
	{v: contract.AttributeValue{}, openapi: "AttributeValue", ts: "AttributeValue", py: "AttributeValue"},
	{v: contract.AttributeEdits{}, openapi: "AttributeEdits", ts: "AttributeEdits", request: true},
	{v: contract.AttributeEdit{}, openapi: "AttributeEdit", ts: "AttributeEdit", py: "AttributeEdit", request: true},
	{v: contract.AttributesAccepted{}, openapi: "AttributesAccepted", ts: "AttributesAccepted", py: "AttributesAccepted"},
	{v: contract.Users{}, openapi: "UserPage"},
	{v: contract.UserActivity{}, openapi: "UserActivity"},
	{v: contract.UserFacts{}, openapi: "FactPage"},
	{v: contract.DecayRule{}, openapi: "DecayRule"},
	{v: contract.FactView{}, openapi: "FactView"},
	{v: contract.CurvePoint{}, openapi: "CurvePoint"},
	{v: contract.UserSessions{}, openapi: "UserSessionPage"},
	{v: contract.UserSession{}, openapi: "UserSession"},
	{v: contract.Shelf{}, openapi: "Shelf"},
	{v: contract.ShelfItem{}, openapi: "Shelf.items[]"},
	{v: contract.Consumers{}, openapi: "Consumers"},
	{v: contract.Consumer{}, openapi: "Consumers.consumers[]"},
	{v: contract.DeadLetters{}, openapi: "DeadLetterPage"},
	{v: contract.DeadLetter{}, openapi: "DeadLetter"},
	{v: contract.Redrive{}, openapi: "Redriven"},
	{v: contract.Decayer{}, openapi: "DecayerRuns"},
	{v: contract.DecayerRun{}, openapi: "DecayerRun"},
	{v: contract.DecayerStep{}, openapi: "DecayerRun.steps[]"},
	{v: contract.WebhookCreate{}, openapi: "WebhookCreate", ts: "WebhookCreate", py: "WebhookCreate", request: true},
	{v: contract.Webhook{}, openapi: "Webhook", ts: "Webhook", py: "Webhook"},
	{v: contract.Webhooks{}, openapi: "Webhooks", ts: "Webhooks", py: "Webhooks"},
	{v: contract.WebhookDelivery{}, openapi: "WebhookDelivery", ts: "WebhookDelivery", py: "WebhookDelivery"},
	{v: contract.WebhookCounts{}, openapi: "WebhookDeliveries.counts", ts: "WebhookCounts", py: "WebhookCounts"},
	{v: contract.WebhookDeliveries{}, openapi: "WebhookDeliveries", ts: "WebhookDeliveries", py: "WebhookDeliveries"},
}

// renamed are wire fields and client types kept under their old names for
// one release beside the new ones: the old field carries the same value,
// and the OpenAPI document marks it deprecated, naming the field to read
// instead and the release it goes in; an old type is an alias of the new
// one in both clients.
var renamed = struct {
	fields map[string]string // OpenAPI path: old -> new
	types  map[string]string // TypeScript and Python: old -> new
}{
	fields: map[string]string{"Context.profile": "Context.attributes", "Context.budget.parts.profile": "Context.budget.parts.attributes"},
	types: map[string]string{"ContextProfile": "ContextAttributes", "ProfileEntry": "AttributeEntry", "ProfileStatement": "AttributeStatement",
		"Profile": "Interests", "ProfileFact": "InterestFact", "ProfileVector": "InterestVector", "ProfileRefresh": "InterestsRefresh"},
}

// clientOnly are the clients' types that are no wire shape of their own:
// what a caller may leave out of a turn, a duration as seconds or text, and
// what a POST of turns may wait for (WaitFor).
// TypeScript's ErrorBody is both an error answer (ErrorBody) and the 503 of
// POST /v1/turns (TurnsResult) in one type, and TurnsAccepted that route's
// 202 (TurnsResult without its error).
var clientOnly = []string{"TurnInput", "Duration", "JSONValue", "JSONObject", "Role", "TurnsAccepted", "ErrorBody", "WaitFor"}

// field is a JSON field as Go writes it.
type field struct {
	name     string
	optional bool // omitempty: absent when empty
}

// wireFields lists the JSON fields a Go type writes, embedded structs'
// fields inline, in the order Go writes them.
func wireFields(t reflect.Type) []field {
	var out []field
	for f := range t.Fields() {
		tag := f.Tag.Get("json")
		if tag == "-" || !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			out = append(out, wireFields(f.Type)...)
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, field{name: name, optional: slices.Contains(strings.Split(opts, ","), "omitempty")})
	}
	return out
}

func names(fs []field) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.name
	}
	slices.Sort(out)
	return out
}

func optionals(fs []field) []string {
	var out []string
	for _, f := range fs {
		if f.optional {
			out = append(out, f.name)
		}
	}
	slices.Sort(out)
	return out
}

// Every /v1 shape is described alike in the Go contract, the OpenAPI
// document and the Python and TypeScript clients: the same fields, and the
// same ones optional (omitempty in Go, not required in OpenAPI, `?` in
// TypeScript, total=False in Python). A field added to one and not the
// others fails here.
func TestShapesMatchEverywhere(t *testing.T) {
	t.Parallel()
	doc, tsSrc, pySrc := descriptions(t)
	ts, py := parseTS(tsSrc), parsePython(pySrc)

	for _, s := range shapes {
		typ := reflect.TypeOf(s.v)
		goFields := wireFields(typ)
		for _, x := range s.extra {
			goFields = append(goFields, field{name: x, optional: true})
		}
		t.Run(typ.String(), func(t *testing.T) {
			if s.openapi != "" {
				props, required := openapiFields(t, doc, s.openapi)
				require.Equal(t, names(goFields), props, "OpenAPI %s: its properties", s.openapi)
				var want []string
				for _, f := range goFields {
					if !f.optional {
						want = append(want, f.name)
					}
				}
				slices.Sort(want)
				if !s.request {
					require.Equal(t, want, required, "OpenAPI %s: its required properties (the fields Go writes always)", s.openapi)
				} else {
					// The server refuses a field a request does not define
					// (a turn's too, tool calls and items included), naming it.
					require.True(t, closed(t, doc, s.openapi), "OpenAPI %s: additionalProperties: false, as the server refuses unknown fields", s.openapi)
				}
			}
			for _, c := range []struct {
				lang, name string
				types      map[string][]field
			}{{"TypeScript", s.ts, ts}, {"Python", s.py, py}} {
				if c.name == "" {
					continue
				}
				got, ok := c.types[c.name]
				require.True(t, ok, "%s has no type %s", c.lang, c.name)
				want := goFields
				if c.lang == "TypeScript" {
					want = slices.DeleteFunc(slices.Clone(goFields), func(f field) bool { return slices.Contains(s.tsArgs, f.name) })
				}
				require.Equal(t, names(want), names(got), "%s %s: its fields", c.lang, c.name)
				if !s.request {
					require.Equal(t, optionals(goFields), optionals(got), "%s %s: its optional fields (omitempty in Go)", c.lang, c.name)
				}
			}
		})
	}

	// Every type is in the table: a new one cannot go unchecked.
	listed := map[string]bool{}
	for _, s := range shapes {
		listed[reflect.TypeOf(s.v).Name()] = true
		listed["ts:"+s.ts], listed["py:"+s.py] = true, true
	}
	for _, name := range contractTypes(t) {
		require.True(t, listed[name], "contract.%s is not in the shapes table", name)
	}
	for name := range ts {
		_, old := renamed.types[name]
		require.True(t, listed["ts:"+name] || slices.Contains(clientOnly, name) || old, "TypeScript %s is not in the shapes table", name)
	}
	for name := range py {
		require.True(t, listed["py:"+name] || slices.Contains(clientOnly, name) || strings.HasPrefix(name, "_"), "Python %s is not in the shapes table", name)
	}
}

// What is renamed keeps its old name for one release: the old field is
// described as the new one and marked deprecated, saying to read the new
// one and when the old goes; the old types are aliases of the new ones.
func TestRenamedKeptDeprecated(t *testing.T) {
	t.Parallel()
	doc, tsSrc, pySrc := descriptions(t)
	for old, now := range renamed.fields {
		props, required := openapiFields(t, doc, old)
		newProps, newRequired := openapiFields(t, doc, now)
		require.Equal(t, newProps, props, "OpenAPI %s: described as %s", old, now)
		require.Equal(t, newRequired, required, "OpenAPI %s: described as %s", old, now)
		s := openapiSchema(t, doc, old)
		require.True(t, s.Deprecated, "OpenAPI %s: deprecated", old)
		nowName := now[strings.LastIndex(now, ".")+1:]
		require.Contains(t, s.Description, "Read `"+nowName+"`", "OpenAPI %s: says what to read instead", old)
		require.Contains(t, s.Description, "the next minor release", "OpenAPI %s: says when it goes", old)
	}
	for old, now := range renamed.types {
		require.Contains(t, tsSrc, "/** @deprecated Use "+now+"; this name goes in the next minor release. */\nexport type "+old+" = "+now+";\n", "TypeScript %s", old)
		require.Regexp(t, `(?m)^`+old+` = `+now+`$`, pySrc, "Python %s", old)
	}
}

// descriptions are what describes the contract besides Go: the OpenAPI
// document, and the source of the TypeScript and Python clients' types.
func descriptions(t *testing.T) (doc *openapi3.T, ts, py string) {
	t.Helper()
	raw, err := os.ReadFile("../api/openapi.yaml")
	require.NoError(t, err)
	doc, err = openapitest.Load(raw)
	require.NoError(t, err)
	tsSrc, err := os.ReadFile("../../clients/typescript/src/types.ts")
	require.NoError(t, err)
	pySrc, err := os.ReadFile("../../clients/python/recall_client/types.py")
	require.NoError(t, err)
	return doc, string(tsSrc), string(pySrc)
}

// contractTypes lists the struct types pkg/contract declares, by reading
// its source: reflection cannot list a package's types.
func contractTypes(t *testing.T) []string {
	t.Helper()
	files, err := os.ReadDir(".")
	require.NoError(t, err)
	re := regexp.MustCompile(`(?m)^(?:type |\t)([A-Z]\w*) struct \{`)
	var out []string
	for _, f := range files {
		if !strings.HasSuffix(f.Name(), ".go") || strings.HasSuffix(f.Name(), "_test.go") {
			continue
		}
		src, err := os.ReadFile(f.Name())
		require.NoError(t, err)
		for _, m := range re.FindAllStringSubmatch(string(src), -1) {
			out = append(out, m[1])
		}
	}
	require.NotEmpty(t, out)
	return out
}

// openapiFields are the property names and the required ones of the
// schema at path, sorted.
func openapiFields(t *testing.T, doc *openapi3.T, path string) (props, required []string) {
	t.Helper()
	s := openapiSchema(t, doc, path)
	for name := range schemaProps(s) {
		props = append(props, name)
	}
	required = append(required, s.Required...)
	for _, a := range s.AllOf {
		required = append(required, a.Value.Required...)
	}
	slices.Sort(props)
	slices.Sort(required)
	return props, slices.Compact(required)
}

// openapiSchema is the schema at path: a component's name, or a property
// of one ("Context.limits", "Seen.items[]": an array's items).
func openapiSchema(t *testing.T, doc *openapi3.T, path string) *openapi3.Schema {
	t.Helper()
	parts := strings.Split(path, ".")
	ref, ok := doc.Components.Schemas[parts[0]]
	require.True(t, ok, "OpenAPI has no schema %s", parts[0])
	s := ref.Value
	for _, p := range parts[1:] {
		items := strings.HasSuffix(p, "[]")
		p = strings.TrimSuffix(p, "[]")
		all := schemaProps(s)
		next, ok := all[p]
		require.True(t, ok, "OpenAPI %s: no property %s", path, p)
		s = next.Value
		if items {
			require.NotNil(t, s.Items, "OpenAPI %s: %s is no array", path, p)
			s = s.Items.Value
		}
	}
	return s
}

// closed reports whether the schema at path (a component's name) allows no
// properties besides its own.
func closed(t *testing.T, doc *openapi3.T, path string) bool {
	t.Helper()
	ref, ok := doc.Components.Schemas[path]
	require.True(t, ok, "OpenAPI has no schema %s", path)
	ap := ref.Value.AdditionalProperties
	return ap.Has != nil && !*ap.Has
}

// schemaProps are a schema's properties, its allOf parts' included.
func schemaProps(s *openapi3.Schema) openapi3.Schemas {
	out := openapi3.Schemas{}
	for _, a := range s.AllOf {
		for k, v := range schemaProps(a.Value) {
			out[k] = v
		}
	}
	for k, v := range s.Properties {
		out[k] = v
	}
	return out
}

// parseTS reads the interfaces of a TypeScript file: each one's fields,
// `?` marking the optional ones, an `extends` base's included.
func parseTS(src string) map[string][]field {
	out := map[string][]field{}
	bases := map[string][]string{}
	head := regexp.MustCompile(`(?m)^export (?:interface (\w+)(?: extends ([\w, ]+))? \{|type (\w+)\b)`)
	prop := regexp.MustCompile(`^  (\w+)(\??):`)
	lines := strings.Split(src, "\n")
	for i := 0; i < len(lines); i++ {
		m := head.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		if m[3] != "" {
			out[m[3]] = nil
			continue
		}
		name := m[1]
		if m[2] != "" {
			for _, b := range strings.Split(m[2], ",") {
				bases[name] = append(bases[name], strings.TrimSpace(b))
			}
		}
		fs := []field{}
		for i++; i < len(lines) && lines[i] != "}"; i++ {
			if p := prop.FindStringSubmatch(lines[i]); p != nil {
				fs = append(fs, field{name: p[1], optional: p[2] == "?"})
			}
		}
		out[name] = fs
	}
	return withBases(out, bases)
}

// parsePython reads the TypedDicts of a Python file: each one's fields,
// those of a class with total=False optional, its bases' included. A
// TypedDict declared by call (`X = TypedDict("X", {"for": str})`, for a
// field whose name is a Python keyword) is read too.
func parsePython(src string) map[string][]field {
	out := map[string][]field{}
	bases := map[string][]string{}
	call := regexp.MustCompile(`(?m)^(\w+) = TypedDict\("\w+", \{([^}]*)\}(, total=False)?\)`)
	key := regexp.MustCompile(`"(\w+)":`)
	for _, m := range call.FindAllStringSubmatch(src, -1) {
		fs := []field{}
		for _, k := range key.FindAllStringSubmatch(m[2], -1) {
			fs = append(fs, field{name: k[1], optional: m[3] != ""})
		}
		out[m[1]] = fs
	}
	head := regexp.MustCompile(`^class (\w+)\(([^)]*)\):`)
	prop := regexp.MustCompile(`^    (\w+): `)
	lines := strings.Split(src, "\n")
	for i := 0; i < len(lines); i++ {
		m := head.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		name, optional := m[1], strings.Contains(m[2], "total=False")
		for _, b := range strings.Split(m[2], ",") {
			if b = strings.TrimSpace(b); b != "TypedDict" && !strings.Contains(b, "=") && b != "" {
				bases[name] = append(bases[name], b)
			}
		}
		fs := []field{}
		for i++; i < len(lines) && (lines[i] == "" || strings.HasPrefix(lines[i], "    ")); i++ {
			if p := prop.FindStringSubmatch(lines[i]); p != nil {
				fs = append(fs, field{name: p[1], optional: optional})
			}
		}
		i--
		out[name] = fs
	}
	return withBases(out, bases)
}

// withBases adds to each type the fields of its bases, recursively.
func withBases(types map[string][]field, bases map[string][]string) map[string][]field {
	var all func(name string) []field
	all = func(name string) []field {
		fs := slices.Clone(types[name])
		for _, b := range bases[name] {
			fs = append(fs, all(b)...)
		}
		return fs
	}
	out := make(map[string][]field, len(types))
	for name := range types {
		out[name] = all(name)
	}
	return out
}
