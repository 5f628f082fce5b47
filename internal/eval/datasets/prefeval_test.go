package datasets

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestBuildPrefEval(t *testing.T) {
	t.Parallel()
	// Two topics; the second item of "travel" lacks aligned_op, and a topic
	// that has choices only is still a topic.
	raw := `{
	  "explicit": {
	    "travel": [{"preference": "I avoid crowded places.", "question": "Where should I go in Rome?", "explanation": "quiet spots"}],
	    "pets": [{"preference": "I only adopt senior dogs.", "question": "Which dog should I get?"}]
	  },
	  "implicit_choice": {
	    "travel": [
	      {"preference": "I avoid crowded places.", "question": "Where should I go in Rome?",
	       "options": ["A quiet garden.", "The Colosseum at noon."], "aligned_op": "A quiet garden.",
	       "conversation": {"query": "Ideas for Sunday?", "assistant_options": "1. The Colosseum at noon.\n2. A quiet garden.",
	         "user_selection": "Option 2, please.", "assistant_acknowledgment": "A calm choice."}},
	      {"preference": "I like trains.", "question": "How do I get to Milan?", "options": ["By train.", "By plane."],
	       "conversation": {"query": "q", "assistant_options": "o", "user_selection": "s", "assistant_acknowledgment": "a"}}
	    ],
	    "games": [{"preference": "I like chess.", "question": "A game?", "options": ["Chess."],
	       "conversation": {"query": "q", "assistant_options": "o", "user_selection": "s", "assistant_acknowledgment": "a"}}]
	  }
	}`
	var r rawPrefEval
	require.NoError(t, json.Unmarshal([]byte(raw), &r))
	pe, err := buildPrefEval(r)
	require.NoError(t, err)
	require.Equal(t, []string{"games", "pets", "travel"}, pe.Topics)
	require.Equal(t, []PrefEvalItem{{Topic: "travel", Index: 0, Preference: "I avoid crowded places.", Question: "Where should I go in Rome?", Explanation: "quiet spots"}},
		pe.Explicit["travel"])
	require.Empty(t, pe.Explicit["games"])
	c := pe.Choice["travel"]
	require.Len(t, c, 2)
	require.Equal(t, PrefEvalChoice{
		PrefEvalItem: PrefEvalItem{Topic: "travel", Index: 0, Preference: "I avoid crowded places.", Question: "Where should I go in Rome?"},
		Options:      []string{"A quiet garden.", "The Colosseum at noon."}, Chosen: "A quiet garden.",
		Query: "Ideas for Sunday?", AssistantOptions: "1. The Colosseum at noon.\n2. A quiet garden.", UserSelection: "Option 2, please.", AssistantAcknowledgment: "A calm choice.",
	}, c[0])
	require.Equal(t, "By train.", c[1].Chosen, "without aligned_op, the first option")
	require.Equal(t, 1, c[1].Index)

	r.ImplicitChoice["travel"][1].Convo = nil
	_, err = buildPrefEval(r)
	require.ErrorContains(t, err, "implicit_choice travel 1: options or conversation missing")
	r.Explicit["pets"][0].Question = ""
	_, err = buildPrefEval(r)
	require.ErrorContains(t, err, "explicit pets: 0: preference or question missing")
}

// TestLoadPrefEval reads the real data, which always sits beside the
// repository: a missing file fails the test rather than skipping it.
func TestLoadPrefEval(t *testing.T) {
	t.Parallel()
	dir, err := Dir(DefaultDir)
	require.NoError(t, err)
	_, err = os.Stat(filepath.Join(dir, prefEvalFile))
	require.NoError(t, err, "evaluation data is missing; it must be present beside the repository")

	pe, err := LoadPrefEval(dir)
	require.NoError(t, err)
	require.Equal(t, []string{"education_learning_styles", "entertain_games", "entertain_shows", "lifestyle_beauty", "lifestyle_fit",
		"pet_ownership", "shop_fashion", "shop_motors", "travel_activities", "travel_restaurant"}, pe.Topics)
	explicit, choices := 0, 0
	for _, topic := range pe.Topics {
		explicit += len(pe.Explicit[topic])
		choices += len(pe.Choice[topic])
		require.Len(t, pe.Choice[topic], len(pe.Explicit[topic]), topic)
		for i, c := range pe.Choice[topic] {
			require.Equal(t, i, c.Index)
			require.Len(t, c.Options, 4)
			// The option the user picks is the data's first: what the
			// evaluation looks for in a prompt of a choice.
			require.Equal(t, c.Options[0], c.Chosen, "%s %d", topic, i)
			// The same question as the explicit item of the same place.
			require.Equal(t, pe.Explicit[topic][i].Question, c.Question, "%s %d", topic, i)
		}
	}
	require.Equal(t, 505, explicit)
	require.Equal(t, 505, choices)

	convs, err := LoadPrefEvalConversations(dir)
	require.NoError(t, err)
	require.Len(t, convs, explicit+choices)
	first := convs[0]
	require.Equal(t, "prefeval-explicit-education_learning_styles-0", first.SampleID)
	require.Equal(t, []Session{{ID: first.SampleID + "-s0", Turns: 1}, {ID: first.SampleID + "-s1", Turns: 1}}, first.Sessions)
	require.Equal(t, pe.Explicit["education_learning_styles"][0].Preference, first.Turns[0].Content)
	require.Equal(t, first.Turns[0].OccurredAt.Add(24*time.Hour), first.Turns[1].OccurredAt)
	turns := 0
	for _, cv := range convs {
		turns += len(cv.Turns)
		for i := 1; i < len(cv.Turns); i++ {
			require.True(t, cv.Turns[i].OccurredAt.After(cv.Turns[i-1].OccurredAt), "turns in event-time order")
		}
	}
	require.Equal(t, 2*505+5*505, turns)
}
