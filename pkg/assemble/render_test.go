package assemble_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/assemble"
	"github.com/recallhq/recall/pkg/record"
)

func parts(msgs ...record.Message) assemble.Parts {
	return assemble.Parts{Window: assemble.Window{Messages: msgs}}
}

func TestResolveLang(t *testing.T) {
	t.Parallel()
	zh := parts(msg("m1", "user", "我想找一本关于宇宙的科幻小说", 0))
	en := parts(msg("m1", "user", "I am looking for a science fiction novel about space", 0))
	cases := []struct {
		name string
		lang string
		p    assemble.Parts
		want string
	}{
		{"auto picks zh for Chinese", assemble.LangAuto, zh, assemble.LangZH},
		{"auto picks en for English", assemble.LangAuto, en, assemble.LangEN},
		{"empty means auto", "", zh, assemble.LangZH},
		{"auto on an empty window is en", assemble.LangAuto, parts(), assemble.LangEN},
		{"explicit en wins over Chinese content", assemble.LangEN, zh, assemble.LangEN},
		{"explicit zh wins over English content", assemble.LangZH, en, assemble.LangZH},
		{"a Chinese title in English text stays en", assemble.LangAuto, parts(msg("m1", "user", "Have you read 三体 by Liu Cixin? I loved the ending", 0)), assemble.LangEN},
		// 7 Han characters against 11 Latin letters: a Han character weighs about a
		// word, so this is Chinese text with an English name in it.
		{"English names in Chinese text stay zh", assemble.LangAuto, parts(msg("m1", "user", "我最近在读 Isaac Asimov 的书", 0)), assemble.LangZH},
		{"a few Han characters in much English stay en", assemble.LangAuto, parts(msg("m1", "user", "我在读 Foundation and Empire", 0)), assemble.LangEN},
		{"counted over the whole window", assemble.LangAuto, parts(
			msg("m1", "user", "推荐几本书", time.Minute),
			msg("m2", "assistant", "Here are three books you might enjoy reading this week", 0),
		), assemble.LangEN},
		{"digits and punctuation do not count", assemble.LangAuto, parts(msg("m1", "user", "好 123 !!! ... 456", 0)), assemble.LangZH},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, assemble.ResolveLang(tc.lang, tc.p))
		})
	}
}

func TestRender(t *testing.T) {
	t.Parallel()
	const enFraming = "not as a source of facts"
	const zhFraming = "不作为事实来源"
	cases := []struct {
		name string
		lang string
		p    assemble.Parts
		want []string // lines; nil: the empty string
	}{
		{name: "empty memory renders nothing", lang: assemble.LangEN, p: parts()},
		{name: "empty memory renders nothing in zh too", lang: assemble.LangZH, p: assemble.Parts{Window: assemble.Window{Messages: []record.Message{}}}},
		{
			name: "en",
			lang: assemble.LangEN,
			p: parts(
				msg("m1", "user", "Any space operas?", time.Minute),
				msg("m2", "assistant", "Try Leviathan Wakes.", 0),
			),
			want: []string{
				"[Memory] The following is remembered from earlier turns. Use it as context and preference only, not as a source of facts: do not state it as fact, and prefer the user's current message and fresh tool results where they differ.",
				"",
				"Recent conversation in this session:",
				"User: Any space operas?",
				"Assistant: Try Leviathan Wakes.",
			},
		},
		{
			name: "zh",
			lang: assemble.LangZH,
			p: parts(
				msg("m1", "user", "有什么好看的科幻？", 2*time.Minute),
				msg("m2", "tool", "search ok", time.Minute),
				msg("m3", "assistant", "推荐《三体》。", 0),
			),
			want: []string{
				"【记忆】以下内容来自之前的对话，仅作为上下文和偏好参考，不作为事实来源：不要把它当作事实陈述；与用户当前消息或最新工具结果不一致时，以后者为准。",
				"",
				"本次会话最近的对话：",
				"用户：有什么好看的科幻？",
				"工具：search ok",
				"助手：推荐《三体》。",
			},
		},
		{
			name: "auto follows the content",
			lang: assemble.LangAuto,
			p:    parts(msg("m1", "user", "你好", 0)),
			want: []string{
				"【记忆】以下内容来自之前的对话，仅作为上下文和偏好参考，不作为事实来源：不要把它当作事实陈述；与用户当前消息或最新工具结果不一致时，以后者为准。",
				"",
				"本次会话最近的对话：",
				"用户：你好",
			},
		},
		{
			name: "whitespace inside a message collapses to single spaces on one line",
			lang: assemble.LangEN,
			p:    parts(msg("m1", "user", "  first line\n\nsecond\tline\r\n  third　line  ", 0)),
			want: []string{
				"[Memory] The following is remembered from earlier turns. Use it as context and preference only, not as a source of facts: do not state it as fact, and prefer the user's current message and fresh tool results where they differ.",
				"",
				"Recent conversation in this session:",
				"User: first line second line third line",
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := assemble.Render(tc.lang, tc.p)
			if tc.want == nil {
				require.Empty(t, got)
				return
			}
			require.Equal(t, strings.Join(tc.want, "\n"), got)
			lines := strings.Split(got, "\n")
			require.Len(t, lines, 3+len(tc.p.Window.Messages), "framing, blank line, heading, then one line per message")
			if assemble.ResolveLang(tc.lang, tc.p) == assemble.LangZH {
				require.Contains(t, lines[0], zhFraming)
			} else {
				require.Contains(t, lines[0], enFraming)
			}
		})
	}
}

