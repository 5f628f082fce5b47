package extract

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// section is one "@name kind" block of a word-list file.
type section struct {
	name, kind string
	entries    []string
}

// parseSections reads the word-list format of lexicon/zh_rules.txt and
// lexicon/en_rules.txt: "#" starts a comment line, "@name [kind]" starts a
// section, and entries are separated by whitespace, with "_" standing for a
// space inside an entry.
func parseSections(file, data string) ([]section, error) {
	var out []section
	for n, line := range strings.Split(data, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if rest, ok := strings.CutPrefix(line, "@"); ok {
			f := strings.Fields(rest)
			if len(f) == 0 || len(f) > 2 {
				return nil, fmt.Errorf("extract: %s:%d: want \"@name [kind]\"", file, n+1)
			}
			s := section{name: f[0]}
			if len(f) == 2 {
				s.kind = f[1]
			}
			out = append(out, s)
			continue
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("extract: %s:%d: words before the first section", file, n+1)
		}
		for _, w := range strings.Fields(line) {
			last := &out[len(out)-1]
			last.entries = append(last.entries, strings.ReplaceAll(w, "_", " "))
		}
	}
	return out, nil
}

// anchor is a context word that sits next to a name: 主演是X, X这首歌.
type anchor struct {
	word string
	kind Kind // kind of X; "" when X may be a person or a work
}

// anchorSet indexes anchors by their first and last rune, so that checking
// every word boundary of a message against a hundred anchors costs a map
// lookup and a few comparisons. Each bucket lists longer anchors first.
type anchorSet struct {
	byFirst map[rune][]anchor
	byLast  map[rune][]anchor
}

func (s *anchorSet) add(a anchor) {
	if s.byFirst == nil {
		s.byFirst = make(map[rune][]anchor)
		s.byLast = make(map[rune][]anchor)
	}
	first, _ := utf8.DecodeRuneInString(a.word)
	last, _ := utf8.DecodeLastRuneInString(a.word)
	s.byFirst[first] = append(s.byFirst[first], a)
	s.byLast[last] = append(s.byLast[last], a)
}

func (s *anchorSet) sort() {
	for _, m := range []map[rune][]anchor{s.byFirst, s.byLast} {
		for _, list := range m {
			sort.SliceStable(list, func(i, j int) bool { return len(list[i].word) > len(list[j].word) })
		}
	}
}

// zhWords are the word lists of the Chinese rules (lexicon/zh_rules.txt).
type zhWords struct {
	functionRunes, endRunes, givenBlack, leadRunes, fillerRunes  map[rune]bool
	genericWords, discourseWords, orgNameBlack, classifierBefore map[string]bool
	questionWords, awardWords, categoryEnds, placeEnds           []string
	orgSuffixes, bandSuffixes, orgIndustries                     []string

	personBefore, personBeforeWeak, workBefore, nameBefore, introBefore, questionBefore anchorSet
	typedAfter, personAfter, personAfterWeak, questionAfter, tailWords                  anchorSet

	// What a user says about themselves or to the assistant, and whom
	// they talk of or to (aimed.go).
	selfNaming, selfNamingClosed, assistantNaming, addressing, addressingAfter, relations []string
	directiveVerbs, directiveObjects, imperativeLeads                                     []string
	// aimed finds the phrases of all of those lists and directiveVerbs in
	// one pass; aimedKinds says which lists each of its patterns is on.
	aimed      *automaton
	aimedKinds []aimKind
}

