package listsel_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/listsel"
)

func TestPositions(t *testing.T) {
	t.Parallel()
	for msg, want := range map[string][]int{
		"Can you remind me what was the 7th job in the list you provided?":           {7},
		"You recommended five bottles. Can you remind me what the fifth bottle was?": {5},
		"what was the twenty-seventh parameter on that list?":                        {27},
		"And the twenty seventh?": {27},
		"I remember you provided a list of 100 prompt parameters. What was the 27th parameter?": {27},
		"tell me again about number 3, and item four":                                           {3, 4},
		"What did step 2 say? And #12?":                                                         {2, 12},
		"Your second suggestion sounded good, but what was the third one?":                      {2, 3},
		"the first, the second, the third and the fourth":                                       {1, 2, 3},
		"你之前推荐的第三本书叫什么？":                                                                        {3},
		"第7条建议是什么":                                                                              {7},
		"第十二个是什么":                                                                               {12},
		"Remind me of the 3rd item, the 3rd one":                                                {3},
	} {
		require.Equal(t, want, listsel.Positions(msg), msg)
	}
	for _, msg := range []string{
		"When was the first time I went to the gym?",
		"How many days did I spend there in the second week?",
		"My appointment is on the 3rd of May",
		"the 21st century",
		"in the second half of the year",
		"I bought five bottles and 3 books",
		"What is the number of bottles I bought?",
		"first, tell me about the weather",
		"第二次去的时候",
		"第3天",
		"第5页",
		"两个苹果",
		"第两个",
		"",
	} {
		require.Empty(t, listsel.Positions(msg), msg)
	}
}

func TestMarker(t *testing.T) {
	t.Parallel()
	for line, want := range map[string]int{
		"5. Absinthe: a strong herbal liqueur": 5,
		"  27) Sound effects":                  27,
		"**3.** Dune":                          3,
		"- 12. Twelve":                         12,
		"(4) four":                             4,
		"第五，注意休息":                              5,
		"三、多喝水":                                3,
	} {
		n, ok := listsel.Marker(line)
		require.True(t, ok, line)
		require.Equal(t, want, n, line)
	}
	for _, line := range []string{"3.14 is pi", "In 2021. we went", "e.g. this", "no number", ""} {
		_, ok := listsel.Marker(line)
		require.False(t, ok, line)
	}
}

// BenchmarkPositions reads a question of the length chat messages have,
// which every context with a query does.
func BenchmarkPositions(b *testing.B) {
	msg := "I'm looking back at our previous conversation about building a cocktail bar. You recommended five " +
		"bottles to make the widest variety of gin-based cocktails. Can you remind me what the fifth bottle was?"
	b.ReportAllocs()
	for b.Loop() {
		if len(listsel.Positions(msg)) != 1 {
			b.Fatal("no position")
		}
	}
}
