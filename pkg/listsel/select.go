package listsel

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Choice is the entry a user's message picks from the list just shown: N, the
// 1-based position, or Last for the last entry (N is then 0).
type Choice struct {
	N    int
	Last bool
}

// Limits on the messages Select reads. A longer message says more than which
// entry it means, and reading it as a pick would drop the rest.
const (
	// MaxSelectWords is the most words (and numbers) a message may have.
	MaxSelectWords = 8
	// MaxSelectHan is the most Chinese characters a message may have.
	MaxSelectHan = 16
	// maxSelectRunes bounds the message before it is read at all; eight
	// words and their punctuation fit well within it.
	maxSelectRunes = 160
)

// Select reports whether a user's short message picks one entry of the list
// just shown, and which one. It reads "3", "#3", "No. 3", "number three",
// "option 3", "the 3rd", "the third one", "third one please", "I'll take the
// second", "let's go with number two", "the last one", "3号", "三号",
// "第三个", "第3部", "选3", "要第二个", "就第一个吧", "最后一个".
//
// Every word of the message must be accounted for: exactly one position, and
// otherwise only words from small closed lists (politeness, "I'll go with",
// "tell me more about", "the … one", "吧", "怎么样"). Any other word makes the
// message something else, so negations ("not the third one", "不要第三个"),
// counts ("give me 3 more", "3 books please", "推荐3本", "三个"), times and
// dates ("3pm", "3月", "3点"), ranges and pairs ("the first two", "1 and 3",
// "第一个和第三个"), pages and episodes ("page 2", "第二页", "第3集") and
// positions from the end other than the last ("second to last", "倒数第二")
// all give false.
//
// How strongly a number must be marked depends on the number:
//   - "number 3", "option 3", "#3", "No. 3", "第3个", "3号" are positions
//     whatever surrounds them, so a question about the entry still picks it:
//     "what about number 3?", "第三个怎么样？". Stating the entry helps to
//     answer the question.
//   - An ordinal ("third", "3rd", "last") picks with "the" before it or "one"
//     (or a noun such as "option", "film") after it: "tell me more about the
//     third one". Standing alone it may have only politeness and "I'll go
//     with" around it ("second please"), since "first, tell me …" is an
//     adverb.
//   - A bare number ("3", "three", "三", "选3") is a count as often as a
//     position ("give me 3", "show me 3", "要3"), so it picks only with
//     politeness and "I'll go with" / "选" around it.
func Select(message string) (Choice, bool) {
	toks, ok := selectTokens(message)
	if !ok {
		return Choice{}, false
	}
	sel := -1
	for i, t := range toks {
		switch t.kind {
		case tOther:
			return Choice{}, false
		case tCard, tOrd, tStrong, tLast:
			if sel >= 0 {
				return Choice{}, false
			}
			sel = i
		}
	}
	if sel < 0 {
		return Choice{}, false
	}
	s := toks[sel]
	// The widest filler the selector allows.
	allowed := tierNoun
	switch s.kind {
	case tCard:
		allowed = tierChoose
	case tOrd, tLast:
		theBefore := sel > 0 && toks[sel-1].kind == tFill && toks[sel-1].text == "the"
		nounAfter := sel+1 < len(toks) && toks[sel+1].kind == tFill && toks[sel+1].tier == tierNoun
		if !theBefore && !nounAfter {
			allowed = tierChoose
		}
	}
	for i, t := range toks {
		if i != sel && t.tier > allowed {
			return Choice{}, false
		}
	}
	if s.kind == tLast {
		return Choice{Last: true}, true
	}
	if s.n < 1 {
		return Choice{}, false
	}
	return Choice{N: s.n}, true
}

// tokKind is what a token of a message is to Select.
type tokKind int

const (
	tFill   tokKind = iota // a word from a closed list; see tier
	tCard                  // a bare cardinal: "3", "three", "三"
	tOrd                   // an English ordinal: "third", "3rd"
	tStrong                // a number marked as a position: "#3", "number 3", "第三个", "三号"
	tLast                  // "last", "final", "最后一个"
	tOther                 // anything else; the message is not a pick
)

// tier grades filler words by how much they say. Each kind of selector allows
// fillers up to some tier (see Select).
type tier int

