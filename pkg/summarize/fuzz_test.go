package summarize_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/textcheck"
	"github.com/recallhq/recall/pkg/extract"
	"github.com/recallhq/recall/pkg/summarize"
)

// FuzzExtractive: whatever the user, the assistant and the previous summary
// say, the extractive summary is valid text within its MaxRunes (0: the
// default), and its topics are facts within the bound of a fact.
func FuzzExtractive(f *testing.F) {
	seeds := textcheck.Seeds(f)
	sizes := []uint16{0, 1, 2, 40, 300}
	for i, s := range seeds {
		previous := ""
		if i%3 == 0 {
			previous = seeds[(i+2)%len(seeds)]
		}
		f.Add(s, seeds[(i+1)%len(seeds)], previous, sizes[i%len(sizes)])
	}
	c := textcheck.New(f)
	textcheck.Load(f, func() error { sharedRules(f); return nil })
	f.Fuzz(func(t *testing.T, user, assistant, previous string, maxRunes uint16) {
		t.Parallel()
		if !textcheck.Acceptable(user) || !textcheck.Acceptable(assistant) || !textcheck.Acceptable(previous) {
			return
		}
		opts := summarize.Options{MaxRunes: int(maxRunes)}
		bound := opts.MaxRunes
		if bound == 0 {
			bound = summarize.DefaultOptions.MaxRunes
		}
		in := summarize.Input{Turns: []summarize.Turn{{Role: "user", Text: user}, {Role: "assistant", Text: assistant}}}
		if previous != "" {
			in.Previous = &summarize.Previous{Text: previous}
		}
		s, err := summarize.NewExtractive(sharedRules(t), opts).Summarize(context.Background(), in)
		require.NoError(t, err)
		from := user + "\n" + assistant + "\n" + previous
		c.Check(t, textcheck.Text, from, s.Text, textcheck.Bound{Runes: bound})
		for _, topic := range s.Topics {
			c.Check(t, textcheck.Key, from, topic.Value, textcheck.Bound{Runes: extract.MaxFactRunes})
			c.Check(t, textcheck.Text, from, topic.Display, textcheck.Bound{Runes: extract.MaxFactRunes})
		}
	})
}
