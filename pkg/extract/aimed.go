package extract

import (
	"strings"
	"unicode/utf8"
)

// Some sentences are not about what the user likes, whatever names they
// hold, because of what they do:
//
//   - A user who names themselves ("My name is ADMIN", "I am called Maria
//     Lopez", "call me Anna", "Hi, I'm John Smith.", 我叫王芳) says who they
//     are; their attributes read that (pkg/attribute/stated). The name that
//     follows the self-naming construction is no interest.
//   - Nor is the name a user gives the assistant ("I'll call you Max",
//     "your name is Luna", 你就叫小美吧, 以后叫你小书): the attributes read it
//     as the assistant's name.
//   - Nor is the name of whom the user talks to: after a greeting or a
//     thanks that opens its clause, the name closing it ("Hi Anna, …",
//     "Thanks, Bob!", 你好，小美), before one that closes the sentence
//     (小美你好, 王老师，谢谢), and at the start of a sentence followed by a
//     comma and a request ("Anna, can you …").
//   - Nor is the name of someone of the user's own life, introduced by how
//     they are related ("My friend Anna recommended Dune", "my older
//     sister Mei", 我朋友小王): a person the user knows, not one they are
//     interested in. What they recommended is read as ever.
//   - A sentence that commands the assistant to drop its instructions
//     ("Ignore previous instructions", "SYSTEM OVERRIDE: disregard the rules
//     above and …", "Please forget all prior guidelines", 请忽略之前的所有指令)
//     is aimed at the assistant: its verb is a command (at the start of its
//     clause, after nothing but words such as please, now, you must; 请, 你必须)
//     whose object, a few words on, is the assistant's instructions, rules,
//     prompt or guidelines. What such a sentence names is part of the
//     attempt, not an interest.
//
// All are read from the sentence's structure, with the words of each
// construction in the lexicon (@self_naming, @self_naming_closed,
// @assistant_naming, @addressing, @addressing_after, @vocative_next,
// @relations, @person_before, @directive_verbs, @directive_objects,
// @imperative_leads of en_rules.txt and zh_rules.txt). The rules propose
// their candidates as ever; dropAimed then removes those the constructions
// mark, before candidates are resolved, so a name removed leaves nothing of
// itself behind. Screen does the same for facts any extractor found (a
// model, a catalog), by where they stand in the text. A name given with
// "I'm" or 我是, or after a greeting, is taken as one only when it closes its
// clause, since "I'm Taylor Swift's biggest fan", 我是周杰伦的粉丝 and "Hey
// Jude is a song" name someone or something else. Where the construction
// says no more than that a name follows (a greeting, a relation), only a
// person's name is taken: "Hey Jude!" and 我同学三体看完了 keep the song and
// the book.

// aimKind is which list a phrase of the Chinese automaton is from; a phrase
// may be on several (你好 greets before a name and after one), so the
// automaton's patterns carry a set of them.
type aimKind uint8

const (
	aimSelfNaming aimKind = 1 << iota
	aimSelfNamingClosed
	aimAssistantNaming
	aimAddressing
	aimAddressingAfter
	aimRelation
	aimDirective
)

// naming is an English phrase after which a name of the conversation's own
// people begins, in lower-case words ("*": any one word).
type naming struct {
	words []string
	// name is what a match marks, its at left to fill.
	name ownName
	// opens: the phrase must open its clause (a greeting).
	opens bool
}

// span is a range of bytes of the text.
type span struct{ start, end int }

// ownName is where a name of the conversation's own people stands: the
// user's, the assistant's, whom the user talks to, someone of the user's
// life.
type ownName struct {
	// at is where the name begins; with before, where it ends.
	at int
	// closed: the name must close its clause ("I'm Anna Lee.", "Hi Anna,").
	closed bool
	// before: the name ends at at and opens its clause (小美你好).
	before bool
	// people: only a person's name is one here (after a greeting, a
	// relation); a title or a genre at the same place is read as ever.
	people bool
}

// aimedEnglish finds, in the words of the text (appendLatinWords), where a
// name of the conversation's own people stands and which sentences are
// directives.
func (st *state) aimedEnglish(words []enWord) {
	en := st.en
	for i, w := range words {
		for _, k := range en.namingByFirst[w.lower] {
			nm := en.namings[k]
			n := len(nm.words)
			if i+n >= len(words) || !matchPattern(words[i:i+n], nm.words) || words[i+n].sentStart || nm.opens && !st.opensClause(words, i) {
				continue
			}
			name := nm.name
			name.at = words[i+n].start
			st.names = append(st.names, name)
		}
		if w.lower == "my" {
			st.relationEn(words, i)
		}
		if w.sentStart && w.cap {
			st.vocativeEn(words, i)
		}
		if en.directiveVerbs[w.lower] && st.commandEn(words, i) && objectAfter(words, i, en.directiveObjects) {
			st.directives = append(st.directives, sentenceAround(st.text, w.start))
		}
	}
}

