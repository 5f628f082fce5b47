// Package stated reads what a user says about themselves and what they ask
// of the assistant from one turn of theirs, in English and Chinese, without a
// model: "call me Xiao Li", "I moved to Berlin", "I'm allergic to
// peanuts", "answer in English", "我叫小李", "我搬到了杭州", "我女儿对花生过敏",
// "用中文回答", "你就叫小书吧".
//
// Precision comes first: a statement is read only when the user says it of
// themselves (or of their family, for allergies), plainly. A question, a
// negation, a hypothetical and reported speech yield nothing: "are you
// vegetarian?", "I'm not a teacher", "if I were vegetarian", "she said
// 'call me Ann'". What is not read here is left to a model, when one is
// configured.
package stated

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Statement is one value read from a turn, for a key of the default
// schema (pkg/attribute).
type Statement struct {
	Key   string
	Value string
	// Confidence is how sure the rule is, 0 to 1.
	Confidence float64
}

// rule reads one kind of statement from a clause: the pattern's first
// non-empty group is the value, written by value (nil: as matched).
type rule struct {
	key        string
	re         *regexp.Regexp
	value      func(m string) string
	confidence float64
	// hints are words one of which every clause the pattern matches holds,
	// in lower case: a clause without any is not tried (the patterns are
	// slow; most clauses say nothing of the kind).
	hints []string
}

// mayMatch reports whether the lower-cased clause holds one of the rule's
// hints.
func (r rule) mayMatch(lower string) bool {
	for _, h := range r.hints {
		if strings.Contains(lower, h) {
			return true
		}
	}
	return false
}

// Capitalized English words (a name, a place, a language); Han runs of a
// few characters.
const (
	enName  = `([A-Z][a-z'-]+(?: [A-Z][a-z-]+)?)`
	enPlace = `([A-Z][A-Za-z.'-]+(?:[ -][A-Z][A-Za-z.'-]+){0,3})`
	zhName  = `([\p{Han}A-Za-z]{1,4}?)`
	zhPlace = `(\p{Han}{2,6}?)`
)

var family = `(daughter|son|wife|husband|partner|kid|child|children|kids|mother|mom|mum|father|dad|baby|boyfriend|girlfriend)`

