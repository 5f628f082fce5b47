package contexteval

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestNormalize(t *testing.T) {
	t.Parallel()
	require.Equal(t, "caroline: i went to a lgbtq group.", normalize("  Caroline:\tI went\n\nto a  LGBTQ group. "))
	require.Equal(t, "", normalize(" \n\t "))
}

func TestEvidenceKeySixtyCharacters(t *testing.T) {
	t.Parallel()
	long := "Melanie: " + strings.Repeat("abcdefghij", 10) // 109 characters
	require.Equal(t, "melanie: abcdefghijabcdefghijabcdefghijabcdefghijabcdefghija", evidenceKey(long))
	require.Len(t, []rune(evidenceKey(long)), 60)
	// Characters, not bytes: a key never cuts a character in half.
	wide := strings.Repeat("é", 70)
	require.Equal(t, strings.Repeat("é", 60), evidenceKey(wide))
	// Shorter content is needed whole, normalized.
	require.Equal(t, "caroline: hi mel!", evidenceKey("Caroline:  Hi\nMel!"))
}

func TestEvidenceRecall(t *testing.T) {
	t.Parallel()
	long := "Melanie: I painted a lake sunrise last year, it was such a calm and lovely morning out there."
	short := "Caroline: Hey Mel!"
	other := "Caroline: I went to a support group yesterday."

	cases := []struct {
		name   string
		prompt string
		want   float64
	}{
		// The first 60 characters are enough, in another case and with the
		// white space of a rendered prompt.
		{"prefix of a long turn", "[2022-05-08] MELANIE: I painted a lake sunrise\n last year,  it was such a c…", 1.0 / 3},
		// 59 of the 60 characters are not.
		{"one character short", "melanie: i painted a lake sunrise last year, it was such a …", 0},
		{"short turn whole", "User: caroline: hey mel! how are you", 1.0 / 3},
		{"short turn cut", "caroline: hey mel", 0},
		{"all three", long + "\n" + short + "\n" + other, 1},
		{"none", "nothing remembered", 0},
	}
	for _, c := range cases {
		got, ok := EvidenceRecall(c.prompt, []string{long, short, other})
		require.True(t, ok, c.name)
		require.InDelta(t, c.want, got, 1e-9, c.name)
	}
	_, ok := EvidenceRecall("anything", nil)
	require.False(t, ok, "no evidence: not scored")
}

func TestTokens(t *testing.T) {
	t.Parallel()
	require.Equal(t, []string{"caroline", "s", "7", "may", "2023", "lgbtq", "don", "t", "café"},
		Tokens("Caroline's 7 May, 2023 — LGBTQ! don't café"))
	require.Equal(t, []string{"caroline", "7", "may", "2023", "lgbtq", "café"},
		contentWords("Caroline's 7 May, 2023 — LGBTQ! don't café"))
}

func TestAnswerWhere(t *testing.T) {
	t.Parallel()
	evidence := []string{"I bought a Fender guitar and a Korg piano."}
	history := append([]string{"We met 4 friends at the park."}, evidence...)
	// "korg" is in the prompt; "fender" only in the evidence; "4" in the
	// history only; "instruments" nowhere.
	share, ok := AnswerWhere("You told me about your Korg.", "4 instruments: the Fender, the Korg", evidence, history)
	require.True(t, ok)
	require.Equal(t, [Places]float64{0.25, 0.25, 0.25, 0.25}, share)
	_, ok = AnswerWhere("anything", "it is", evidence, history)
	require.False(t, ok)
}

func TestAnswerTokenRecall(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, prompt, answer string
		want                 float64
		ok                   bool
	}{
		{"two of three", "Caroline: I went to the support group on 7 May.", "7 May 2023", 2.0 / 3, true},
		{"a snippet's date is tokens too", "[2023-05-08] Caroline: I went to the support group on 7 May.", "7 May 2023", 1, true},
		{"stopwords do not count", "psychology", "The psychology of it", 1, true},
		{"distinct words", "counseling", "counseling, counseling and psychology", 0.5, true},
		{"tokens, not substrings", "sunrises", "sunrise", 0, true},
		{"a number answer", "She painted it in 2022.", "2022", 1, true},
		{"only stopwords", "anything", "it is", 0, false},
		{"empty", "anything", "", 0, false},
	}
	for _, c := range cases {
		got, ok := AnswerTokenRecall(c.prompt, c.answer)
		require.Equal(t, c.ok, ok, c.name)
		require.InDelta(t, c.want, got, 1e-9, c.name)
	}
}

func TestSessionRecall(t *testing.T) {
	t.Parallel()
	// LongMemEval's turns: long ones, and short ones that recur in many
	// sessions.
	plants := []string{
		"I bought two ferns and a snake plant for the living room last weekend, any care tips?",
		"Ferns like humidity and indirect light; water the snake plant sparingly.",
		"Thanks!",
	}
	trip := []string{"continue", "We're planning a road trip along the coast of Portugal in September with the kids."}
	onlyShort := []string{"Hello", "spq"}
	sessions := [][]string{plants, trip, onlyShort}

	cases := []struct {
		name   string
		prompt string
		want   float64
	}{
		// One long turn's first 60 characters, normalized, show the session.
		{"one turn of a session", "[2023-05-20] User: I bought two ferns and a snake plant for the living room last…", 1.0 / 3},
		{"the assistant's turn counts too", "Assistant: ferns like humidity and indirect light; water the\nsnake plant sparingly.", 1.0 / 3},
		// A short turn that other sessions share does not show its session
		// when the session has long turns.
		{"a shared short turn", "User: thanks! continue", 0},
		// A session of short turns only counts by them.
		{"a session of short turns", "User: hello", 1.0 / 3},
		{"two of three", "I bought two ferns and a snake plant for the living room last weekend\nWe're planning a road trip along the coast of Portugal in September", 2.0 / 3},
		{"none", "nothing remembered", 0},
	}
	for _, c := range cases {
		got, ok := SessionRecall(c.prompt, sessions)
		require.True(t, ok, c.name)
		require.InDelta(t, c.want, got, 1e-9, c.name)
	}
	_, ok := SessionRecall("anything", nil)
	require.False(t, ok, "no answer session: not scored")
	got, ok := SessionRecall("anything", [][]string{{"", " "}})
	require.True(t, ok)
	require.Equal(t, 0.0, got, "an empty turn shows nothing")
}
