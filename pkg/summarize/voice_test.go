package summarize

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/require"
)

func TestVoiceOf(t *testing.T) {
	t.Parallel()
	cases := []struct {
		text string
		want voice
	}{
		// About the speaker.
		{"I liked Dune as a teenager.", voice{self: true}},
		{"My sister and I enjoy Le Guin.", voice{self: true}},
		{"I’m allergic to cats.", voice{self: true}},
		{"我十几岁时很喜欢《三体》。", voice{self: true}},
		// Requests and decisions.
		{"I'll take Dune, and please remember that I don't like horror.", voice{self: true, intent: true}},
		{"Let's go with the shorter one.", voice{intent: true}},
		{"We went camping with the kids.", voice{self: true}},
		{"Moments like these make us grateful for our friends.", voice{}},
		{"Please recommend a short novel.", voice{intent: true}},
		{"Can you find me something lighter?", voice{self: false, intent: true}},
		{"我决定先读《三体》。", voice{self: true, intent: true}},
		{"请推荐一本科幻小说。", voice{intent: true}},
		{"帮我找一本轻松点的书。", voice{self: true, intent: true}},
		// Reactions to the other.
		{"Great choice: Dune by Frank Herbert.", voice{filler: true}},
		{"Enjoy the desert planet Arrakis!", voice{filler: true}},
		{"Oh, have fun at the book club!", voice{filler: true}},
		{"You'll love the Earthsea books.", voice{filler: true}},
		{"Wow, I'm so happy for you, you did it!", voice{filler: true}},
		{"Congrats on the cooking show, I'll be watching!", voice{filler: true}},
		{"好选择：刘慈欣的《三体》。", voice{filler: true}},
		{"祝你读得开心！", voice{filler: true}},
		// A statement is no reaction, even with a word a reaction uses.
		{"I enjoy hiking with my dog.", voice{self: true}},
		{"That's great, I finally finished my thesis!", voice{self: true}},
		// Neither.
		{"Dune was published in 1965.", voice{}},
		{"Your dog looks happy.", voice{}},
		{"《三体》是刘慈欣写的。", voice{}},
	}
	for _, c := range cases {
		require.Equal(t, c.want, voiceOf(c.text), c.text)
	}
}

// The ASCII fast paths of chatWords, mostlyHan, wordCount and the letter
// runs addressees reads give what their plain definitions give, on random
// text of ASCII, curly apostrophes, Han, accented letters, combining marks
// and invalid bytes.
func TestFastPathsMatchTheirDefinitions(t *testing.T) {
	t.Parallel()
	plainChatWords := func(s string) []string {
		s = strings.ToLower(strings.ReplaceAll(s, "’", "'"))
		words := strings.FieldsFunc(s, func(r rune) bool {
			return !(unicode.IsLetter(r) && !unicode.Is(unicode.Han, r) || unicode.IsDigit(r) || r == '\'')
		})
		for i, w := range words {
			words[i] = strings.Trim(w, "'")
		}
		return words
	}
	plainMostlyHan := func(s string) bool {
		var han, other int
		for _, r := range s {
			switch {
			case unicode.Is(unicode.Han, r):
				han++
			case unicode.IsLetter(r):
				other++
			}
		}
		return han*3 > other
	}
	plainWordCount := func(s string) float64 {
		var n float64
		inWord := false
		for _, r := range s {
			switch {
			case unicode.Is(unicode.Han, r):
				n += 0.5
				inWord = false
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' || r == '’' || r == '-':
				if !inWord && r != '\'' && r != '’' && r != '-' {
					n++
					inWord = true
				}
			default:
				inWord = false
			}
		}
		return n
	}
	pieces := []string{"a", "Z", "q", "7", "0", "'", "-", " ", ",", ".", "!", "?", "\t", "’", "é", "É", "ß",
		"中", "文", "我", "\u0301", "\xff", "\xe4\xb8", "I'm", "O'Neil", "don't", "''", "Dr.", "Hi,"}
	rng := rand.New(rand.NewPCG(29, 1))
	for range 50_000 {
		var b strings.Builder
		ascii := rng.IntN(2) == 0
		for range rng.IntN(24) {
			p := pieces[rng.IntN(len(pieces))]
			for ascii && p[0] >= 0x80 || ascii && p == "’" {
				p = pieces[rng.IntN(len(pieces))]
			}
			b.WriteString(p)
		}
		s := b.String()
		require.True(t, slices.Equal(plainChatWords(s), chatWords(s)), "%q: %q", s, chatWords(s))
		require.Equal(t, plainMostlyHan(s), mostlyHan(s), "%q", s)
		require.Equal(t, plainWordCount(s), wordCount(s), "%q", s)
		var runs []string
		eachLetterRun(s, func(w string) { runs = append(runs, w) })
		require.True(t, slices.Equal(strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) }), runs), "%q: %q", s, runs)
	}
}