const (
	tierNone   tier = iota // not a filler (selectors)
	tierLight              // politeness and acknowledgement: "please", "ok", "吧"
	tierChoose             // choosing: "I'll go with", "选"
	tierBroad              // asking or wanting: "tell me more about", "the", "要", "怎么样"
	tierNoun               // what an entry is: "one", "option", "film", "电影"
)

// token is one word, number or selector of a message.
type token struct {
	kind tokKind
	tier tier
	n    int
	text string
	sep  rune // the separator before it: 0 none, ' ' space, else the punctuation
}

// enFillers are the English words a pick may contain, by tier.
var enFillers = func() map[string]tier {
	m := map[string]tier{}
	for t, words := range map[tier]string{
		tierLight: "ok okay k yes yeah yep yup sure please pls plz hmm hm um umm uh oh ah then so alright " +
			"thanks thank you great cool nice perfect",
		tierChoose: "i i'll ill i'd i'm im let's lets let us we we'll go going with choose select selecting choosing",
		tierBroad: "the that this take want wanna like would prefer pick get give show tell me more about what " +
			"what's whats how how's is it it's on for info information details detail sounds sound good " +
			"interesting try watch read see play open hear listen learn know describe explain do can could " +
			"interested in buy order look looks at to again check out need have",
		tierNoun: "one option item choice entry result link suggestion recommendation book movie film show " +
			"song track video article product place title",
	} {
		for _, w := range strings.Fields(words) {
			m[w] = t
		}
	}
	return m
}()

// zhFillers are the Chinese words a pick may contain, by tier.
var zhFillers = func() map[string]tier {
	m := map[string]tier{}
	for t, words := range map[tier]string{
		tierLight:  "吧 呢 啊 呀 哦 嗯 嗯嗯 好 好的 好吧 行 那 那就 就 就是 请 了 啦 嘛 还是 谢谢 哈 呗",
		tierChoose: "选 选择 我 就选",
		tierBroad: "要 想 想要 看 看看 看下 看一下 听 听听 读 买 介绍 介绍下 介绍一下 一下 说说 讲讲 聊聊 " +
			"说一下 讲一下 详细 详细说说 详细介绍 怎么样 如何 咋样 的 那个 信息 详情 更多 链接 打开 " +
			"播放 给我 给 来 关于 换 换成 其中 吗 是 什么 有",
		tierNoun: "电影 片子 影片 书 歌 歌曲 视频 文章 商品 产品 选项 结果 推荐 剧 节目 游戏 地方 餐厅 酒店",
	} {
		for _, w := range strings.Fields(words) {
			m[w] = t
		}
	}
	return m
}()

// zhMaxFiller is the length in runes of the longest Chinese filler.
const zhMaxFiller = 4

// zhMeasures are the measure words that may follow a Chinese position
// ("第三个", "第二本") and make a bare number a count ("三个", "3本"). Those
// that number something other than a list's entries (集 episode, 页 page, 名
// rank, 次 time, 天 day, 月 month) are left out, so "第3集" is no pick.
const zhMeasures = "个部本首家款件篇条项位只张种套台间份道支把辆则样处座所门"

