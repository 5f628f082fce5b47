package contexteval

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// evidenceKeyRunes is how much of an evidence turn must appear in a prompt
// for the turn to count as recalled: its first 60 characters, enough to be
// unique in a conversation, short enough that a context which shortens long
// turns into snippets still gets credit for quoting the turn's start.
const evidenceKeyRunes = 60

// normalize lowercases s and collapses every run of white space into one
// space, so that line breaks and indentation of a rendered prompt do not
// decide whether a turn is found in it.
func normalize(s string) string {
	return strings.Join(strings.Fields(strings.ToLower(s)), " ")
}

// evidenceKey is the part of a turn's content that must appear in a
// normalized prompt: the first evidenceKeyRunes characters of the normalized
// content, or all of it when it is shorter.
func evidenceKey(content string) string {
	n := normalize(content)
	r := []rune(n)
	if len(r) > evidenceKeyRunes {
		return string(r[:evidenceKeyRunes])
	}
	return n
}

// EvidenceRecall is the share of evidence turns (their contents) whose key
// appears in the prompt. ok is false when there is no evidence to find.
func EvidenceRecall(prompt string, evidence []string) (share float64, ok bool) {
	if len(evidence) == 0 {
		return 0, false
	}
	p := normalize(prompt)
	found := 0
	for _, e := range evidence {
		if strings.Contains(p, evidenceKey(e)) {
			found++
		}
	}
	return float64(found) / float64(len(evidence)), true
}

// SessionRecall is the share of sessions (each given as its turns'
// contents) of which the prompt shows a turn: a context that holds any
// part of the session the answer came from. A turn counts by its key, as
// evidence does, but only a turn of at least evidenceKeyRunes characters:
// short turns ("continue", "thanks!") recur across sessions, and finding
// one says nothing about which session the prompt holds. A session without
// such a turn counts by its shorter ones. ok is false when there are no
// sessions.
func SessionRecall(prompt string, sessions [][]string) (share float64, ok bool) {
	if len(sessions) == 0 {
		return 0, false
	}
	p := normalize(prompt)
	found := 0
	for _, turns := range sessions {
		if sessionShown(p, turns) {
			found++
		}
	}
	return float64(found) / float64(len(sessions)), true
}

// sessionShown reports whether the normalized prompt p holds the key of one
// of a session's turns: its long turns, or its short ones when it has no
// long one (see SessionRecall).
func sessionShown(p string, turns []string) bool {
	var long, short []string
	for _, t := range turns {
		switch k := evidenceKey(t); {
		case k == "":
		case utf8.RuneCountInString(k) == evidenceKeyRunes:
			long = append(long, k)
		default:
			short = append(short, k)
		}
	}
	keys := long
	if len(keys) == 0 {
		keys = short
	}
	for _, k := range keys {
		if strings.Contains(p, k) {
			return true
		}
	}
	return false
}

// Tokens splits s into lowercased runs of letters and digits; everything
// else (punctuation, apostrophes, white space) separates tokens. The summary
// evaluation (tools/evalsummary) counts words by it too.
func Tokens(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// contentWords are the tokens of s that are not stopwords, in order, repeats kept.
func contentWords(s string) []string {
	var out []string
	for _, t := range Tokens(s) {
		if !Stopword(t) {
			out = append(out, t)
		}
	}
	return out
}

// AnswerTokenRecall is the share of the answer's distinct content words
// found among the prompt's tokens. ok is false when the answer has none.
func AnswerTokenRecall(prompt, answer string) (share float64, ok bool) {
	want := map[string]bool{}
	for _, t := range contentWords(answer) {
		want[t] = true
	}
	if len(want) == 0 {
		return 0, false
	}
	have := map[string]bool{}
	for _, t := range Tokens(prompt) {
		have[t] = true
	}
	found := 0
	for t := range want {
		if have[t] {
			found++
		}
	}
	return float64(found) / float64(len(want)), true
}

// Where are the places an answer's word can be, for AnswerWhere: in the
// prompt; else in an evidence turn (a prompt that held that turn whole
// would have it); else elsewhere in the history only, in turns that are not
// evidence (numbers and common words that happen to be said); else nowhere
// in the history (a computed answer: a count, a sum, a span of days).
const (
	InPrompt = iota
	InEvidence
	InHistoryOnly
	Nowhere
	Places
)

// AnswerWhere shares the answer's distinct content words among the places
// above, for a prompt, the question's evidence turns and every turn of its
// history; the shares add up to 1. ok is false when the answer has no
// content word. Over many questions, the first two places are as much of
// the answer as retrieving the evidence can put in a prompt: the rest only
// text that is not evidence brings in, by chance.
func AnswerWhere(prompt, answer string, evidence, history []string) (share [Places]float64, ok bool) {
	want := map[string]bool{}
	for _, t := range contentWords(answer) {
		want[t] = true
	}
	if len(want) == 0 {
		return share, false
	}
	in := func(texts ...string) map[string]bool {
		have := map[string]bool{}
		for _, s := range texts {
			for _, t := range Tokens(s) {
				if want[t] {
					have[t] = true
				}
			}
		}
		return have
	}
	p, e, h := in(prompt), in(evidence...), in(history...)
	for t := range want {
		switch {
		case p[t]:
			share[InPrompt]++
		case e[t]:
			share[InEvidence]++
		case h[t]:
			share[InHistoryOnly]++
		default:
			share[Nowhere]++
		}
	}
	for i := range share {
		share[i] /= float64(len(want))
	}
	return share, true
}

// Stopword reports whether a token (lower-cased, as Tokens gives it) is on
// the stopword list below.
func Stopword(t string) bool { return stopwords[t] }

// stopwords is a general English stopword list (the common NLTK list):
// function words that say nothing about what a question or answer is about.
var stopwords = func() map[string]bool {
	words := strings.Fields(`
		i me my myself we our ours ourselves you your yours yourself yourselves
		he him his himself she her hers herself it its itself they them their
		theirs themselves what which who whom this that these those am is are
		was were be been being have has had having do does did doing a an the
		and but if or because as until while of at by for with about against
		between into through during before after above below to from up down in
		out on off over under again further then once here there when where why
		how all any both each few more most other some such no nor not only own
		same so than too very s t can will just don should now d ll m o re ve y
		ain aren couldn didn doesn hadn hasn haven isn ma mightn mustn needn shan
		shouldn wasn weren won wouldn`)
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}()
