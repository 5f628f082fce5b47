package assemble_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/assemble"
)

func attributeParts() assemble.Parts {
	return assemble.Parts{Attributes: &assemble.Attributes{
		About: []assemble.AttributeEntry{
			{Key: "name", Label: map[string]string{"en": "goes by", "zh": "称呼"}, Values: []string{"小李"}},
			{Key: "family", Label: map[string]string{"en": "family", "zh": "家人"}, Values: []string{"女儿对花生过敏"}},
		},
		Requests: []assemble.AttributeEntry{
			{Key: "assistant_name", Label: map[string]string{"en": "call yourself", "zh": "你的名字"}, Values: []string{"小书"}},
			{Key: "requests", Label: map[string]string{"en": "standing requests"}, Values: []string{"简短一点", "别用列表"}},
		},
	}}
}

// The attributes come first, in the prompt's language, what the user asked
// said to be followed; a label a language lacks falls back to English.
func TestAttributesRendered(t *testing.T) {
	t.Parallel()
	p := attributeParts()
	zh := assemble.Render(assemble.LangZH, p)
	require.Contains(t, zh, "关于用户：称呼：小李；家人：女儿对花生过敏")
	require.Contains(t, zh, "用户的长期要求（除非当前消息另有说明，请遵循）：你的名字：小书；standing requests：简短一点、别用列表")
	require.Less(t, strings.Index(zh, "关于用户"), strings.Index(zh, "用户的长期要求"))
	require.Equal(t, assemble.LangZH, assemble.ResolveLang(assemble.LangAuto, p), "the attributes' script counts for auto")
	en := assemble.Render(assemble.LangEN, p)
	require.Contains(t, en, "About the user: goes by: 小李; family: 女儿对花生过敏")
}

// Within its cap, what the user asked is kept before who they are; what
// does not fit is counted as cut, and the spend adds up.
func TestAttributesBudget(t *testing.T) {
	t.Parallel()
	p := attributeParts()
	p.AttributesLimit = 70
	b, prompt := assemble.Assemble(assemble.LangZH, &p, 8000)
	require.Len(t, p.Attributes.Requests, 2)
	require.Less(t, len(p.Attributes.About), 2)
	require.Equal(t, []assemble.Cut{{Reason: "budget", Count: int64(2 - len(p.Attributes.About))}}, p.Attributes.Cuts)
	require.LessOrEqual(t, b.Parts.Attributes, 70)
	require.Equal(t, b.Parts.Framing+b.Parts.Attributes, b.Used)
	require.Equal(t, utf8.RuneCountInString(prompt), b.Used)
	require.Contains(t, prompt, "别用列表")
	require.NotContains(t, prompt, "女儿对花生过敏")
}
