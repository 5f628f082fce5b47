package contexteval

import (
	"math"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/eval/datasets"
)

// tinyConversation is one user's five turns over three days.
func tinyConversation() []datasets.Turn {
	day := func(s string) time.Time {
		t, err := time.Parse("2006-01-02 15:04", s)
		if err != nil {
			panic(err)
		}
		return t
	}
	return []datasets.Turn{
		{DiaID: "D1:1", OccurredAt: day("2023-05-01 13:56"), Content: "Caroline: I adopted a puppy named Oscar."},
		{DiaID: "D1:2", OccurredAt: day("2023-05-01 13:57"), Content: "Melanie: That is lovely, puppies are great."},
		{DiaID: "D2:1", OccurredAt: day("2023-06-10 09:00"), Content: "Caroline: I started pottery classes downtown."},
		{DiaID: "D2:2", OccurredAt: day("2023-06-10 09:01"), Content: "Melanie: Pottery sounds fun! What did you make?"},
		{DiaID: "D3:1", OccurredAt: day("2023-07-02 18:30"), Content: "Caroline: A bowl for Oscar."},
	}
}

func TestSnippetLine(t *testing.T) {
	t.Parallel()
	require.Equal(t, "[2023-05-01] Caroline: I adopted a puppy named Oscar.", snippetLine(tinyConversation()[0]))
}

func TestBM25Scores(t *testing.T) {
	t.Parallel()
	ix := newBM25(tinyConversation())
	// Content words per turn: 5, 4, 5, 5, 3; average 4.4. "puppy" is in one
	// turn of five ("puppies" is another token).
	require.Equal(t, []int{5, 4, 5, 5, 3}, ix.lens)
	idf := math.Log(1 + (5-1+0.5)/(1+0.5))
	want := idf * 1 * (1.2 + 1) / (1 + 1.2*(1-0.75+0.75*5/4.4))
	s := ix.scores("Where is the puppy?")
	require.InDelta(t, want, s[0], 1e-12)
	require.Equal(t, []float64{0, 0, 0, 0}, s[1:])
	// Query words count once however often they are asked.
	require.Equal(t, s, ix.scores("puppy puppy, the puppy"))
}

func TestBM25RanksAndFillsBudget(t *testing.T) {
	t.Parallel()
	turns := tinyConversation()
	ix := newBM25(turns)

	// "caroline" is in three turns, "puppy" in one: the puppy turn first,
	// then the shorter of the other two; turns without a query word never.
	ranked := ix.rank("What is the name of Caroline's puppy?")
	require.Equal(t, []string{"D1:1", "D3:1", "D2:1"}, diaIDs(ranked))

	l1, l2 := snippetLine(turns[0]), snippetLine(turns[4])
	q := "What is the name of Caroline's puppy?"
	require.Equal(t, l1+"\n"+l2+"\n"+snippetLine(turns[2]), ix.prompt(q, 10000))
	// The budget counts characters and newlines; filling stops at the first
	// line that does not fit.
	both := utf8.RuneCountInString(l1) + 1 + utf8.RuneCountInString(l2)
	require.Equal(t, l1+"\n"+l2, ix.prompt(q, both))
	require.Equal(t, l1, ix.prompt(q, both-1))
	require.Equal(t, "", ix.prompt(q, utf8.RuneCountInString(l1)-1))
	require.Equal(t, "", ix.prompt("unrelated words only", 10000))
}

func TestRecencyKeepsNewestShownOldestFirst(t *testing.T) {
	t.Parallel()
	turns := tinyConversation()
	last2 := snippetLine(turns[3]) + "\n" + snippetLine(turns[4])
	n := utf8.RuneCountInString(last2)
	require.Equal(t, last2, recencyPrompt(turns, n))
	require.Equal(t, last2, recencyPrompt(turns, n+5), "a third line does not fit")
	require.Equal(t, snippetLine(turns[4]), recencyPrompt(turns, n-1))
	require.Equal(t, fullHistoryPrompt(turns), recencyPrompt(turns, 100000))
}

func TestFullHistoryHoldsEveryTurn(t *testing.T) {
	t.Parallel()
	turns := tinyConversation()
	full := fullHistoryPrompt(turns)
	require.Len(t, strings.Split(full, "\n"), len(turns))
	var evidence []string
	for _, tr := range turns {
		evidence = append(evidence, tr.Content)
	}
	got, ok := EvidenceRecall(full, evidence)
	require.True(t, ok)
	require.Equal(t, 1.0, got)
	require.True(t, strings.HasPrefix(full, "[2023-05-01] Caroline: I adopted"))
}

func diaIDs(ts []datasets.Turn) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.DiaID
	}
	return out
}

func TestBaselinesPromptsInRowOrder(t *testing.T) {
	t.Parallel()
	turns := tinyConversation()
	q := "What is the name of Caroline's puppy?"
	got := NewBaselines(turns, 120).Prompts("recalled", q)
	require.Equal(t, Prompts{"recalled", newBM25(turns).prompt(q, 120), recencyPrompt(turns, 120), fullHistoryPrompt(turns)}, got)
	require.Len(t, got, len(RowNames))
	require.Equal(t, []string{RowRecall, RowBM25, RowRecency, RowFull}, RowNames)
}
