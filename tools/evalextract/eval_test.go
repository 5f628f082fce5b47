package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/eval/datasets"
	"github.com/recallhq/recall/pkg/extract"
)

// TestTargets runs the evaluation over the real KdConv data, which always
// sits beside the repository (../shared/data), and fails when the data is
// missing or a target is not met. It is never skipped: a silent skip would
// let a regression in the extractor land unnoticed.
func TestTargets(t *testing.T) {
	t.Parallel()
	dir, err := datasets.Dir(datasets.DefaultDir)
	require.NoError(t, err)
	for _, domain := range domains() {
		path := filepath.Join(dir, "kdconv", domain, "dev.json")
		_, err := os.Stat(path)
		require.NoError(t, err, "evaluation data %s is missing; it must be present beside the repository", path)
	}

	results, err := run(context.Background(), dir)
	require.NoError(t, err)
	var out bytes.Buffer
	report(&out, results, false)
	t.Log("\n" + out.String())
	require.Len(t, results, 2*len(domains()))
	require.NoError(t, checkTargets(results))
}

func TestEvaluateCountsTruthAndPrecision(t *testing.T) {
	t.Parallel()
	convs := []conversation{{
		Name: "恋恋笔记本（美国2004年爱情片）",
		Messages: []utterance{
			{Message: "知道恋恋笔记本这部电影吗？"},
			{Message: "主演是瑞恩·高斯林，还有路人甲乙丙。", Attrs: []triple{
				{Name: "恋恋笔记本（美国2004年爱情片）", AttrName: "主演", AttrValue: "瑞恩·高斯林"},
				{Name: "瑞恩·高斯林", AttrName: "代表作品", AttrValue: "《爱乐之城》《恋恋笔记本》"},
				{Name: "不在文中的名字", AttrName: "职业", AttrValue: "演员"},
			}},
		},
	}}
	ex := stub{
		"知道恋恋笔记本这部电影吗？": {{Kind: extract.KindFilm, Value: "恋恋笔记本", Display: "恋恋笔记本"}},
		"主演是瑞恩·高斯林，还有路人甲乙丙。": {
			{Kind: extract.KindPerson, Value: "瑞恩·高斯林", Display: "瑞恩·高斯林"},
			{Kind: extract.KindPerson, Value: "路人甲", Display: "路人甲"},
			{Kind: extract.KindGenre, Value: "爱情", Display: "爱情"},
		},
	}
	res, err := evaluate(context.Background(), "film", "open", convs, ex)
	require.NoError(t, err)
	// Truth: only 瑞恩·高斯林 occurs verbatim; the topic name carries a
	// disambiguation suffix that the text does not.
	require.Equal(t, 1, res.Truth)
	require.Equal(t, 1, res.Found)
	// Precision: 恋恋笔记本 matches the name without its suffix and an item
	// of a list value, 瑞恩·高斯林 a name, 路人甲 nothing; genres do not count.
	require.Equal(t, 3, res.Extracted)
	require.Equal(t, 2, res.Correct)
	require.Equal(t, 1, res.StrictCorrect) // only 瑞恩·高斯林 equals a name as written
	require.Equal(t, 2, res.Turns)
	require.Equal(t, []string{"路人甲"}, res.Wrong)
}

func TestCatalogKinds(t *testing.T) {
	t.Parallel()
	convs := []conversation{{
		Name: "某电影（2001年）",
		Messages: []utterance{{Attrs: []triple{
			{Name: "某演员", AttrName: "职业", AttrValue: "演员"},
			{Name: "某公司", AttrName: "成立时间", AttrValue: "1990年"},
		}}},
	}}
	got := catalog("film", convs)
	require.ElementsMatch(t, []extract.CatalogEntry{
		{Kind: extract.KindFilm, Name: "某电影（2001年）"},
		{Kind: extract.KindFilm, Name: "某电影"},
		{Kind: extract.KindPerson, Name: "某演员"},
		{Kind: extract.KindTopic, Name: "某公司"},
	}, got)
}

// stub answers with canned facts per message text.
type stub map[string][]extract.Fact

func (s stub) Extract(_ context.Context, in extract.Input) ([]extract.Fact, error) {
	return s[in.Text], nil
}
