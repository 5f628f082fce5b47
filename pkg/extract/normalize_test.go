package extract

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/script"
)

func TestNormalize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"plain chinese", "三体", "三体"},
		{"book title marks", "《三体》", "三体"},
		{"trailing space", "三体 ", "三体"},
		{"ascii quotes", `"三体"`, "三体"},
		{"full-width quotes", "＂三体＂", "三体"},
		{"curly quotes", "“三体”", "三体"},
		{"nested marks", "“《三体》”", "三体"},
		{"corner brackets", "「后来」", "后来"},
		{"lenticular brackets", "【阿凡达】", "阿凡达"},
		{"full-width letters", "ＡＢＣ", "abc"},
		{"full-width digits", "流浪地球２", "流浪地球2"},
		{"roman numeral", "无间道Ⅱ", "无间道ii"},
		{"english lower-cased", "The Godfather", "the godfather"},
		{"whitespace collapsed", "  science \t fiction\n", "science fiction"},
		{"ideographic space", "三　体", "三体"},
		{"space next to han dropped", "Start 自选集", "start自选集"},
		{"katakana middle dot", "尼克・卡索维茨", "尼克·卡索维茨"},
		{"bullet as middle dot", "尼克•卡索维茨", "尼克·卡索维茨"},
		{"inner quotes kept", "rock 'n' roll", "rock 'n' roll"},
		{"only marks", "《》", ""},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, Normalize(tt.in))
		})
	}
}

func TestNormalizeVariantsShareOneKey(t *testing.T) {
	t.Parallel()
	variants := []string{"《三体》", "三体", `"三体 "`, "＂三体＂", "「三体」", " 三 体 "}
	for _, v := range variants {
		require.Equal(t, "三体", Normalize(v), "variant %q", v)
	}
}

func TestNormalizeIdempotent(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"《Ｔｈｅ  Godfather》", "尼克・卡索维茨", "Start 自选集", "无间道Ⅱ", "  a  b  "} {
		once := Normalize(s)
		require.Equal(t, once, Normalize(once), "input %q", s)
	}
}

func TestCleanDisplay(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string
	}{
		{"《三体》", "三体"},
		{"  The   Godfather ", "The Godfather"},
		{"“流浪地球”", "流浪地球"},
		{"ＡＢＣ", "ＡＢＣ"}, // display keeps the user's script
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, cleanDisplay(tt.in))
		})
	}
}

// Normalize's ASCII loop gives what its general one gives, on random ASCII
// text (every kind of white space, capitals, quotes and brackets at the
// ends); and Normalize is the general loop on text with a character
// outside ASCII.
func TestNormalizeASCIIMatchesTheGeneralLoop(t *testing.T) {
	t.Parallel()
	pieces := []string{"a", "Z", "q", "7", " ", "  ", "\t", "\n", "\r", "\v", "\f", "\x00", "\x7f", "'", "\"", "`", "<", ">",
		"-", ".", "The", "Book", "x", "\u00a0", "《", "三体", "Ｓ", "é"}
	rng := rand.New(rand.NewPCG(29, 2))
	for range 100_000 {
		var b strings.Builder
		onlyASCII := rng.IntN(4) != 0
		for range rng.IntN(12) {
			p := pieces[rng.IntN(len(pieces))]
			for onlyASCII && !script.ASCII(p) {
				p = pieces[rng.IntN(len(pieces))]
			}
			b.WriteString(p)
		}
		s := b.String()
		if script.ASCII(s) {
			require.Equal(t, normalizeRunes(s), normalizeASCII(s), "%q", s)
		}
		require.Equal(t, trimEdges(normalizeRunes(s)), Normalize(s), "%q", s)
	}
}
