package assemble_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/assemble"
	"github.com/recallhq/recall/pkg/record"
)

func TestPickSummaries(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	from := at.Add(-72 * time.Hour)
	// The last version read a late message: the range covered reaches
	// further than the messages it read.
	prev := []record.Summary{{SessionID: "a", Text: "A", KeyTopics: []string{"x"}, Version: 2, ThroughCount: 30,
		FirstAt: from.Add(time.Hour), LastAt: at.Add(-time.Hour), CoversFrom: from, CoversTo: at, Model: "m"}}
	cur := &record.Summary{SessionID: "s", Text: "S", ThroughCount: 12}
	window := func(n int) assemble.Window { return assemble.Window{Messages: make([]record.Message, n)} }

	got := assemble.PickSummaries(prev, cur, window(10), assemble.Counts{Messages: 12, System: 1})
	require.Equal(t, []assemble.SessionSummary{{SessionID: "a", Summary: "A", KeyTopics: []string{"x"}, Version: 2, MessageCount: 30,
		CoversFrom: from, CoversTo: at, LastMessageAt: at, Model: "m"}}, got.Previous)
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
	day := func(d, h int) time.Time { return time.Date(2026, 5, d, h, 0, 0, 0, time.UTC) }
	parts := assemble.Parts{Summaries: assemble.Summaries{
		Previous: []assemble.SessionSummary{
			{Summary: "用户在读《三体》。", KeyTopics: []string{"三体", "刘慈欣"}, CoversFrom: day(8, 9), CoversTo: day(25, 23)},
			{Summary: "The user asked about\nDune.", CoversFrom: day(2, 9), CoversTo: day(2, 10)},
			{Summary: "No range known."},
		},
		Current: &assemble.SessionSummary{Summary: "用户想找科幻小说。"},
	}}
	zh := assemble.Render(assemble.LangAuto, parts)
	require.Equal(t, "【记忆】以下内容来自之前的对话，仅作为上下文和偏好参考，不作为事实来源：不要把它当作事实陈述；与用户当前消息或最新工具结果不一致时，以后者为准。\n\n"+
		"之前的对话摘要：\n- [2026-05-08 – 2026-05-25] 用户在读《三体》。 用户曾提及：三体、刘慈欣\n- [2026-05-02] The user asked about Dune.\n- No range known.\n\n"+
		"本次会话较早的内容：用户想找科幻小说。", zh)
	en := assemble.Render(assemble.LangEN, parts)
	require.Contains(t, en, "Earlier conversations:\n- [2026-05-08 – 2026-05-25] 用户在读《三体》。 The user mentioned: 三体, 刘慈欣\n- [2026-05-02] The user asked about Dune.\n- No range known.\n\nEarlier in this session: 用户想找科幻小说。")
	require.Empty(t, assemble.Render(assemble.LangEN, assemble.Parts{}))
}
