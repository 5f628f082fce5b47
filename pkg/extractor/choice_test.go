package extractor

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/listsel"
)

// A pick is read by its position or by the words it shares with one entry
// well ahead of the others; a question about an entry, an instruction and
// a sentence that names no entry are none.
func TestPickOf(t *testing.T) {
	t.Parallel()
	reply := "Here are a few games:\n1. Codenames, a word game for groups.\n2. Monument Valley, a calm puzzle game without ads.\n3. A roguelike deck-building game with long runs.\n4. A competitive online shooter."
	entries := listsel.Entries(reply)
	require.Len(t, entries, 4)
	for text, want := range map[string]int{
		"2":                                          2,
		"The last one.":                              lastEntry,
		"I think option 3 suits me best.":            3,
		"I'll go with Monument Valley. No ads!":      2,
		"I think I'll go with Codenames.":            1,
		"The calm puzzle game sounds perfect to me.": 2,
		"我选第四个。":                                     4,
	} {
		first, ok := pickSentence(text)
		require.True(t, ok, text)
		n, ok := pickOf(text, first, entries)
		require.True(t, ok, text)
		require.Equal(t, want, n, text)
	}
	for _, text := range []string{
		"Can you tell me more about the second option?",
		"Tell me more about option 2.",
		"Explain the third one in detail.",
		"What about a board game instead?",
		"I'd like something else entirely.",
	} {
		first, ok := pickSentence(text)
		if ok {
			_, ok = pickOf(text, first, entries)
		}
		require.False(t, ok, text)
	}
}

// A pick among options offered in prose is kept in the user's words when
// it decides and names what the reply offered; liking, asking and a
// decision about something else are not.
func TestChoiceWords(t *testing.T) {
	t.Parallel()
	reply := "For a road trip you could take beef jerky, cheese sticks, trail mix, or fresh fruit and veggie sticks with hummus."
	text, matter, ok := choiceWords("I'll go with the fresh fruit and veggie sticks with hummus", reply)
	require.True(t, ok)
	require.Equal(t, "Chose from the options offered: I'll go with the fresh fruit and veggie sticks with hummus", text)
	require.NotEmpty(t, matter)
	for _, first := range []string{
		"I like the sound of trail mix",
		"I'll go with a nap instead",
		"Beef jerky is salty",
	} {
		_, _, ok := choiceWords(first, reply)
		require.False(t, ok, first)
	}
}
