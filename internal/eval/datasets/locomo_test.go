package datasets

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestParseLoCoMoDate(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		want string
	}{
		{"1:56 pm on 8 May, 2023", "2023-05-08T13:56:00Z"},
		{"10:04 am on 19 December, 2023", "2023-12-19T10:04:00Z"},
		{"12:06 am on 11 November, 2022", "2022-11-11T00:06:00Z"},
		{"12:09 pm on 13 September, 2023", "2023-09-13T12:09:00Z"},
		{"  7:55 PM on 9 June,  2023 ", "2023-06-09T19:55:00Z"},
		{"8:30 am on 3 Sep, 2022", "2022-09-03T08:30:00Z"},
		{"8:30 am on September 3, 2022", "2022-09-03T08:30:00Z"},
	}
	for _, c := range cases {
		got, err := parseLoCoMoDate(c.in)
		require.NoError(t, err, c.in)
		require.Equal(t, c.want, got.Format(time.RFC3339), c.in)
	}
	for _, bad := range []string{"", "yesterday", "13:56 on 8 May, 2023", "1:56 pm on 31 February, 2023"} {
		_, err := parseLoCoMoDate(bad)
		require.Error(t, err, bad)
	}
}

func TestParseEvidence(t *testing.T) {
	t.Parallel()
	known := map[string]bool{"D1:3": true, "D8:6": true, "D9:17": true, "D11:26": true, "D2:1": true}
	cases := []struct {
		name    string
		entries []string
		want    []string
		stats   EvidenceStats
	}{
		{"well formed", []string{"D1:3", "D2:1"}, []string{"D1:3", "D2:1"}, EvidenceStats{Entries: 2, IDs: 2}},
		{"several in one entry", []string{"D8:6; D9:17"}, []string{"D8:6", "D9:17"}, EvidenceStats{Entries: 1, IDs: 2, Repaired: 1}},
		{"stray colon", []string{"D:11:26"}, []string{"D11:26"}, EvidenceStats{Entries: 1, IDs: 1, Repaired: 1}},
		{"spaces and zeros", []string{" D01: 3 "}, []string{"D1:3"}, EvidenceStats{Entries: 1, IDs: 1, Repaired: 1}},
		{"no id", []string{"D", "D1:3"}, []string{"D1:3"}, EvidenceStats{Entries: 2, IDs: 1, Malformed: 1}},
		{"unknown id", []string{"D10:19", "D1:3"}, []string{"D1:3"}, EvidenceStats{Entries: 2, IDs: 1, Unknown: 1}},
		{"repeats once", []string{"D1:3", "D1:3"}, []string{"D1:3"}, EvidenceStats{Entries: 2, IDs: 1}},
		{"nothing left", []string{"D"}, nil, EvidenceStats{Entries: 1, Malformed: 1, NoneLeft: 1}},
		{"empty list", nil, nil, EvidenceStats{NoneLeft: 1}},
	}
	for _, c := range cases {
		got, st := parseEvidence(c.entries, known)
		require.Equal(t, c.want, got, c.name)
		require.Equal(t, c.stats, st, c.name)
	}
}

