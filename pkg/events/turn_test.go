package events_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/events"
)

// A turn's tool calls and items travel as they were sent: fields this build does
// not know, zero values and explicit nulls included. Re-encoding the structs
// would drop every one of them.
func TestTurnKeepsToolCallsAndItemsAsSent(t *testing.T) {
	t.Parallel()
	const toolCalls = `[{"id":"","name":"search","arguments":null,"result":{"hits":[{"ref":"/mv/823D","score":0.5}],"total":12345678901234567890,"next":null,"html":"<b>&</b>"},"status":"","duration_ms":0,"trace":{"span":"a1"}}]`
	const items = `[{"ref":"/mv/823D","title":"","attrs":null,"url":"https://example.com/mv/823D"},{"ref":"/mv/17","title":"沙丘 😀","attrs":{"rating":8.50,"tags":["sf","经典"],"year":1965,"nested":{"a":[1,{"b":null}]}},"position":2}]`
	raw := `{"id":"e1","tenant_id":"t1","user_id":"u1","session_id":"s1","occurred_at":"2026-11-22T08:00:00Z","role":"assistant","content":"",` +
		`"tool_calls":` + toolCalls + `,"items":` + items + `,"metadata":null}`
	turn, err := events.DecodeTurn([]byte(raw), events.ValidateOptions{Limits: events.DefaultLimits})
	require.NoError(t, err)
	require.Len(t, turn.Items, 2)
	require.Equal(t, "/mv/823D", turn.Items[0].Ref)
	require.Equal(t, "search", turn.ToolCalls[0].Name)
	require.True(t, turn.HasList())

	gotItems, err := turn.ItemsJSON()
	require.NoError(t, err)
	require.Equal(t, items, string(gotItems), "stored bytes are the bytes received")
	gotCalls, err := turn.ToolCallsJSON()
	require.NoError(t, err)
	require.Equal(t, toolCalls, string(gotCalls))

	// What the API publishes: the same values again, and it parses to the same.
	enc, err := json.Marshal(turn)
	require.NoError(t, err)
	var sent, published map[string]any
	require.NoError(t, json.Unmarshal([]byte(raw), &sent))
	require.NoError(t, json.Unmarshal(enc, &published))
	require.Equal(t, sent["items"], published["items"])
	require.Equal(t, sent["tool_calls"], published["tool_calls"])
	require.JSONEq(t, items, string(mustRaw(t, enc, "items")))
	require.Contains(t, string(mustRaw(t, enc, "tool_calls")), "12345678901234567890", "big integers are not rounded")
	again, err := events.DecodeTurn(enc, events.ValidateOptions{Limits: events.DefaultLimits})
	require.NoError(t, err)
	againItems, err := again.ItemsJSON()
	require.NoError(t, err)
	require.JSONEq(t, items, string(againItems))
}

func mustRaw(t *testing.T, obj []byte, key string) json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(obj, &m))
	require.Contains(t, m, key)
	return m[key]
}

func TestTurnListPresence(t *testing.T) {
	t.Parallel()
	base := `{"id":"e1","tenant_id":"t1","user_id":"u1","session_id":"s1","occurred_at":"2026-11-22T08:00:00Z","role":"assistant","content":"x"`
	for _, tc := range []struct {
		name, extra string
		list        bool
		items       string
	}{
		{"absent", ``, false, ``},
		{"null", `,"items":null`, false, ``},
		{"empty: a list with nothing in it", `,"items":[]`, true, `[]`},
		{"one", `,"items":[{"ref":"/a"}]`, true, `[{"ref":"/a"}]`},
		{"a later duplicate key wins", `,"items":[{"ref":"/a"}],"items":null`, false, ``},
	} {
		t.Run(tc.name, func(t *testing.T) {
			turn, err := events.DecodeTurn([]byte(base+tc.extra+"}"), events.ValidateOptions{Limits: events.DefaultLimits})
			require.NoError(t, err)
			require.Equal(t, tc.list, turn.HasList())
			got, err := turn.ItemsJSON()
			require.NoError(t, err)
			require.Equal(t, tc.items, string(got))
		})
	}

	// A turn built in code is encoded from its structs.
	built := events.Turn{ID: "e", TenantID: "t", UserID: "u", SessionID: "s", OccurredAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		Role: events.RoleAssistant, Items: []events.Item{{Ref: "/a", Title: "A", Attrs: json.RawMessage(`{"n":1}`)}}}
	require.True(t, built.HasList())
	got, err := built.ItemsJSON()
	require.NoError(t, err)
	require.JSONEq(t, `[{"ref":"/a","title":"A","attrs":{"n":1}}]`, string(got))
	calls, err := built.ToolCallsJSON()
	require.NoError(t, err)
	require.Nil(t, calls)
	require.False(t, (&events.Turn{}).HasList())
}