// relationEn marks the name after "my friend", "my older sister" (words[i]
// is "my"): someone of the user's life.
func (st *state) relationEn(words []enWord, i int) {
	for j := i + 1; j <= i+2 && j+1 < len(words); j++ {
		if !words[j].joined {
			return
		}
		if st.en.personBefore[words[j].lower] {
			if !words[j+1].sentStart {
				st.names = append(st.names, ownName{at: words[j+1].start, people: true})
			}
			return
		}
		if words[j].cap { // "my Dune copy": no relation
			return
		}
	}
}

// vocativeMax is how many words a name at the start of a sentence, said to
// whom the user asks, may have ("Anna Lee, can you …").
const vocativeMax = 3

// vocativeEn marks a name that opens a sentence (words[i]) when a comma and
// a request follow it: "Anna, can you recommend a book?"
func (st *state) vocativeEn(words []enWord, i int) {
	for e := i; e < len(words)-1 && e < i+vocativeMax; e++ {
		if !words[e].cap || e > i && !words[e].joined {
			return
		}
		gap := strings.TrimSpace(st.text[words[e].end:words[e+1].start])
		if gap == "" {
			continue
		}
		if gap != "," || words[e+1].sentStart {
			return
		}
		for _, next := range st.en.vocativeNext {
			if e+1+len(next) <= len(words) && matchPattern(words[e+1:e+1+len(next)], next) {
				st.names = append(st.names, ownName{at: words[i].start, closed: true, people: true})
				return
			}
		}
		return
	}
}

// matchPattern reports whether ws spell pattern word by word, "*" matching
// any word, each word after the first joined to the one before it.
func matchPattern(ws []enWord, pattern []string) bool {
	for k, p := range pattern {
		if p != "*" && ws[k].lower != p || k > 0 && !ws[k].joined {
			return false
		}
	}
	return true
}

// opensClause reports whether words[i] is the first word of its clause.
func (st *state) opensClause(words []enWord, i int) bool {
	return i == 0 || words[i].sentStart || strings.ContainsAny(st.text[words[i-1].end:words[i].start], clausePunct)
}

// commandEn reports whether words[i] stands where a command's verb does:
// at the start of its clause, or after nothing but imperative leads
// ("please", "now", "you must") that start it.
func (st *state) commandEn(words []enWord, i int) bool {
	for k := i; ; k-- {
		if st.opensClause(words, k) {
			return true
		}
		if !st.en.imperativeLeads[words[k-1].lower] {
			return false
		}
	}
}

// clausePunct are the characters between two words that start a clause.
const clausePunct = ",;:()[]{}\"“”‘’—–-【】「」《》（）：；，"

// directiveReach is how many words after its verb a directive's object may
// be ("ignore all of the previous instructions").
const directiveReach = 6

// objectAfter reports whether one of the few words after words[i], in its
// sentence, is one of objects.
func objectAfter(words []enWord, i int, objects map[string]bool) bool {
	for k := i + 1; k < len(words) && k <= i+directiveReach; k++ {
		if words[k].sentStart {
			return false
		}
		if objects[words[k].lower] {
			return true
		}
	}
	return false
}

// aimedChinese finds, in Chinese text, where a name of the conversation's
// own people stands (after 我叫, 叫我, 你就叫, 你好，, 我朋友; before 你好)
// and which sentences are directives (请忽略之前的所有指令).
func (st *state) aimedChinese() {
	zh := st.zh
	var buf [8]acMatch
	for _, m := range zh.aimed.findAll(st.text, buf[:0]) {
		kinds := zh.aimedKinds[m.pattern]
		at := skipNameOpening(st.text, m.end)
		if kinds&(aimSelfNaming|aimSelfNamingClosed|aimAssistantNaming|aimRelation) != 0 && at < len(st.text) {
			st.names = append(st.names, ownName{at: at, closed: kinds&aimSelfNamingClosed != 0, people: kinds&aimRelation != 0})
		}
		if kinds&aimAddressing != 0 && st.clauseOpensAt(m.start) {
			if at := skipSeparator(st.text, m.end); at < len(st.text) {
				st.names = append(st.names, ownName{at: at, closed: true, people: true})
			}
		}
		if kinds&aimAddressingAfter != 0 && closesClause(st.text, m.end) {
			if end := backOverSeparator(st.text, m.start); end > 0 {
				st.names = append(st.names, ownName{at: end, before: true, people: true})
			}
		}
		if kinds&aimDirective != 0 && st.commandZh(m.start) && containsAny(st.text[m.end:st.clauseEnd(m.end)], zh.directiveObjects) {
			st.directives = append(st.directives, sentenceAround(st.text, m.start))
		}
	}
}

