package events_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/recallhq/recall/pkg/queue"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/envconfig"
	"github.com/recallhq/recall/pkg/events"
)

const validTurn = `{"id":"e1","tenant_id":"t1","user_id":"u1","session_id":"s1","occurred_at":"2026-11-22T08:00:00Z","role":"user","content":"hello"}`

func fields(err error) []string {
	ve, ok := err.(*events.ValidationError)
	if !ok {
		return nil
	}
	out := make([]string, len(ve.Fields))
	for i, f := range ve.Fields {
		out[i] = f.Field
	}
	return out
}

func TestDecodeTurn(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	long := strings.Repeat("x", 129)
	cases := []struct {
		name   string
		raw    string
		fields []string // nil: valid
	}{
		{"valid", validTurn, nil},
		{"valid with structure", `{"v":1,"id":"e1","tenant_id":"t1","user_id":"u1","session_id":"s1","occurred_at":"2026-11-22T08:00:00.123+08:00","role":"assistant","content":"","tool_calls":[{"name":"search","arguments":{"q":"x"},"result":[1,2],"status":"ok","duration_ms":12}],"items":[{"ref":"/mv/1","title":"A","attrs":{"rating":8}}],"metadata":{"k":"v"}}`, nil},
		{"chinese ids", `{"id":"事件1","tenant_id":"租户","user_id":"用户 1","session_id":"会话.1","occurred_at":"2026-11-22T08:00:00Z","role":"user","content":"你好"}`, nil},
		{"malformed", `{"id":`, []string{"(event)"}},
		{"not an object", `[1]`, []string{"(event)"}},
		{"wrong type", `{"id":5}`, []string{"id"}},
		{"missing everything", `{}`, []string{"id", "tenant_id", "user_id", "session_id", "occurred_at", "role", "content"}},
		{"long id", strings.Replace(validTurn, `"u1"`, `"`+long+`"`, 1), []string{"user_id"}},
		{"control char in id", strings.Replace(validTurn, `"s1"`, `"s\n1"`, 1), []string{"session_id"}},
		{"unknown role", strings.Replace(validTurn, `"user"`, `"bot"`, 1), []string{"role"}},
		{"bad time", strings.Replace(validTurn, `"2026-11-22T08:00:00Z"`, `"yesterday"`, 1), []string{"occurred_at"}},
		{"numeric time", strings.Replace(validTurn, `"2026-11-22T08:00:00Z"`, `1700000000`, 1), []string{"occurred_at"}},
		{"ancient time", strings.Replace(validTurn, `"2026-11-22T08:00:00Z"`, `"1999-01-01T00:00:00Z"`, 1), []string{"occurred_at"}},
		{"future time", strings.Replace(validTurn, `"2026-11-22T08:00:00Z"`, `"2026-11-24T08:00:00Z"`, 1), []string{"occurred_at"}},
		{"bad time and role together", `{"id":"e1","tenant_id":"t1","user_id":"u1","session_id":"s1","occurred_at":"x","role":"bot","content":"c"}`, []string{"occurred_at", "role"}},
		{"version", strings.Replace(validTurn, `{`, `{"v":2,`, 1), []string{"v"}},
		{"nul in content", strings.Replace(validTurn, `"hello"`, `"a\u0000b"`, 1), []string{"content"}},
		{"nul in tool result", strings.Replace(validTurn, `"content":"hello"`, `"content":"hello","tool_calls":[{"name":"t","result":{"a":"\u0000"}}]`, 1), []string{"tool_calls[0].result"}},
		{"escaped backslash is not nul", strings.Replace(validTurn, `"content":"hello"`, `"content":"hello","metadata":{"a":"\\u0000"}`, 1), nil},
		{"tool call without name", strings.Replace(validTurn, `"content":"hello"`, `"content":"hello","tool_calls":[{"arguments":{}}]`, 1), []string{"tool_calls[0].name"}},
		{"negative duration", strings.Replace(validTurn, `"content":"hello"`, `"content":"hello","tool_calls":[{"name":"a","duration_ms":-1}]`, 1), []string{"tool_calls[0].duration_ms"}},
		{"item without ref", strings.Replace(validTurn, `"content":"hello"`, `"content":"hello","items":[{"ref":"/a"},{"title":"b"}]`, 1), []string{"items[1].ref"}},
		{"attrs not object", strings.Replace(validTurn, `"content":"hello"`, `"content":"hello","items":[{"ref":"/a","attrs":[1]}]`, 1), []string{"items[0].attrs"}},
		{"metadata not object", strings.Replace(validTurn, `"content":"hello"`, `"content":"hello","metadata":"x"`, 1), []string{"metadata"}},
		{"empty content with items is fine", strings.Replace(validTurn, `"content":"hello"`, `"content":"","items":[{"ref":"/a"}]`, 1), nil},
		{"empty list is a list", strings.Replace(validTurn, `"content":"hello"`, `"content":"hello","items":[]`, 1), nil},
		{"long ref", strings.Replace(validTurn, `"content":"hello"`, `"content":"hello","items":[{"ref":"/`+strings.Repeat("r", events.MaxRefBytes)+`"}]`, 1), []string{"items[0].ref"}},
		{"nul in an item field this build does not know", strings.Replace(validTurn, `"content":"hello"`, `"content":"hello","items":[{"ref":"/a","url":"x\u0000"}]`, 1), []string{"items"}},
		{"nul in a tool call field this build does not know", strings.Replace(validTurn, `"content":"hello"`, `"content":"hello","tool_calls":[{"name":"a","trace":{"\u0000":1}}]`, 1), []string{"tool_calls"}},
		{"nul in attrs is named once", strings.Replace(validTurn, `"content":"hello"`, `"content":"hello","items":[{"ref":"/a","attrs":{"a":"\u0000"}}]`, 1), []string{"items[0].attrs"}},
		{"lone high surrogate in attrs", strings.Replace(validTurn, `"content":"hello"`, `"content":"hello","items":[{"ref":"/a","attrs":{"a":"x\ud83dy"}}]`, 1), []string{"items[0].attrs"}},
		{"lone low surrogate in a tool result", strings.Replace(validTurn, `"content":"hello"`, `"content":"hello","tool_calls":[{"name":"a","result":"\uDE00"}]`, 1), []string{"tool_calls[0].result"}},
		{"high surrogate at the end of a title", strings.Replace(validTurn, `"content":"hello"`, `"content":"hello","items":[{"ref":"/a","title":"\ud83d"}]`, 1), []string{"items"}},
		{"lone surrogate in metadata key", strings.Replace(validTurn, `"content":"hello"`, `"content":"hello","metadata":{"\udc00":1}`, 1), []string{"metadata"}},
		{"surrogate pairs are fine", strings.Replace(validTurn, `"content":"hello"`, `"content":"hello","items":[{"ref":"/a","title":"\ud83d\ude00","attrs":{"e":"\uD83D\uDE00"}}],"metadata":{"e":"\ud83d\ude00"}`, 1), nil},
		{"escaped backslash before ud800 is not an escape", strings.Replace(validTurn, `"content":"hello"`, `"content":"hello","metadata":{"a":"\\ud800"}`, 1), nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			turn, err := events.DecodeTurn([]byte(tc.raw), events.ValidateOptions{Limits: events.DefaultLimits, Now: func() time.Time { return now }})
			if tc.fields == nil {
				require.NoError(t, err)
				require.Equal(t, events.Version, turn.V)
				return
			}
			require.Error(t, err)
			require.True(t, queue.IsPermanent(err), "validation errors are permanent")
			require.Equal(t, tc.fields, fields(err), err.Error())
		})
	}
}