func TestBuildConversation(t *testing.T) {
	t.Parallel()
	raw := `{
	  "sample_id": "conv-x",
	  "conversation": {
	    "speaker_a": "Ann", "speaker_b": "Bob",
	    "session_2_date_time": "9:00 am on 2 June, 2023",
	    "session_2": [{"speaker": "Bob", "dia_id": "D2:1", "text": "Later."}],
	    "session_10_date_time": "9:00 am on 2 July, 2023",
	    "session_10": [{"speaker": "Ann", "dia_id": "D10:1", "text": "Much later."}],
	    "session_1_date_time": "1:56 pm on 8 May, 2023",
	    "session_1": [
	      {"speaker": "Ann", "dia_id": "D1:1", "text": "Look at this!", "blip_caption": "a photo of a dog", "img_url": ["x"]},
	      {"speaker": "Bob", "dia_id": "D1:2", "text": "Cute."}
	    ],
	    "session_3_date_time": "9:00 am on 3 June, 2023"
	  },
	  "session_summary": {
	    "session_1_summary": " Ann showed Bob a photo of her dog. ",
	    "session_2_summary": "Bob said later.",
	    "session_3_summary": "A session without turns."
	  },
	  "qa": [
	    {"question": "What did Ann show?", "answer": "a dog", "evidence": ["D1:1"], "category": 4},
	    {"question": "Is there a cat?", "adversarial_answer": "yes", "evidence": ["D1:1"], "category": 5},
	    {"question": "Which year?", "answer": 2023, "evidence": ["D1:1; D2:1", "D"], "category": 2}
	  ]
	}`
	var s rawSample
	require.NoError(t, json.Unmarshal([]byte(raw), &s))
	c, err := buildConversation(s)
	require.NoError(t, err)

	require.Equal(t, []string{"Ann", "Bob"}, c.Speakers, "the user first")
	require.Equal(t, []Session{
		{ID: "conv-x-s1", Turns: 2, Summary: "Ann showed Bob a photo of her dog."},
		{ID: "conv-x-s2", Turns: 1, Summary: "Bob said later."},
		{ID: "conv-x-s10", Turns: 1},
	}, c.Sessions, "numeric order; a date without turns is no session; each session's own summary, trimmed, or none")
	require.Len(t, c.Turns, 4)
	first, second := c.Turns[0], c.Turns[1]
	require.Equal(t, Turn{
		ID: "conv-x-D1:1", DiaID: "D1:1", SessionID: "conv-x-s1", Role: "user",
		Content:    "Ann: Look at this! [shares a photo: a photo of a dog]",
		OccurredAt: time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC),
		Text:       "Look at this!",
	}, first)
	require.Equal(t, "assistant", second.Role)
	require.Equal(t, "Bob: Cute.", second.Content)
	require.Equal(t, "Cute.", second.Text, "what the speaker wrote, without the name")
	require.Equal(t, 30*time.Second, second.OccurredAt.Sub(first.OccurredAt))
	require.Equal(t, "conv-x-s10", c.Turns[3].SessionID)

	require.Len(t, c.Questions, 2, "category 5 is skipped")
	require.Equal(t, Question{Index: 0, Text: "What did Ann show?", Answer: "a dog", Category: 4, Evidence: []string{"D1:1"},
		EvidenceStats: EvidenceStats{Entries: 1, IDs: 1}}, c.Questions[0])
	q := c.Questions[1]
	require.Equal(t, 2, q.Index, "the index in the qa list names the question's session")
	require.Equal(t, "2023", q.Answer, "number answers are stringified")
	require.Equal(t, []string{"D1:1", "D2:1"}, q.Evidence)
	require.Equal(t, EvidenceStats{Entries: 2, IDs: 2, Repaired: 1, Malformed: 1}, q.EvidenceStats)
}

// TestLoadLoCoMo reads the real data, which always sits beside the
// repository: a missing file fails the test rather than skipping it.
func TestLoadLoCoMo(t *testing.T) {
	t.Parallel()
	dir, err := Dir(DefaultDir)
	require.NoError(t, err)
	_, err = os.Stat(filepath.Join(dir, locomoFile))
	require.NoError(t, err, "evaluation data is missing; it must be present beside the repository")

	convs, err := LoadLoCoMo(dir)
	require.NoError(t, err)
	require.Len(t, convs, 5)
	turns, questions, sessions := 0, 0, 0
	var ev EvidenceStats
	for _, c := range convs {
		turns += len(c.Turns)
		sessions += len(c.Sessions)
		for _, s := range c.Sessions {
			require.NotEmpty(t, s.Summary, "every LoCoMo session has its reference summary: %s", s.ID)
		}
		questions += len(c.Questions)
		for _, q := range c.Questions {
			ev.Add(q.EvidenceStats)
		}
		for i := 1; i < len(c.Turns); i++ {
			require.False(t, c.Turns[i].OccurredAt.Before(c.Turns[i-1].OccurredAt), "turns in event-time order")
		}
	}
	require.Equal(t, 2760, turns)
	require.Equal(t, 128, sessions)
	require.Equal(t, 762, questions)
	require.Equal(t, 2, ev.Repaired, "D8:6; D9:17 and D:11:26")
	require.Equal(t, 1, ev.Malformed, "a bare D")
	require.Equal(t, 1, ev.Unknown, "an id past the end of its session")
}
