package segment_test

import (
	"testing"

	"github.com/recallhq/recall/pkg/segment"
)

// BenchmarkTokens segments every message of KdConv (9,321 Chinese
// messages, 584 KB, as the extractor and the search analyzer meet them) once per
// operation.
func BenchmarkTokens(b *testing.B) {
	msgs := kdconvMessages(b)
	seg, err := segment.Shared()
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	for _, m := range msgs {
		n += len(m)
	}
	b.SetBytes(int64(n))
	b.ReportAllocs()
	var toks []segment.Token
	for b.Loop() {
		for _, m := range msgs {
			toks = seg.Tokens(m, toks[:0])
		}
	}
}