// parseZhWords builds zhWords from its file.
func parseZhWords(file, data string) (*zhWords, error) {
	secs, err := parseSections(file, data)
	if err != nil {
		return nil, err
	}
	w := &zhWords{}
	runes := map[string]*map[rune]bool{
		"function_runes": &w.functionRunes, "end_runes": &w.endRunes, "given_black": &w.givenBlack,
		"lead_runes": &w.leadRunes, "filler_runes": &w.fillerRunes,
	}
	sets := map[string]*map[string]bool{
		"generic_words": &w.genericWords, "discourse_words": &w.discourseWords,
		"org_name_black": &w.orgNameBlack, "classifier_before": &w.classifierBefore,
	}
	lists := map[string]*[]string{
		"question_words": &w.questionWords, "award_words": &w.awardWords, "category_ends": &w.categoryEnds,
		"place_ends": &w.placeEnds, "org_suffixes": &w.orgSuffixes, "band_suffixes": &w.bandSuffixes,
		"org_industries": &w.orgIndustries, "self_naming": &w.selfNaming, "self_naming_closed": &w.selfNamingClosed,
		"assistant_naming": &w.assistantNaming, "addressing": &w.addressing, "addressing_after": &w.addressingAfter,
		"relations":       &w.relations,
		"directive_verbs": &w.directiveVerbs, "directive_objects": &w.directiveObjects, "imperative_leads": &w.imperativeLeads,
	}
	anchorSets := map[string]*anchorSet{
		"person_before": &w.personBefore, "person_before_weak": &w.personBeforeWeak,
		"work_before": &w.workBefore, "name_before": &w.nameBefore, "intro_before": &w.introBefore,
		"question_before": &w.questionBefore,
		"typed_after":     &w.typedAfter, "person_after": &w.personAfter, "person_after_weak": &w.personAfterWeak,
		"question_after": &w.questionAfter, "tail_words": &w.tailWords,
	}
	for _, s := range secs {
		switch {
		case runes[s.name] != nil:
			m := runes[s.name]
			if *m == nil {
				*m = make(map[rune]bool)
			}
			for _, e := range s.entries {
				for _, r := range e {
					(*m)[r] = true
				}
			}
		case sets[s.name] != nil:
			m := sets[s.name]
			if *m == nil {
				*m = make(map[string]bool)
			}
			for _, e := range s.entries {
				(*m)[e] = true
			}
		case lists[s.name] != nil:
			*lists[s.name] = append(*lists[s.name], s.entries...)
		case anchorSets[s.name] != nil:
			kind := Kind(s.kind)
			if kind != "" && !kind.Valid() {
				return nil, fmt.Errorf("extract: %s: section %s: unknown kind %q", file, s.name, s.kind)
			}
			for _, e := range s.entries {
				anchorSets[s.name].add(anchor{word: e, kind: kind})
			}
		default:
			return nil, fmt.Errorf("extract: %s: unknown section %q", file, s.name)
		}
	}
	for _, a := range anchorSets {
		a.sort()
	}
	// Longer suffixes first, so 唱片公司 wins over 公司; longer leads
	// first, so 你必须 is skipped whole.
	for _, l := range [][]string{w.orgSuffixes, w.bandSuffixes, w.imperativeLeads} {
		sort.SliceStable(l, func(i, j int) bool { return len(l[i]) > len(l[j]) })
	}
	var patterns []string
	index := map[string]int{}
	for _, l := range []struct {
		words []string
		kind  aimKind
	}{
		{w.selfNaming, aimSelfNaming}, {w.selfNamingClosed, aimSelfNamingClosed}, {w.assistantNaming, aimAssistantNaming},
		{w.addressing, aimAddressing}, {w.addressingAfter, aimAddressingAfter}, {w.relations, aimRelation},
		{w.directiveVerbs, aimDirective},
	} {
		for _, p := range l.words {
			i, ok := index[p]
			if !ok {
				i = len(patterns)
				index[p] = i
				patterns = append(patterns, p)
				w.aimedKinds = append(w.aimedKinds, 0)
			}
			w.aimedKinds[i] |= l.kind
		}
	}
	w.aimed = newAutomaton(patterns)
	return w, nil
}

// enTrigger is a phrase after which a name follows: "books by X".
type enTrigger struct {
	words []string
	kind  Kind // "" = a work when a cue word says so, a person when something says so, else a name
	// maker: X made what is before the phrase ("Dune by X"): an author
	// when books are near, else a name (makerKind).
	maker bool
}

// cue is a word that tells what kind of work a nearby title is.
type cue struct {
	word string
	kind Kind
}

