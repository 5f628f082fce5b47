package memory

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/recallhq/recall/pkg/attribute"
	"github.com/recallhq/recall/pkg/store"
)

// A message that asks for advice or the assistant's judgment gets the
// statements' whole share of the budget; a question about what happened a
// third of it, out of what the history leaves; none stays none.
func TestStatementLimit(t *testing.T) {
	t.Parallel()
	for q, want := range map[string]int{
		"": 1200,
		"Can you recommend some hotels in New York?":                                1200,
		"What should I bake for the school fair?":                                   1200,
		"What would be a good pet for a small flat?":                                1200,
		"I'm planning a trip to Lisbon, any tips?":                                  1200,
		"周末去哪里玩比较好？":                                                                1200,
		"推荐几道川菜":                                                                    1200,
		"How many days ago did I buy the blue jacket?":                              400,
		"When did I last see my dentist?":                                           400,
		"What was the name of the band I saw in Berlin?":                            400,
		"我上次去看牙医是什么时候？":                                                             400,
		"I've been sneezing a lot lately. Do you think it might be my living room?": 1200,
		"My bike feels faster on Sundays. Could there be a reason for this?":        1200,
		"你觉得我该换工作吗？":                                                                1200,
	} {
		got, last := statementLimit(1200, q)
		if got != want || last != (want == 400) {
			t.Errorf("%q: %d %v, want %d", q, got, last, want)
		}
	}
	if got, _ := statementLimit(-1, "recommend a film"); got != 0 {
		t.Errorf("off: %d", got)
	}
}

// The embedder's similarity counts relative to the user's other
// statements: the nearest gains the most, one at or below their mean
// nothing; with fewer than three measured, or all alike, none does.
func TestNearness(t *testing.T) {
	t.Parallel()
	sims := []float64{0.1, 0.2, 0.3, 0.5, -1}
	got := nearness(sims, func(s float64) (float64, bool) { return s, s >= 0 })
	// mean of the measured 0.275: 0.3 is (0.3-0.275)/(0.5-0.275) of the way.
	want := []float64{0, 0, 0.025 / 0.225, 1, 0}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-9 {
			t.Fatalf("nearness %v, want %v", got, want)
		}
	}
	for _, sims := range [][]float64{{0.9, 0.1}, {0.4, 0.4, 0.4}} {
		for _, n := range nearness(sims, func(s float64) (float64, bool) { return s, true }) {
			if n != 0 {
				t.Fatalf("%v: nearness %v", sims, n)
			}
		}
	}
}

// A statement that shares neither a term nor a life domain with the
// message bears on it when the embedder puts it nearest; without the
// embedder's similarity it is ranked by its strength alone.
func TestPickStatementsWithTheEmbedder(t *testing.T) {
	t.Parallel()
	at := time.Date(2024, 1, 8, 0, 0, 0, 0, time.UTC)
	said := []attribute.Value{
		{Assertion: attribute.Assertion{Key: attribute.KeyStatements, Item: "heights", Value: "I have an extreme aversion to heights.", Confidence: 0.85, EventID: "e1", At: at}},
		{Assertion: attribute.Assertion{Key: attribute.KeyStatements, Item: "jazz", Value: "I love old jazz records.", Confidence: 0.75, EventID: "e2", At: at}},
		{Assertion: attribute.Assertion{Key: attribute.KeyStatements, Item: "nurse", Value: "I work as a nurse.", Confidence: 0.6, EventID: "e3", At: at}},
		{Assertion: attribute.Assertion{Key: attribute.KeyStatements, Item: "spanish", Value: "I'm learning Spanish.", Confidence: 0.5, EventID: "e4", At: at}},
	}
	msg := "Anything thrilling to do in Colorado?"
	plain := pickStatements(slices.Clone(said), statementQuery{text: msg}, nil)
	for _, st := range plain {
		if st.Text == said[0].Value && st.Matched {
			t.Fatalf("matched without the embedder: %+v", plain)
		}
	}
	sim := map[string]float64{}
	for i, v := range said {
		sim[store.StatementKey(v.EventID, v.Item)] = []float64{0.62, 0.18, 0.21, 0.2}[i]
	}
	got := pickStatements(slices.Clone(said), statementQuery{text: msg, similarity: sim}, nil)
	if got[0].Text != said[0].Value || !got[0].Matched {
		t.Fatalf("with the embedder, first: %+v", got[0])
	}
}
