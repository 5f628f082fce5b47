package decay_test

import (
	"fmt"
	"time"

	"github.com/recallhq/recall/pkg/decay"
)

// The default policy: ×0.9 per full 30 days since the last mention, archived
// below 0.1, expired 90 days after the last mention.
func ExamplePolicy_Assess() {
	p := decay.DefaultPolicy
	last := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	expires := last.Add(p.TTL("book_title"))
	for _, days := range []int{29, 30, 59, 60, 89, 90} {
		w, status := p.Assess("book_title", 1, last, expires, last.AddDate(0, 0, days))
		fmt.Printf("day %d: %.2f %s\n", days, w, status)
	}
	expires = last.AddDate(10, 0, 0)
	w, status := p.Assess("book_title", 1, last, expires, last.AddDate(0, 0, 22*30))
	fmt.Printf("day %d: %.4f %s\n", 22*30, w, status)
	// Output:
	// day 29: 1.00 active
	// day 30: 0.90 active
	// day 59: 0.90 active
	// day 60: 0.81 active
	// day 89: 0.81 active
	// day 90: 0.73 expired
	// day 660: 0.0985 archived
}
