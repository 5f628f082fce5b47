package extractor

import (
	"strings"

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
		"I think I'll go with the roguelike.":        3,
		"我选第四个。":                                     4,
	} {
		first, ok := pickSentence(text)
		require.True(t, ok, text)
		n, ok := pickOf(text, first, entries, decides(first))
		require.True(t, ok, text)
		require.Equal(t, want, n, text)
	}
	for _, text := range []string{
		"Can you tell me more about the second option?",
		"Tell me more about option 2.",
		"Explain the third one in detail.",
		"What about a board game instead?",
		"I'd like something else entirely.",
		"I think I'll also look for a puzzle game for my niece.",
		"I'll try to find a calm game for the evenings.",
		"I see what you mean about choosing a game for groups.",
	} {
		first, ok := pickSentence(text)
		if ok {
			_, ok = pickOf(text, first, entries, decides(first))
		}
		require.False(t, ok, text)
	}
}

func decides(first string) bool { return decisionCue.MatchString(strings.ToLower(first)) }

// An entry is named by the words only it has: of four smoothies, three
// with spinach and two with mango, "the mango and pineapple smoothie" is
// the first; one short word does it among short options ("the salad
// option"). In a list of tips ("Head: what to do"), a sentence that meets
// only a tip's description picks nothing.
func TestPickOfOwnWords(t *testing.T) {
	t.Parallel()
	smoothies := listsel.Entries("Some options:\n1. A refreshing mango and pineapple smoothie.\n2. A green smoothie with spinach and kale.\n3. A creamy avocado and spinach smoothie.\n4. A tropical smoothie with spinach, mango, and coconut milk.")
	lunch := listsel.Entries("Ideas:\n1. A fresh salad with grilled chicken.\n2. A bowl of pasta with marinara sauce.\n3. A hearty sandwich with roast beef.")
	tips := listsel.Entries("Some tips:\n1. Set a budget: decide how much to spend on purchases each month.\n2. Track spending: note every purchase and its reason.\n3. Wait a day: sleep on it before buying.")
	markets := listsel.Entries("Where to shop:\n1. Pettah Market: a bustling open-air market with bargains.\n2. Laksala: government-run handicrafts.\n3. Odel: an upscale department store.")
	for _, c := range []struct {
		text    string
		entries []listsel.Entry
		want    int
	}{
		{"I'll go with the mango and pineapple smoothie. The others with spinach don't appeal to me.", smoothies, 1},
		{"I'll go with the salad option.", lunch, 1},
		{"I think I'll check out Pettah Market for some bargains.", markets, 1},
		{"I'll check out the bargains and the handicrafts.", markets, 0},
		{"I think I'll go with noting the reason for each purchase.", tips, 0},
		{"I'll go with the smoothie.", smoothies, 0},
		{"I think I'll check out Pettah Market or Laksala.", markets, 0},
	} {
		first, ok := pickSentence(c.text)
		require.True(t, ok, c.text)
		n, ok := pickOf(c.text, first, c.entries, decides(first))
		if c.want == 0 {
			require.False(t, ok, c.text)
			continue
		}
		require.True(t, ok, c.text)
		require.Equal(t, c.want, n, c.text)
	}
}

// A pick among options offered in prose is shown as the reply offered it,
// with what was turned down; liking without deciding, and a decision about
// something the reply did not offer, are none.
func TestChoiceWords(t *testing.T) {
	t.Parallel()
	reply := "For a road trip you could take beef jerky, cheese sticks, trail mix, or fresh fruit and veggie sticks with hummus."
	text, matter, ok := choiceWords("I'll go with the fresh fruit and veggie sticks with hummus", reply)
	require.True(t, ok)
	require.Equal(t, "Chose from the options offered: fresh fruit and veggie sticks with hummus (not: take beef jerky; cheese sticks; trail mix)", text)
	require.Equal(t, "choice fresh fruit and veggie sticks with", matter)
	text, _, ok = choiceWords("I like the sound of trail mix", reply)
	require.True(t, ok)
	require.Contains(t, text, "offered: trail mix (not:")
	pets := "For an apartment pet, you could consider a fish tank with colorful guppies, a parrot that can mimic sounds, a litter of playful kittens, or a pair of vocal Siamese cats."
	text, _, ok = choiceWords("I think I'll go with the fish tank option", pets)
	require.True(t, ok)
	require.Equal(t, "Chose from the options offered: a fish tank with colorful guppies (not: a parrot that can …; a litter of playful …; a pair of vocal …)", text)
	for _, first := range []string{
		"Trail mix is nice",
		"I'll go with a nap instead",
		"Beef jerky is salty",
		"I'll go with the sticks",
	} {
		_, _, ok := choiceWords(first, reply)
		require.False(t, ok, first)
	}
	// Options one sentence each: the sentence the decision names.
	brands := "For a natural look, you could consider Revlon, an affordable brand found everywhere. Maybelline is another option. Alternatively, you might check out Kjaer Weis, a small refillable brand."
	text, _, ok = choiceWords("I think I'll go with Kjaer Weis", brands)
	require.True(t, ok)
	require.Equal(t, "Chose from the options offered: Alternatively, you might check out Kjaer Weis, a small refillable brand. (not: For a natural look, …; Maybelline is another option.)", text)
	// A long answer's sentences are no options; a reply offering one thing
	// offers no choice.
	long := strings.Repeat("Kjaer Weis makes refillable compacts. ", maxProseSentences) + "Revlon is everywhere."
	_, _, ok = choiceWords("I think I'll go with Kjaer Weis", long)
	require.False(t, ok)
	_, _, ok = choiceWords("I think I'll go with the documentary series", "A documentary series about Rome is an engaging way to learn about it.")
	require.False(t, ok)
	// Looking into something a prose reply advised is no pick among
	// options.
	advice := "Scalp massage brushes are popular. It is always a good idea to read reviews of the product first. You can check out online stores."
	_, _, ok = choiceWords("I'll definitely check out some reviews before I make my purchase", advice)
	require.False(t, ok)
}

// The reason after a pick is kept with it unless it asks, or is a
// statement of the user's own (kept on its own).
func TestPickReason(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]string{
		"I'll go with the salad option. The others don't work for me.":                         "The others don't work for me.",
		"I'll go with the salad option. Does it come with bread?":                              "",
		"I'll go with the salad option. I have celiac disease.":                                "",
		"I'll go with the salad option.":                                                       "",
		"I'll go with the salad option. Thanks for the ideas!":                                 "",
		"I'll go with the salad option. By the way, it's not my first visit.":                  "",
		"I'll go with the salad option! The other pets might be too noisy for my flat. Thanks": "The other pets might be too noisy for my flat.",
	} {
		first, ok := pickSentence(text)
		require.True(t, ok, text)
		require.Equal(t, want, pickReason(text, first), text)
	}
}
