package gateway

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/events"
)

// BenchmarkUpstreamBody writes the body of a short conversation for the
// upstream with a memory of the default budget (8000 characters) merged
// into its system message, as every chat request with memory on does.
func BenchmarkUpstreamBody(b *testing.B) {
	req, bad := parseChat([]byte(`{"model":"gpt-4o-mini","user":"u7","messages":[
		{"role":"system","content":"You are a friendly assistant. Answer briefly."},
		{"role":"user","content":"Hi! Can I ask you about something I told you before?"},
		{"role":"assistant","content":"Of course. What would you like to know?"},
		{"role":"user","content":"When did Caroline go to the LGBTQ support group?"}]}`), events.DefaultLimits)
	require.Nil(b, bad)
	line := "- [2026-08-19] user: Caroline: I went to a LGBTQ support group yesterday and it was so powerful. \"Thanks!\"\n"
	memory := strings.Repeat(line, 8000/len(line))
	b.ReportAllocs()
	for b.Loop() {
		body, err := upstreamBody(req, memory, "merge")
		require.NoError(b, err)
		require.Greater(b, len(body), len(memory))
	}
}

// rawObject and rawArray write the same JSON as json.Marshal, keys in
// order, but keep each value's bytes as they are.
func TestRawJSONKeepsValuesAsTheyAre(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		fields map[string]json.RawMessage
		want   string
	}{
		{name: "empty", fields: map[string]json.RawMessage{}, want: `{}`},
		{name: "keys in order, values as they are",
			fields: map[string]json.RawMessage{"stream": json.RawMessage(`true`), "model": json.RawMessage(`"m"`),
				"messages": json.RawMessage(`[ {"role": "user", "content": "a <b> & c"} ]`)},
			want: `{"messages":[ {"role": "user", "content": "a <b> & c"} ],"model":"m","stream":true}`},
		{name: "a nil value is null", fields: map[string]json.RawMessage{"user": nil}, want: `{"user":null}`},
		{name: "keys escaped", fields: map[string]json.RawMessage{"a\"b\n": json.RawMessage(`1`), "名": json.RawMessage(`2`)},
			want: `{"a\"b\n":1,"名":2}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := rawObject(tt.fields)
			require.Equal(t, tt.want, string(got))
			want, err := json.Marshal(tt.fields)
			require.NoError(t, err)
			require.JSONEq(t, string(want), string(got))
		})
	}
	require.Equal(t, `[]`, string(rawArray(nil)))
	require.Equal(t, `[{"a": 1},null,"x"]`, string(rawArray([]json.RawMessage{json.RawMessage(`{"a": 1}`), nil, json.RawMessage(`"x"`)})))
}

// The body for the upstream is the request's fields without the "recall"
// object, its messages with the memory, and what it does not read as it
// came.
func TestUpstreamBodyKeepsWhatItDoesNotRead(t *testing.T) {
	t.Parallel()
	req, bad := parseChat([]byte(`{"model":"m","recall":{"user_id":"u1"},"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object"}}}],
		"messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"<hi> & bye"}]}`), events.DefaultLimits)
	require.Nil(t, bad)
	body, err := upstreamBody(req, "MEMORY", "merge")
	require.NoError(t, err)
	require.JSONEq(t, `{"model":"m","tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object"}}}],
		"messages":[{"role":"system","content":"Be brief.\n\nMEMORY"},{"role":"user","content":"<hi> & bye"}]}`, string(body))
	require.Contains(t, string(body), `{"role":"user","content":"<hi> & bye"}`, "a message it did not change, byte for byte")
}
