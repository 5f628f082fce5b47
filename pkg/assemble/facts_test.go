package assemble_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/assemble"
	"github.com/recallhq/recall/pkg/decay"
	"github.com/recallhq/recall/pkg/record"
)

func fact(value string, mentions int64, age time.Duration, ttl time.Duration) record.Fact {
	last := now.Add(-age)
	return record.Fact{Type: "topic", Value: value, Display: value, Weight: 1, MentionCount: mentions,
		LastMentionedAt: last, ExpiresAt: last.Add(ttl), Status: record.FactActive}
}

func TestTopFacts(t *testing.T) {
	t.Parallel()
	day := 24 * time.Hour
	ttl := 1000 * day
	in := []record.Fact{
		fact("day29", 1, 29*day, ttl), // 1.0
		fact("day30", 1, 30*day, ttl), // 0.9
		fact("day60", 5, 60*day, ttl), // 0.81
		fact("fresh-many", 9, time.Hour, ttl),
		fact("fresh-one", 1, time.Hour, ttl),
		fact("faded", 1, 22*30*day, ttl), // 0.9^22 ≈ 0.098 < 0.1
		fact("expired", 1, time.Hour, 30*time.Minute),
	}
	got := assemble.TopFacts(decay.DefaultPolicy, in, now, 4)
	var order []string
	for _, f := range got.Facts {
		order = append(order, f.Value)
	}
	require.Equal(t, []string{"fresh-many", "fresh-one", "day29", "day30"}, order, "by weight now, then mentions")
	require.InDelta(t, 0.9, got.Facts[3].Weight, 1e-9)
	require.Equal(t, []assemble.Cut{{Reason: "count", Count: 1}, {Reason: "expired", Count: 1}, {Reason: "decayed", Count: 1}}, got.Cuts)

	none := assemble.TopFacts(decay.DefaultPolicy, in, now, 0)
	require.Empty(t, none.Facts)
	require.NotNil(t, none.Facts, "an empty list, not null, in JSON")
}

func TestRenderFacts(t *testing.T) {
	t.Parallel()
	p := assemble.Parts{Facts: assemble.Facts{Facts: []assemble.WeightedFact{
		{Type: "book_title", Display: "三体"}, {Type: "author", Display: "刘慈欣"}, {Type: "genre", Display: "科幻"},
	}}}
	zh := assemble.Render(assemble.LangAuto, p)
	require.Contains(t, zh, "用户曾关注：三体（书）、刘慈欣（作者）、科幻（类型）")
	require.Contains(t, zh, "不作为事实来源")
	require.NotContains(t, zh, "本次会话", "no window, no window heading")
	en := assemble.Render(assemble.LangEN, p)
	require.Contains(t, en, "The user has shown interest in: 三体 (book), 刘慈欣 (author), 科幻 (genre)")
}

// A name whose sort the extractor could not tell (type name) is shown
// without a kind rather than with a guessed one; so is a type the renderer
// has no word for.
func TestRenderFactsOfUnknownSort(t *testing.T) {
	t.Parallel()
	p := assemble.Parts{Facts: assemble.Facts{Facts: []assemble.WeightedFact{
		{Type: "name", Display: "Anna Karenina"}, {Type: "book_title", Display: "Dune"}, {Type: "name", Display: "Radiohead"},
	}}}
	en := assemble.Render(assemble.LangEN, p)
	require.True(t, strings.HasSuffix(en, "\nThe user has shown interest in: Anna Karenina, Dune (book), Radiohead"), en)
	zh := assemble.Render(assemble.LangZH, p)
	require.True(t, strings.HasSuffix(zh, "\n用户曾关注：Anna Karenina、Dune（书）、Radiohead"), zh)
}
