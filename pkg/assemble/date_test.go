package assemble

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
		require.Equal(t, at.Format("Mon 2 January 2006"), enDate(at), at)
		require.Equal(t, at.Format("2006年1月2日")+" 周"+zhWeek[at.Weekday()], zhDate(at), at)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		check(time.Unix(rng.Int64N(1<<38)-(1<<37), 0).UTC())
	}
	for _, y := range []int{1, 999, 1000, 2023, 9999, 10000} {
		check(time.Date(y, 12, 31, 23, 59, 59, 0, time.UTC))
		check(time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC))
	}
	require.Equal(t, "Mon 8 May 2023", enDate(time.Date(2023, 5, 8, 9, 0, 0, 0, time.UTC)))
	require.Equal(t, "2023年5月8日 周一", zhDate(time.Date(2023, 5, 8, 9, 0, 0, 0, time.UTC)))
}

// A recalled day says how long before the context's time it was: in days
// up to two months, then months, then years; calendar days, so last
// night is yesterday in the morning.
func TestAges(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		days   int
		en, zh string
	}{
		{0, "today", "今天"}, {1, "yesterday", "昨天"}, {2, "2 days ago", "2天前"}, {28, "28 days ago", "28天前"},
		{59, "59 days ago", "59天前"}, {60, "2 months ago", "2个月前"}, {45 + 30, "2 months ago", "2个月前"},
		{121, "4 months ago", "4个月前"}, {364, "12 months ago", "12个月前"}, {729, "24 months ago", "24个月前"},
		{730, "2 years ago", "2年前"}, {365*3 + 200, "3 years ago", "3年前"},
	} {
		require.Equal(t, c.en, enAgo(c.days), c.days)
		require.Equal(t, c.zh, zhAgo(c.days), c.days)
	}
	now := time.Date(2023, 5, 9, 8, 0, 0, 0, time.UTC)
	d := &dates{ph: text[LangEN], now: now}
	require.Equal(t, "Mon 8 May 2023, yesterday", d.of(time.Date(2023, 5, 8, 23, 30, 0, 0, time.UTC)))
	require.Equal(t, "Tue 9 May 2023, today", d.of(time.Date(2023, 5, 9, 1, 0, 0, 0, time.UTC)))
	require.Equal(t, "Sat 15 April 2023, 24 days ago", d.of(time.Date(2023, 4, 15, 12, 0, 0, 0, time.UTC)))
	zh := &dates{ph: text[LangZH], now: now}
	require.Equal(t, "2023年4月15日 周六，24天前", zh.of(time.Date(2023, 4, 15, 12, 0, 0, 0, time.UTC)))
	require.Equal(t, "Sat 15 April 2023", (&dates{ph: text[LangEN]}).of(time.Date(2023, 4, 15, 12, 0, 0, 0, time.UTC)), "no time: the date alone")
}
