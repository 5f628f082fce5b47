package events

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	fastjson "github.com/goccy/go-json"
)

// Limits bound what a producer may send. Defaults are in DefaultLimits; every limit
// is configurable per deployment.
type Limits struct {
	// MaxIDBytes bounds every id (tenant, site, user, session, agent, event).
	MaxIDBytes int
	// MaxContentBytes bounds a turn's content.
	MaxContentBytes int
	// MaxEventBytes bounds the whole encoded event, tool results included. It must
	// stay below the NATS server's max_payload.
	MaxEventBytes int
	// MaxItems bounds the presented list; MaxToolCalls the tool calls of one turn.
	MaxItems     int
	MaxToolCalls int
	// MaxFutureSkew rejects events stamped further in the future than this, when
	// validating at the edge (see ValidateOptions.Now). Zero disables the check.
	MaxFutureSkew time.Duration
}

// DefaultLimits are the limits used when a deployment sets none.
var DefaultLimits = Limits{
	MaxIDBytes:      128,
	MaxContentBytes: 64 << 10,
	MaxEventBytes:   512 << 10,
	MaxItems:        200,
	MaxToolCalls:    64,
	MaxFutureSkew:   24 * time.Hour,
}

// LimitsConfig is the event validation part of the config, shared by the API and
// the workers so both judge a turn the same way.
type LimitsConfig struct {
	// MaxIDBytes bounds every id (tenant, user, session, event, agent), in
	// bytes.
	MaxIDBytes int `env:"EVENT_MAX_ID_BYTES" envDefault:"128"`
	// MaxContentBytes bounds a turn's content, in bytes.
	MaxContentBytes int `env:"EVENT_MAX_CONTENT_BYTES" envDefault:"65536"`
	// MaxEventBytes bounds a whole encoded event, in bytes.
	MaxEventBytes int `env:"EVENT_MAX_BYTES" envDefault:"524288"`
	// MaxItems bounds the items of a presented list.
	MaxItems int `env:"EVENT_MAX_ITEMS" envDefault:"200"`
	// MaxToolCalls bounds a turn's tool calls.
	MaxToolCalls int `env:"EVENT_MAX_TOOL_CALLS" envDefault:"64"`
	// MaxFutureSkew is how far in the future a turn's occurred_at may be. It
	// is checked by the API only, so that a replay never depends on when it
	// runs.
	MaxFutureSkew time.Duration `env:"EVENT_MAX_FUTURE_SKEW" envDefault:"24h"`
}

// Limits converts the config to Limits.
func (c LimitsConfig) Limits() Limits {
	return Limits{
		MaxIDBytes: c.MaxIDBytes, MaxContentBytes: c.MaxContentBytes, MaxEventBytes: c.MaxEventBytes,
		MaxItems: c.MaxItems, MaxToolCalls: c.MaxToolCalls, MaxFutureSkew: c.MaxFutureSkew,
	}
}

// FieldError names the field that is wrong and why, in words a producer can act on.
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

func (e FieldError) Error() string { return e.Field + ": " + e.Message }

// ValidationError carries every problem found in one event, not only the first, so a
// producer fixes its payload in one round.
type ValidationError struct {
	Fields []FieldError `json:"errors"`
}

func (e *ValidationError) Error() string {
	parts := make([]string, len(e.Fields))
	for i, f := range e.Fields {
		parts[i] = f.Error()
	}
	return "invalid event: " + strings.Join(parts, "; ")
}

// Prefixed returns a copy with every field prefixed, as "[3].role" for the fourth
// turn of a batch.
func (e *ValidationError) Prefixed(prefix string) *ValidationError {
	out := &ValidationError{Fields: make([]FieldError, len(e.Fields))}
	for i, f := range e.Fields {
		out.Fields[i] = FieldError{Field: prefix + f.Field, Message: f.Message}
	}
	return out
}

// RepeatedIDs reports the turns of a batch that repeat an earlier turn's id, as
// "[i].id" errors: one request must not carry two turns of one id, since the
// second would be dropped as a duplicate of the first.
func RepeatedIDs(turns []Turn) []FieldError {
	var out []FieldError
	first := make(map[string]int, len(turns))
	for i, t := range turns {
		if t.ID == "" {
			continue
		}
		if j, dup := first[t.ID]; dup {
			out = append(out, FieldError{Field: fmt.Sprintf("[%d].id", i), Message: fmt.Sprintf("same id as [%d]", j)})
			continue
		}
		first[t.ID] = i
	}
	return out
}

