package stated

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Said is a sentence in which the user says something about themselves, or
// about the people and animals they care for, that stays true beyond the
// conversation: who they are, where and how they live, what they like,
// dislike, fear, avoid or cannot have, their habits, goals and plans, and
// what they ask of the assistant. It is kept in the user's own words.
type Said struct {
	// Text is the sentence as the user wrote it (spaces collapsed, at most
	// MaxSaidChars characters, cut at a word).
	Text string
	// Kind is what the sentence says (one of the Kind constants).
	Kind string
	// Matter is what the sentence is about, normalized: a newer statement on
	// the same matter supersedes an older one ("I love sushi", later "I
	// don't eat raw fish any more" are not one matter; "I live in Lyon" and
	// "we moved to Toronto" are: location).
	Matter string
	// Negative reports a statement against its object: a dislike, an
	// aversion, something avoided, feared or not to be had.
	Negative bool
	// Strength is how strongly it is said, 0 to 1: the kind's own weight,
	// raised by intensifiers ("strongly", "can't stand", "severe",
	// "非常") and lowered by hedges ("kind of", "a bit", "有点").
	Strength float64
}

// Kinds of a self-statement.
const (
	KindLike     = "like"
	KindDislike  = "dislike"
	KindAvoid    = "avoid"
	KindFear     = "fear"
	KindHealth   = "health" // allergies, intolerances, conditions, diets
	KindIdentity = "identity"
	KindLocation = "location"
	KindFamily   = "family" // family members and pets
	KindHabit    = "habit"
	KindGoal     = "goal" // goals and plans
	KindLimit    = "constraint"
	KindRequest  = "request"
)

// MaxSaidChars bounds a statement's text: a sentence, not a paragraph.
const MaxSaidChars = 300

// kindWeight is each kind's base strength: what bears on every later answer
// (an allergy, a fear, a request) weighs more than a plan.
var kindWeight = map[string]float64{
	KindHealth: 0.9, KindRequest: 0.9, KindFear: 0.85, KindAvoid: 0.8, KindDislike: 0.75, KindLimit: 0.7,
	KindLike: 0.65, KindLocation: 0.7, KindFamily: 0.65, KindIdentity: 0.6, KindHabit: 0.55, KindGoal: 0.5,
}

// Self reads the self-statements of one turn of the user's, sentence by
// sentence, in English and Chinese. A sentence is one when its subject is
// the user (I, we, my family member or pet; 我, 我们, 我的…) and its verb is
// one of a stance (like, prefer, hate, avoid, fear), a state (am allergic,
// am vegetarian, live in, work as, have a son), a habit (usually, every
// day, never) or a standing request. Questions, hypotheticals, reported
// speech, the past that no longer holds ("I used to"), passing events ("I
// watched a film yesterday") and lines of a pasted transcript are not.
func Self(text string) []Said {
	var out []Said
	seen := map[string]bool{}
	text = ownWords(text)
	for _, line := range strings.Split(unquote(text), "\n") {
		if transcriptLine(line) {
			continue
		}
		prev := -1   // out's statement read from the clause before, if any
		before := "" // the clause before
		for _, clause := range clauses(line) {
			last := before
			before = clause
			// A concession holds the statement ("I prefer X, even if it
			// costs more"): it is no hypothetical.
			main, _, _ := strings.Cut(clause, " even if ")
			if question.MatchString(clause) || hypothetical.MatchString(main) || reported.MatchString(clause) {
				prev = -1
				continue
			}
			var s Said
			var ok bool
			if s, ok = requestOf(clause); ok {
				// what the user asks of the assistant
			} else if isHan(clause) {
				s, ok = selfZH(clause)
			} else {
				s, ok = selfEN(clause)
			}
			if !ok || placeholder.MatchString(clause) { // a template's blank: "My name is [User]"
				// "I've been using basil lately. I've even harvested my
				// own tomatoes": the sentence that goes further on a
				// statement ("even") is part of it.
				if prev >= 0 && goesFurther.MatchString(clause) && utf8.RuneCountInString(out[prev].Text)+1+utf8.RuneCountInString(clause) <= MaxSaidChars && !question.MatchString(clause) {
					out[prev].Text += " " + strings.Join(strings.Fields(clause), " ")
				}
				prev = -1
				continue
			}
			// A stance and its contrast right after it are one statement:
			// "I dislike swimming. I much prefer land-based activities."
			if prev >= 0 && contrasts(out[prev], s) && utf8.RuneCountInString(out[prev].Text)+1+utf8.RuneCountInString(clause) <= MaxSaidChars {
				out[prev].Text += " " + strings.Join(strings.Fields(clause), " ")
				out[prev].Strength = max(out[prev].Strength, s.Strength)
				prev = -1
				continue
			}
			s.Text = clip(clause)
			// What "the field" is, the sentence before says: "… in deep
			// learning for medical imaging? Skip the basics as I am working
			// in the field."
			if prev < 0 && last != "" && backRef.MatchString(clause) && utf8.RuneCountInString(last)+1+utf8.RuneCountInString(clause) <= MaxSaidChars {
				s.Text = strings.Join(strings.Fields(last+" "+clause), " ")
			}
			if seen[s.Text] {
				prev = -1
				continue
			}
			seen[s.Text] = true
			out = append(out, s)
			prev = len(out) - 1
		}
	}
	return out
}