var rules = []rule{
	// English: who the user is.
	{key: "name", hints: []string{"my name", "call me", "go by"}, re: regexp.MustCompile(`(?i:\bmy name is|\bmy name's|\bcall me|\bi go by|\bplease call me)\s+` + enName + `\b`), confidence: 0.9},
	{key: "location", hints: []string{"live in", "moved to", "based in", "relocated to"}, re: regexp.MustCompile(`(?i:\bi live in|\b(?:i|we)(?:'ve| have)? (?:just |recently |finally |now |officially )*(?:moved|relocated) to|\bi(?:'m| am) based in|\bwe live in)\s+(?:the )?` + enPlace), confidence: 0.85},
	{key: "occupation", hints: []string{"work as", "my job is", "working as"}, re: regexp.MustCompile(`(?i)\b(?:i work as|my job is|i(?:'m| am) working as) (?:an? )?([a-z]+(?: [a-z]+)?)\b`), confidence: 0.8,
		value: beforePreposition},
	{key: "diet", hints: []string{"vegetarian", "vegan", "pescatarian", "gluten", "lactose", "halal", "kosher"}, re: regexp.MustCompile(`(?i)\bi(?:'m| am) (?:a |now )?(vegetarian|vegan|pescatarian|gluten[- ]free|lactose[- ]intolerant|halal|kosher)\b`), confidence: 0.9},
	{key: "allergies", hints: []string{"allergic to"}, re: regexp.MustCompile(`(?i)\bi(?:'m| am) (?:severely |very )?allergic to ([a-z][a-z -]{1,30}?)(?:\s+(?:and|so|but)\b|[,.;!]|$)`), confidence: 0.9},
	{key: "allergies", hints: []string{"allergic to"}, re: regexp.MustCompile(`(?i)\bmy ` + family + ` (?:is|'s|are) (?:severely |very )?allergic to ([a-z][a-z -]{1,30}?)(?:\s+(?:and|so|but)\b|[,.;!]|$)`), confidence: 0.85},
	// "my son can't have any nuts, he has a severe allergy": what a family
	// member cannot have, where the sentence says it is an allergy.
	{key: "allergies", hints: []string{"allerg"}, re: regexp.MustCompile(`(?i)\bmy ` + family + `(?: [A-Z][a-z]+)? (?:can't|cannot|can not) (?:have|eat|touch) (?:any )?([a-z][a-z -]{1,30}?)(?:\s+(?:and|so|but|because)\b|[,.;!]|$).*\ballerg`), confidence: 0.85},
	{key: "allergies", hints: []string{"allerg"}, re: regexp.MustCompile(`(?i)\bi (?:can't|cannot|can not) (?:have|eat|touch) (?:any )?([a-z][a-z -]{1,30}?)(?:\s+(?:and|so|but|because)\b|[,.;!]|$).*\ballerg`), confidence: 0.85},
	// English: what the user asks of the assistant.
	{key: "reply_language", hints: []string{"english", "chinese", "mandarin", "french", "german", "spanish", "japanese", "korean", "italian", "portuguese", "russian"}, re: regexp.MustCompile(`(?i:(?:^|please |from now on,? |always |only |and ))(?i:(?:answer|reply|respond|write|talk|speak)(?: to me)?(?: only)? in)\s+(English|Chinese|Mandarin|French|German|Spanish|Japanese|Korean|Italian|Portuguese|Russian)\b`), confidence: 0.9},
	{key: "reply_length", hints: []string{"short", "brief", "concise"}, re: regexp.MustCompile(`(?i)(?:^|please |just |and )(?:keep (?:it|them|your (?:answers|replies))|be) (short|brief|concise)\b`), confidence: 0.8,
		value: func(string) string { return "short" }},
	{key: "reply_format", hints: []string{"bullet", "lists", "tables", "emojis", "markdown"}, re: regexp.MustCompile(`(?i)\b(?:please )?(?:don't|do not|never|stop) (?:use|using|give me) (bullet points|bullets|lists|tables|emojis|markdown)\b`), confidence: 0.8,
		value: func(m string) string { return "no " + strings.ToLower(m) }},
	{key: "assistant_name", hints: []string{"call you", "your name is"}, re: regexp.MustCompile(`(?i:\bi(?:'ll| will) call you|\byour name is now|\bfrom now on,? your name is)\s+` + enName + `\b`), confidence: 0.85},
	{key: "requests", hints: []string{"suggest", "recommend", "mention"}, re: regexp.MustCompile(`(?i)(?:^|, |and |so |please )((?:please )?(?:(?:never|don't ever|do not ever) (?:suggest|recommend|mention)|(?:don't|do not) (?:suggest|recommend)) [^.!?\n]{3,80})`), confidence: 0.8,
		value: func(m string) string { return strings.TrimSpace(m) }},

	// Chinese: who the user is.
	{key: "name", hints: []string{"我叫", "叫我", "我的名字是"}, re: regexp.MustCompile(`(?:我叫|我的名字是|(?:^|请|你|就|以后|可以)叫我)` + zhName + `(?:就行|就好|吧|好了|[，。！,.!]|$)`), confidence: 0.85,
		value: notAVerbsObject},
	{key: "location", hints: []string{"住在", "搬到"}, re: regexp.MustCompile(`(?:我(?:现在)?住在|我(?:刚|最近)?搬到了?)` + zhPlace + `(?:住|生活|工作|了|[，。！,.!]|$)`), confidence: 0.8},
	{key: "occupation", hints: []string{"我是一"}, re: regexp.MustCompile(`我是(?:一名|一位)(\p{Han}{2,5}?)(?:[，。！,.!]|$)`), confidence: 0.8},
	{key: "diet", hints: []string{"吃素", "素食"}, re: regexp.MustCompile(`我(?:吃素|是素食(?:者|主义者))`), confidence: 0.9, value: func(string) string { return "素食" }},
	{key: "allergies", hints: []string{"过敏"}, re: regexp.MustCompile(`我对(\p{Han}{1,6}?)过敏`), confidence: 0.9},
	{key: "allergies", hints: []string{"过敏"}, re: regexp.MustCompile(`我(女儿|儿子|老婆|老公|妻子|丈夫|孩子|妈妈|爸爸|宝宝)对(\p{Han}{1,6}?)过敏`), confidence: 0.85},
	// Chinese: what the user asks of the assistant.
	{key: "reply_language", hints: []string{"用"}, re: regexp.MustCompile(`用(中文|英文|英语|汉语|日语|韩语|法语|德语)(?:来)?(?:简短|简洁|简单|详细)?地?(?:回答|回复|跟我说|和我说|交流|写)`), confidence: 0.9},
	{key: "reply_length", hints: []string{"点", "简短", "简洁"}, re: regexp.MustCompile(`(?:(?:^|请|回答|回复|说得?|写得?)[，,]?(?:尽量|尽可能)?(?:简短|简洁|短)一?点|(?:简短|简洁)地?(?:回答|回复|一些))`), confidence: 0.8, value: func(string) string { return "简短" }},
	{key: "reply_format", hints: []string{"列表", "表格", "表情"}, re: regexp.MustCompile(`(?:别|不要|不用)(?:再)?用(列表|表格|表情)`), confidence: 0.8, value: func(m string) string { return "不要用" + m }},
	{key: "assistant_name", hints: []string{"你就叫", "以后你叫", "你的名字就叫"}, re: regexp.MustCompile(`(?:你就叫|以后你叫|你的名字就叫)` + zhName + `(?:吧|好了|[，。！,.!]|$)`), confidence: 0.85},
	{key: "requests", hints: []string{"推荐", "建议", "提到"}, re: regexp.MustCompile(`((?:以后)?(?:别|不要|千万别)(?:再)?(?:推荐|建议|提到)[^，。！？,.!?\n]{1,40})`), confidence: 0.8},
}