func TestDecodeTurnLimits(t *testing.T) {
	t.Parallel()
	lim := events.DefaultLimits
	lim.MaxContentBytes = 10
	raw := strings.Replace(validTurn, `"hello"`, `"`+strings.Repeat("长", 4)+`"`, 1) // 12 bytes
	_, err := events.DecodeTurn([]byte(raw), events.ValidateOptions{Limits: lim})
	require.Equal(t, []string{"content"}, fields(err))
	require.Contains(t, err.Error(), "12 bytes, limit is 10")

	lim = events.DefaultLimits
	lim.MaxEventBytes = 50
	_, err = events.DecodeTurn([]byte(validTurn), events.ValidateOptions{Limits: lim})
	require.Equal(t, []string{"(event)"}, fields(err))

	_, err = events.DecodeTurn([]byte("{\"id\":\"\xff\"}"), events.ValidateOptions{Limits: events.DefaultLimits})
	require.Equal(t, []string{"(event)"}, fields(err))
	require.Contains(t, err.Error(), "UTF-8")
}

func TestDecodeTurnNoFutureCheckWithoutClock(t *testing.T) {
	t.Parallel()
	raw := strings.Replace(validTurn, `"2026-11-22T08:00:00Z"`, `"2099-01-01T00:00:00Z"`, 1)
	_, err := events.DecodeTurn([]byte(raw), events.ValidateOptions{Limits: events.DefaultLimits})
	require.NoError(t, err, "workers must accept what the edge accepted, whenever they run")
}

