package extract

import (
	"strings"
	"unicode/utf8"
)

// organisations finds company, label and band names from their suffix:
// 滚石唱片(公司), 皮克斯动画工作室, 好妹妹乐队. Bands are reported as people
// because they are artists; companies, labels and schools as topics.
func (st *state) organisations() {
	for i := range st.toks {
		e := st.toks[i].end
		if s, ok := st.orgBefore(e, st.zh.bandSuffixes); ok {
			st.rule = "band"
			st.add(s, e, st.personKind(s, e), scoreAnchor)
			continue
		}
		if s, ok := st.orgBefore(e, st.zh.orgSuffixes); ok {
			// 滚石唱片公司 is the label 滚石唱片: a generic 公司 after an
			// industry word is dropped, as "Inc." would be.
			end := e
			for _, ind := range st.zh.orgIndustries {
				if strings.HasSuffix(st.text[s:e], ind+"公司") {
					end = e - len("公司")
					break
				}
			}
			st.rule = "org"
			st.add(s, end, KindTopic, scoreAnchor)
		}
	}
}

// orgBefore checks whether text ending at e ends with one of suffixes on a
// word boundary, preceded by a plausible name, and returns where the name
// starts.
func (st *state) orgBefore(e int, suffixes []string) (int, bool) {
	for _, suf := range suffixes {
		if !strings.HasSuffix(st.text[:e], suf) || !st.bound[e-len(suf)] {
			continue
		}
		b := e - len(suf)
		s := st.orgNameStart(b)
		return s, s >= 0 && st.orgNameOK(s, b)
	}
	return 0, false
}

// orgNameOK rejects organisation names that are awards or genres
// (金曲奖最佳组合, 朋克乐队, 重金属摇滚乐队).
func (st *state) orgNameOK(s, e int) bool {
	name := st.text[s:e]
	for _, w := range st.zh.awardWords {
		if strings.Contains(name, w) {
			return false
		}
	}
	// A name made only of genres (朋克, 重金属摇滚) describes the band.
	folded := foldASCII(name)
	covered := 0
	for _, m := range leftmostLongest(st.r.lex.matcher.findAll(folded, nil), nil) {
		if m.start != covered {
			break
		}
		covered = m.end
	}
	return covered != len(name)
}

// orgNameStart walks back from b over the words that can name an
// organisation and returns where the name starts, or -1 when there is no
// name. Generic words may sit inside a name (皮克斯|动画|工作室) but not
// begin one (这家|唱片公司, 经纪|公司).
func (st *state) orgNameStart(b int) int {
	tj := st.tokenEnding(b)
	s, runes := -1, 0
	for i := tj; i >= 0 && tj-i < 6 && st.orgWord(i); i-- {
		if runes += runeCount(st.word(i)); runes > 10 {
			break
		}
		s = st.toks[i].start
	}
	// Drop generic words from the front.
	for s >= 0 && s < b {
		ti := st.tokenStarting(s)
		if ti < 0 || !st.zh.orgNameBlack[st.word(ti)] {
			break
		}
		s = st.toks[ti].end
	}
	if s < 0 || s >= b || runeCount(st.text[s:b]) < 2 {
		return -1
	}
	if first, _ := utf8.DecodeRuneInString(st.text[s:]); st.zh.functionRunes[first] {
		return -1
	}
	return s
}

// orgWord reports whether token i can be part of an organisation's name:
// not punctuation, grammar or a verb.
func (st *state) orgWord(i int) bool {
	if st.latinToken(i) {
		return true
	}
	w, t := st.word(i), st.toks[i]
	if isBreak(st.text, t.start) {
		return false
	}
	if r, size := utf8.DecodeRuneInString(w); size == len(w) {
		return !st.zh.functionRunes[r]
	}
	switch t.pos {
	case "v", "vn", "vd", "d", "p", "c", "r", "y", "m", "q", "mq", "f", "u", "uj", "ul", "ad", "l", "i":
		return false
	}
	return true
}
