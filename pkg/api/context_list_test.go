package api_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

type fullContextBody struct {
	Budget struct {
		Limit int `json:"limit"`
		Used  int `json:"used"`
		Parts struct {
			Framing int `json:"framing"`
			List    int `json:"list"`
		} `json:"parts"`
	} `json:"budget"`
	List *struct {
		EventID string `json:"event_id"`
		Count   int    `json:"count"`
		Items   []struct {
			N     int             `json:"n"`
			Ref   string          `json:"ref"`
			Title string          `json:"title"`
			Attrs json.RawMessage `json:"attrs"`
		} `json:"items"`
		Cuts []struct {
			Reason string `json:"reason"`
			Count  int64  `json:"count"`
		} `json:"cuts"`
	} `json:"list"`
	Window struct {
		Messages []messageBody `json:"messages"`
		Cuts     []struct {
			Reason string `json:"reason"`
			Count  int64  `json:"count"`
		} `json:"cuts"`
	} `json:"window"`
	Prompt string `json:"prompt"`
}

// A search shows a numbered list, the user answers "3": the context carries
// the list in structure, numbered as shown with the real refs, so the model
// quotes /mv/823D instead of inventing one; the selection route resolves the
// same item. Under a tight budget the list is kept before the window.
func TestContextCarriesTheCurrentList(t *testing.T) {
	t.Parallel()
	b := setup(t, withIngest)
	at := testNow.Add(-10 * time.Minute)
	results := []map[string]any{
		{"ref": "/mv/11AB", "title": "沙丘", "attrs": map[string]any{"rating": 8.1}},
		{"ref": "/mv/22CD", "title": "星际穿越"},
		{"ref": "/mv/823D", "title": "流浪地球", "attrs": map[string]any{"tag": "new"}},
	}
	b.postOK(t, "t1",
		newTurn("q1", "u1", "s1", "找几部科幻电影", at),
		newTurn("a1", "u1", "s1", "为你找到这些：", at.Add(time.Second)).with("role", "assistant", "items", results,
			"tool_calls", []map[string]any{{"name": "search_movies", "arguments": map[string]any{"q": "科幻"}, "result": map[string]any{"items": results}, "status": "ok"}}),
		newTurn("q2", "u1", "s1", "3", at.Add(time.Minute)),
		// Another session's list never leaks in.
		newTurn("o1", "u1", "s2", "别的", at).with("role", "assistant", "items", []map[string]any{{"ref": "/mv/OTHER"}}),
	)
	b.waitIngested(t)

	res := b.get(t, "t1", contextPath("u1", "s1"))
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	c := decode[fullContextBody](t, res)
	require.NotNil(t, c.List)
	require.Equal(t, "a1", c.List.EventID)
	require.Equal(t, 3, c.List.Count)
	require.Equal(t, 3, c.List.Items[2].N)
	require.Equal(t, "/mv/823D", c.List.Items[2].Ref)
	require.JSONEq(t, `{"tag":"new"}`, string(c.List.Items[2].Attrs))
	require.Contains(t, c.Prompt, `3. "流浪地球" — ref: /mv/823D`)
	require.NotContains(t, c.Prompt, "/mv/OTHER")
	require.Equal(t, 8000, c.Budget.Limit, "CONTEXT_BUDGET_CHARS by default")
	require.LessOrEqual(t, c.Budget.Used, c.Budget.Limit)

	sel := b.get(t, "t1", sessionPath("s1", "selection", "3"))
	require.Equal(t, http.StatusOK, sel.Status, string(sel.Body))
	require.Contains(t, string(sel.Body), "/mv/823D")

	// A budget that holds the list and little else: the list stays whole, the
	// window gives way (newest first), and the cut says why.
	// Every character counts: the framing, the list's part (its heading and
	// line breaks), and the window's heading, blank line and newest line.
	require.Equal(t, len([]rune(c.Prompt)), c.Budget.Used)
	newest := "\n本次会话最近的对话：\n用户：3\n"
	require.Contains(t, c.Prompt, "用户：3\n")
	res = b.get(t, "t1", contextPath("u1", "s1", "budget", strconv.Itoa(c.Budget.Parts.Framing+c.Budget.Parts.List+len([]rune(newest)))))
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	c = decode[fullContextBody](t, res)
	require.Len(t, c.List.Items, 3)
	require.Empty(t, c.List.Cuts)
	require.Len(t, c.Window.Messages, 1)
	require.Equal(t, "3", c.Window.Messages[0].Content, "the newest message is kept first")
	require.Equal(t, len([]rune(c.Prompt)), c.Budget.Used)
	require.LessOrEqual(t, c.Budget.Used, c.Budget.Limit)
	require.Contains(t, c.Window.Cuts, struct {
		Reason string `json:"reason"`
		Count  int64  `json:"count"`
	}{"budget", 2})

	requireFields(t, b.get(t, "t1", contextPath("u1", "s1", "budget", "lots")), http.StatusBadRequest)
}