type fieldErrors []FieldError

func (fe *fieldErrors) add(field, format string, args ...any) {
	*fe = append(*fe, FieldError{Field: field, Message: fmt.Sprintf(format, args...)})
}

func (fe fieldErrors) err() error {
	if len(fe) == 0 {
		return nil
	}
	return &ValidationError{Fields: fe}
}

// ValidateOptions are the context-dependent parts of validation.
type ValidateOptions struct {
	Limits Limits
	// Now, when set, enables the future-skew check. The API sets it; workers leave
	// it nil so that whether an event is accepted never depends on when it is
	// (re)processed.
	Now func() time.Time
}

// DecodeTurn parses and validates one encoded turn. Invalid UTF-8 is rejected before
// decoding because encoding/json would silently replace it with U+FFFD, and the
// stored text would then differ from what was sent.
func DecodeTurn(raw []byte, opts ValidateOptions) (Turn, error) {
	t, err := ParseTurn(raw, opts.Limits)
	if err != nil {
		return t, err
	}
	return t, ValidateTurn(&t, opts)
}

// ParseTurn decodes a turn without validating its fields, for callers that fill
// defaults (the API takes the tenant from its header) before ValidateTurn.
func ParseTurn(raw []byte, lim Limits) (Turn, error) {
	var w wireTurn
	var t Turn
	if lim.MaxEventBytes > 0 && len(raw) > lim.MaxEventBytes {
		return t, eventTooLarge(len(raw), lim)
	}
	if !utf8.Valid(raw) {
		return t, &ValidationError{Fields: []FieldError{{Field: "(event)", Message: "not valid UTF-8"}}}
	}
	// A decoder turns half a surrogate pair into U+FFFD, so two different ids
	// would become one: the string fields are checked before decoding (the
	// JSON values stored as sent are checked with the rest of the turn).
	if fe := surrogateFields(raw); len(fe) > 0 {
		return t, &ValidationError{Fields: fe}
	}
	// goccy/go-json decodes turns several times faster than encoding/json; this
	// is the hot path of every worker.
	if err := fastjson.Unmarshal(raw, &w); err != nil {
		var te *fastjson.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			field := FieldPath(te.Field)
			return t, &ValidationError{Fields: []FieldError{{Field: field, Message: fmt.Sprintf("want %s, got a JSON %s", JSONKind(te.Type.Kind().String()), te.Value)}}}
		}
		return t, &ValidationError{Fields: []FieldError{{Field: "(event)", Message: "malformed JSON: " + err.Error()}}}
	}
	return w.turn(), nil
}

// ParseTurnStrict is ParseTurn for a front door (the API, MCP): a field the
// envelope does not define, at the top of the turn, in a tool call or in an
// item, is an error that ValidateTurn reports with the others, named with
// its place ("itmes", "tool_calls[0].argumnets"), so that a misspelt field
// is refused instead of silently lost. arguments, result, attrs and metadata
// stay free-form. The workers read the stream with ParseTurn, which ignores
// such fields: a turn a newer producer adds a field to is not dead-lettered
// by an older worker (docs/events.md). The check decodes the turn's keys
// once more, at the door only, never on a worker's hot path.
func ParseTurnStrict(raw []byte, lim Limits) (Turn, error) {
	t, err := ParseTurn(raw, lim)
	if err != nil {
		return t, err
	}
	t.unknown = unknownTurnFields(raw)
	return t, nil
}

// ReadTurn is ParseTurnStrict for a front door that validates its turns
// later, all at once (memory.Service.AddTurns): a turn it cannot read (not
// UTF-8, over MaxEventBytes, malformed JSON, a value of the wrong type)
// comes back empty but for why, which ValidateTurn then reports alone, in
// the turn's place among the others, as ParseTurnStrict's error would have
// said it.
func ReadTurn(raw []byte, lim Limits) Turn {
	t, err := ParseTurnStrict(raw, lim)
	if err != nil {
		return unreadTurn(err)
	}
	return t
}

