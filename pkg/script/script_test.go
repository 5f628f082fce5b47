package script_test

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/script"
)

func TestCount(t *testing.T) {
	t.Parallel()
	for s, want := range map[string][2]int{
		"":                 {0, 0},
		"Hello, world 42!": {0, 10},
		"我读了《三体》":          {5, 0},
		"Start自选集 é ß":     {3, 7},
		"\xff\xfe abc 中":   {1, 3},
		"ｓｔａｒｔ":            {0, 5},
	} {
		han, other := script.Count(s)
		require.Equal(t, want, [2]int{han, other}, "%q", s)
	}
}

// Count and ASCII give what their definitions give, character by
// character, on random text of ASCII, Han, other scripts, marks and
// invalid bytes.
func TestCountIsItsDefinition(t *testing.T) {
	t.Parallel()
	pieces := []string{"a", "Z", "7", " ", "'", "-", "中", "文", "é", "Ω", "ж", "\u0301", "ｓ", "\xff", "\xe4\xb8", "。"}
	rng := rand.New(rand.NewPCG(7, 29))
	for range 50_000 {
		var b strings.Builder
		for range rng.IntN(16) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		s := b.String()
		han := utf8.RuneCountInString(strings.Map(func(r rune) rune {
			if unicode.Is(unicode.Han, r) {
				return r
			}
			return -1
		}, s))
		letters := strings.Count(strings.Map(func(r rune) rune {
			if unicode.IsLetter(r) && !unicode.Is(unicode.Han, r) {
				return 'x'
			}
			return ' '
		}, s), "x")
		gotHan, gotOther := script.Count(s)
		require.Equal(t, [2]int{han, letters}, [2]int{gotHan, gotOther}, "%q", s)
		require.Equal(t, !strings.ContainsFunc(s, func(r rune) bool { return r >= utf8.RuneSelf }), script.ASCII(s), "%q", s)
	}
}

// HasHan finds an ideograph wherever it is, past runs of ASCII read eight
// bytes at a time or among other scripts' letters.
func TestHasHan(t *testing.T) {
	t.Parallel()
	reference := func(s string) bool {
		for _, r := range s {
			if r >= 0x4E00 && r <= 0x9FFF {
				return true
			}
		}
		return false
	}
	var cases []string
	for _, tail := range []string{"", "书", "é", "か", "😀", "㐀", "龥", "\xe4", "\xe4\xb8"} {
		for n := range 20 {
			cases = append(cases, strings.Repeat("a", n)+tail, strings.Repeat("a", n)+tail+strings.Repeat("b", 20-n))
		}
	}
	cases = append(cases, "café 和 tea", "ありがとう", "\xff\xfe", "")
	for _, s := range cases {
		require.Equal(t, reference(s), script.HasHan(s), "%q", s)
	}
}
