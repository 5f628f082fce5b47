package extract

import (
	"strings"
	"sync"
	"unicode/utf8"
)

// Keywords returns the content words of text in order of appearance, repeats
// included, each normalized (Normalize): the nouns of Chinese text, found by
// the segmenter's part-of-speech tags, and the English words of three letters
// or more that are not function words (lexicon/function_words_en.txt). They
// say what a text is about, which is what an extractive summary ranks
// sentences by. Without the Chinese segmenter (RulesOptions.SkipChinese) only
// the English words are returned.
func (r *Rules) Keywords(text string) []string {
	if strings.TrimSpace(text) == "" {
		return nil
	}
	stop := functionWords()
	var out []string
	eachLatinWord(text, nil, func(w enWord) {
		lower := strings.Trim(w.lower, "'-.&")
		if utf8.RuneCountInString(lower) < 3 || stop[lower] || !hasLetter(lower) {
			return
		}
		out = append(out, strings.TrimSuffix(lower, "'s"))
	})
	if r.seg == nil {
		return out
	}
	han, _ := scripts(text)
	if !han {
		return out
	}
	for _, t := range tokenize(r.seg, text, nil) {
		word := text[t.start:t.end]
		if !isZhContentTag(t.pos) || utf8.RuneCountInString(word) < 2 || !isHan(firstRune(word)) {
			continue
		}
		out = append(out, Normalize(word))
	}
	return out
}

// isZhContentTag reports whether a segmenter tag marks a noun: common nouns,
// names of people, places and organisations, other proper nouns, and verbal
// nouns (旅行, 阅读).
func isZhContentTag(pos string) bool {
	switch pos {
	case "n", "nr", "nrt", "nrfg", "ns", "nt", "nz", "nw", "vn", "an":
		return true
	}
	return false
}

func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

func hasLetter(s string) bool {
	for _, r := range s {
		if isLatinWordRune(r) && !(r >= '0' && r <= '9') {
			return true
		}
	}
	return false
}

var (
	functionOnce sync.Once
	functionSet  map[string]bool
)

// functionWords loads lexicon/function_words_en.txt once.
func functionWords() map[string]bool {
	functionOnce.Do(func() {
		functionSet = map[string]bool{}
		if err := readWords("lexicon/function_words_en.txt", func(w string) { functionSet[w] = true }); err != nil {
			panic(err) // embedded at build time: a missing file is a build mistake
		}
	})
	return functionSet
}
