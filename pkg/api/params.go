package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/memory"
)

// kind is the JSON type a parameter takes in a body; in a URL every value is
// text and the handler parses it.
type kind int

const (
	kindText   kind = iota // a JSON string
	kindNumber             // a JSON number (counts, limits)
	kindBool               // a JSON true or false
	// kindNumberOrBool takes either (search's neighbors: true, or the turns
	// on each side).
	kindNumberOrBool
)

// param is a parameter a route reads from its URL (or, for the POST twin of a
// GET route, from its JSON body). A route answers 400 naming any parameter
// it does not declare, so a mistyped name is never silently ignored; the
// OpenAPI document declares the same names and types (TestRouteParams).
type param struct {
	name string
	kind kind
}

// Param is a route's parameter as the tests compare it with the OpenAPI
// document: its name and its JSON kind ("string", "integer", "boolean", or
// "boolean|integer").
type Param struct {
	Name, Kind string
}

// RouteParams are the query parameters each route declares, by pattern; the
// POST twins of GET routes declare theirs as body fields (RouteBodies).
func RouteParams() map[string][]Param {
	out := map[string][]Param{}
	for _, e := range endpoints {
		out[e.pattern] = exported(e.query)
	}
	return out
}

// RouteBodies are the body fields of the routes whose JSON body is a set of
// parameters (POST /v1/context and POST .../search), by pattern.
func RouteBodies() map[string][]Param {
	out := map[string][]Param{}
	for _, e := range endpoints {
		if e.body != nil {
			out[e.pattern] = exported(e.body)
		}
	}
	return out
}

func exported(ps []param) []Param {
	if len(ps) == 0 {
		return nil
	}
	out := make([]Param, len(ps))
	for i, p := range ps {
		out[i] = Param{Name: p.name, Kind: p.kind.String()}
	}
	return out
}

// String is the kind's name in JSON Schema's words.
func (k kind) String() string {
	switch k {
	case kindNumber:
		return "integer"
	case kindBool:
		return "boolean"
	case kindNumberOrBool:
		return "boolean|integer"
	default:
		return "string"
	}
}

func names(ps []param) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.name
	}
	return out
}

// unknownParams names each query parameter of qv that ps does not declare.
func unknownParams(qv url.Values, ps []param) []events.FieldError {
	var fe []events.FieldError
	for _, k := range slices.Sorted(maps.Keys(qv)) {
		if !slices.ContainsFunc(ps, func(p param) bool { return p.name == k }) {
			msg := "unknown parameter"
			if len(ps) == 0 {
				msg += "; this route takes none"
			} else {
				msg += "; known: " + strings.Join(names(ps), ", ")
			}
			fe = append(fe, events.FieldError{Field: k, Message: msg})
		}
	}
	return fe
}

// repeatedParams names each query parameter given more than once
// (?limit=1&limit=2): a route reads one value of each, and taking the first
// would silently drop the others.
func repeatedParams(qv url.Values) []events.FieldError {
	var fe []events.FieldError
	for _, k := range slices.Sorted(maps.Keys(qv)) {
		if n := len(qv[k]); n > 1 {
			fe = append(fe, events.FieldError{Field: k, Message: fmt.Sprintf("given %d times; give it once (a list is one value, comma-separated, where the route takes one)", n)})
		}
	}
	return fe
}

// args are a request's parameters as text: GET's query, or a POST twin's
// body read as the same text (bodyParams). A route reads them into the
// values the memory service takes, after its table (endpoints) has refused
// any parameter it does not declare or that is given twice. Empty is not
// given. What a value cannot carry (text that is no number, a stated 0
// where the value's 0 leaves the default) is passed as memory.NotANumber,
// memory.NotADuration or memory.FlagUnreadable, which the service refuses
// in its place among the request's other mistakes (memory/params.go).
type args url.Values

// text is the parameter's text; empty when not given.
func (a args) text(name string) string { return url.Values(a).Get(name) }

// number is a whole number that may be 0: nil when not given.
func (a args) number(name string) *int {
	v := a.text(name)
	if v == "" {
		return nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		n = memory.NotANumber
	}
	return &n
}

// count is a count, which starts at 1: 0 when not given (the default); a
// stated 0, which no count takes, is memory.NotANumber.
func (a args) count(name string) int {
	n := a.number(name)
	switch {
	case n == nil:
		return 0
	case *n == 0:
		return memory.NotANumber
	}
	return *n
}

// duration is a Go duration ("24h", "30m"): 0 when not given (the
// default); a stated 0, which no duration parameter takes, is
// memory.NotADuration.
func (a args) duration(name string) time.Duration {
	v := a.text(name)
	if v == "" {
		return 0
	}
	d, err := time.ParseDuration(v)
	if err != nil || d == 0 {
		return memory.NotADuration
	}
	return d
}

