package extract

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseSections(t *testing.T) {
	t.Parallel()
	got, err := parseSections("t.txt", "# comment\n\n@one\na b\nc\n@two film\nbooks_by x\n")
	require.NoError(t, err)
	require.Equal(t, []section{
		{name: "one", entries: []string{"a", "b", "c"}},
		{name: "two", kind: "film", entries: []string{"books by", "x"}},
	}, got)

	for _, bad := range []string{"words before a section", "@", "@a b c"} {
		_, err := parseSections("t.txt", bad)
		require.Error(t, err, "input %q", bad)
	}
}

func TestParseWordsRejectsMistakes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		parse func() error
	}{
		{"unknown chinese section", func() error { _, err := parseZhWords("z", "@nope\nx"); return err }},
		{"unknown anchor kind", func() error { _, err := parseZhWords("z", "@typed_after poem\nx"); return err }},
		{"unknown english section", func() error { _, err := parseEnWords("e", "@nope\nx"); return err }},
		{"unknown trigger kind", func() error { _, err := parseEnWords("e", "@triggers poem\nx"); return err }},
		{"cue without a title kind", func() error { _, err := parseCues("c", "@title_cues person\nx"); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Error(t, tt.parse())
		})
	}
}

func TestEmbeddedLexiconLoads(t *testing.T) {
	t.Parallel()
	lx, err := loadLexicon()
	require.NoError(t, err)
	require.NotEmpty(t, lx.entries)
	require.Len(t, lx.patterns, len(lx.patEntry))
	require.True(t, lx.common['王'])
	require.True(t, lx.surnames2["欧阳"])
	require.True(t, lx.translit['斯'])
	require.True(t, lx.enStop["january"])
	require.NotEmpty(t, lx.zh.typedAfter.byFirst)
	require.NotEmpty(t, lx.en.triggers)
	require.NotEmpty(t, lx.cues)
	for _, e := range lx.entries {
		require.Contains(t, []Kind{KindGenre, KindTopic}, e.kind)
		require.NotEmpty(t, e.display)
	}
}

func TestAnchorSetPrefersLongest(t *testing.T) {
	t.Parallel()
	var s anchorSet
	for _, w := range []string{"这首", "这首歌曲", "这首歌"} {
		s.add(anchor{word: w, kind: KindMusic})
	}
	s.sort()
	require.Equal(t, "这首歌曲", s.byFirst['这'][0].word)
	require.Equal(t, "这首歌曲", s.byLast['曲'][0].word)
}
