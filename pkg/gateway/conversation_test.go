package gateway

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/events"
)

// chatOf parses a request body, failing the test on a bad one.
func chatOf(t *testing.T, body string) *chatRequest {
	t.Helper()
	r, bad := parseChat([]byte(body), events.DefaultLimits)
	require.Nil(t, bad)
	return r
}

var t0 = time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)

func exchangeOf(t *testing.T, body string, reply *message) *exchange {
	r := chatOf(t, body)
	return &exchange{tenant: "t", user: "u", session: "s", msgs: r.msgs, reply: reply, at: t0, done: t0.Add(2 * time.Second), model: "m"}
}

const filmTools = `{"model":"m","messages":[
 {"role":"system","content":"You recommend films."},
 {"role":"user","content":"Find me some sci-fi films"},
 {"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"search_films","arguments":"{\"genre\":\"sci-fi\"}"}}]},
 {"role":"tool","tool_call_id":"call_1","content":"{\"results\":[{\"id\":\"/mv/823D\",\"title\":\"Dune\"},{\"id\":\"/mv/11AA\",\"title\":\"Arrival\"},{\"id\":\"/mv/77BR\",\"title\":\"Blade Runner 2049\"}]}"}
]}`

func TestTurnsJoinToolResultsToTheirCallsAndWaitForTheText(t *testing.T) {
	// The model's first answer asks for a tool: only the user's message is
	// a turn yet; the call waits for the text that follows its result.
	first := exchangeOf(t, `{"messages":[{"role":"user","content":"Find me some sci-fi films"}]}`,
		&message{Role: roleAssistant, Calls: []call{{ID: "call_1", Name: "search_films", Arguments: `{"genre":"sci-fi"}`}}})
	turns := first.turns(events.DefaultLimits)
	require.Len(t, turns, 1)
	require.Equal(t, events.RoleUser, turns[0].Role)

	second := exchangeOf(t, filmTools, &message{Role: roleAssistant, Text: "Here are three:\n1. Dune\n2. Arrival\n3. Blade Runner 2049"})
	turns = second.turns(events.DefaultLimits)
	require.Len(t, turns, 2, "the system message is not a turn; the call and its result are part of the reply")
	require.Equal(t, turns[0].ID, first.turns(events.DefaultLimits)[0].ID, "the same user message has the same id in the next request")
	reply := turns[1]
	require.Equal(t, events.RoleAssistant, reply.Role)
	require.Len(t, reply.ToolCalls, 1)
	require.Equal(t, "search_films", reply.ToolCalls[0].Name)
	require.JSONEq(t, `{"genre":"sci-fi"}`, string(reply.ToolCalls[0].Arguments))
	require.Contains(t, string(reply.ToolCalls[0].Result), "/mv/823D")
	require.True(t, reply.OccurredAt.Equal(t0.Add(2*time.Second)), "the reply is at its completion")
	require.True(t, turns[0].OccurredAt.Before(t0), "history is just before the request")
	require.JSONEq(t, `{"model":"m"}`, string(reply.Metadata))
	for _, tn := range turns {
		require.NoError(t, events.ValidateTurn(&tn, events.ValidateOptions{Limits: events.DefaultLimits, Now: func() time.Time { return t0 }}))
	}
}

func TestTurnIDsSurviveResendingAndTrimming(t *testing.T) {
	reply := "Here are three:\n1. Dune\n2. Arrival\n3. Blade Runner 2049"
	second := exchangeOf(t, filmTools, &message{Role: roleAssistant, Text: reply})
	want := second.turns(events.DefaultLimits)

	// The next request resends everything, the reply included, and adds
	// "3": the resent turns keep their ids.
	var body map[string]any
	require.NoError(t, json.Unmarshal([]byte(filmTools), &body))
	msgs := body["messages"].([]any)
	msgs = append(msgs, map[string]any{"role": "assistant", "content": reply}, map[string]any{"role": "user", "content": "3"})
	body["messages"] = msgs
	b, _ := json.Marshal(body)
	third := exchangeOf(t, string(b), &message{Role: roleAssistant, Text: "Blade Runner 2049 it is: /mv/77BR"})
	got := third.turns(events.DefaultLimits)
	require.Len(t, got, 4)
	require.Equal(t, want[0].ID, got[0].ID)
	require.Equal(t, want[1].ID, got[1].ID)

	// A client that keeps only the latest messages (a sliding window)
	// resends the same turns under the same ids.
	body["messages"] = msgs[3:]
	b, _ = json.Marshal(body)
	trimmed := exchangeOf(t, string(b), &message{Role: roleAssistant, Text: "Blade Runner 2049 it is: /mv/77BR"})
	tt := trimmed.turns(events.DefaultLimits)
	require.Equal(t, got[len(got)-1].ID, tt[len(tt)-1].ID)
	require.Equal(t, got[len(got)-2].ID, tt[len(tt)-2].ID, `"3" keeps its id`)
	require.Equal(t, got[1].ID, tt[0].ID, "the reply keeps its id without the message that made its calls")

	// The same words said twice are two turns.
	twice := exchangeOf(t, `{"messages":[{"role":"user","content":"yes"},{"role":"assistant","content":"ok"},{"role":"user","content":"yes"}]}`, nil)
	tw := twice.turns(events.DefaultLimits)
	require.Len(t, tw, 3)
	require.NotEqual(t, tw[0].ID, tw[2].ID)

	// Another session or user: other ids.
	other := *second
	other.session = "s2"
	require.NotEqual(t, want[0].ID, other.turns(events.DefaultLimits)[0].ID)
}

