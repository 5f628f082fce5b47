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

// asksAgeHint is what every form of asksAge holds, in lower case: the
// check on every context with a query is a few substring searches, and
// the expression runs only on a message that passes it.
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
	lower := strings.ToLower(message)
	for _, h := range asksAgeHint {
		if strings.Contains(lower, h) {
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
		return saysAge.MatchString(text)
	}
	return false
}

// holds reports whether a row is a user's turn that holds an answer of the
// kind asked (Says).
func (a Asked) holds(row *store.SearchRow) bool {
	return a != AskedNothing && row.Kind == store.SearchMessage && row.Role == events.RoleUser && a.Says(row.Text)
}
