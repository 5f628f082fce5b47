package main

import (
	"strings"

	"github.com/recallhq/recall/internal/eval/contexteval"
)

// carriedShare is how much of a sentence's content words one line of a
// prompt must hold for the line to carry it.
const carriedShare = 0.8

// How a prompt carried a preference.
const (
	rulePreference = "preference" // a line holds the preference sentence's words
	ruleChoice     = "choice"     // a line holds the picked option's words (a choice only)
)

// stemEndings are the endings stripped before words are compared, each
// with what replaces it: plurals, -ing and -ed, no more.
var stemEndings = []struct{ end, with string }{
	{"ies", "y"}, {"es", ""}, {"s", ""}, {"ing", ""}, {"ed", ""}, {"d", ""},
}

// stems are a word and its forms with one ending stripped, each kept only
// when at least three letters remain ("activities": activity, activiti,
// activitie); two words are the same word when their stems meet
// ("games" and "game", "loved" and "love", "classes" and "class").
func stems(w string) []string {
	out := []string{w}
	for _, e := range stemEndings {
		if base, ok := strings.CutSuffix(w, e.end); ok && len(base) >= 3 {
			out = append(out, base+e.with)
		}
	}
	return out
}

// words are a text's distinct content words: lower-cased word tokens
// without stopwords, as contexteval counts an answer's.
func words(s string) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range contexteval.Tokens(s) {
		if !contexteval.Stopword(t) && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// line is one line of a prompt as the scoring reads it: the stems of its
// words.
type line map[string]bool

func newLine(s string) line {
	l := line{}
	for _, t := range contexteval.Tokens(s) {
		for _, st := range stems(t) {
			l[st] = true
		}
	}
	return l
}

// share is the part of want (content words) the line holds.
func (l line) share(want []string) float64 {
	if len(want) == 0 {
		return 0
	}
	n := 0
	for _, w := range want {
		for _, st := range stems(w) {
			if l[st] {
				n++
				break
			}
		}
	}
	return float64(n) / float64(len(want))
}

// target is what a prompt must hold for an item: the preference
// sentence's words and, for a choice, the options'.
type target struct {
	pref   []string
	chosen []string   // choice only
	others [][]string // choice only
	list   string     // choice only: the assistant's turn offering the options
}

func newTarget(it item) target {
	tg := target{pref: words(it.Preference)}
	if it.Kind == kindChoice {
		tg.chosen = words(it.Chosen)
		for _, o := range it.Others {
			tg.others = append(tg.others, words(o))
		}
		tg.list = it.Offer
	}
	return tg
}

// match is how a prompt fared: whether it carried the preference, by which
// rule and in which line (the first that did), and the best share of the
// preference's and of the picked option's words one line held.
type match struct {
	Carried     bool    `json:"carried"`
	Rule        string  `json:"rule,omitempty"`
	Line        string  `json:"line,omitempty"`
	PrefShare   float64 `json:"preference_share"`
	ChoiceShare float64 `json:"choice_share,omitempty"`
}

// find scores a prompt line by line: it carries the preference when one
// line holds at least carriedShare of the preference sentence's content
// words, or, for a choice, of the picked option's. For a choice, a line
// that shows the assistant's turn offering the options counts for neither:
// it shows what was offered, not what was chosen (and may share the
// preference's words: a preference against card games, "a card game like
// Poker" offered there), and a context that cuts the turn short may keep
// the picked option alone. A line shows the turn when it holds the turn's
// first 60 characters, as contexteval finds an evidence turn; a line that
// holds carriedShare of three of the four options or more is taken for the
// list too, however it came to be there. Two are allowed: the user's pick
// may name a rejected option in saying why ("option 1, a strategy game like
// Chess or Go. The other options involving cards or deck-building don't
// really appeal to me" holds "a deck-building game like Dominion"). Words
// split across lines count in neither.
func (tg target) find(prompt string) match {
	var m match
	for s := range strings.SplitSeq(prompt, "\n") {
		l := newLine(s)
		p := l.share(tg.pref)
		m.PrefShare = max(m.PrefShare, p)
		if tg.chosen == nil {
			if p >= carriedShare && !m.Carried {
				m.Carried, m.Rule, m.Line = true, rulePreference, s
			}
			continue
		}
		c := l.share(tg.chosen)
		m.ChoiceShare = max(m.ChoiceShare, c)
		if m.Carried || tg.offered(s, l, c) {
			continue
		}
		switch {
		case p >= carriedShare:
			m.Carried, m.Rule, m.Line = true, rulePreference, s
		case c >= carriedShare:
			m.Carried, m.Rule, m.Line = true, ruleChoice, s
		}
	}
	return m
}

// offered reports whether a line, s read as l, shows the assistant's
// offer: its turn, or carriedShare of three options or more, c being its
// share of the picked one's words.
func (tg target) offered(s string, l line, c float64) bool {
	if tg.list != "" {
		if v, _ := contexteval.EvidenceRecall(s, []string{tg.list}); v == 1 {
			return true
		}
	}
	n := 0
	if c >= carriedShare {
		n++
	}
	for _, o := range tg.others {
		if l.share(o) >= carriedShare {
			n++
		}
	}
	return n >= 3
}
