package summarize

import (
	"testing"

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