// Extract reads the statements of one turn of the user's: each clause at
// most one value per key, in the order found.
func Extract(text string) []Statement {
	var out []Statement
	for _, clause := range clauses(text) {
		lower := strings.ToLower(clause)
		if strings.ContainsRune(lower, 'ſ') { // (?i) folds the long s to s
			lower = strings.ReplaceAll(lower, "ſ", "s")
		}
		if !slices.ContainsFunc(rules, func(r rule) bool { return r.mayMatch(lower) }) || guarded(clause) {
			continue
		}
		seen := map[string]bool{}
		for _, r := range rules {
			if seen[r.key] || !r.mayMatch(lower) {
				continue
			}
			m := r.re.FindStringSubmatch(clause)
			if m == nil {
				continue
			}
			v := value(r, m)
			if v == "" {
				continue
			}
			seen[r.key] = true
			out = append(out, Statement{Key: r.key, Value: v, Confidence: r.confidence})
		}
	}
	return out
}

// value is a match's value: the last two groups joined for a family
// member's allergy ("peanuts (daughter)"), else the first non-empty group.
func value(r rule, m []string) string {
	var groups []string
	for _, g := range m[1:] {
		if g = strings.TrimSpace(g); g != "" {
			groups = append(groups, g)
		}
	}
	if len(groups) == 0 {
		if r.value != nil {
			return r.value(m[0])
		}
		return ""
	}
	if r.key == "allergies" && len(groups) == 2 {
		if isHan(groups[1]) {
			return groups[1] + "（" + groups[0] + "）"
		}
		return strings.ToLower(groups[1]) + " (" + strings.ToLower(groups[0]) + ")"
	}
	v := strings.TrimRight(groups[0], ".")
	if r.value != nil {
		return r.value(v)
	}
	if r.key == "allergies" || r.key == "occupation" || r.key == "diet" {
		v = strings.ToLower(v)
	}
	return v
}

func isHan(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Han, r) {
			return true
		}
	}
	return false
}

