package textcheck

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/recallhq/recall/internal/testkit/deploycheck"
)

// perSource is how many turns Seeds takes from each data set; fuzzing (go
// test -fuzz) starts from fuzzPerSource, so that its baseline, which runs
// every seed in an instrumented binary before anything new, is over in
// seconds: the plain test run takes all of them every time.
const (
	perSource     = 120
	fuzzPerSource = 20
)

var (
	seedsOnce sync.Once
	seeds     []string
	seedsErr  error
)

// Seeds is the seed corpus of every fuzz target: turns of the real
// conversations in ../shared/data (perSource each, fuzzPerSource when
// fuzzing, from KdConv's three domains
// together, from LoCoMo and from LongMemEval's first history, spread evenly
// over them, always the same), then Nasty. It fails tb when the data is
// missing: it always sits beside the repository. Read it, never change it.
func Seeds(tb testing.TB) []string {
	tb.Helper()
	seedsOnce.Do(func() {
		var all []string
		n := perSource
		if fuzzing() {
			n = fuzzPerSource
		}
		for _, read := range []func() ([]string, error){kdconvTurns, locomoTurns, longMemEvalTurns} {
			turns, err := read()
			if err != nil {
				seedsErr = err
				return
			}
			all = append(all, spread(turns, n)...)
		}
		seeds = append(all, Nasty()...)
	})
	if seedsErr != nil {
		tb.Fatalf("textcheck: read the seed conversations (they must sit beside the repository in ../shared/data): %v", seedsErr)
	}
	return seeds
}

// spread takes n of turns evenly spaced, in order.
func spread(turns []string, n int) []string {
	if len(turns) <= n {
		return turns
	}
	out := make([]string, n)
	for i := range out {
		out[i] = turns[i*len(turns)/n]
	}
	return out
}

func dataPath(parts ...string) string {
	return filepath.Join(append([]string{deploycheck.RepoRoot(), "..", "shared", "data"}, parts...)...)
}