// selectTokens splits a message into tokens, or reports false when it is too
// long or holds a character no pick would (symbols, "%", "/", emoji).
func selectTokens(message string) ([]token, bool) {
	if utf8.RuneCountInString(message) > maxSelectRunes {
		return nil, false
	}
	rs := []rune(message)
	for i, r := range rs {
		r = foldRune(halfWidth(r))
		switch r {
		case '’', '‘', '`':
			r = '\''
		}
		rs[i] = r
	}
	var toks []token
	var sep rune
	words, han := 0, 0
	emit := func(t token) {
		t.sep, sep = sep, 0
		toks = append(toks, t)
	}
	for i := 0; i < len(rs); {
		r := rs[i]
		switch {
		case unicode.IsSpace(r):
			if sep == 0 {
				sep = ' '
			}
			i++
		case unicode.Is(unicode.Han, r) || isDigit(r) && hanFollows(rs[i:]):
			j := i
			for j < len(rs) && (unicode.Is(unicode.Han, rs[j]) || isDigit(rs[j])) {
				if !isDigit(rs[j]) {
					han++
				}
				j++
			}
			for k, t := range zhTokens(rs[i:j]) {
				if k > 0 {
					sep = 0
				}
				emit(t)
			}
			i = j
		case isDigit(r):
			n, count, _ := leadingDigits(string(rs[i:]))
			j := i + count
			num := string(rs[i:j])
			k := j
			for k < len(rs) && rs[k] < unicode.MaxASCII && unicode.IsLetter(rs[k]) {
				k++
			}
			words++
			switch suffix := string(rs[j:k]); {
			case count > 3:
				emit(token{kind: tOther})
			case suffix == "":
				emit(token{kind: tCard, n: n, text: num})
			case suffix == "st" || suffix == "nd" || suffix == "rd" || suffix == "th":
				emit(token{kind: tOrd, n: n, text: num + suffix})
			default: // "3pm", "3d"
				emit(token{kind: tOther})
			}
			i = k
		case r == '#':
			n, count, _ := leadingDigits(string(rs[i+1:]))
			j := i + 1 + count
			if count == 0 || count > 3 || j < len(rs) && unicode.IsLetter(rs[j]) {
				return nil, false
			}
			words++
			emit(token{kind: tStrong, n: n, text: string(rs[i:j])})
			i = j
		case r < unicode.MaxASCII && unicode.IsLetter(r):
			j := i
			for j < len(rs) && (rs[j] < unicode.MaxASCII && unicode.IsLetter(rs[j]) ||
				rs[j] == '\'' && j+1 < len(rs) && rs[j+1] < unicode.MaxASCII && unicode.IsLetter(rs[j+1])) {
				j++
			}
			words++
			emit(token{kind: tFill, text: string(rs[i:j])})
			i = j
		case strings.ContainsRune(selectPunct, r):
			if sep == 0 || sep == ' ' {
				sep = r
			}
			i++
		default:
			return nil, false
		}
	}
	if words > MaxSelectWords || han > MaxSelectHan {
		return nil, false
	}
	return readEnglish(toks), true
}

// selectPunct is the punctuation a pick may contain, after full-width forms
// are made half-width. Symbols ("%", "/", "+", "&", emoji) are not in it.
const selectPunct = ",.!?;:…'\"()~-—–、。「」《》“”【】"

// hanFollows reports whether the digits at the start of rs are followed by a
// Chinese character, so that "3号" and "3月" are read as Chinese.
func hanFollows(rs []rune) bool {
	for _, r := range rs {
		if !isDigit(r) {
			return unicode.Is(unicode.Han, r)
		}
	}
	return false
}

// readEnglish gives the English words among toks their meaning: numbers and
// ordinals, "last", "number 3" and its kin as positions, "one" after an
// ordinal as a noun ("the third one"), the closed-list fillers with their
// tier, and anything else tOther.
func readEnglish(toks []token) []token {
	// Number words; "twenty one", "twenty-first".
	var out []token
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.kind != tFill || t.tier != tierNone {
			out = append(out, t)
			continue
		}
		if enTens[t.text] && i+1 < len(toks) && toks[i+1].kind == tFill && (toks[i+1].sep == ' ' || toks[i+1].sep == '-') {
			next := toks[i+1].text
			if d, ok := enCardinals[next]; ok && d < 10 {
				out = append(out, token{kind: tCard, n: enCardinals[t.text] + d, text: t.text + "-" + next, sep: t.sep})
				i++
				continue
			}
			if d, ok := enOrdinals[next]; ok && d < 10 {
				out = append(out, token{kind: tOrd, n: enCardinals[t.text] + d, text: t.text + "-" + next, sep: t.sep})
				i++
				continue
			}
		}
		if n, ok := enCardinals[t.text]; ok {
			t.kind, t.n = tCard, n
		} else if n, ok := enOrdinals[t.text]; ok {
			t.kind, t.n = tOrd, n
		} else if t.text == "last" || t.text == "final" {
			t.kind = tLast
		}
		out = append(out, t)
	}
	// Positions marked by a word ("number 3", "No. 3", "option three"), "one"
	// as a noun, and the fillers.
	toks, out = out, nil
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.kind == tFill && t.tier == tierNone && i+1 < len(toks) && toks[i+1].kind == tCard {
			sep := toks[i+1].sep
			switch t.text {
			case "no", "nr", "num", "number":
				if sep == ' ' || sep == '.' {
					out = append(out, token{kind: tStrong, n: toks[i+1].n, text: t.text + " " + toks[i+1].text, sep: t.sep})
					i++
					continue
				}
			case "option", "item", "choice", "entry", "result":
				if sep == ' ' || sep == ':' {
					out = append(out, token{kind: tStrong, n: toks[i+1].n, text: t.text + " " + toks[i+1].text, sep: t.sep})
					i++
					continue
				}
			}
		}
		if t.kind == tCard && t.text == "one" && i > 0 {
			prev := out[len(out)-1]
			if prev.kind == tOrd || prev.kind == tLast || prev.kind == tFill && (prev.text == "the" || prev.text == "that" || prev.text == "this") {
				t = token{kind: tFill, tier: tierNoun, text: "one", sep: t.sep}
			}
		}
		if t.kind == tFill && t.tier == tierNone {
			if tr, ok := enFillers[t.text]; ok {
				t.tier = tr
			} else {
				t.kind = tOther
			}
		}
		out = append(out, t)
	}
	return out
}