// enWords are the word lists of the English rules (lexicon/en_rules.txt).
type enWords struct {
	connectors, abbreviations, orgWords, placeWords, generic map[string]bool
	triggers                                                 []enTrigger
	possessive                                               map[string]Kind
	// personTitles are the titles before a person's name (Mr., Dr.).
	personTitles map[string]bool
	// What a user says about themselves or to the assistant, and whom
	// they talk of or to (aimed.go): the phrases after which a name of the
	// conversation's own people follows, in words ("*": any one word);
	// what follows a name said to whom the user asks; the nouns of the
	// people of one's life; the words of a directive.
	namings                                           []naming
	vocativeNext                                      [][]string
	personBefore                                      map[string]bool
	directiveVerbs, directiveObjects, imperativeLeads map[string]bool
	// namingByFirst indexes namings by their first word.
	namingByFirst map[string][]int
	// byFirst indexes triggers by their first word, in file order, so
	// that a word is tried only against the triggers it can open.
	byFirst map[string][]int
}

// parseEnWords builds enWords from its file.
func parseEnWords(file, data string) (*enWords, error) {
	secs, err := parseSections(file, data)
	if err != nil {
		return nil, err
	}
	w := &enWords{possessive: make(map[string]Kind)}
	sets := map[string]*map[string]bool{
		"connectors": &w.connectors, "abbreviations": &w.abbreviations,
		"org_words": &w.orgWords, "place_words": &w.placeWords, "generic": &w.generic,
		"directive_verbs": &w.directiveVerbs, "directive_objects": &w.directiveObjects, "imperative_leads": &w.imperativeLeads,
		"person_before": &w.personBefore, "person_titles": &w.personTitles,
	}
	// What each naming section marks (aimed.go).
	namings := map[string]naming{
		"self_naming":        {},
		"self_naming_closed": {name: ownName{closed: true}},
		"assistant_naming":   {},
		"addressing":         {name: ownName{closed: true, people: true}, opens: true},
	}
	for _, s := range secs {
		kind := Kind(s.kind)
		if s.kind == "any" || s.kind == "maker" {
			kind = ""
		} else if s.kind != "" && !kind.Valid() {
			return nil, fmt.Errorf("extract: %s: section %s: unknown kind %q", file, s.name, s.kind)
		}
		switch {
		case sets[s.name] != nil:
			m := sets[s.name]
			if *m == nil {
				*m = make(map[string]bool)
			}
			for _, e := range s.entries {
				(*m)[e] = true
			}
		case s.name == "triggers":
			for _, e := range s.entries {
				w.triggers = append(w.triggers, enTrigger{words: strings.Fields(e), kind: kind, maker: s.kind == "maker"})
			}
		case s.name == "possessive":
			for _, e := range s.entries {
				w.possessive[e] = kind
			}
		case s.name == "vocative_next":
			for _, e := range s.entries {
				w.vocativeNext = append(w.vocativeNext, strings.Fields(e))
			}
		default:
			nm, ok := namings[s.name]
			if !ok {
				return nil, fmt.Errorf("extract: %s: unknown section %q", file, s.name)
			}
			for _, e := range s.entries {
				nm.words = strings.Fields(e)
				w.namings = append(w.namings, nm)
			}
		}
	}
	w.byFirst = make(map[string][]int)
	for i, tr := range w.triggers {
		w.byFirst[tr.words[0]] = append(w.byFirst[tr.words[0]], i)
	}
	w.namingByFirst = make(map[string][]int)
	for i, nm := range w.namings {
		if nm.words[0] == "*" {
			return nil, fmt.Errorf("extract: %s: a naming phrase starts with \"*\": %q", file, strings.Join(nm.words, " "))
		}
		w.namingByFirst[nm.words[0]] = append(w.namingByFirst[nm.words[0]], i)
	}
	return w, nil
}

// parseCues reads lexicon/title_cues.txt.
func parseCues(file, data string) ([]cue, error) {
	secs, err := parseSections(file, data)
	if err != nil {
		return nil, err
	}
	var cues []cue
	for _, s := range secs {
		kind := Kind(s.kind)
		if s.name != "title_cues" || !kind.IsTitle() {
			return nil, fmt.Errorf("extract: %s: want \"@title_cues <title kind>\", got %q %q", file, s.name, s.kind)
		}
		for _, e := range s.entries {
			cues = append(cues, cue{word: e, kind: kind})
		}
	}
	return cues, nil
}
