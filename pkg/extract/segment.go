package extract

import (
	"fmt"
	"sync"

	"github.com/go-ego/gse"
)

// The Chinese segmenter's dictionary has about 590k words and takes a couple
// of seconds to load, so it is loaded once, on first use, and then shared
// read-only by every Rules value (segmentation does not modify it).
var (
	segOnce sync.Once
	segVal  *gse.Segmenter
	segErr  error
)

// segmenter returns the shared Chinese segmenter, loading gse's embedded
// simplified and traditional dictionaries the first time it is called.
func segmenter() (*gse.Segmenter, error) {
	segOnce.Do(func() {
		seg := &gse.Segmenter{SkipLog: true}
		if err := seg.LoadDictEmbed("zh"); err != nil {
			segErr = fmt.Errorf("extract: load segmenter dictionary: %w", err)
			return
		}
		segVal = seg
	})
	return segVal, segErr
}

// token is one word of segmented text with its byte span in the original
// string and its part-of-speech tag from the dictionary ("x" when the
// dictionary does not know the word).
type token struct {
	start, end int
	pos        string
}

// tokenize segments text with the shared dictionary. It uses gse's
// shortest-path segmentation without the HMM for unknown words: the HMM is
// two orders of magnitude slower, and the rules rebuild unknown names from
// the single characters it leaves behind.
func tokenize(seg *gse.Segmenter, text string, dst []token) []token {
	for _, s := range seg.Segment([]byte(text)) {
		dst = append(dst, token{start: s.Start(), end: s.End(), pos: s.Token().Pos()})
	}
	return dst
}
