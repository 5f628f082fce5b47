package summarize

import (
	"slices"
	"strings"
	"unicode"

	"github.com/recallhq/recall/pkg/script"
)

// voice is what a sentence's form says about what it is, whatever its
// subject: whether its speaker talks about themselves, asks for something
// or decides, or only reacts to the other (praise, well-wishing). The
// extractive summary weighs the user's sentences by it, so that what the
// user said about themselves, asked for and decided comes before the
// assistant's "Great choice! Enjoy!". The cues are the grammar of chat in
// English and Chinese (pronouns, modal and request phrases, formulaic
// praise and wishes), not any subject's words.
type voice struct {
	// self: the speaker speaks in the first person more than to the other
	// (I, me, my, we; 我, 我们), so the sentence is about the speaker.
	self bool
	// intent: a request or a decision (I'll, let's, I decided, I want,
	// please, can you; 我要, 我想, 决定, 请, 帮我).
	intent bool
	// filler: a reaction to the other rather than a statement: praise of
	// their choice, a wish, a compliment ("Great choice", "Enjoy ...!",
	// "I'm so happy for you"; 好选择, 祝你). A sentence about the speaker
	// is filler only when it opens with praise or a wish for the other:
	// "I enjoy Le Guin" is a statement. A filler sentence is neither self
	// nor intent.
	filler bool
}

// voiceOf reads a sentence's voice.
func voiceOf(s string) voice {
	words := chatWords(s)
	first, second := 0, 0
	for _, w := range words {
		switch {
		case firstPerson[w]:
			first++
		case secondPerson[w]:
			second++
		}
	}
	for _, r := range s {
		switch r {
		case '我', '咱':
			first++
		case '你', '您':
			second++
		}
	}
	opening := strings.TrimLeftFunc(s, notLetter)
	han := !script.ASCII(s) // the Chinese cues need a character outside ASCII
	// Praise of what the other did and wishes for them are reactions
	// whatever follows ("Congrats on the show, I'll be watching!"); an
	// exclamation is one unless the speaker goes on about themselves
	// ("That's great, I finally finished my thesis!").
	self := first > second
	if reactionOpenings.opens(words) || han && hasPrefixAny(opening, reactionOpeningsZh) ||
		!self && (exclamations.opens(words) || reactionPhrases.within(words) ||
			han && (hasPrefixAny(opening, exclamationsZh) || containsAnyRaw(s, reactionPhrasesZh))) {
		return voice{filler: true}
	}
	return voice{
		self:   self,
		intent: intentPhrases.within(words) || han && (containsAnyRaw(s, intentZh) || strings.HasPrefix(opening, "请")),
	}
}

// chatWords are a sentence's words in lower case, apostrophes kept inside
// a word (I'm, you'll) and the typographic one made plain.
func chatWords(s string) []string {
	if script.ASCII(s) {
		return asciiChatWords(s)
	}
	return runeChatWords(s)
}

// runeChatWords is chatWords of any text.
func runeChatWords(s string) []string {
	s = strings.ToLower(strings.ReplaceAll(s, "’", "'"))
	words := strings.FieldsFunc(s, func(r rune) bool {
		return !(unicode.IsLetter(r) && !unicode.Is(unicode.Han, r) || unicode.IsDigit(r) || r == '\'')
	})
	for i, w := range words {
		words[i] = strings.Trim(w, "'")
	}
	return words
}

// asciiChatWords is chatWords of an ASCII sentence, most of them: its runs
// of letters, digits and apostrophes, each lower-cased (a copy only when it
// holds a capital) and trimmed of apostrophes, the empty ones kept, as
// chatWords gives them.
func asciiChatWords(s string) []string {
	n := 0
	for i := 0; i < len(s); {
		for i < len(s) && !chatByte(s[i]) {
			i++
		}
		if i < len(s) {
			n++
		}
		for i < len(s) && chatByte(s[i]) {
			i++
		}
	}
	words := make([]string, 0, n)
	for i := 0; i < len(s); {
		for i < len(s) && !chatByte(s[i]) {
			i++
		}
		j := i
		for j < len(s) && chatByte(s[j]) {
			j++
		}
		if j > i {
			words = append(words, strings.ToLower(strings.Trim(s[i:j], "'")))
		}
		i = j
	}
	return words
}

// chatByte reports whether an ASCII byte belongs in a chat word.
func chatByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '\''
}

func notLetter(r rune) bool { return !unicode.IsLetter(r) }

