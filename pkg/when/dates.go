package when

import (
	"strconv"
	"time"
)

// The languages a note is written in.
const (
	langEN = "en"
	langZH = "zh"
)

// Midnight is t's day at midnight, in t's location.
func Midnight(t time.Time) time.Time {
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, t.Location())
}

// EnDate writes a day as "Mon 8 May 2023" (time's layout "Mon 2 January
// 2006"), and ZhDate as "2023年5月8日 周一": by hand, as a context with a
// query dates dozens of lines and the layout interpreter took a few percent
// of its CPU. Years outside 1000 to 9999 go through the layouts.
func EnDate(t time.Time) string {
	var buf [32]byte
	return string(AppendEnDate(buf[:0], t))
}

// AppendEnDate appends EnDate's text to b.
func AppendEnDate(b []byte, t time.Time) []byte {
	y, m, d := t.Date()
	if y < 1000 || y > 9999 {
		return t.AppendFormat(b, "Mon 2 January 2006")
	}
	b = append(b, t.Weekday().String()[:3]...)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(d), 10)
	b = append(b, ' ')
	b = append(b, m.String()...)
	b = append(b, ' ')
	return strconv.AppendInt(b, int64(y), 10)
}

var zhWeekdays = [...]string{"日", "一", "二", "三", "四", "五", "六"}

func ZhDate(t time.Time) string {
	var buf [32]byte
	return string(AppendZhDate(buf[:0], t))
}

// AppendZhDate appends ZhDate's text to b.
func AppendZhDate(b []byte, t time.Time) []byte {
	y, m, d := t.Date()
	if y < 1000 || y > 9999 {
		return append(append(t.AppendFormat(b, "2006年1月2日"), " 周"...), zhWeekdays[t.Weekday()]...)
	}
	b = strconv.AppendInt(b, int64(y), 10)
	b = append(b, "年"...)
	b = strconv.AppendInt(b, int64(m), 10)
	b = append(b, "月"...)
	b = strconv.AppendInt(b, int64(d), 10)
	b = append(b, "日 周"...)
	return append(b, zhWeekdays[t.Weekday()]...)
}
