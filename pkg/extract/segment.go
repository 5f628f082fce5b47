package extract

import "github.com/recallhq/recall/pkg/segment"

// token is one word of segmented text with its byte span in the original
// string and its part-of-speech tag (segment.Token, kept apart so that the
// rules' hot loops read plain fields).
type token struct {
	start, end int
	pos        string
}

// tokenize segments text with the process's shared dictionary.
func tokenize(seg *segment.Segmenter, text string, dst []token) []token {
	var buf [64]segment.Token
	for _, t := range seg.Tokens(text, buf[:0]) {
		dst = append(dst, token{start: t.Start, end: t.End, pos: t.Pos})
	}
	return dst
}
