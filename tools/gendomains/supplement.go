package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/recallhq/recall/pkg/domain"
)

// supplementEN are everyday English words and phrases that WordNet 3.0
// (2006) lacks, or whose everyday sense its tag counts (from texts of the
// 1960s) rank below older ones, with their weights; each raises the
// generated weights, never lowers them.
var supplementEN = map[string]string{
	"flight":         "travel:0.8",
	"jazz":           "music:0.8",
	"rap":            "music:0.6",
	"running":        "sports:0.6",
	"password":       "tech:0.6",
	"anime":          "entertainment:1",
	"marathon":       "sports:0.8",
	"nut":            "food:0.7",
	"nuts":           "food:0.7",
	"hiking":         "nature:0.8 sports:0.6",
	"cardio":         "sports:1",
	"pilates":        "sports:1",
	"keto":           "food:0.8",
	"carbs":          "food:0.8",
	"ramen":          "food:1",
	"moisturizer":    "shopping:0.8",
	"moisturiser":    "shopping:0.8",
	"texting":        "tech:0.6",
	"emoji":          "tech:0.5",
	"chatbot":        "tech:1",
	"tablet":         "tech:0.5",
	"earbuds":        "music:0.6 tech:0.6",
	"paycheck":       "work:0.8 money:0.8",
	"crypto":         "money:1 tech:0.3",
	"cryptocurrency": "money:1 tech:0.3",
	"bitcoin":        "money:1 tech:0.3",
	"startup":        "work:0.8",
	"coworking":      "work:0.8",
	"jetlag":         "travel:0.8 health:0.4",
	"layover":        "travel:1",
	"souvenir":       "travel:0.6 shopping:0.4",
	"app":            "tech:0.8",
	"apps":           "tech:0.8",
	"smartphone":     "tech:1",
	"wifi":           "tech:1",
	"wi-fi":          "tech:1",
	"online":         "tech:0.5",
	"website":        "tech:1",
	"social media":   "tech:0.8",
	"streaming":      "entertainment:0.5 tech:0.5",
	"podcast":        "entertainment:0.8",
	"podcasts":       "entertainment:0.8",
	"ebook":          "reading:1",
	"e-book":         "reading:1",
	"blog":           "tech:0.6 reading:0.3",
	"selfie":         "arts:0.4 tech:0.4",
	"skincare":       "shopping:1 health:0.3",
	"get around":     "travel:0.8",
	"getting around": "travel:0.8",
	"eat out":        "food:1",
	"eating out":     "food:1",
	"takeout":        "food:1",
	"take-out":       "food:1",
	"hang out":       "entertainment:0.6",
	"night out":      "entertainment:0.8",
	"day trip":       "travel:1",
	"road trip":      "travel:1",
	"carsick":        "travel:0.6 health:0.6",
	"airsick":        "travel:0.6 health:0.6",
	"gluten-free":    "food:1",
	"vegan":          "food:1",
	"workout":        "sports:1",
	"coworker":       "work:1",
	"coworkers":      "work:1",
}

// supplementZH are everyday Chinese words whose CC-CEDICT glosses miss their
// common modern sense, or whose sense is spread over glosses that the English
// lexicon cannot place.
var supplementZH = map[string]string{
	"酒店":   "lodging:1",
	"民宿":   "lodging:1",
	"去玩":   "travel:0.6 entertainment:0.6",
	"出去玩":  "travel:0.6 entertainment:0.6",
	"去哪儿玩": "travel:0.7 entertainment:0.6",
	"去哪玩":  "travel:0.7 entertainment:0.6",
	"好玩":   "entertainment:0.6",
	"跑步":   "sports:1",
	"晕车":   "travel:0.6 health:0.6",
	"晕机":   "travel:0.6 health:0.6",
	"晕船":   "travel:0.6 health:0.6",
	"搬家":   "home:1",
	"追剧":   "entertainment:1",
	"手机":   "tech:1",
	"网购":   "shopping:1 tech:0.3",
	"外卖":   "food:1",
	"健身":   "sports:1",
	"考研":   "learning:1",
	"综艺":   "entertainment:1",
	"老板":   "work:0.8",
}

// overrideZH replace the generated weights of a few Chinese words whose
// CC-CEDICT glosses lead the wrong way in everyday use: 一家 counts a shop
// or a hotel more often than it names a family, 店 is a shop more often than
// an inn.
var overrideZH = map[string]string{
	"一家": "",
	"店":  "shopping:0.6 food:0.3",
}

// supplement raises lex's weights to the supplement's.
func supplement(lex map[string]vector, sup map[string]string) error {
	return apply(lex, sup, false)
}

// override replaces lex's weights with the given ones.
func override(lex map[string]vector, sup map[string]string) error {
	return apply(lex, sup, true)
}

func apply(lex map[string]vector, sup map[string]string, replace bool) error {
	for w, text := range sup {
		v := lex[w]
		if replace {
			v = vector{}
		}
		for f := range strings.FieldsSeq(text) {
			name, x, _ := strings.Cut(f, ":")
			d, ok := domain.Parse(name)
			weight, err := strconv.ParseFloat(x, 64)
			if !ok || err != nil {
				return fmt.Errorf("supplement %q: %q", w, f)
			}
			v[d] = max(v[d], weight)
		}
		lex[w] = v
	}
	return nil
}
