package search

import (
	"regexp"
	"strings"
)

// assistantWords are the ways a message points back at what the assistant
// said earlier ("you mentioned", "remind me what you recommended", "你之前推荐的"),
// in English and Chinese. A message that does is about the assistant's own
// turns, and the user's turns get no lift over them (Params.UserWeight).
var assistantWords = regexp.MustCompile(`(?i)\byou(?:'d| had| have|'ve)? (?:\w+ )?(?:said|mentioned|told|recommended|suggested|provided|gave|wrote|created|listed|shared|explained|described|proposed|came up with|answered)\b|\bdid you (?:say|mention|recommend|suggest)\b` +
	`|\bremind me\b|\byour (?:previous |earlier |last )?(?:answers?|repl(?:y|ies)|responses?|lists?|suggestions?|recommendations?|advice|explanation|script|story|poem|code)\b` +
	`|你(?:之前|上次|刚才|以前)(?:说|提到|推荐|建议|告诉|写|列|给|讲)|你(?:说|提到|推荐|建议|告诉|写|列|给|讲)(?:过|的)|提醒我`)

// RefersToAssistant reports whether a message points back at what the
// assistant said, rather than at what the user said or did. Every way
// assistantWords knows holds "you", "remind", 你 or 提醒我; a message without
// any of them, as most are, is not run through the expression.
func RefersToAssistant(message string) bool {
	if !containsFold(message, "you") && !containsFold(message, "remind") &&
		!strings.Contains(message, "你") && !strings.Contains(message, "提醒我") {
		return false
	}
	return assistantWords.MatchString(message)
}

// containsFold reports whether s holds word, an ASCII lower-case word, in
// any case of its letters.
func containsFold(s, word string) bool {
	for i := 0; i+len(word) <= len(s); i++ {
		if s[i]|0x20 == word[0] && strings.EqualFold(s[i:i+len(word)], word) {
			return true
		}
	}
	return false
}

// AboutUser reports whether the user speaks of themselves in a message:
// what they did, have, said or are ("how many books have I read?", "what
// was my score?", 我上个月买了什么): a word of the first person singular, in
// English (I, me, my, mine, myself, in any case) or Chinese (我, not 我们:
// "we" is the user and others). Read by hand: it runs on every context
// with a query, where a regular expression cost a percent of the API.
func AboutUser(message string) bool {
	for i := 0; i < len(message); {
		c := message[i]
		if isASCIILetter(c) {
			j := i
			for j < len(message) && isASCIILetter(message[j]) {
				j++
			}
			switch w := message[i:j]; len(w) {
			case 1, 2, 4, 6:
				if strings.EqualFold(w, "i") || strings.EqualFold(w, "me") || strings.EqualFold(w, "my") ||
					strings.EqualFold(w, "mine") || strings.EqualFold(w, "myself") {
					return true
				}
			}
			i = j
			continue
		}
		if strings.HasPrefix(message[i:], "我") && !strings.HasPrefix(message[i+len("我"):], "们") {
			return true
		}
		i++
	}
	return false
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// AsksCount reports whether a message asks for a count or a total ("how
// many books have I read?", "how much did I spend in total?", 我一共买了几本书):
// its answer is gathered from many turns, often of as many conversations.
// The time between two moments is not a count (asksElapsed).
func AsksCount(message string) bool {
	// Every English way countWords knows holds one of these words: a
	// message without any, as most are, is not run through the expression
	// (it runs on every context with a query).
	if (containsFold(message, "how") || containsFold(message, "total") || containsFold(message, "all") ||
		containsFold(message, "number") || containsFold(message, "sum") || containsFold(message, "combined")) &&
		countWords.MatchString(message) {
		return !asksElapsed(message)
	}
	for _, w := range [...]string{"多少", "总共", "一共", "总计", "合计", "加起来"} {
		if strings.Contains(message, w) {
			return true
		}
	}
	for i := 0; ; {
		j := strings.Index(message[i:], "几")
		if j < 0 {
			return false
		}
		i += j + len("几")
		if !strings.HasPrefix(message[i:], "乎") {
			return true
		}
	}
}

// asksElapsed reports whether an English message that asks "how many" or
// "how much" asks for the time between two moments, not for a tally: "how
// many days ago did I…", "how many weeks had passed since…", "how many
// months before my anniversary…". It is read off the dates of one or two
// turns, which the message's own words find; the terms of the turns found
// first would lead the search away from them. A total of times spent ("how
// many days did I spend camping in total?") is a tally.
func asksElapsed(message string) bool {
	return elapsedWords.MatchString(message) && !tallyWords.MatchString(message)
}

var (
	elapsedWords = regexp.MustCompile(`(?i)\bhow (?:many|much) (?:more |fewer |less )?(?:seconds?|minutes?|hours?|days?|weeks?|months?|years?|time)\b (?:(?:had|have|has) )?(?:ago|passed|elapsed|gone by|before|after|since|between|earlier|later)\b`)
	tallyWords   = regexp.MustCompile(`(?i)\b(?:in total|in all|altogether|combined|sum of|total|spen[dt]|spending)\b`)
)

// countOperators are the words of a count or a total that name the
// operation, not what is counted ("how many hours have I spent playing
// games in total?"): the turns to gather tell of one game each and seldom
// say "total", while a turn that does ("the total time spent on the
// quilt") is about something else as often as not. "How many" and "how
// much" stay: left out as well, they cost LongMemEval's multi-session
// questions evidence (docs/benchmarks.md, History).
var countOperators = regexp.MustCompile(`(?i)\b(?:in total|in all|altogether|combined|(?:the )?sum of|(?:the )?number of|total)\b`)

// WithoutCountOperators returns a count or a total's message without the
// words that name the operation (countOperators), for its terms; any
// other message as it is.
func WithoutCountOperators(message string) string {
	if !AsksCount(message) {
		return message
	}
	return countOperators.ReplaceAllString(message, " ")
}

var countWords = regexp.MustCompile(`(?i)\bhow (?:many|much)\b|\b(?:in total|in all|altogether|number of|sum of|combined)\b|\btotal\b`)
