package extract_test

import (
	"context"
	"fmt"

	"github.com/recallhq/recall/pkg/extract"
)

func ExampleRules() {
	rules, err := extract.NewRules(extract.RulesOptions{})
	if err != nil {
		panic(err)
	}
	facts, err := rules.Extract(context.Background(), extract.Input{
		Text: "最近在读刘慈欣写的《三体》，也爱看科幻片。",
	})
	if err != nil {
		panic(err)
	}
	for _, f := range facts {
		fmt.Println(f.Kind, f.Display)
	}
	// Output:
	// author 刘慈欣
	// book_title 三体
	// genre 科幻
}

func ExampleRules_english() {
	rules, err := extract.NewRules(extract.RulesOptions{})
	if err != nil {
		panic(err)
	}
	facts, _ := rules.Extract(context.Background(), extract.Input{
		Text: "I just finished reading Dune by Frank Herbert, and now I'm into jazz.",
	})
	for _, f := range facts {
		fmt.Printf("%s %q\n", f.Kind, f.Value)
	}
	// Output:
	// book_title "dune"
	// author "frank herbert"
	// genre "jazz"
}

func ExampleGazetteer() {
	catalog := extract.NewGazetteer([]extract.CatalogEntry{
		{Kind: extract.KindFilm, Name: "盗梦空间"},
		{Kind: extract.KindPerson, Name: "Christopher Nolan"},
	})
	facts, _ := catalog.Extract(context.Background(), extract.Input{
		Text: "昨天重看了盗梦空间，CHRISTOPHER NOLAN 真厉害",
	})
	for _, f := range facts {
		fmt.Println(f.Kind, f.Value, f.Display)
	}
	// Output:
	// film 盗梦空间 盗梦空间
	// person christopher nolan Christopher Nolan
}

func ExampleCombine() {
	rules, err := extract.NewRules(extract.RulesOptions{})
	if err != nil {
		panic(err)
	}
	catalog := extract.NewGazetteer([]extract.CatalogEntry{{Kind: extract.KindFilm, Name: "活着"}})
	// The catalog goes first: it knows 活着 is a film here, where the rules
	// alone would guess a book from the title marks.
	both := extract.Combine(catalog, rules)
	facts, _ := both.Extract(context.Background(), extract.Input{Text: "《活着》里的葛优演得真好。"})
	for _, f := range facts {
		fmt.Println(f.Kind, f.Display)
	}
	// Output:
	// film 活着
	// person 葛优
}

func ExampleNormalize() {
	for _, s := range []string{"《三体》", "＂三体＂", " 三体 ", "The  GODFATHER"} {
		fmt.Printf("%q\n", extract.Normalize(s))
	}
	// Output:
	// "三体"
	// "三体"
	// "三体"
	// "the godfather"
}
