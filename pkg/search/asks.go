package search

import (
	"regexp"
	"strings"

	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/store"
)

// Asked is a kind of answer a message asks for that a turn can be told to
// hold by its form rather than its words: "how many years will I be when
// my friend gets married?" is answered by "I'm 32, so I'm in my 30s",
// which shares no word with it. A search for such a message lists the
// user's turns that hold an answer of that kind as one more list of the
// fusion (Params.Asked).
type Asked uint8

const (
	// AskedNothing: the message asks for nothing a form tells.
	AskedNothing Asked = iota
	// AskedAge: the message asks for the user's age ("how old am I?", "how
	// old will I be in May?", "what's my age?", 我今年多大?); a user's turn
	// holds it when it says it ("I'm 32", "I just turned 40", "I'm a
	// 28-year-old nurse", "my 30th birthday", "I'm in my thirties",
	// 我今年32岁).
	AskedAge
)

// String is the kind's name, for logs and tests.
func (a Asked) String() string {
	switch a {
	case AskedAge:
		return "age"
	}
	return "nothing"
}

// The forms of a message that asks for the user's age. "How many years
// will I be" asks for an age only when nothing follows "be" or a time does
// ("when", "in", "by"…): "how many years will I be paying this loan?" asks
// for a duration.
var asksAge = regexp.MustCompile(`(?i)\bhow old (?:am|was|will|would|were|is|do|did|should)\s+i\b` +
	`|\bhow old i (?:am|was|will be|would be|turn)\b` +
	`|\bhow many years (?:old )?(?:am|was|will|would)\s+i(?:\s+be)?\s*(?:[?.!,]|$|when\b|in\b|by\b|at\b|on\b|after\b|once\b|if\b|next\b|this\b)` +
	`|\bhow many years old\b` +
	`|\bwhat age (?:am|was|will|would|did|do|should)\s+i\b` +
	`|\bmy (?:current |exact |real |actual )?age\b` +
	`|我(?:今年|现在|目前)?(?:多大|几岁|多少岁)|我的年龄`)

// asksAgeHint is what every form of asksAge holds, in any case: the check
// on every context with a query is a few substring searches, and the
// expression runs only on a message that passes it.
var asksAgeHint = []string{"old", "age", "years", "多大", "几岁", "多少岁", "年龄"}

// The forms of a turn that says the user's age. A number said after "I'm"
// is an age only when the sentence goes on as an age's does (a comma, an
// end, "years old", "and"…): "I'm 5 minutes away", "I'm 100 percent sure"
// are not.
var saysAge = regexp.MustCompile(`(?i)\bi(?:'m|’m| am)(?: now| just| currently| actually| already| nearly| almost| about)? ([1-9]\d{1,2})` +
	`(?:\s*(?:years?|yrs?)[ -]old\b|\s*y/?o\b)?(?:\s*[,.;!?)]|\s*$|\s+(?:and|so|but|now|this|myself|too|as|which|with|when|if|because|years?|yrs?|soon|next|in)\b)` +
	`|\bi(?: just| recently)? turned ([1-9]\d{1,2})\b` +
	`|\bi(?:'m|’m| am) turning ([1-9]\d{1,2})\b` +
	`|\bi(?:'ll|’ll| will) (?:turn|be) ([1-9]\d{1,2})(?:\s*[,.;!?)]|\s*$|\s+(?:years?|next|this|in|on|soon|and)\b)` +
	`|\bi(?:'m|’m| am) an? ([1-9]\d{1,2})[- ]years?[- ]old\b` +
	`|\bmy ([1-9]\d{1,2})(?:st|nd|rd|th) birthday\b` +
	`|\bmy age is ([1-9]\d{1,2})\b` +
	`|\bi(?:'m|’m| am) in my (?:early |mid |mid-|late )?(?:[1-9]0s|twenties|thirties|forties|fifties|sixties|seventies|eighties|nineties)\b` +
	`|我(?:今年|现在|已经|快)?(?:[1-9]\d{0,2}|[一二三四五六七八九十]{1,3})岁`)