// seconds is a wait: seconds (5, 1.5) or a Go duration (5s, 1500ms); nil
// when not given.
func (a args) seconds(name string) *time.Duration {
	v := a.text(name)
	if v == "" {
		return nil
	}
	d, ok := parseSeconds(v)
	if !ok {
		d = memory.NotADuration
	}
	return &d
}

// maxSeconds are the most seconds a time.Duration holds.
const maxSeconds = float64(math.MaxInt64 / int64(time.Second))

// parseSeconds reads seconds (5, 1.5) or a Go duration (5s, 1500ms).
// Negative seconds, and more than a duration holds, are not a wait.
func parseSeconds(v string) (time.Duration, bool) {
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if math.IsNaN(secs) || secs < 0 || secs > maxSeconds {
			return 0, false
		}
		return time.Duration(secs * float64(time.Second)), true
	}
	d, err := time.ParseDuration(v)
	return d, err == nil
}

// flag is true or false (strconv.ParseBool's words); not given, false.
func (a args) flag(name string) memory.Flag {
	v := a.text(name)
	if v == "" {
		return memory.FlagFalse
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return memory.FlagUnreadable
	}
	return memory.FlagOf(b)
}

// page is a paged list's limit and cursor (pageParams).
func (a args) page() memory.Page {
	return memory.Page{Limit: a.count("limit"), Cursor: a.text("cursor")}
}

// bodyParams reads a JSON object body whose fields are the parameters a GET
// of the same route takes in its URL: strings as strings, counts as numbers,
// flags as booleans. Unknown fields, a value of another JSON type, a body
// over API_MAX_BODY_BYTES and half surrogate pairs are a 400 or 413 naming
// the field; it reports whether it answered nothing yet.
func (s *Server) bodyParams(w http.ResponseWriter, r *http.Request, ps []param) (args, bool) {
	body, ok := s.readBody(w, r)
	if !ok {
		return nil, false
	}
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil || raw == nil {
		msg := "want a JSON object"
		if err != nil {
			msg += ": " + err.Error()
		}
		writeError(w, http.StatusBadRequest, "invalid_request", "invalid body", []events.FieldError{{Field: "(body)", Message: msg}})
		return nil, false
	}
	qv := url.Values{}
	var fe []events.FieldError
	for _, k := range slices.Sorted(maps.Keys(raw)) {
		v := raw[k]
		i := slices.IndexFunc(ps, func(p param) bool { return p.name == k })
		if i < 0 {
			fe = append(fe, events.FieldError{Field: k, Message: "unknown field; known: " + strings.Join(names(ps), ", ")})
			continue
		}
		if events.HasLoneSurrogate(v) {
			fe = append(fe, events.FieldError{Field: k, Message: "contains a \\u escape of half a UTF-16 surrogate pair, which is not a character"})
			continue
		}
		var x any
		d := json.NewDecoder(bytes.NewReader(v))
		d.UseNumber()
		if err := d.Decode(&x); err != nil {
			fe = append(fe, events.FieldError{Field: k, Message: err.Error()})
			continue
		}
		if x == nil {
			continue // null: the default
		}
		if text, ok := bodyValue(x, ps[i].kind); ok {
			qv.Set(k, text)
		} else {
			fe = append(fe, events.FieldError{Field: k, Message: fmt.Sprintf("want a JSON %s, got %s", kindWords(ps[i].kind), valueWords(x))})
		}
	}
	if len(fe) > 0 {
		writeError(w, http.StatusBadRequest, "invalid_request", "invalid body", fe)
		return nil, false
	}
	return args(qv), true
}

// bodyValue is a decoded body value as the text a URL would carry, if it is
// of the parameter's kind.
func bodyValue(x any, k kind) (string, bool) {
	switch x := x.(type) {
	case string:
		return x, k == kindText
	case json.Number:
		return x.String(), k == kindNumber || k == kindNumberOrBool
	case bool:
		return strconv.FormatBool(x), k == kindBool || k == kindNumberOrBool
	}
	return "", false
}

func kindWords(k kind) string {
	switch k {
	case kindNumber:
		return "number"
	case kindBool:
		return "boolean (true or false)"
	case kindNumberOrBool:
		return "number or boolean"
	default:
		return "string"
	}
}

func valueWords(x any) string {
	switch x := x.(type) {
	case string:
		return fmt.Sprintf("the string %q", x)
	case json.Number:
		return "the number " + x.String()
	case bool:
		return strconv.FormatBool(x)
	case []any:
		return "an array"
	default:
		return "an object"
	}
}