// kdconvTurns are the messages of KdConv's dev conversations, Chinese.
func kdconvTurns() ([]string, error) {
	var out []string
	for _, domain := range []string{"film", "music", "travel"} {
		raw, err := os.ReadFile(dataPath("kdconv", domain, "dev.json"))
		if err != nil {
			return nil, err
		}
		var convs []struct {
			Messages []struct {
				Message string `json:"message"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(raw, &convs); err != nil {
			return nil, fmt.Errorf("kdconv %s: %w", domain, err)
		}
		for _, c := range convs {
			for _, m := range c.Messages {
				out = append(out, m.Message)
			}
		}
	}
	return out, nil
}

// locomoTurns are the turns of LoCoMo's conversations, English, sessions in
// order.
func locomoTurns() ([]string, error) {
	raw, err := os.ReadFile(dataPath("locomo", "locomo_conv1-5.json"))
	if err != nil {
		return nil, err
	}
	var convs []struct {
		Conversation map[string]json.RawMessage `json:"conversation"`
	}
	if err := json.Unmarshal(raw, &convs); err != nil {
		return nil, fmt.Errorf("locomo: %w", err)
	}
	session := regexp.MustCompile(`^session_\d+$`)
	var out []string
	for _, c := range convs {
		var keys []string
		for k := range c.Conversation {
			if session.MatchString(k) {
				keys = append(keys, k)
			}
		}
		sort.Slice(keys, func(i, j int) bool {
			return len(keys[i]) < len(keys[j]) || len(keys[i]) == len(keys[j]) && keys[i] < keys[j]
		})
		for _, k := range keys {
			var turns []struct {
				Text string `json:"text"`
			}
			if err := json.Unmarshal(c.Conversation[k], &turns); err != nil {
				return nil, fmt.Errorf("locomo %s: %w", k, err)
			}
			for _, t := range turns {
				out = append(out, t.Text)
			}
		}
	}
	return out, nil
}

// longMemEvalTurns are the turns of the first history of LongMemEval_S,
// English, user and assistant (long answers, lists, code); only its first
// line is decompressed.
func longMemEvalTurns() ([]string, error) {
	file, err := os.Open(dataPath("longmemeval", "longmemeval_s_dev.jsonl.gz"))
	if err != nil {
		return nil, err
	}
	defer file.Close()
	gz, err := gzip.NewReader(file)
	if err != nil {
		return nil, fmt.Errorf("longmemeval: %w", err)
	}
	line, err := bufio.NewReaderSize(gz, 1<<20).ReadBytes('\n')
	if err != nil {
		return nil, fmt.Errorf("longmemeval: %w", err)
	}
	var inst struct {
		Sessions [][]struct {
			Content string `json:"content"`
		} `json:"haystack_sessions"`
	}
	if err := json.Unmarshal(line, &inst); err != nil {
		return nil, fmt.Errorf("longmemeval: %w", err)
	}
	var out []string
	for _, s := range inst.Sessions {
		for _, t := range s {
			out = append(out, t.Content)
		}
	}
	return out, nil
}

// Nasty are hand-written inputs that break text code written with bytes in
// mind: multi-byte apostrophes and quotes, combining marks, emoji joined by
// ZWJ, escapes of half surrogates written as text, invalid UTF-8 and NUL
// (which the targets must pass over: the API refuses them), very long words,
// CJK punctuation without content, scripts mixed in one word, and characters
// that NFKC or lower-casing make longer.
func Nasty() []string {
	r := rand.New(rand.NewPCG(26, 26))
	word := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('a' + r.IntN(26))
		}
		b[0] -= 'a' - 'A'
		return string(b)
	}
	han := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteRune(rune(0x4E00 + r.IntN(0x9FA5-0x4E00)))
		}
		return b.String()
	}
	return []string{
		"I loved Marlene’s book.",
		"Have you heard of TAYLOR SWIFT’S ALBUM Red?",
		"Tolkien’s novels, Tolkien's poems and Tolkien‘s letters.",
		"’s", "'s", "X’s", "’’’s’s", "Ö’s book", "Ǆ’S song",
		"My favourite film is “The Godfather”, and ‘Dune’ is next.",
		"„Der Prozess“ von Kafka, «Le Petit Prince» de Saint-Exupéry.",
		"Café\u0301 Society by Woody Allen\u0301\u0301\u0301",
		"Z̸̢̛a̵l̶g̷o̴ T̷e̸x̵t̶ by Ẓ̷̈a̷l̸g̶o",
		"I love 👨‍👩‍👧‍👦 and 🏳️‍🌈 books by J.K. Rowling 🇨🇳🇬🇧",
		"\U0001F9D1\u200D\U0001F91D\u200D\U0001F9D1 Harry Potter\u200D’s wand",
		`"\ud83d" and \uD800\uDC00 and \udfff are not characters`,
		"Marlene\xe2\x80", "\xff\xfe\xfd", "\xc0\x80", "\xed\xa0\x80", "a\x00b", "\x00",
		"I met " + word(3000) + " " + word(3000) + " yesterday.",
		"Have you read any books by " + word(1500) + " " + word(1500) + "?",
		word(2000) + "’s " + word(2000) + "’s novels",
		strings.Repeat("Ab ", 400) + "Cd’s novels",
		strings.Repeat(word(12)+" ", 200),
		strings.Repeat("a", 70000),
		"《" + han(30) + "》" + han(2000),
		strings.Repeat("阿·", 300) + "丽",
		strings.Repeat("尼克·卡索维茨、", 100),
		strings.Repeat("滚石", 200) + "唱片公司",
		"《》「」『』【】〈〉﹁﹂“”‘’＂＂", "《《《《《", "》》》", "……。。！！？？；；、、",
		"《三体》《》《《流浪地球》", "“”", "「」", "【最佳导演】",
		"ＡＢＣ ｄｅｆ １２３ Ｍａｒｌｅｎｅ’ｓ ｂｏｏｋ",
		"我喜欢Taylor Swift的歌，也看过《Inception》这部电影。",
		"导演是尼克·卡索维茨，主演是Ryan Gosling和瑞秋·麦克亚当斯。",
		"Привет, я читаю «Войну и мир» Толстого.",
		"أحب قراءة روايات نجيب محفوظ", "मुझे प्रेमचंद की किताबें पसंद हैं",
		"ฉันชอบอ่านหนังสือ", "\u1100\u1161\u11a8\u1100\u1161\u11a8 한국어 책",
		"\uFDFA\uFDFA\uFDFA \uFDFB", "ǅemal and ǈubljana", "İstanbul’s İzmir", "ΣΊΣΥΦΟΣ’s myth",
		"ﬁnding ﬂow by Ⅷ and Ⅻ", "㍿ ㍻ ㌀ ㋿",
		"line\u2028separator\u2029paragraph", "no\u00a0break\u202fspace", "zero\u200bwidth\ufeffBOM",
		"\u202eevil right-to-left\u202c text", "\t\r\n\v\f", "   ", "",
		"Dr. Who and Mr. Smith met U.S.A. e.g. at 3.5 p.m.", "?!?!?!", "...", "—", "\\", "'",
		"B-1234 2023-05-01 /book/823D a@b.com gpt-4o-mini",
		strings.Repeat("x-", 100) + "1",
		"\U00010000\U0010FFFD\uFFFD\uFFFE\uFFFF",
	}
}
