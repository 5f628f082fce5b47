package segment_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/textcheck"
	"github.com/recallhq/recall/pkg/segment"
)

// FuzzTokens: the words of any text are spans of it in order, each cut at
// character boundaries, so that the terms and names made of them are valid
// text. It runs after TestSharedRaisesTheMemoryLimit, which must be the first
// to load the dictionary: fuzz targets run after a package's tests.
func FuzzTokens(f *testing.F) {
	textcheck.FuzzText(f, func() error { _, err := segment.Shared(); return err }, func(t *testing.T, c *textcheck.Checker, text string) {
		seg, err := segment.Shared()
		require.NoError(t, err)
		prev := 0
		for _, tok := range seg.Tokens(text, nil) {
			require.True(t, prev <= tok.Start && tok.Start < tok.End && tok.End <= len(text),
				"made from %s: token [%d, %d) after %d", textcheck.Quote(text), tok.Start, tok.End, prev)
			c.Check(t, textcheck.Text, text, text[tok.Start:tok.End], textcheck.Bound{Bytes: len(text)})
			prev = tok.End
		}
	})
}