// FuzzParseTurn checks the fast decoder against encoding/json: it never accepts
// what the standard library rejects, and where both accept they agree.
func FuzzParseTurn(f *testing.F) {
	f.Add([]byte(validTurn))
	f.Add([]byte(`{"id":"a","tool_calls":[{"name":"x","result":{"a":[1,2,{"b":null}]}}],"items":[{"ref":"/r","attrs":{}}]}`))
	f.Add([]byte(`{"id":"\u00e9\ud83d\ude00","occurred_at":"2026-01-01T00:00:00\u002b08:00"}`))
	f.Add([]byte(`{"id":1}`))
	f.Add([]byte(`{"id":"a","id":"b"}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, err := events.ParseTurn(raw, events.DefaultLimits)
		var std struct {
			ID, TenantID, Content string
			Metadata              json.RawMessage
		}
		stdErr := json.Unmarshal(raw, &std)
		if !utf8.Valid(raw) || len(raw) > events.DefaultLimits.MaxEventBytes {
			require.Error(t, err)
			return
		}
		var probe map[string]any
		if json.Unmarshal(raw, &probe) != nil {
			require.Error(t, err, "accepted what encoding/json rejects: %q", raw)
			return
		}
		if err == nil && stdErr == nil {
			require.Equal(t, std.ID, got.ID)
			require.Equal(t, std.Content, got.Content)
		}
	})
}

// The limits a binary reads from an empty environment are DefaultLimits: the
// contract package keeps a literal (producers need no config library), and
// this keeps it equal to the env tags, the one place defaults are set.
func TestDefaultLimitsAreTheEnvDefaults(t *testing.T) {
	t.Parallel()
	require.Equal(t, events.DefaultLimits, envconfig.Defaults[events.LimitsConfig]().Limits())
}

// Numbers PostgreSQL's numeric cannot hold are a validation error naming the
// field, at the edge, not a dead letter after the producer was told 202.
func TestUnstorableNumbersRejected(t *testing.T) {
	t.Parallel()
	base := `{"id":"e1","tenant_id":"t","user_id":"u","session_id":"s","occurred_at":"2026-01-01T00:00:00Z","role":"assistant","content":"x"`
	cases := []struct {
		extra string
		field string
	}{
		{`,"metadata":{"n":1e1000000}`, "metadata"},
		{`,"metadata":{"n":1e131072}`, "metadata"},
		{`,"metadata":{"n":-1e-16384}`, "metadata"},
		{`,"metadata":{"n":123456789012345678901234567890e-16400}`, "metadata"},
		{`,"tool_calls":[{"name":"f","arguments":{"x":[1,2,1E+999999]}}]`, "tool_calls[0].arguments"},
		{`,"tool_calls":[{"name":"f","result":1e9999999999999999999}]`, "tool_calls[0].result"},
		{`,"items":[{"ref":"/a","attrs":{"rating":1e200000}}]`, "items[0].attrs"},
	}
	for _, tc := range cases {
		_, err := events.DecodeTurn([]byte(base+tc.extra+"}"), events.ValidateOptions{Limits: events.DefaultLimits})
		require.Error(t, err, tc.extra)
		require.Contains(t, fields(err), tc.field, tc.extra)
		require.Contains(t, err.Error(), "PostgreSQL cannot store", tc.extra)
	}
	// What numeric holds passes, strings that look like numbers too.
	for _, ok := range []string{`,"metadata":{"n":1e131071,"m":1e-16383,"k":0.000000001,"s":"1e1000000","big":12345678901234567890123,"neg":-0.5e-3}`} {
		_, err := events.DecodeTurn([]byte(base+ok+"}"), events.ValidateOptions{Limits: events.DefaultLimits})
		require.NoError(t, err)
	}
}

// Half a surrogate pair in a string field is rejected naming the field: a
// decoder would make it U+FFFD, so "...\ud83d" and "...\ud83e" would become
// the same id and the second turn would be dropped as a duplicate.
func TestLoneSurrogatesInStringFieldsRejected(t *testing.T) {
	t.Parallel()
	body := func(id, content string) []byte {
		return []byte(`{"id":"` + id + `","tenant_id":"t","user_id":"u","session_id":"s","occurred_at":"2026-01-01T00:00:00Z","role":"user","content":"` + content + `"}`)
	}
	for _, tc := range []struct {
		raw   []byte
		field string
	}{
		{body(`e-\ud83d`, "hi"), "id"},
		{body(`e-\ud83e`, "hi"), "id"},
		{body("e1", `broken \udc00 half`), "content"},
		{[]byte(`{"id":"e1","tenant_id":"t","user_id":"u\ud800","session_id":"s","occurred_at":"2026-01-01T00:00:00Z","role":"user","content":"x"}`), "user_id"},
	} {
		_, err := events.DecodeTurn(tc.raw, events.ValidateOptions{Limits: events.DefaultLimits})
		require.Error(t, err, string(tc.raw))
		require.Equal(t, []string{tc.field}, fields(err), string(tc.raw))
	}
	// A whole pair is a character (😀) and passes.
	turn, err := events.DecodeTurn(body(`e-\ud83d\ude00`, `smile \ud83d\ude00`), events.ValidateOptions{Limits: events.DefaultLimits})
	require.NoError(t, err)
	require.Equal(t, "e-😀", turn.ID)
	// Catalog and shelf envelopes too.
	_, err = events.DecodeShelfEntry([]byte(`{"id":"x","tenant_id":"t","user_id":"u","occurred_at":"2026-01-01T00:00:00Z","ref":"/b/\udbff","status":"read"}`), events.ValidateOptions{Limits: events.DefaultLimits})
	require.Error(t, err)
	require.Equal(t, []string{"ref"}, fields(err))
}

// ParseTurnStrict, the front doors' parse, names every field the envelope
// does not define, with its place, among the turn's other problems;
// ParseTurn, the workers', ignores them (a newer producer's field does not
// dead-letter a turn at an older worker). Free-form values hold anything.
func TestParseTurnStrict(t *testing.T) {
	t.Parallel()
	raw := strings.Replace(validTurn, `"content":"hello"`, `"content":"hello","itmes":[],"Role":"user",`+
		`"tool_calls":[{"name":"a","argumnets":{},"arguments":{"any":1},"result":{"any":2}}],`+
		`"items":[{"ref":"/a","attrs":{"url":"u"}},{"ref":"/b","url":"u","rank":2}],"metadata":{"itmes":1}`, 1)
	opts := events.ValidateOptions{Limits: events.DefaultLimits}

	turn, err := events.ParseTurnStrict([]byte(raw), events.DefaultLimits)
	require.NoError(t, err, "parsing succeeds; validation reports")
	turn.Role = "bot"
	err = events.ValidateTurn(&turn, opts)
	require.Equal(t, []string{"role", "Role", "itmes", "tool_calls[0].argumnets", "items[1].rank", "items[1].url"}, fields(err))
	require.Contains(t, err.Error(), "put data of your own in metadata")

	_, err = events.DecodeTurn([]byte(raw), opts)
	require.NoError(t, err, "the stream's decode stays tolerant")

	turn, err = events.ParseTurnStrict([]byte(validTurn), events.DefaultLimits)
	require.NoError(t, err)
	require.NoError(t, events.ValidateTurn(&turn, opts))
}

// TestReadTurn: a turn that cannot be read is kept for ValidateTurn, which
// reports the reading's failure alone, as ParseTurnStrict says it; one that
// can be read is ParseTurnStrict's. MeasureTurn holds a turn built in code
// to the same bound on its encoding.
func TestReadTurn(t *testing.T) {
	t.Parallel()
	opts := events.ValidateOptions{Limits: events.DefaultLimits}
	for _, raw := range []string{`{"id":1}`, `{"id":"a",`, "{\"content\":\"\xff\"}", strings.Replace(validTurn, `"hello"`, `"`+strings.Repeat("x", 600<<10)+`"`, 1)} {
		_, want := events.ParseTurnStrict([]byte(raw), events.DefaultLimits)
		require.Error(t, want, raw)
		turn := events.ReadTurn([]byte(raw), events.DefaultLimits)
		require.Equal(t, want, events.ValidateTurn(&turn, opts), raw)
		require.Empty(t, turn.ID)
	}
	turn := events.ReadTurn([]byte(strings.Replace(validTurn, `"content":"hello"`, `"content":"hello","itmes":[]`, 1)), events.DefaultLimits)
	require.Equal(t, []string{"itmes"}, fields(events.ValidateTurn(&turn, opts)))

	built, err := events.ParseTurnStrict([]byte(validTurn), events.DefaultLimits)
	require.NoError(t, err)
	small := built
	events.MeasureTurn(&small, events.DefaultLimits)
	require.NoError(t, events.ValidateTurn(&small, opts))
	built.Content = strings.Repeat("x", 600<<10)
	raw, err := json.Marshal(built)
	require.NoError(t, err)
	_, want := events.ParseTurnStrict(raw, events.DefaultLimits)
	events.MeasureTurn(&built, events.DefaultLimits)
	require.Equal(t, want, events.ValidateTurn(&built, opts))

	bad := small
	bad.ToolCalls = []events.ToolCall{{Name: "x", Arguments: json.RawMessage("{not json")}}
	events.MeasureTurn(&bad, events.DefaultLimits)
	err = events.ValidateTurn(&bad, opts)
	require.Equal(t, []string{"(event)"}, fields(err))
	require.Contains(t, err.Error(), "cannot be encoded as JSON")
}

// Turn, user and session ids "." and ".." cannot be a URL path's segment,
// so no route could reach them: refused, naming the field. Inside an id
// and as other ids, dots are fine.
func TestDotIDs(t *testing.T) {
	t.Parallel()
	for _, id := range []string{".", ".."} {
		raw := `{"id":"` + id + `","tenant_id":"` + id + `","user_id":"` + id + `","session_id":"` + id + `","agent_id":"` + id +
			`","occurred_at":"2026-11-22T08:00:00Z","role":"user","content":"hello"}`
		_, err := events.DecodeTurn([]byte(raw), events.ValidateOptions{Limits: events.DefaultLimits})
		require.Equal(t, []string{"id", "user_id", "session_id"}, fields(err))
		require.Contains(t, err.Error(), "cannot be an id")
	}
	raw := `{"id":"..x","tenant_id":"t","user_id":"x..","session_id":"a.b","occurred_at":"2026-11-22T08:00:00Z","role":"user","content":"hello"}`
	_, err := events.DecodeTurn([]byte(raw), events.ValidateOptions{Limits: events.DefaultLimits})
	require.NoError(t, err)
}

// A time sent as year 1 is an unset date written out (Go's time.Time{},
// .NET's DateTime.MinValue), not a missing field: it says so.
func TestZeroTime(t *testing.T) {
	t.Parallel()
	raw := strings.Replace(validTurn, `"2026-11-22T08:00:00Z"`, `"0001-01-01T00:00:00Z"`, 1)
	_, err := events.DecodeTurn([]byte(raw), events.ValidateOptions{Limits: events.DefaultLimits})
	require.Equal(t, []string{"occurred_at"}, fields(err))
	require.Contains(t, err.Error(), "year 1")
	require.NotContains(t, err.Error(), "required")

	raw = strings.Replace(validTurn, `"occurred_at":"2026-11-22T08:00:00Z",`, ``, 1)
	_, err = events.DecodeTurn([]byte(raw), events.ValidateOptions{Limits: events.DefaultLimits})
	require.Contains(t, err.Error(), "required")
}

func TestFieldPath(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"role": "role", "tool_calls.0.duration_ms": "tool_calls[0].duration_ms", "items.12.attrs.x": "items[12].attrs.x",
		"edits.0": "edits[0]", "0": "0", "a.b": "a.b",
	} {
		require.Equal(t, want, events.FieldPath(in), in)
	}
}

// ClipUTF8 counts bytes, never splits a character, and adds its tail only
// to a text it cut.
func TestClipUTF8(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s    string
		n    int
		tail string
		want string
	}{
		{"hello", 5, "…", "hello"},
		{"hello", 10, "…", "hello"},
		{"hello", 4, "…", "hell…"},
		{"hello", 4, "", "hell"},
		{"三体三体", 6, "…", "三体…"},
		{"三体三体", 7, "…", "三体…"}, // 7 bytes end inside 三: back to the boundary
		{"三体三体", 8, "", "三体"},
		{"三体", 2, "…", "…"},
		{"", 0, "…", ""},
		{"x", 0, "…", "…"},
	}
	for _, tt := range tests {
		got := events.ClipUTF8(tt.s, tt.n, tt.tail)
		require.Equal(t, tt.want, got, "ClipUTF8(%q, %d, %q)", tt.s, tt.n, tt.tail)
		require.True(t, utf8.ValidString(got))
		require.LessOrEqual(t, len(got), tt.n+len(tt.tail))
	}
}