// MeasureTurn holds a turn built in code to what ParseTurn holds one read
// from its bytes to: its encoding must be JSON within lim.MaxEventBytes
// (0: no bound). A turn that is not (a tool call's arguments that are not
// JSON, an encoding over the bound) becomes an empty turn that says why,
// on "(event)", which ValidateTurn reports alone, as ReadTurn's would be:
// it is refused with its batch before anything is published.
func MeasureTurn(t *Turn, lim Limits) {
	raw, err := json.Marshal(t)
	switch {
	case err != nil:
		*t = unreadTurn(&ValidationError{Fields: []FieldError{{Field: "(event)", Message: "cannot be encoded as JSON: " + err.Error()}}})
	case lim.MaxEventBytes > 0 && len(raw) > lim.MaxEventBytes:
		*t = unreadTurn(eventTooLarge(len(raw), lim))
	}
}

// unreadTurn is an empty turn that carries err, a reading's failure, for
// ValidateTurn.
func unreadTurn(err error) Turn {
	var ve *ValidationError
	if errors.As(err, &ve) {
		return Turn{unread: ve.Fields}
	}
	return Turn{unread: []FieldError{{Field: "(event)", Message: err.Error()}}}
}

// eventTooLarge is the error of an event of n bytes, over the limit.
func eventTooLarge(n int, lim Limits) error {
	return &ValidationError{Fields: []FieldError{{Field: "(event)", Message: fmt.Sprintf("event is %d bytes, limit is %d", n, lim.MaxEventBytes)}}}
}

// The fields of a turn, of a tool call and of an item, read from their
// types' JSON tags so that the list cannot drift from the envelope.
var (
	turnFieldNames     = jsonFields(reflect.TypeFor[Turn]())
	toolCallFieldNames = jsonFields(reflect.TypeFor[ToolCall]())
	itemFieldNames     = jsonFields(reflect.TypeFor[Item]())
)

func jsonFields(t reflect.Type) []string {
	var out []string
	for f := range t.Fields() {
		if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); f.IsExported() && name != "" && name != "-" {
			out = append(out, name)
		}
	}
	return out
}

// unknownTurnFields names every field of a raw turn, of its tool calls and
// of its items that the envelope does not define, in document order within
// each object, keys sorted. Names are matched exactly: "Content" is not
// content. A part that does not decode as the envelope says (tool_calls not
// an array) is left to ParseTurn's errors.
func unknownTurnFields(raw []byte) []FieldError {
	var top map[string]fastjson.RawMessage
	if fastjson.Unmarshal(raw, &top) != nil {
		return nil
	}
	var fe []FieldError
	unknownKeys(&fe, "", top, turnFieldNames, "put data of your own in metadata")
	for _, list := range []struct {
		name, hint string
		known      []string
	}{
		{"tool_calls", "put data of your own in arguments or result, or in the turn's metadata", toolCallFieldNames},
		{"items", "put data of your own in attrs", itemFieldNames},
	} {
		v, ok := top[list.name]
		if !ok {
			continue
		}
		var elems []map[string]fastjson.RawMessage
		if fastjson.Unmarshal(v, &elems) != nil {
			continue
		}
		for i, e := range elems {
			unknownKeys(&fe, fmt.Sprintf("%s[%d].", list.name, i), e, list.known, list.hint)
		}
	}
	return fe
}

func unknownKeys(fe *[]FieldError, prefix string, obj map[string]fastjson.RawMessage, known []string, hint string) {
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		if !slices.Contains(known, k) {
			*fe = append(*fe, FieldError{Field: prefix + k,
				Message: "unknown field; known: " + strings.Join(known, ", ") + "; " + hint})
		}
	}
}