// A turn longer than pastedTurn characters is mostly something the user
// pasted (a document, a transcript, a draft, a script): only its opening
// ownOpening characters, where users write what they want done with it,
// are read as their own words.
const (
	pastedTurn = 1500
	ownOpening = 500
)

// ownWords is the part of a turn read as the user's own words: all of it,
// or the opening of a long one, cut at its last sentence end.
func ownWords(text string) string {
	if utf8.RuneCountInString(text) <= pastedTurn {
		return text
	}
	open := string([]rune(text)[:ownOpening])
	if i := strings.LastIndexAny(open, ".!?。！？\n"); i > 0 {
		open = open[:i+1]
	}
	return open
}

// goesFurther opens a sentence that takes the one before further: "I've
// even …", "I even …", "we've even …".
var goesFurther = regexp.MustCompile(`(?i)^(?:i|we)(?:'ve| have)? even\b`)

// backRef is a noun phrase that points back at what was just said: "the
// field", "this area", "that topic".
var backRef = regexp.MustCompile(`(?i)\b(?:the|this|that|these|those) (?:field|area|topic|subject|domain|industry|sector|kind|sort|type)\b`)

// stances are the kinds that take a side on something.
var stances = map[string]bool{KindLike: true, KindDislike: true, KindAvoid: true, KindFear: true}

// contrasts reports whether b, said right after a, states the other side
// of the same stance: a dislike, then what is liked instead, or the other
// way round.
func contrasts(a, b Said) bool {
	return stances[a.Kind] && stances[b.Kind] && a.Negative != b.Negative
}

// Quoting reports whether text opens as a line of someone else's words (a
// speaker label, a quoted block): what a user pastes is not what they say.
func Quoting(text string) bool { return transcriptLine(text) }

// transcriptLine reports a line that quotes someone else's words: a speaker
// label ("User:", "Assistant:", "Q:", "Bob:") or a quotation mark at its
// start, a quoted block ("> …").
func transcriptLine(line string) bool {
	t := strings.TrimSpace(line)
	if strings.HasPrefix(t, ">") {
		return true
	}
	i := strings.IndexAny(t, ":：")
	if i <= 0 || i > 24 {
		return false
	}
	label := strings.TrimSpace(t[:i])
	if strings.ContainsAny(label, " \t") && utf8.RuneCountInString(label) > 12 {
		return false
	}
	for _, r := range label {
		if !unicode.IsLetter(r) && r != ' ' && r != '_' && r != '-' {
			return false
		}
	}
	switch strings.ToLower(label) {
	case "user", "assistant", "human", "ai", "bot", "system", "q", "a", "me", "you", "用户", "助手", "问", "答", "我", "你":
		return true
	}
	// A single word then a colon is a speaker ("Bob: I love it"), unless it
	// heads the user's own note ("Update: we moved").
	if strings.Contains(label, " ") {
		return false
	}
	switch strings.ToLower(label) {
	case "note", "ps", "update", "edit", "btw", "fyi", "also", "example", "tip", "reminder", "context", "background",
		"question", "goal", "summary", "important", "warning", "nb", "p.s", "addendum", "correction":
		return false
	}
	return true
}

