package memory

import "testing"

// A message that asks for advice gets the statements' whole share of the
// budget; a question about what happened a third of it; none stays none.
func TestStatementLimit(t *testing.T) {
	t.Parallel()
	for q, want := range map[string]int{
		"": 1200,
		"Can you recommend some hotels in New York?":     1200,
		"What should I bake for the school fair?":        1200,
		"What would be a good pet for a small flat?":     1200,
		"I'm planning a trip to Lisbon, any tips?":       1200,
		"周末去哪里玩比较好？":                                     1200,
		"推荐几道川菜":                                         1200,
		"How many days ago did I buy the blue jacket?":   400,
		"When did I last see my dentist?":                400,
		"What was the name of the band I saw in Berlin?": 400,
		"我上次去看牙医是什么时候？":                                  400,
	} {
		if got := statementLimit(1200, q); got != want {
			t.Errorf("%q: %d, want %d", q, got, want)
		}
	}
	if got := statementLimit(-1, "recommend a film"); got != 0 {
		t.Errorf("off: %d", got)
	}
}
