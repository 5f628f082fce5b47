package extract_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/extract"
)

func TestKeywords(t *testing.T) {
	t.Parallel()
	r, err := extract.NewRules(extract.RulesOptions{})
	require.NoError(t, err)
	cases := []struct {
		text string
		want []string
	}{
		{"我最近在读刘慈欣的书，也想去云南旅行。", []string{"刘慈欣", "云南", "旅行"}},
		{"I went to an LGBTQ support group yesterday and it was so powerful.", []string{"lgbtq", "support", "group", "powerful"}},
		{"Melanie's kids love painting and swimming!", []string{"melanie", "kids", "painting", "swimming"}},
		{"   ", nil},
		{"oh yeah, I think so, thanks!", nil},
	}
	for _, c := range cases {
		require.Equal(t, c.want, r.Keywords(c.text), c.text)
	}
	en, err := extract.NewRules(extract.RulesOptions{SkipChinese: true})
	require.NoError(t, err)
	require.Equal(t, []string{"science", "fiction"}, en.Keywords("我喜欢 science fiction"), "without the segmenter, English only")
}