// sentenceEnd reports whether the end mark at e, in the clause that
// began at start, ends it: a full stop inside a word ("Next.js", "3.5")
// or after a title's abbreviation ("Dr. Ross", "Mrs. Lee") does not.
func sentenceEnd(text string, start int, e []int) bool {
	if text[e[0]:e[1]] != "." {
		return true
	}
	if e[1] < len(text) {
		if r, _ := utf8.DecodeRuneInString(text[e[1]:]); unicode.IsLetter(r) || unicode.IsDigit(r) {
			return false
		}
	}
	w := text[start:e[0]]
	if i := strings.LastIndexFunc(w, func(r rune) bool { return !unicode.IsLetter(r) }); i >= 0 {
		w = w[i+1:]
	}
	switch strings.ToLower(w) {
	case "dr", "mr", "mrs", "ms", "prof", "st", "jr", "sr", "mt", "vs", "approx":
		return false
	}
	return true
}

// clauses splits a turn into its sentences: a statement does not run
// across one.
var clauseEnd = regexp.MustCompile(`[.!?。！？\n;；]+`)

func clauses(text string) []string {
	var out []string
	ends := clauseEnd.FindAllStringIndex(text, -1)
	start := 0
	for _, e := range ends {
		if !sentenceEnd(text, start, e) {
			continue
		}
		// A clause keeps its own end mark: a question is told by it.
		if s := strings.TrimSpace(text[start:e[1]]); s != "" {
			out = append(out, s)
		}
		start = e[1]
	}
	if s := strings.TrimSpace(text[start:]); s != "" {
		out = append(out, s)
	}
	return out
}

// The guards: a clause that asks, denies, supposes or reports is not a
// statement about the user.
var (
	question     = regexp.MustCompile(`[?？]\s*$|吗[。！]?\s*$|^(?i:(?:are|do|does|did|is|was|were|have|has|can|could|would|should|will|what|where|who|why|how|which|when)\b)`)
	negation     = regexp.MustCompile(`(?i)\bnot\b|n't\b|\bnever been\b|\bno longer\b|\bused to\b|不是|没有|并不|不再|以前|曾经`)
	hypothetical = regexp.MustCompile(`(?i)\b(?:if|suppose|imagine|pretend|as?sume|as?suming|let's say|what if|would be|were i|act as)\b|如果|假如|要是|假设`)
	reported     = regexp.MustCompile(`(?i)\b(?:said|says|told me|asked|wrote)\b|["“”「」『』]|说过|告诉我`)
)

// guarded reports whether a clause is a question, a negation, a
// hypothetical or reported speech. A request not to do something ("never
// suggest", "don't use lists", "别用列表") is no negation of a statement:
// those rules say what is to be avoided, so their words are not counted.
func guarded(clause string) bool {
	if question.MatchString(clause) || hypothetical.MatchString(clause) || reported.MatchString(clause) {
		return true
	}
	c := requestWords.ReplaceAllString(clause, "")
	c = cannotHave.ReplaceAllString(c, "")
	return negation.MatchString(c)
}

// cannotHave is what someone cannot eat or have: no negation of the
// statement, its content ("my son can't have nuts").
var cannotHave = regexp.MustCompile(`(?i)\b(?:can't|cannot|can not) (?:have|eat|touch)\b`)

var requestWords = regexp.MustCompile(`(?i)\b(?:please )?(?:never|don't ever|do not ever|don't|do not|stop)\b|别|不要|千万别|不用`)

// beforePreposition keeps an occupation's words up to a preposition: "nurse
// at the clinic" is a nurse.
func beforePreposition(v string) string {
	words := strings.Fields(strings.ToLower(v))
	for i, w := range words {
		switch w {
		case "at", "in", "for", "with", "and", "but", "so", "on", "from", "since", "now":
			return strings.Join(words[:i], " ")
		}
	}
	return strings.Join(words, " ")
}

// notAVerbsObject refuses what follows 叫 when it is not a name: 我叫了外卖
// (ordered), 叫我去 (told me to go).
func notAVerbsObject(v string) string {
	for _, lead := range []string{"了", "过", "醒", "你", "他", "她", "它", "的", "个", "车", "去", "来", "做", "帮", "起"} {
		if strings.HasPrefix(v, lead) {
			return ""
		}
	}
	return v
}
