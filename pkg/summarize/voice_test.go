package summarize

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/script"
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

// The ASCII fast path of chatWords gives what its general one gives; the
// word count and the letter runs addressees reads give what their
// definitions give: on random text of ASCII, curly apostrophes, Han,
// accented letters, combining marks and invalid bytes.
func TestFastPathsMatchTheirDefinitions(t *testing.T) {
	t.Parallel()
	// A word starts at a letter or digit (not Han) that no other such
	// character comes before, with only apostrophes and hyphens between;
	// a Han character counts a half.
	definedWordCount := func(s string) float64 {
		classes := strings.Map(func(r rune) rune {
			switch {
			case unicode.Is(unicode.Han, r):
				return 'h'
			case unicode.IsLetter(r) || unicode.IsDigit(r):
				return 'w'
			case r == '\'' || r == '’' || r == '-':
				return -1 // joins, neither starts nor ends a word
			}
			return 'o'
		}, s)
		n := 0.5 * float64(strings.Count(classes, "h"))
		for i := range classes {
			if classes[i] == 'w' && (i == 0 || classes[i-1] != 'w') {
				n++
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
		if script.ASCII(s) {
			require.True(t, slices.Equal(runeChatWords(s), asciiChatWords(s)), "%q: %q", s, asciiChatWords(s))
		}
		require.Equal(t, definedWordCount(s), wordCount(s), "%q", s)
		var runs []string
		eachLetterRun(s, func(w string) { runs = append(runs, w) })
		require.True(t, slices.Equal(strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) }), runs), "%q: %q", s, runs)
	}
}
