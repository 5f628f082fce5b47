package listsel_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/listsel"
)

// entries builds the expected list from texts numbered 1, 2, ….
func entries(texts ...string) []listsel.Entry {
	out := make([]listsel.Entry, len(texts))
	for i, t := range texts {
		out[i] = listsel.Entry{N: i + 1, Text: t}
	}
	return out
}

// The numbered list a reply presents is read from every common way of writing
// one, without its numbers and Markdown.
func TestEntriesReadsLists(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, reply string
		want        []listsel.Entry
	}{
		{"dot", "Here you go:\n1. Dune\n2. Arrival\n3. Heat\nEnjoy!", entries("Dune", "Arrival", "Heat")},
		{"paren", "1) Dune\n2) Arrival", entries("Dune", "Arrival")},
		{"ideographic comma", "1、沙丘\n2、三体", entries("沙丘", "三体")},
		{"full-width dot", "１．沙丘\n２．三体", entries("沙丘", "三体")},
		{"full-width paren", "1）沙丘\n2）三体", entries("沙丘", "三体")},
		{"parenthesized", "(1) Dune\n(2) Arrival", entries("Dune", "Arrival")},
		{"full-width parenthesized", "（1）沙丘\n（2）三体", entries("沙丘", "三体")},
		{"bold number", "**1.** Dune\n**2.** Arrival", entries("Dune", "Arrival")},
		{"bold whole", "**1. Dune** — epic\n**2. Arrival** — quiet", entries("Dune — epic", "Arrival — quiet")},
		{"bold title", "1. **Dune** — a desert epic\n2. **Arrival** — first contact",
			entries("Dune — a desert epic", "Arrival — first contact")},
		{"bullet", "- 1. Dune\n- 2. Arrival", entries("Dune", "Arrival")},
		{"heading", "### 1. Dune\nA desert epic.\n### 2. Arrival\nFirst contact.", entries("Dune", "Arrival")},
		{"blank lines and blurbs", "1. Dune\n\n   A desert epic.\n\n2. Arrival\n   Linguists.\n", entries("Dune", "Arrival")},
		{"nested list", "1. Dune\n   1. Part One\n   2. Part Two\n2. Arrival", entries("Dune", "Arrival")},
		{"link", "1. [Dune](https://example.com/mv/1) — epic\n2. [Arrival](https://example.com/mv/2)",
			entries("Dune (https://example.com/mv/1) — epic", "Arrival (https://example.com/mv/2)")},
		{"italic", "1. *Dune* (2021)\n2. _Arrival_", entries("Dune (2021)", "_Arrival_")},
		{"star inside a word", "1. M*A*S*H\n2. Heat", entries("M*A*S*H", "Heat")},
		{"CJK right after the dot", "1.《三体》\n2.《沙丘》", entries("《三体》", "《沙丘》")},
		{"single entry", "1. Dune", entries("Dune")},
		{"zh ordinal comma", "第一，《三体》\n第二，《沙丘》", entries("《三体》", "《沙丘》")},
		{"zh numeral", "一、三体\n二、沙丘\n三、基地", entries("三体", "沙丘", "基地")},
		{"zh parenthesized numeral", "（一）三体\n（二）沙丘", entries("三体", "沙丘")},
		{"zh to eleven", "一、a\n二、b\n三、c\n四、d\n五、e\n六、f\n七、g\n八、h\n九、i\n十、j\n十一、k",
			entries("a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k")},
		{"last list wins", "Steps:\n1. Search\n2. Filter\n\nResults:\n1. Dune\n2. Arrival\n3. Heat", entries("Dune", "Arrival", "Heat")},
		{"code fence passed over", "1. Dune\n```\n1. not this\n```\n2. Arrival", entries("Dune", "Arrival")},
		{"inline paren", "Try these: 1) Dune; 2) Arrival; 3) Heat.", entries("Dune", "Arrival", "Heat")},
		{"inline dot", "1. Dune 2. Arrival 3. Heat", entries("Dune", "Arrival", "Heat")},
		{"inline and", "1) Dune, 2) Arrival and 3) Heat", entries("Dune", "Arrival", "Heat")},
		{"inline zh", "推荐：1、沙丘；2、三体；3、基地。", entries("沙丘", "三体", "基地")},
		{"inline year inside", "1) Dune (2021) 2) Arrival (2016)", entries("Dune (2021)", "Arrival (2016)")},
		{"inline decimals inside", "1. Dune, rated 8.1. 2. Heat, rated 8.3.", entries("Dune, rated 8.1", "Heat, rated 8.3")},
		{"inline then lines", "1. Dune 2. Arrival\n3. Heat", entries("Dune", "Arrival", "Heat")},
		{"tab indented", "\t1. Dune\n\t2. Arrival", entries("Dune", "Arrival")},
		{"block quote", "> 1. Dune\n> 2. Arrival", entries("Dune", "Arrival")},
		{"inline with another delimiter is one entry", "1) Dune 2. Arrival", entries("Dune 2. Arrival")},
		{"lone first list, then the list", "Step:\n1. Search\n\nFound:\n1. Dune\n2. Arrival", entries("Dune", "Arrival")},
		{"three digits", "1. a\n2. b\n3. c\n4. d\n5. e\n6. f\n7. g\n8. h\n9. i\n10. j\n11. k",
			entries("a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k")},
	} {
		require.Equal(t, c.want, listsel.Entries(c.reply), c.name)
	}
}

// Text that only looks numbered is no list, and a list whose numbering goes
// wrong is not presented at all.
func TestEntriesRefusesNonLists(t *testing.T) {
	t.Parallel()
	for name, reply := range map[string]string{
		"empty":               "",
		"prose":               "Dune is great. Arrival too.",
		"decimal":             "1.5 hours long\n2.5 hours long",
		"pi":                  "3.14 is pi",
		"year sentence":       "2021. What a year.",
		"years":               "In 2021. Then in 2022. Then 2023.",
		"top ten":             "Here are the top 10 films of 2021 you should see.",
		"starts at two":       "2. Dune\n3. Arrival",
		"gap":                 "1. Dune\n2. Arrival\n4. Heat",
		"repeat":              "1. Dune\n2. Arrival\n2. Heat",
		"last list broken":    "1. Dune\n2. Arrival\n\n1. Heat\n3. Up",
		"marker only":         "1.\n2.",
		"no space":            "1.Dune\n2.Arrival",
		"inline out of order": "Pick 1) Dune 3) Heat",
		"inline single":       "Option 1) Dune only",
		"time":                "Meet at 3. Or 4.",
		"version":             "v1. stable v2. beta",
		"zh digit after":      "1、2、3",
		"zh two":              "两、三体",
		"only code":           "```\n1. Dune\n2. Arrival\n```",
		"decimal list":        "1.0 release\n2.0 release",
		"ordinal in prose":    "第一次去北京",
		"all ones":            "1. Dune\n1. Arrival\n1. Heat",
		"two ones":            "1. Dune\n\n1. Arrival",
	} {
		require.Nil(t, listsel.Entries(reply), name)
	}
}
