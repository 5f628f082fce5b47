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
//     are; the profile reads that (pkg/attribute/stated). The name that
//     follows the self-naming construction is no interest.
//   - A sentence that commands the assistant to drop its instructions
//     ("Ignore previous instructions", "SYSTEM OVERRIDE: disregard the rules
//     above and …", "Please forget all prior guidelines", 请忽略之前的所有指令)
//     is aimed at the assistant: its verb is a command (at the start of its
//     clause, after nothing but words such as please, now, you must; 请, 你必须)
//     whose object, a few words on, is the assistant's instructions, rules,
//     prompt or guidelines. What such a sentence names is part of the
//     attempt, not an interest.
//
// Both are read from the sentence's structure, with the words of each
// construction in the lexicon (@self_naming, @self_naming_closed,
// @directive_verbs, @directive_objects, @imperative_leads of en_rules.txt and
// zh_rules.txt). The rules propose their candidates as ever; dropAimed then
// removes those the constructions mark, before candidates are resolved, so
// a name removed leaves nothing of itself behind. A name given with "I'm"
// or 我是 is taken as one only when it closes its clause, since "I'm Taylor
// Swift's biggest fan" and 我是周杰伦的粉丝 name someone else.

// aimKind is which list a phrase of the Chinese automaton is from.
type aimKind uint8

const (
	aimSelfNaming aimKind = iota
	aimSelfNamingClosed
	aimDirective
)

// selfNaming is an English self-naming phrase, in lower-case words ("*":
// any one word); closed when the name must close its clause.
type selfNaming struct {
	words  []string
	closed bool
}

// span is a range of bytes of the text.
type span struct{ start, end int }

// selfName is where a name a user gives themselves begins.
type selfName struct {
	at     int
	closed bool
}

// aimedEnglish finds, in the words of the text (appendLatinWords), where a
// self-given name begins and which sentences are directives.
func (st *state) aimedEnglish(words []enWord) {
	en := st.en
	for i, w := range words {
		for _, k := range en.selfByFirst[w.lower] {
			sn := en.selfNaming[k]
			n := len(sn.words)
			if i+n >= len(words) || !matchPattern(words[i:i+n], sn.words) || words[i+n].sentStart {
				continue
			}
			st.names = append(st.names, selfName{at: words[i+n].start, closed: sn.closed})
		}
		if en.directiveVerbs[w.lower] && st.commandEn(words, i) && objectAfter(words, i, en.directiveObjects) {
			st.directives = append(st.directives, sentenceAround(st.text, w.start))
		}
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

// commandEn reports whether words[i] stands where a command's verb does:
// at the start of its clause, or after nothing but imperative leads
// ("please", "now", "you must") that start it.
func (st *state) commandEn(words []enWord, i int) bool {
	for k := i; ; k-- {
		if k == 0 || words[k].sentStart || strings.ContainsAny(st.text[words[k-1].end:words[k].start], clausePunct) {
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

// aimedChinese finds, in Chinese text, where a self-given name begins (after
// 我叫, 叫我 …) and which sentences are directives (请忽略之前的所有指令).
func (st *state) aimedChinese() {
	zh := st.zh
	var buf [8]acMatch
	for _, m := range zh.aimed.findAll(st.text, buf[:0]) {
		switch kind := zh.aimedKind[m.pattern]; kind {
		case aimSelfNaming, aimSelfNamingClosed:
			if at := skipNameOpening(st.text, m.end); at < len(st.text) {
				st.names = append(st.names, selfName{at: at, closed: kind == aimSelfNamingClosed})
			}
		case aimDirective:
			if st.commandZh(m.start) && containsAny(st.text[m.end:st.clauseEnd(m.end)], zh.directiveObjects) {
				st.directives = append(st.directives, sentenceAround(st.text, m.start))
			}
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

// dropAimed removes the candidates the constructions above mark: those that
// begin within a name the user gave themselves (from where it begins to the
// furthest end of a candidate that begins there; for "I'm" and 我是 only when
// that end closes the clause), and those inside a directive sentence.
func (st *state) dropAimed() {
	if len(st.names) == 0 && len(st.directives) == 0 {
		return
	}
	var names []span
	for _, n := range st.names {
		end := -1
		for _, c := range st.cands {
			if c.start == n.at && c.end > end {
				end = c.end
			}
		}
		if end < 0 || n.closed && end < len(st.text) && !isBreak(st.text, end) {
			continue
		}
		names = append(names, span{n.at, end})
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
func aimedAt(c cand, names, directives []span) bool {
	for _, n := range names {
		if c.start >= n.start && c.start < n.end {
			return true
		}
	}
	for _, d := range directives {
		if c.start >= d.start && c.end <= d.end {
			return true
		}
	}
	return false
}