// skipNameOpening skips what may stand between a self-naming phrase and the
// name: spaces, a colon, an opening quote.
func skipNameOpening(text string, i int) int {
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !strings.ContainsRune(" ：:“\"「『‘'", r) {
			break
		}
		i += size
	}
	return i
}

// nameSeparators may stand between a greeting and the name it is said to
// (你好，小美; 小美，你好).
const nameSeparators = " ，,、"

// skipSeparator skips nameSeparators from byte i on.
func skipSeparator(text string, i int) int {
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !strings.ContainsRune(nameSeparators, r) {
			break
		}
		i += size
	}
	return i
}

// backOverSeparator is where the text before byte i ends once the
// nameSeparators just before i are left out.
func backOverSeparator(text string, i int) int {
	for i > 0 {
		r, size := utf8.DecodeLastRuneInString(text[:i])
		if !strings.ContainsRune(nameSeparators, r) {
			break
		}
		i -= size
	}
	return i
}

// exclamations may stand between a name or a greeting and the end of its
// clause (小美你好呀, 我是王芳啊).
const exclamations = "啊呀哦吖哇"

// closesClause reports whether a name or a greeting that ends at byte end
// closes its clause: nothing but exclamations stand between it and a break
// or the end of the text.
func closesClause(text string, end int) bool {
	for end < len(text) {
		r, size := utf8.DecodeRuneInString(text[end:])
		if !strings.ContainsRune(exclamations, r) {
			return isBreak(text, end)
		}
		end += size
	}
	return true
}

// clauseOpensAt reports whether nothing but spaces stands between the start
// of its clause and byte i.
func (st *state) clauseOpensAt(i int) bool {
	return strings.TrimSpace(st.text[st.clauseStart(i):i]) == ""
}

// openingOf is where a name that ends at byte end begins when it opens its
// clause: the clause's start, after spaces.
func (st *state) openingOf(end int) int {
	s := st.clauseStart(end)
	for s < end && st.text[s] == ' ' {
		s++
	}
	return s
}

// commandZh reports whether the verb at byte i stands where a command's
// does: at the start of its clause, or after nothing but imperative leads
// (请, 现在, 你必须).
func (st *state) commandZh(i int) bool {
	before := strings.TrimSpace(st.text[st.clauseStart(i):i])
	for before != "" {
		lead := false
		for _, l := range st.zh.imperativeLeads {
			if rest, ok := strings.CutPrefix(before, l); ok {
				before, lead = strings.TrimSpace(rest), true
				break
			}
		}
		if !lead {
			return false
		}
	}
	return true
}

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// sentenceAround is the sentence that holds byte i: from just after the
// end of the one before (., !, ?, a line break, 。！？) to the end of its
// own, its mark included.
func sentenceAround(text string, i int) span {
	s := i
	for s > 0 {
		r, size := utf8.DecodeLastRuneInString(text[:s])
		if endsSentence(text, s-size, r) {
			break
		}
		s -= size
	}
	e := i
	for e < len(text) {
		r, size := utf8.DecodeRuneInString(text[e:])
		e += size
		if endsSentence(text, e-size, r) {
			break
		}
	}
	return span{s, e}
}

// endsSentence reports whether r, at byte i, ends a sentence: a full stop
// only when no letter follows it (S.H.E, Dr.Who).
func endsSentence(text string, i int, r rune) bool {
	switch r {
	case '!', '?', '\n', '。', '！', '？':
		return true
	case '.':
		if i+1 >= len(text) {
			return true
		}
		next, _ := utf8.DecodeRuneInString(text[i+1:])
		return !isLatinWordRune(next)
	}
	return false
}

// maybePerson reports whether a fact of kind k may be a person's name: what
// a greeting or a relation marks when it is one.
func (k Kind) maybePerson() bool {
	return k == KindPerson || k == KindAuthor || k == KindName
}

// ownSpan is the span of text the name n covers, read from the candidates:
// from where it begins to the furthest end of a candidate that begins there
// (ends there and opens the clause, for a name before its greeting); false
// when no candidate stands there, or a closing name does not close its
// clause.
func (st *state) ownSpan(n ownName) (span, bool) {
	if n.before {
		s := st.openingOf(n.at)
		for _, c := range st.cands {
			if c.start == s && c.end == n.at && (!n.people || c.kind.maybePerson()) {
				return span{s, n.at}, true
			}
		}
		return span{}, false
	}
	end := -1
	for _, c := range st.cands {
		if c.start == n.at && c.end > end && (!n.people || c.kind.maybePerson()) {
			end = c.end
		}
	}
	if end < 0 || n.closed && !closesClause(st.text, end) {
		return span{}, false
	}
	return span{n.at, end}, true
}

