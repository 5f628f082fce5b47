package search_test

import (
	"fmt"

	"github.com/recallhq/recall/pkg/search"
)

// A question and the turn that answers it, in Chinese and English: the terms
// they share are what the lexical index matches.
func ExampleAnalyzer_QueryTerms() {
	a := search.SharedAnalyzer()
	fmt.Println(a.QueryTerms("你上次推荐的科幻小说叫什么？"))
	fmt.Println(a.QueryTerms("推荐你读这本科幻的小说《三体》"))
	fmt.Println(a.QueryTerms("Where is my order B-1234? I ordered it on 2023-05-01."))
	// Output:
	// [上次 推荐 科幻小说 科幻 幻小 小说 叫 什么]
	// [推荐 读 这本 科幻 小说 三 体 三体]
	// [order b-1234 1234 2023-05-01 2023 05 01]
}