// FieldPath is a JSON decoder's path to a field ("tool_calls.0.duration_ms")
// as every field error names it: an array's element by its index in
// brackets ("tool_calls[0].duration_ms").
func FieldPath(decoded string) string {
	parts := strings.Split(decoded, ".")
	var b strings.Builder
	for i, p := range parts {
		if p != "" && strings.Trim(p, "0123456789") == "" && i > 0 {
			b.WriteString("[" + p + "]")
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(p)
	}
	return b.String()
}

// JSONKind is what a JSON value decoded into a Go value of kind k (its
// reflect.Kind's name) has to be, in the words of a field error: "want a
// string, got a JSON number". Every decoder of client input (turns, signals,
// MCP tool arguments) words a value of the wrong type the same way.
func JSONKind(k string) string {
	switch k {
	case "string":
		return "a string"
	case "slice":
		return "an array"
	case "struct", "map":
		return "an object"
	case "int", "int64", "uint64":
		return "a whole number"
	case "bool":
		return "true or false"
	case "float64", "float32":
		return "a number"
	}
	return k
}

// ValidateTurn checks a decoded turn and fills defaults (V). It reports every
// problem at once; a turn that could not be read (ReadTurn, MeasureTurn)
// has no other: why it could not is all it reports.
func ValidateTurn(t *Turn, opts ValidateOptions) error {
	if t.unread != nil {
		return &ValidationError{Fields: slices.Clone(t.unread)}
	}
	lim := opts.Limits
	var fe fieldErrors
	if t.V == 0 {
		t.V = Version
	}
	if t.V != Version {
		fe.add("v", "unsupported version %d (this build understands %d)", t.V, Version)
	}
	checkID(&fe, "id", t.ID, true, lim)
	checkID(&fe, "tenant_id", t.TenantID, true, lim)
	checkID(&fe, "user_id", t.UserID, true, lim)
	checkID(&fe, "session_id", t.SessionID, true, lim)
	checkID(&fe, "site_id", t.SiteID, false, lim)
	checkID(&fe, "agent_id", t.AgentID, false, lim)

	checkTime(&fe, "occurred_at", t.OccurredAt, t.badTime, opts)

	switch t.Role {
	case RoleUser, RoleAssistant, RoleSystem, RoleTool:
	case "":
		fe.add("role", "required: one of user, assistant, system, tool")
	default:
		fe.add("role", "unknown role %q: one of user, assistant, system, tool", ClipUTF8(t.Role, 32, "…"))
	}

	if lim.MaxContentBytes > 0 && len(t.Content) > lim.MaxContentBytes {
		fe.add("content", "%d bytes, limit is %d", len(t.Content), lim.MaxContentBytes)
	}
	if strings.IndexByte(t.Content, 0) >= 0 {
		fe.add("content", "contains a NUL character")
	}
	if t.Content == "" && len(t.ToolCalls) == 0 && len(t.Items) == 0 {
		fe.add("content", "required when a turn has no tool_calls and no items")
	}

	before := len(fe)
	if lim.MaxToolCalls > 0 && len(t.ToolCalls) > lim.MaxToolCalls {
		fe.add("tool_calls", "%d tool calls, limit is %d", len(t.ToolCalls), lim.MaxToolCalls)
	}
	for i, tc := range t.ToolCalls {
		p := fmt.Sprintf("tool_calls[%d].", i)
		if tc.Name == "" {
			fe.add(p+"name", "required")
		} else if len(tc.Name) > 128 {
			fe.add(p+"name", "%d bytes, limit is 128", len(tc.Name))
		}
		if len(tc.Status) > 32 {
			fe.add(p+"status", "%d bytes, limit is 32", len(tc.Status))
		}
		if tc.DurationMS < 0 {
			fe.add(p+"duration_ms", "must not be negative")
		}
		checkRaw(&fe, p+"arguments", tc.Arguments, false)
		checkRaw(&fe, p+"result", tc.Result, false)
	}

	// tool_calls and items are stored as received, fields this build does not
	// know included: what jsonb cannot hold anywhere in them is rejected here,
	// naming the array when the known fields above were fine.
	if len(fe) == before {
		checkRaw(&fe, "tool_calls", t.rawToolCalls, false)
	}

	before = len(fe)
	if lim.MaxItems > 0 && len(t.Items) > lim.MaxItems {
		fe.add("items", "%d items, limit is %d", len(t.Items), lim.MaxItems)
	}
	for i, it := range t.Items {
		p := fmt.Sprintf("items[%d].", i)
		checkRef(&fe, p+"ref", it.Ref)
		if len(it.Title) > MaxTitleBytes {
			fe.add(p+"title", "%d bytes, limit is %d", len(it.Title), MaxTitleBytes)
		}
		if strings.IndexByte(it.Title, 0) >= 0 {
			fe.add(p+"title", "contains a NUL character")
		}
		checkRaw(&fe, p+"attrs", it.Attrs, true)
	}
	if len(fe) == before {
		checkRaw(&fe, "items", t.rawItems, false)
	}
	checkRaw(&fe, "metadata", t.Metadata, true)
	fe = append(fe, t.unknown...)
	return fe.err()
}

func checkID(fe *fieldErrors, field, v string, required bool, lim Limits) {
	switch {
	case v == "":
		if required {
			fe.add(field, "required")
		}
	case lim.MaxIDBytes > 0 && len(v) > lim.MaxIDBytes:
		fe.add(field, "%d bytes, limit is %d", len(v), lim.MaxIDBytes)
	case strings.ContainsFunc(v, isControl):
		fe.add(field, "contains control characters")
	case pathDots(field, v):
		fe.add(field, "%s", DotIDMessage(v))
	}
}

// pathDots reports whether v is an id that names a path segment (a turn's
// id, its user or its session) and is "." or "..": a URL path cannot hold
// those as a segment (clients and servers resolve them away, whatever the
// escaping), so no route could ever reach such a turn, user or session.
func pathDots(field, v string) bool {
	switch field {
	case "id", "user_id", "session_id":
		return IsDotID(v)
	}
	return false
}

// IsDotID reports whether id is "." or "..", which no URL path can carry as
// a segment: every front door refuses them as turn, user and session ids.
func IsDotID(id string) bool { return id == "." || id == ".." }

// DotIDMessage is the field error every front door gives for IsDotID ids.
func DotIDMessage(id string) string {
	return fmt.Sprintf("%q cannot be an id: a URL path cannot carry it as a segment, so no route could reach it", id)
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// nulEscape is how JSON spells a NUL character; PostgreSQL's jsonb cannot store it.
var nulEscape = []byte(`\u0000`)

// checkRaw checks a raw JSON value that is stored as jsonb: when object is set it
// must be an object (or null), and it may not hold a NUL character anywhere.
func checkRaw(fe *fieldErrors, field string, raw json.RawMessage, object bool) {
	if len(raw) == 0 {
		return
	}
	if object {
		if c := firstNonSpace(raw); c != '{' && !bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
			fe.add(field, "must be a JSON object")
		}
	}
	if bytes.Contains(raw, nulEscape) && hasNul(raw) {
		fe.add(field, "contains a NUL character (\\u0000), which cannot be stored")
	}
	if loneSurrogate(raw) {
		fe.add(field, "contains a \\u escape of half a UTF-16 surrogate pair, which is not a character and cannot be stored")
	}
	if n, ok := unstorableNumber(raw); ok {
		fe.add(field, "holds the number %s, which PostgreSQL cannot store (at most %d digits before the decimal point and %d after)",
			ClipUTF8(n, 40, "…"), pgNumericMaxWeight, pgNumericMaxScale)
	}
}

// PostgreSQL's jsonb keeps numbers as numeric, which holds at most this many
// digits before the decimal point and after it (the literal's own, exponent
// applied: 1e131072 and 1e-16384 are too long).
const (
	pgNumericMaxWeight = 131072
	pgNumericMaxScale  = 16383
)

// unstorableNumber returns the first number in raw JSON that PostgreSQL's
// numeric cannot hold. Only numbers outside strings are read; the scan costs
// one pass over the bytes.
func unstorableNumber(raw []byte) (string, bool) {
	inString := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		if c == '"' {
			inString = true
			continue
		}
		if c != '-' && (c < '0' || c > '9') {
			continue
		}
		j := i
		for j < len(raw) && strings.IndexByte("+-0123456789.eE", raw[j]) >= 0 {
			j++
		}
		if !numericFits(raw[i:j]) {
			return string(raw[i:j]), true
		}
		i = j - 1
	}
	return "", false
}

