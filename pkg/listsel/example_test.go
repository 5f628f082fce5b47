package listsel_test

import (
	"encoding/json"
	"fmt"

	"github.com/recallhq/recall/pkg/listsel"
)

// A tool returned films; the reply presents three of them. The stored turn
// carries those three, in the reply's order, with their real refs, and the
// user's "the third one" is the third of them.
func ExampleMatch() {
	result := json.RawMessage(`{"results":[
		{"ref":"/mv/823D","title":"Dune","year":2021},
		{"ref":"/mv/17","title":"Arrival","year":2016},
		{"ref":"/mv/5","title":"Heat","year":1995}]}`)
	reply := "Three picks:\n1. **Heat** (1995) — a crime epic\n2. **Dune** (2021) — desert power\n3. **Arrival** (2016) — first contact"

	items := listsel.Match(reply, listsel.Candidates(result))
	for i, it := range items {
		fmt.Println(i+1, it.Ref, it.Title)
	}
	if c, ok := listsel.Select("the third one"); ok {
		fmt.Println("picked:", items[c.N-1].Ref)
	}
	// Output:
	// 1 /mv/5 Heat
	// 2 /mv/823D Dune
	// 3 /mv/17 Arrival
	// picked: /mv/17
}

// Messages that pick, and messages that only look as if they do.
func ExampleSelect() {
	for _, msg := range []string{"3", "第二本", "the last one", "not the third one", "give me 3 more", "3月"} {
		c, ok := listsel.Select(msg)
		fmt.Printf("%s: %v %+v\n", msg, ok, c)
	}
	// Output:
	// 3: true {N:3 Last:false}
	// 第二本: true {N:2 Last:false}
	// the last one: true {N:0 Last:true}
	// not the third one: false {N:0 Last:false}
	// give me 3 more: false {N:0 Last:false}
	// 3月: false {N:0 Last:false}
}
