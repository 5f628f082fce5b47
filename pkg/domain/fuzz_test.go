package domain_test

import (
	"math"
	"testing"

	"github.com/recallhq/recall/internal/testkit/textcheck"
	"github.com/recallhq/recall/pkg/domain"
)

// FuzzScores: any text, even one the API refuses (invalid UTF-8, NUL), is
// scored without a panic, the same every time, each weight finite and not
// negative, Of being Scores at Threshold; and two texts joined by a
// sentence break score as the sum of their scores (no word, phrase or
// Chinese word runs across it).
func FuzzScores(f *testing.F) {
	for _, s := range textcheck.Seeds(f) {
		f.Add(s, "I'm scared of flying")
	}
	f.Add("我不吃辣", "推荐几道川菜")
	f.Add("floor plans", "air-travel’s")
	textcheck.Load(f, func() error {
		domain.Default()
		return nil
	})
	f.Fuzz(func(t *testing.T, a, b string) {
		t.Parallel()
		va := domain.Scores(a)
		if again := domain.Scores(a); again != va {
			t.Fatalf("Scores(%s) = %v, then %v", textcheck.Quote(a), va, again)
		}
		for d, x := range va {
			if x < 0 || math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				t.Fatalf("Scores(%s)[%s] = %v", textcheck.Quote(a), domain.Domain(d), x)
			}
		}
		if got := domain.Of(a); got != va.Set(domain.Threshold) {
			t.Fatalf("Of(%s) = %v, Scores at Threshold %v", textcheck.Quote(a), got, va.Set(domain.Threshold))
		}
		vb := domain.Scores(b)
		joined := domain.Scores(a + ". " + b)
		for d := range joined {
			if math.Abs(float64(joined[d]-va[d]-vb[d])) > 1e-3 {
				t.Fatalf("Scores(%s) = %v, not the sum of %v and %v", textcheck.Quote(a+". "+b), joined, va, vb)
			}
		}
	})
}
