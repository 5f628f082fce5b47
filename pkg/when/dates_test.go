package when

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The hand-written dates are the layouts' to the byte, on every weekday and
// month, short and long years included.
func TestDatesAsTheLayouts(t *testing.T) {
	t.Parallel()
	zhWeek := [...]string{"日", "一", "二", "三", "四", "五", "六"}
	check := func(at time.Time) {
		require.Equal(t, at.Format("Mon 2 January 2006"), EnDate(at), at)
		require.Equal(t, at.Format("2006年1月2日")+" 周"+zhWeek[at.Weekday()], ZhDate(at), at)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		check(time.Unix(rng.Int64N(1<<38)-(1<<37), 0).UTC())
	}
	for _, y := range []int{1, 999, 1000, 2023, 9999, 10000} {
		check(time.Date(y, 12, 31, 23, 59, 59, 0, time.UTC))
		check(time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC))
	}
	require.Equal(t, "Mon 8 May 2023", EnDate(time.Date(2023, 5, 8, 9, 0, 0, 0, time.UTC)))
	require.Equal(t, "2023年5月8日 周一", ZhDate(time.Date(2023, 5, 8, 9, 0, 0, 0, time.UTC)))
}