// MessageAsks is the kind of answer a message asks for that a turn's form
// tells (AskedNothing for most).
func MessageAsks(message string) Asked {
	for _, h := range asksAgeHint {
		if containsFold(message, h) {
			if asksAge.MatchString(message) {
				return AskedAge
			}
			break
		}
	}
	return AskedNothing
}

// Says reports whether a text by the user holds an answer of the kind
// asked: for AskedAge, whether it says the user's age.
func (a Asked) Says(text string) bool {
	switch a {
	case AskedAge:
		return saysAgeIn(text)
	}
	return false
}

// saysAgeIn is saysAge.MatchString(text), made cheap for the indexer, which
// asks it of every user's turn (the expression over a whole turn cost 14 µs,
// a tenth of indexing one): every form holds a number of two or three
// digits, "in my" ("in my thirties") or 岁, so the expression reads only the
// text around each of those.
func saysAgeIn(text string) bool {
	window := func(from, to int) bool {
		w := text[max(0, from-ageBefore):min(len(text), to+ageAfter)]
		return ageWords(w) && saysAge.MatchString(w)
	}
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case isDigit(c) && (i == 0 || !isDigit(text[i-1])):
			j := i + 1
			for j < len(text) && isDigit(text[j]) {
				j++
			}
			if n := j - i; n >= 2 && n <= 3 && c != '0' && window(i, j) {
				return true
			}
			i = j - 1
		case (c == 'i' || c == 'I') && strings.HasPrefix(text[i+1:], "n my ") && window(i, i+len("in my ")):
			return true
		case c == 0xe5 && strings.HasPrefix(text[i:], "岁") && window(i, i+len("岁")):
			return true
		}
	}
	return false
}

// ageBefore and ageAfter are how much of a text around a number, "in my"
// or 岁 saysAgeIn reads: the longest form's words before the number ("I'm
// almost ", "I'm a ", 我今年三十), and after it ("-year-old ", " years old
// and", "early twenties").
const (
	ageBefore = 24
	ageAfter  = 24
)

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// ageWords reports whether a window of text holds a word every form of
// saysAge around its number holds (in either case): a quick no for the
// windows of prices, counts and times.
func ageWords(w string) bool {
	for _, k := range ageWordList {
		if containsFold(w, k) {
			return true
		}
	}
	return false
}

// ageWordList are the words of ageWords, one of which each form of saysAge
// holds: I'm, I am, turned, I'll, I will, year(s) old, birthday, my age,
// in my, 岁.
var ageWordList = []string{"'m", "’m", " am ", "turn", "'ll", "’ll", " will ", "year", "birthday", "age", "in my", "岁"}

// The marks a turn's entry is indexed with (store.SearchEntry.Marks), one
// for each kind of answer it holds: lexemes the analyzer never makes (it
// drops the sign they begin with), so that no word of a message matches
// one, and a large user's search finds the entries that hold what a
// message asks for through the terms' index (store.SearchScan.Marked),
// whatever their words and however old.
const markAge = "§age"

// mark is the kind's mark ("" for AskedNothing).
func (a Asked) mark() string {
	if a == AskedAge {
		return markAge
	}
	return ""
}

// EntryMarks returns the marks of a search entry: for a user's turn, one
// for each kind of answer it holds (Asked.Says); nil for anything else.
func EntryMarks(e *store.SearchEntry) []string {
	if !AskedAge.saidBy(e.Kind, e.Role, e.Text) {
		return nil
	}
	return []string{AskedAge.mark()}
}

// holds reports whether a row is a user's turn that holds an answer of the
// kind asked (saidBy): what EntryMarks marks.
func (a Asked) holds(row *store.SearchRow) bool { return a.saidBy(row.Kind, row.Role, row.Text) }

// saidBy reports whether an entry of this kind, role and text is a user's
// turn that holds an answer of the kind asked (Says).
func (a Asked) saidBy(kind, role, text string) bool {
	return a != AskedNothing && kind == store.SearchMessage && role == events.RoleUser && a.Says(text)
}
