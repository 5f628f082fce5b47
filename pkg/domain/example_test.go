package domain_test

import (
	"fmt"

	"github.com/recallhq/recall/pkg/domain"
)

// A standing statement and a later message share no word, but meet in a
// domain.
func Example() {
	statement := domain.Of("I have an intense fear of flying, so I avoid air travel")
	message := domain.Of("What's the best way to get around the US?")
	fmt.Println(statement, "|", message, "|", statement.Meets(message))

	fmt.Println(domain.Of("我对花生过敏"), "|", domain.Of("推荐几道川菜"))
	fmt.Println(domain.Of("Thanks, that's fine") == 0)
	// Output:
	// travel | travel | true
	// food,health | food
	// true
}

func ExampleVector_Top() {
	d, w, ok := domain.Scores("Which hotel near the station has the quietest rooms?").Top()
	fmt.Println(d, d.Label("zh"), w >= domain.Threshold, ok)
	// Output: lodging 住宿 true true
}