// numericFits reports whether a JSON number literal fits PostgreSQL's numeric:
// its digits before the decimal point (leading zeros aside, exponent applied)
// and its scale (fraction digits less the exponent) within the limits.
func numericFits(lit []byte) bool {
	s := strings.TrimPrefix(string(lit), "-")
	mant, exp, hasExp := strings.Cut(strings.ToLower(s), "e")
	e := 0
	if hasExp {
		exp = strings.TrimPrefix(exp, "+")
		neg := strings.HasPrefix(exp, "-")
		exp = strings.TrimLeft(strings.TrimPrefix(exp, "-"), "0")
		if len(exp) > 7 { // beyond any limit either way, and beyond int on the way
			return false
		}
		for _, d := range exp {
			e = e*10 + int(d-'0')
		}
		if neg {
			e = -e
		}
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := strings.TrimLeft(intPart+frac, "0")
	if digits != "" {
		// The position of the first significant digit, as a count of digits
		// before the decimal point.
		weight := len(intPart) - (len(intPart+frac) - len(digits)) + e
		if weight > pgNumericMaxWeight {
			return false
		}
	}
	return max(len(frac)-e, 0) <= pgNumericMaxScale
}

// loneSurrogate reports whether raw JSON holds a \uD800–\uDFFF escape that is
// not part of a high-low pair: JSON parsers differ on it (Go's replaces it with
// U+FFFD), and PostgreSQL's jsonb rejects it. Only text that has such an escape
// at all is scanned.
func loneSurrogate(raw []byte) bool {
	if !bytes.Contains(raw, []byte(`\ud`)) && !bytes.Contains(raw, []byte(`\uD`)) {
		return false
	}
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' || i+1 >= len(raw) {
			continue
		}
		if raw[i+1] != 'u' {
			i++ // a two-character escape such as \\ or \"
			continue
		}
		r, ok := hex4(raw[i+2:])
		if !ok {
			return false // not JSON; the decoder has said so already
		}
		i += 5 // at the escape's last digit
		switch {
		case r >= 0xDC00 && r <= 0xDFFF:
			return true
		case r >= 0xD800 && r <= 0xDBFF:
			if i+6 < len(raw) && raw[i+1] == '\\' && raw[i+2] == 'u' {
				if lo, ok := hex4(raw[i+3:]); ok && lo >= 0xDC00 && lo <= 0xDFFF {
					i += 6
					continue
				}
			}
			return true
		}
	}
	return false
}