// containsAnyRaw reports whether s holds one of the substrings (Chinese,
// which has no spaces between words).
func containsAnyRaw(s string, subs []string) bool {
	for _, p := range subs {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}

func hasPrefixAny(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// phrases are word sequences as chatWords gives them, grouped by their
// first word, so that finding one in a sentence is a map lookup per word
// rather than a substring search per phrase.
type phrases map[string][][]string

// phraseSet builds phrases from space-separated lower-case phrases.
func phraseSet(list ...string) phrases {
	p := phrases{}
	for _, ph := range list {
		ws := strings.Fields(ph)
		p[ws[0]] = append(p[ws[0]], ws[1:])
	}
	return p
}

// at reports whether one of the phrases begins at words[i].
func (p phrases) at(words []string, i int) bool {
	for _, rest := range p[words[i]] {
		if len(words)-i-1 >= len(rest) && slices.Equal(words[i+1:i+1+len(rest)], rest) {
			return true
		}
	}
	return false
}

// within reports whether the words hold one of the phrases as whole words.
func (p phrases) within(words []string) bool {
	for i := range words {
		if p.at(words, i) {
			return true
		}
	}
	return false
}

// opens reports whether the words open with one of the phrases, after an
// interjection or two ("Oh, enjoy!", "Wow, great choice").
func (p phrases) opens(words []string) bool {
	for skip := 0; skip <= 2 && skip < len(words); skip++ {
		if skip > 0 && !interjections[words[skip-1]] {
			break
		}
		if p.at(words, skip) {
			return true
		}
	}
	return false
}

func wordSet(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// The pronouns of the first and second person, as chatWords gives them.
// The plural counts only as a subject (we, we've): "us" and "our" are as
// often everyone ("moments like these make us grateful") as the speaker's
// own.
var (
	firstPerson = wordSet("i", "i'm", "i've", "i'll", "i'd", "im", "ive", "me", "my", "mine", "myself",
		"we", "we're", "we've", "we'll", "we'd")
	secondPerson  = wordSet("you", "you're", "you've", "you'll", "you'd", "your", "yours", "yourself", "yourselves", "u", "ur")
	interjections = wordSet("oh", "ooh", "wow", "aw", "aww", "ah", "yay", "hey", "so", "well", "and", "haha", "omg")
)

// intentPhrases open a request or a decision: what the user asks the
// assistant to do, or says they will do.
var intentPhrases = phraseSet(
	"i'll", "i will", "i'm going to", "i am going to", "i'm gonna", "let's", "let us",
	"i decided", "i've decided", "i have decided", "i'm decided", "i chose", "i've chosen", "i'll take", "i'll go with",
	"i want", "i'd like", "i would like", "i need", "i plan", "i'm planning", "i am planning",
	"i'm looking for", "i am looking for", "i prefer", "i'd prefer",
	"can you", "could you", "would you", "will you", "remind me", "remember that", "don't recommend", "do not recommend",
	"recommend", "suggest", "please",
)

// intentZh are the same in Chinese (and a sentence that opens with 请).
var intentZh = []string{
	"我要", "我想", "想要", "我决定", "决定了", "我打算", "打算", "我计划", "我准备", "我选", "就选",
	"请你", "请帮", "请给", "请推荐", "帮我", "麻烦你", "能不能", "能否", "推荐", "以后别", "不要再", "别再", "记住",
}

// reactionOpenings open praise of what the other did or chose, or a wish
// for them.
var reactionOpenings = phraseSet(
	"great choice", "good choice", "excellent choice", "nice choice", "great pick", "good pick", "nice pick",
	"enjoy", "have fun", "have a great", "have a good", "have a wonderful", "good luck", "best of luck",
	"happy reading", "happy listening", "happy watching", "congrats", "congratulations", "well done",
	"keep it up", "take care", "way to go", "good for you", "lucky you", "bravo",
)

// exclamations open a reaction unless the speaker goes on about
// themselves.
var exclamations = phraseSet(
	"that's great", "that's awesome", "that's amazing", "that's wonderful", "that's fantastic", "that's so",
	"sounds great", "sounds amazing", "sounds awesome", "sounds wonderful", "sounds fun", "sounds like fun",
	"what a great", "what a wonderful", "what an amazing", "how wonderful", "how exciting", "awesome", "amazing", "wonderful",
)

// reactionPhrases are reactions wherever they stand in a sentence that is
// not about its speaker.
var reactionPhrases = phraseSet(
	"great choice", "good choice", "excellent choice", "you'll love", "you will love", "you'd love", "you're going to love",
	"hope you enjoy", "hope you like", "hope you have", "enjoy it", "enjoy your",
	"proud of you", "happy for you", "glad for you", "excited for you", "stoked for you", "thrilled for you",
	"means a lot", "lucky you", "good for you",
)

// The same in Chinese.
var (
	reactionOpeningsZh = []string{"好选择", "不错的选择", "很棒的选择", "恭喜", "祝你", "祝您", "加油"}
	exclamationsZh     = []string{"太棒了", "真棒", "很棒", "哇", "好的", "希望你"}
	reactionPhrasesZh  = []string{"好选择", "不错的选择", "很棒的选择", "祝你", "祝您", "读得开心", "玩得开心", "阅读愉快", "你会喜欢", "您会喜欢", "为你高兴", "为你骄傲"}
)
