package segment_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/textcheck"
	"github.com/recallhq/recall/pkg/segment"
)

// FuzzTokens: any text, even one the API refuses (invalid UTF-8, NUL), gets
// the tokens gse's Segment gives it; and the words of a text the API takes
// are spans of it in order, each cut at character boundaries, so that the
// terms and names made of them are valid text. It runs after
// TestSharedRaisesTheMemoryLimit, which must be the first to load the
// dictionary: fuzz targets run after a package's tests.
//
// It is textcheck.FuzzText but for the inputs the API refuses, which the
// comparison with gse takes too.
func FuzzTokens(f *testing.F) {
	for _, s := range append(textcheck.Seeds(f), hardCases...) {
		f.Add(s)
	}
	c := textcheck.New(f)
	textcheck.Load(f, func() error {
		if _, err := gseSegmenter(); err != nil {
			return err
		}
		_, err := segment.Shared()
		return err
	})
	f.Fuzz(func(t *testing.T, text string) {
		t.Parallel()
		seg, err := segment.Shared()
		require.NoError(t, err)
		toks := seg.Tokens(text, nil)
		requireSameTokens(t, text, gseTokens(t, text), toks)
		if !textcheck.Acceptable(text) {
			return
		}
		prev := 0
		for _, tok := range toks {
			require.True(t, prev <= tok.Start && tok.Start < tok.End && tok.End <= len(text),
				"made from %s: token [%d, %d) after %d", textcheck.Quote(text), tok.Start, tok.End, prev)
			c.Check(t, textcheck.Text, text, text[tok.Start:tok.End], textcheck.Bound{Bytes: len(text)})
			prev = tok.End
		}
	})
}
