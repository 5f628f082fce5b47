package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/recallhq/recall/pkg/events"
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

// bodyParams reads a JSON object body whose fields are the parameters a GET
// of the same route takes in its URL: strings as strings, counts as numbers,
// flags as booleans. Unknown fields, a value of another JSON type, a body
// over API_MAX_BODY_BYTES and half surrogate pairs are a 400 or 413 naming
// the field; it reports whether it answered nothing yet.
func (s *Server) bodyParams(w http.ResponseWriter, r *http.Request, ps []param) (url.Values, bool) {
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
	return qv, true
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