func TestLongContentIsCutToTheLimitAndSaysSo(t *testing.T) {
	lim := events.DefaultLimits
	lim.MaxContentBytes = 10
	x := exchangeOf(t, `{"messages":[{"role":"user","content":"héllo wörld, and more"}]}`, nil)
	turns := x.turns(lim)
	require.Len(t, turns, 1)
	require.LessOrEqual(t, len(turns[0].Content), 10)
	require.True(t, strings.HasPrefix("héllo wörld, and more", turns[0].Content))
	require.JSONEq(t, `{"truncated_from_bytes":23}`, string(turns[0].Metadata))
}

func TestStreamReaderPutsTheReplyTogether(t *testing.T) {
	stream := "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n" +
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n\n" +
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo 世界\"}}]}\n\n" +
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c1\",\"type\":\"function\",\"function\":{\"name\":\"search\",\"arguments\":\"{\\\"q\\\"\"}}]}}]}\n\n" +
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\":\\\"x\\\"}\"}}]}}]}\n\n" +
		"data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n" +
		"data: [DONE]\n\n"
	// Any split of the bytes gives the same reply.
	for _, size := range []int{1, 3, 7, 64, len(stream)} {
		sr := &streamReader{}
		for i := 0; i < len(stream); i += size {
			n, err := sr.Write([]byte(stream[i:min(i+size, len(stream))]))
			require.NoError(t, err)
			require.Equal(t, min(size, len(stream)-i), n)
		}
		r := sr.reply()
		require.NotNil(t, r, "size %d", size)
		require.Equal(t, "Hello 世界", r.Text)
		require.Equal(t, []call{{ID: "c1", Name: "search", Arguments: `{"q":"x"}`}}, r.Calls)
	}
	// Cut short: no finish_reason, no reply.
	sr := &streamReader{}
	_, _ = sr.Write([]byte(stream[:strings.Index(stream, "finish_reason")-40]))
	require.Nil(t, sr.reply())
}

func TestMemoryIsMergedOrAddedAsConfigured(t *testing.T) {
	withSystem := chatOf(t, `{"messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"hi"}]}`)
	out, err := withMemory(withSystem.raw, withSystem.msgs, "MEMORY", "merge")
	require.NoError(t, err)
	require.Len(t, out, 2)
	require.JSONEq(t, `{"role":"system","content":"Be brief.\n\nMEMORY"}`, string(out[0]))

	out, err = withMemory(withSystem.raw, withSystem.msgs, "MEMORY", "separate")
	require.NoError(t, err)
	require.Len(t, out, 3)
	require.JSONEq(t, `{"role":"system","content":"Be brief."}`, string(out[0]))
	require.JSONEq(t, `{"role":"system","content":"MEMORY"}`, string(out[1]))

	parts := chatOf(t, `{"messages":[{"role":"developer","content":[{"type":"text","text":"Be brief."}]},{"role":"user","content":"hi"}]}`)
	out, err = withMemory(parts.raw, parts.msgs, "MEMORY", "merge")
	require.NoError(t, err)
	require.JSONEq(t, `{"role":"developer","content":[{"type":"text","text":"Be brief."},{"type":"text","text":"MEMORY"}]}`, string(out[0]))

	bare := chatOf(t, `{"messages":[{"role":"user","content":"hi"}]}`)
	out, err = withMemory(bare.raw, bare.msgs, "MEMORY", "merge")
	require.NoError(t, err)
	require.Len(t, out, 2)
	require.JSONEq(t, `{"role":"system","content":"MEMORY"}`, string(out[0]))
}

func TestConfigDefaultsAndChecks(t *testing.T) {
	c := Config{UpstreamURL: "http://up.example/v1", MemoryTimeout: time.Second}.withDefaults()
	require.Equal(t, time.Second, c.MemoryTimeout, "a value set stays")
	require.Equal(t, 10*time.Minute, c.UpstreamTimeout, "an unset one is the default")
	require.Equal(t, "merge", c.ContextMessage)
	require.Zero(t, c.ContextBudget, "0 is the context's own budget")
	require.NoError(t, c.check())
	for _, bad := range []func(*Config){
		func(c *Config) { c.UpstreamURL = "ftp://x" },
		func(c *Config) { c.UpstreamURL = "api.openai.com/v1" },
		func(c *Config) { c.ContextMessage = "prepend" },
		func(c *Config) { c.ContextBudget = -1 },
		func(c *Config) { c.MemoryTimeout = -time.Second },
		func(c *Config) { c.PublishQueue = -3 },
	} {
		b := c
		bad(&b)
		require.Error(t, b.check())
	}
}
