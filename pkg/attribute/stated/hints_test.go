package stated

import (
	"strings"
	"testing"
)

// FuzzHintsAreNecessary holds every rule's hints to what they promise: a
// clause its pattern matches holds one of them, so skipping the clauses
// without any changes nothing Extract reads.
func FuzzHintsAreNecessary(f *testing.F) {
	for _, s := range []string{
		"Hi, my name is Xiao Li and I moved to Berlin last month.", "I'm allergic to shellfish.",
		"Please answer in English from now on.", "KEEP IT SHORT", "Don't use bullet points.",
		"I'll call you Max", "never suggest recipes with peanuts", "我叫小李。", "我对花生过敏",
		"请用英文回答", "简短一点", "别用列表", "以后别推荐恐怖片", "我吃素", "我是一名护士。", "我住在北京。",
		"ſhort and Kelvin K", "I'm a vegan", "my son's allergic to eggs",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, clause string) {
		lower := strings.ReplaceAll(strings.ToLower(clause), "ſ", "s")
		for _, r := range rules {
			if r.re.MatchString(clause) && !r.mayMatch(lower) {
				t.Fatalf("rule %s matches %q, which holds none of its hints %q", r.key, clause, r.hints)
			}
		}
	})
}
