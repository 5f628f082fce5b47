package segment_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/go-ego/gse"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/textcheck"
	"github.com/recallhq/recall/pkg/segment"
)

// gseSegmenter is gse's own segmenter on its own dictionary, loaded as
// package segment did before it kept a compact copy: the reference every
// test here compares with.
var gseSegmenter = sync.OnceValues(func() (*gse.Segmenter, error) {
	seg := &gse.Segmenter{SkipLog: true}
	return seg, seg.LoadDictEmbed("zh")
})

// gseTokens is gse's Segment of text as Tokens reports it.
func gseTokens(tb testing.TB, text string) []segment.Token {
	tb.Helper()
	seg, err := gseSegmenter()
	require.NoError(tb, err)
	var out []segment.Token
	for _, w := range seg.Segment([]byte(text)) {
		out = append(out, segment.Token{Start: w.Start(), End: w.End(), Pos: w.Token().Pos()})
	}
	return out
}

// requireAsGse fails tb unless Tokens gives what gse's Segment gives for
// every text, both into an empty slice and after a token dst already holds.
func requireAsGse(tb testing.TB, texts []string) {
	tb.Helper()
	seg, err := segment.Shared()
	require.NoError(tb, err)
	kept := segment.Token{Start: -1, End: -1, Pos: "kept"}
	for _, text := range texts {
		want := gseTokens(tb, text)
		requireSameTokens(tb, text, want, seg.Tokens(text, nil))
		got := seg.Tokens(text, []segment.Token{kept})
		require.Equal(tb, kept, got[0], "what dst held stays")
		requireSameTokens(tb, text, want, got[1:])
	}
}

// requireSameTokens fails tb at the first token of text that differs.
func requireSameTokens(tb testing.TB, text string, want, got []segment.Token) {
	tb.Helper()
	for i := range max(len(want), len(got)) {
		if i >= len(want) || i >= len(got) || want[i] != got[i] {
			tb.Fatalf("tokens of %s: gse gives %d, Tokens %d; the first that differs, #%d: gse %s, Tokens %s",
				textcheck.Quote(text), len(want), len(got), i, describe(text, want, i), describe(text, got, i))
		}
	}
}

// describe is token i of text, or that there is none.
func describe(text string, toks []segment.Token, i int) string {
	if i >= len(toks) {
		return "none"
	}
	t := toks[i]
	return fmt.Sprintf("%q [%d, %d) %q", text[t.Start:t.End], t.Start, t.End, t.Pos)
}

// hardCases are texts whose segmentation depends on gse's details: Latin
// and digit runs (one unit each, lower-cased to match words such as 4S店),
// two-byte letters of other scripts (units too) against three-byte ones
// (full-width, not), words written in both dictionary files with different
// frequencies or tags (the first line wins), traditional characters,
// punctuation, emoji, invalid UTF-8, NUL, and long repetitions.
var hardCases = []string{
	"", " ", "a", "A", "1", "中", "的", "梁", "巨", "回", "秋", "曲", "私", "泛", "困",
	"4S店", "4s店", "去4S店修车", "1号店", "1號店", "A輪融資", "BB機", "CALL機和BP機", "RSS訂閱", "T型臺走秀",
	"江南Style", "江南STYLE很火", "江南style", "卡拉OK", "T恤", "AA制", "三K党", "Q版", "IP電話", "C語言", "x光线", "X射線",
	"一乾二淨", "偷樑換柱", "噤口捲舌", "循名覈實", "指皁爲白", "不修邊幅", "煙蓑雨笠", "乳臭未乾",
	"我喜欢科幻小说", "我喜欢Taylor Swift的歌，也看过《Inception》这部电影。",
	"2004年06月25日在美国上映", "才2900万美元的小成本制作", "3.14159", "３.１４", "ＡＢＣ ｄｅｆ １２３",
	"iPhone15和iPad", "GPT-4o-mini", "e-mail地址a@b.com", "C++和C#", "U.S.A.", "Dr. Who",
	"Ωμέγα中文", "Привет мир中国", "ÄÖÜäöüß的", "İstanbul", "ǅemal", "ﬁnding", "Ⅷ和Ⅻ", "①②③", "½",
	"😀中文😀", "👨‍👩‍👧‍👦家庭", "🇨🇳中国", "中\u200b文", "中\u00a0文", "\ufeff中文", "\t\r\n\v\f",
	"\xff", "\xff\xfe\xfd", "\xe4\xb8", "\xe4\xb8中", "中\xe4\xb8", "\xe4\xb8\xe4\xb8\xad", "\xc0\x80", "\xed\xa0\x80",
	"\x00", "a\x00b", "中国\x00人", "中华\x00人民", "\x00中国", "中国人民\x00",
	"\uFFFD", "\U0010FFFF", "\U00010000中",
	"《三体》《》《《流浪地球》", "……。。！！？？；；、、", "「」『』【】",
	strings.Repeat("哈", 300), strings.Repeat("滚石", 200) + "唱片公司", strings.Repeat("阿·", 50) + "丽",
	strings.Repeat("a", 5000), strings.Repeat("Ab1", 100) + "中", strings.Repeat("中华人民共和国", 30),
	"南京市长江大桥", "结婚的和尚未结婚的", "研究生命起源", "乒乓球拍卖完了", "他说的确实在理",
}

// TestTokensAsGse: for every text of KdConv (messages, entity names,
// attribute names and values) and every hard case, Tokens gives what gse's
// Segment gives.
func TestTokensAsGse(t *testing.T) {
	var texts []string
	for _, domain := range kdconvDomains {
		var v any
		require.NoError(t, json.Unmarshal(kdconvFile(t, domain), &v))
		texts = appendStrings(texts, v)
	}
	require.Greater(t, len(texts), 20000, "every string of KdConv")
	requireAsGse(t, texts)
	requireAsGse(t, hardCases)
}

// appendStrings appends every string in a decoded JSON value.
func appendStrings(dst []string, v any) []string {
	switch v := v.(type) {
	case string:
		return append(dst, v)
	case []any:
		for _, e := range v {
			dst = appendStrings(dst, e)
		}
	case map[string]any:
		for k, e := range v {
			dst = appendStrings(append(dst, k), e)
		}
	}
	return dst
}

// TestDictionaryWordsAsGse: every word of the dictionary files, alone,
// joined to the next line's word, and in upper case, segments as in gse:
// each word's frequency, tag, and which of two lines of one word wins,
// show in the result.
func TestDictionaryWordsAsGse(t *testing.T) {
	var words []string
	for _, src := range segment.Sources() {
		for line := range strings.Lines(src) {
			if w, _, ok := strings.Cut(line, " "); ok {
				words = append(words, w)
			}
		}
	}
	require.Greater(t, len(words), 580000)
	texts := make([]string, 0, 3*len(words))
	for i, w := range words {
		texts = append(texts, w, w+words[(i+1)%len(words)], strings.ToUpper(w))
	}
	requireAsGse(t, texts)
}