// zhTokens splits a run of Chinese characters and digits into tokens, taking at
// each point the longest filler or number pattern that fits (a pattern on a
// tie), so "介绍一下" is a filler and not "介绍" and the number one.
func zhTokens(rs []rune) []token {
	var out []token
	for i := 0; i < len(rs); {
		best, bestLen := token{kind: tOther}, 0
		for l := min(zhMaxFiller, len(rs)-i); l >= 1; l-- {
			if tr, ok := zhFillers[string(rs[i:i+l])]; ok {
				best, bestLen = token{kind: tFill, tier: tr, text: string(rs[i : i+l])}, l
				break
			}
		}
		if t, l := zhPattern(rs[i:]); l > 0 && l >= bestLen {
			best, bestLen = t, l
		}
		if bestLen == 0 {
			bestLen = 1
		}
		out = append(out, best)
		i += bestLen
	}
	return out
}

// zhPattern reads a number pattern at the start of rs: "最后一个" (the last),
// "第三个" / "第3部" (a position), "三号" / "3号" (a position), "三个" / "3本"
// (a count: tOther), or a bare number. It returns the token and its length in
// runes, 0 when rs starts with none.
func zhPattern(rs []rune) (token, int) {
	measure := func(i int) bool { return i < len(rs) && strings.ContainsRune(zhMeasures, rs[i]) }
	if len(rs) >= 2 && rs[0] == '最' && rs[1] == '后' {
		l := 2
		if len(rs) > 3 && (rs[2] == '一' || rs[2] == '那') && measure(3) {
			l = 4
		} else if measure(2) {
			l = 3
		}
		return token{kind: tLast, text: string(rs[:l])}, l
	}
	ordinal := len(rs) > 0 && rs[0] == '第'
	start := 0
	if ordinal {
		start = 1
	}
	n, size, notPos := number(rs[start:])
	if size == 0 {
		return token{}, 0
	}
	l := start + size
	text := string(rs[:l])
	switch {
	case notPos:
		return token{kind: tOther}, l
	case ordinal:
		if measure(l) || l < len(rs) && rs[l] == '号' {
			l++
		}
		return token{kind: tStrong, n: n, text: string(rs[:l])}, l
	case l < len(rs) && rs[l] == '号':
		return token{kind: tStrong, n: n, text: string(rs[:l+1])}, l + 1
	case measure(l):
		return token{kind: tOther}, l + 1
	}
	return token{kind: tCard, n: n, text: text}, l
}

// number reads a number at the start of rs, ASCII digits or Chinese numerals,
// and its length in runes. notPos marks a number that never names a
// position: four digits or more (a year, a price) and "两" (a count).
func number(rs []rune) (n, size int, notPos bool) {
	n, count, _ := leadingDigits(string(rs))
	switch {
	case count > 3:
		return 0, count, true
	case count > 0:
		return n, count, false
	}
	return zhNumber(rs)
}
