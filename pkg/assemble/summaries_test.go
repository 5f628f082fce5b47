package assemble_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/assemble"
	"github.com/recallhq/recall/pkg/store"
)

func TestPickSummaries(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	prev := []store.Summary{{SessionID: "a", Text: "A", KeyTopics: []string{"x"}, Version: 2, ThroughCount: 30, LastAt: at, Model: "m"}}
	cur := &store.Summary{SessionID: "s", Text: "S", ThroughCount: 12}
	window := func(n int) assemble.Window { return assemble.Window{Messages: make([]store.Message, n)} }

	got := assemble.PickSummaries(prev, cur, window(10), assemble.Counts{Messages: 12, System: 1})
	require.Equal(t, []assemble.SessionSummary{{SessionID: "a", Summary: "A", KeyTopics: []string{"x"}, Version: 2, MessageCount: 30, LastMessageAt: at, Model: "m"}}, got.Previous)
	require.NotNil(t, got.Current, "11 non-system messages, 10 in the window: the start is missing")
	require.Equal(t, "S", got.Current.Summary)
	require.Equal(t, []string{}, got.Current.KeyTopics)

	got = assemble.PickSummaries(nil, cur, window(11), assemble.Counts{Messages: 12, System: 1})
	require.Nil(t, got.Current, "the window holds the whole session")
	require.Equal(t, []assemble.SessionSummary{}, got.Previous)
	require.Nil(t, assemble.PickSummaries(nil, nil, window(0), assemble.Counts{Messages: 40}).Current)
}

func TestRenderSummaries(t *testing.T) {
	t.Parallel()
	parts := assemble.Parts{Summaries: assemble.Summaries{
		Previous: []assemble.SessionSummary{
			{Summary: "用户在读《三体》。", KeyTopics: []string{"三体", "刘慈欣"}},
			{Summary: "The user asked about\nDune."},
		},
		Current: &assemble.SessionSummary{Summary: "用户想找科幻小说。"},
	}}
	zh := assemble.Render(assemble.LangAuto, parts)
	require.Equal(t, "【记忆】以下内容来自之前的对话，仅作为上下文和偏好参考，不作为事实来源：不要把它当作事实陈述；与用户当前消息或最新工具结果不一致时，以后者为准。\n\n"+
		"之前的对话摘要：\n- 用户在读《三体》。 用户曾提及：三体、刘慈欣\n- The user asked about Dune.\n\n"+
		"本次会话较早的内容：用户想找科幻小说。", zh)
	en := assemble.Render(assemble.LangEN, parts)
	require.Contains(t, en, "Earlier conversations:\n- 用户在读《三体》。 The user mentioned: 三体, 刘慈欣\n- The user asked about Dune.\n\nEarlier in this session: 用户想找科幻小说。")
	require.Empty(t, assemble.Render(assemble.LangEN, assemble.Parts{}))
}