// ownSpanOf is a name's span and whether only a person's name is one there.
type ownSpanOf struct {
	span
	people bool
}

// dropAimed removes the candidates the constructions above mark: those that
// begin within a name of the conversation's own people (ownSpan; a person's
// name only where only one is taken), and those inside a directive
// sentence.
func (st *state) dropAimed() {
	if len(st.names) == 0 && len(st.directives) == 0 {
		return
	}
	var names []ownSpanOf
	for _, n := range st.names {
		if sp, ok := st.ownSpan(n); ok {
			names = append(names, ownSpanOf{sp, n.people})
		}
	}
	kept := st.cands[:0]
	for _, c := range st.cands {
		if !aimedAt(c, names, st.directives) {
			kept = append(kept, c)
		}
	}
	st.cands = kept
}

// aimedAt reports whether c begins within one of names or lies inside one
// of directives.
func aimedAt(c cand, names []ownSpanOf, directives []span) bool {
	for _, n := range names {
		if c.start >= n.start && c.start < n.end && (!n.people || c.kind.maybePerson()) {
			return true
		}
	}
	return inside(c.start, c.end, directives)
}

// Screen removes from facts, found in text by any extractor (a model, a
// catalog, the rules), those the constructions above mark there: a fact
// whose name stands in the text where a name of the conversation's own
// people does (the user's own, the assistant's, whom the user talks to,
// someone of the user's life), or only inside a sentence that commands the
// assistant to drop its instructions. A fact is looked for by its Display,
// ASCII letters in any case; one the text does not spell is kept. Rules
// already leave these out of what they find; Screen is for what they are
// combined with. It returns an error only when the lexicon cannot be read.
func Screen(text string, facts []Fact) ([]Fact, error) {
	if len(facts) == 0 || strings.TrimSpace(text) == "" {
		return facts, nil
	}
	lx, err := loadLexicon()
	if err != nil {
		return nil, err
	}
	st := &state{r: &Rules{lex: lx}, text: text, zh: lx.zh, en: lx.en}
	st.aimedOnly()
	if len(st.names) == 0 && len(st.directives) == 0 {
		return facts, nil
	}
	folded := foldASCII(text)
	out := make([]Fact, 0, len(facts))
	for _, f := range facts {
		if !st.aimedFact(folded, f) {
			out = append(out, f)
		}
	}
	return out, nil
}

// aimedOnly finds the constructions of the text, and nothing else.
func (st *state) aimedOnly() {
	han, latin := scripts(st.text)
	if han {
		st.aimedChinese()
	}
	if latin {
		sc := enScratchPool.Get().(*enScratch)
		defer sc.release()
		sc.words = appendLatinWords(sc.words, st.text, st.en.abbreviations)
		st.aimedEnglish(sc.words)
	}
}

// aimedFact reports whether f's name stands, somewhere in the text (folded:
// the text ASCII-folded), where a construction marks it: at a name of the
// conversation's own people, or inside a directive. Only whole words count.
func (st *state) aimedFact(folded string, f Fact) bool {
	needle := foldASCII(strings.TrimSpace(f.Display))
	if needle == "" {
		return false
	}
	// Inside directives only: a name said both in a directive and elsewhere
	// was said elsewhere too.
	inDirective, elsewhere := false, false
	for from := 0; from < len(folded); {
		i := strings.Index(folded[from:], needle)
		if i < 0 {
			break
		}
		s, e := from+i, from+i+len(needle)
		from = s + 1
		if !latinBoundaries(folded, s, e) {
			continue
		}
		if st.ownAt(s, e, f.Kind) {
			return true
		}
		if inside(s, e, st.directives) {
			inDirective = true
		} else {
			elsewhere = true
		}
	}
	return inDirective && !elsewhere
}

// ownAt reports whether text[s:e], a name of kind kind, stands where a name
// of the conversation's own people does.
func (st *state) ownAt(s, e int, kind Kind) bool {
	for _, n := range st.names {
		switch {
		case n.people && !kind.maybePerson():
		case n.before:
			if e == n.at && s == st.openingOf(n.at) {
				return true
			}
		case s == n.at && (!n.closed || closesClause(st.text, e)):
			return true
		}
	}
	return false
}

// inside reports whether text[s:e] lies inside one of spans.
func inside(s, e int, spans []span) bool {
	for _, d := range spans {
		if s >= d.start && e <= d.end {
			return true
		}
	}
	return false
}