// HasLoneSurrogate reports whether raw JSON holds a \u escape of half a
// UTF-16 surrogate pair, which decoders replace with U+FFFD: callers that
// decode strings from JSON reject such input instead of storing something else.
func HasLoneSurrogate(raw []byte) bool { return loneSurrogate(raw) }

// surrogateFields names the top-level string fields of an event that hold
// half a surrogate pair. tool_calls, items and metadata are stored as sent and
// checked by checkRaw with their inner field names.
func surrogateFields(raw []byte) []FieldError {
	if !loneSurrogate(raw) {
		return nil
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(raw, &top) != nil {
		return nil // malformed: the decoder will say so
	}
	var fe []FieldError
	for _, k := range slices.Sorted(maps.Keys(top)) {
		switch k {
		case "tool_calls", "items", "metadata", "attrs", "embedding":
			continue
		}
		if loneSurrogate(top[k]) {
			fe = append(fe, FieldError{Field: k, Message: "contains a \\u escape of half a UTF-16 surrogate pair, which is not a character"})
		}
	}
	return fe
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

func firstNonSpace(b []byte) byte {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return c
	}
	return 0
}

// hasNul reports whether a JSON value decodes to a string containing NUL. Only
// called when the raw bytes contain the escape, so the hot path never decodes.
func hasNul(raw []byte) bool {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return false
	}
	var walk func(any) bool
	walk = func(v any) bool {
		switch x := v.(type) {
		case string:
			return strings.IndexByte(x, 0) >= 0
		case []any:
			for _, e := range x {
				if walk(e) {
					return true
				}
			}
		case map[string]any:
			for k, e := range x {
				if strings.IndexByte(k, 0) >= 0 || walk(e) {
					return true
				}
			}
		}
		return false
	}
	return walk(v)
}

// ClipUTF8 is s cut to at most n bytes at a rune boundary, so that a cut
// never splits a character, with tail appended (not counted in n) when s
// was cut. Messages that quote a caller's value clip it with an ellipsis
// (validation here, the memory service's); text cut to fit a limit has no
// tail (what search embeds, the gateway's query and stored turns, a fuzz
// failure's quote, which says the length itself).
func ClipUTF8(s string, n int, tail string) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + tail
}