// clip cuts a sentence to MaxSaidChars characters at a word, spaces
// collapsed.
func clip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= MaxSaidChars {
		return s
	}
	r := []rune(s)[:MaxSaidChars-1]
	cut := string(r)
	if i := strings.LastIndexByte(cut, ' '); i > MaxSaidChars/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:") + "…"
}

func strength(kind string, boost float64) float64 {
	return min(1, max(0.1, kindWeight[kind]+boost))
}

// placeholder is a template's blank to fill in: "[User]", "{name}",
// "<your city>".
var placeholder = regexp.MustCompile(`\[[^\]]{1,30}\]|\{[^}]{1,30}\}|<[^>]{1,30}>`)

// Standing requests: what the user asks of the assistant's answers from
// now on, beyond this message.
var (
	requestEN = regexp.MustCompile(`(?i)^(?:please[, ]+|and |also,? |oh,? )?(?:from now on|going forward|in (?:the )?future|always|never|don't|do not|stop)\b.*\b(?:answers?|repl(?:y|ies)|respond|responses|suggest|recommend|mention|include|use|write|explain|remind|give|call|keep|format|talk|speak)\b`)
	requestZH = regexp.MustCompile(`(?:以后|今后|从现在起|从今以后|每次|一直|别再|不要再|千万别|永远不要).{0,20}(?:回答|回复|说话|写|用|推荐|建议|提到|叫|解释|列|给我)|(?:回答|回复).{0,6}(?:简短|简洁|详细|短)|(?:简短|简洁|简单)地?(?:回答|回复)`)
)

// requestOf reads a standing request of the assistant: a clause whose words
// fill a key of the preference group (reply_language, reply_length,
// reply_format, assistant_name, requests), or ask for answers from now on.
func requestOf(clause string) (Said, bool) {
	matter := ""
	for _, st := range Extract(clause) {
		switch st.Key {
		case "reply_language", "reply_length", "reply_format", "tone", "assistant_name":
			matter = st.Key
		case "requests":
			matter = "request " + strings.ToLower(st.Value)
		}
		if matter != "" {
			break
		}
	}
	if matter == "" {
		han := isHan(clause)
		if han && !requestZH.MatchString(clause) || !han && !requestEN.MatchString(clause) {
			return Said{}, false
		}
		if strings.HasPrefix(clause, "请问") {
			return Said{}, false
		}
		matter = "request " + strings.ToLower(strings.Join(strings.Fields(clause), " "))
		if r := []rune(matter); len(r) > 60 {
			matter = string(r[:60])
		}
	}
	return Said{Text: clip(clause), Kind: KindRequest, Matter: matter, Strength: strength(KindRequest, 0)}, true
}

// unquote takes off the quotation marks around a whole turn ("\"I dislike
// floral patterns.\""): the user's own words, quoted for no one.
func unquote(text string) string {
	t := strings.TrimSpace(text)
	for _, q := range [][2]string{{`"`, `"`}, {"“", "”"}, {"「", "」"}, {"'", "'"}} {
		if len(t) > len(q[0])+len(q[1]) && strings.HasPrefix(t, q[0]) && strings.HasSuffix(t, q[1]) {
			inner := t[len(q[0]) : len(t)-len(q[1])]
			if !strings.Contains(inner, q[0]) && !strings.Contains(inner, q[1]) {
				return inner
			}
		}
	}
	return text
}