func TestRenderStructureOnlyTurns(t *testing.T) {
	t.Parallel()
	m := record.Message{EventID: "a", Role: "assistant", OccurredAt: now,
		ToolCalls: []byte(`[{"name":"search_books","arguments":{"q":"x"}}]`),
		Items:     []byte(`[{"ref":"/b/1"},{"ref":"/b/2"},{"ref":"/b/3"}]`)}
	p := assemble.Parts{Window: assemble.Window{Messages: []record.Message{m}}}
	require.Contains(t, assemble.Render(assemble.LangEN, p), "Assistant: (called search_books) (showed a list of 3 items)")
	require.Contains(t, assemble.Render(assemble.LangZH, p), "助手：（调用了 search_books） （展示了 3 个条目的列表）")
}

func TestRenderCollapsesWhiteSpace(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"a b":                  "a b",
		"  a \t\n b  ":         "a b",
		"你好\u3000\u3000世界":     "你好 世界",
		"x\u00a0y":             "x y",
		"line1\r\nline2\n\n":   "line1 line2",
		"é  ü":                 "é ü",
		"no-space-at-all-here": "no-space-at-all-here",
	} {
		m := record.Message{EventID: "a", Role: "user", Content: in, OccurredAt: now}
		out := assemble.Render(assemble.LangEN, assemble.Parts{Window: assemble.Window{Messages: []record.Message{m}}})
		require.True(t, strings.HasSuffix(out, "User: "+want), "%q rendered as %q", in, out)
	}
}

func TestResolveLangCounts(t *testing.T) {
	t.Parallel()
	win := func(s string) assemble.Parts {
		return assemble.Parts{Window: assemble.Window{Messages: []record.Message{{Content: s}}}}
	}
	require.Equal(t, assemble.LangZH, assemble.ResolveLang(assemble.LangAuto, win("我想看 Liu Cixin 的三体")))
	require.Equal(t, assemble.LangEN, assemble.ResolveLang(assemble.LangAuto, win("I loved 三体 by Liu Cixin, any more like it?")))
	require.Equal(t, assemble.LangEN, assemble.ResolveLang(assemble.LangAuto, win("Ça va très bien, merci")))
	require.Equal(t, assemble.LangEN, assemble.ResolveLang("", win("12345 !!!")))
}
