// Package habits derives how a user uses the assistant from their stored
// messages, without a model: the hours they usually write in (in their time
// zone), the languages they write in, how long their messages usually are,
// and the sites and agents they talk to. The results are attribute values of
// source derived (pkg/attribute): they show in the attributes, their history and
// the context like any other value, and never override what the user stated
// or the app set.
//
// Everything here is a pure function of the messages (and of the user's
// time zone): the same stored messages give the same values, whenever and
// however often they are derived. The decayer's habits step reads the
// messages and writes the changes (pkg/workers/decayer).
package habits

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/recallhq/recall/pkg/envconfig"
)

// Config is how habits are derived (HABITS_*). The decayer reads it.
type Config struct {
	// Derive turns the decayer's habits step on.
	Derive bool `env:"HABITS_DERIVE" envDefault:"true"`
	// MinMessages is how many of the user's own messages (within Window) it
	// takes before any habit is derived; with fewer, what was derived
	// before stays as it is.
	MinMessages int `env:"HABITS_MIN_MESSAGES" envDefault:"10"`
	// MaxMessages bounds the messages read per user: the newest ones.
	MaxMessages int `env:"HABITS_MAX_MESSAGES" envDefault:"500"`
	// Window is how far back from the user's newest message (event time)
	// their messages count, so a habit that changed shows within it.
	Window time.Duration `env:"HABITS_WINDOW" envDefault:"2160h"`
	// ActiveShare is the share of the messages the active hours must hold:
	// they are the fewest consecutive hours of the day that hold it.
	ActiveShare float64 `env:"HABITS_ACTIVE_SHARE" envDefault:"0.8"`
	// ActiveMaxHours is the longest span called active hours; a user whose
	// messages need more is given none (no pattern).
	ActiveMaxHours int `env:"HABITS_ACTIVE_MAX_HOURS" envDefault:"8"`
	// LanguageMessages is how many of the newest messages counted are read
	// for their language: telling a Latin-script language is the costliest
	// part of a derivation (docs/benchmarks.md, History).
	LanguageMessages int `env:"HABITS_LANGUAGE_MESSAGES" envDefault:"100"`
	// ItemShare is the share of the messages a language (of those whose
	// language could be told) or a site or agent (of all) must have to be
	// named, and ItemMinMessages the fewest messages it must have.
	ItemShare       float64 `env:"HABITS_ITEM_SHARE" envDefault:"0.2"`
	ItemMinMessages int     `env:"HABITS_ITEM_MIN_MESSAGES" envDefault:"3"`
	// ShortChars and LongChars divide message lengths (the median, in
	// characters): short up to ShortChars, long from LongChars, medium
	// between.
	ShortChars int `env:"HABITS_SHORT_CHARS" envDefault:"40"`
	LongChars  int `env:"HABITS_LONG_CHARS" envDefault:"280"`
}

// WithDefaults fills the numbers left zero with the env tags' defaults, so
// a Config built in code behaves like one read from an empty environment
// (Derive excepted: false is a setting).
func (c Config) WithDefaults() Config {
	d := envconfig.Defaults[Config]()
	fill := func(v *int, def int) {
		if *v == 0 {
			*v = def
		}
	}
	fill(&c.MinMessages, d.MinMessages)
	fill(&c.MaxMessages, d.MaxMessages)
	fill(&c.ActiveMaxHours, d.ActiveMaxHours)
	fill(&c.ItemMinMessages, d.ItemMinMessages)
	fill(&c.LanguageMessages, d.LanguageMessages)
	fill(&c.ShortChars, d.ShortChars)
	fill(&c.LongChars, d.LongChars)
	if c.Window == 0 {
		c.Window = d.Window
	}
	if c.ActiveShare == 0 {
		c.ActiveShare = d.ActiveShare
	}
	if c.ItemShare == 0 {
		c.ItemShare = d.ItemShare
	}
	return c
}

// Check reports a setting that cannot work, naming its variable.
func (c Config) Check() error {
	switch {
	case c.MinMessages < 1:
		return fmt.Errorf("HABITS_MIN_MESSAGES: %d; want 1 or more", c.MinMessages)
	case c.MaxMessages < c.MinMessages:
		return fmt.Errorf("HABITS_MAX_MESSAGES: %d; want at least HABITS_MIN_MESSAGES (%d)", c.MaxMessages, c.MinMessages)
	case c.Window <= 0:
		return fmt.Errorf("HABITS_WINDOW: %s; want a positive duration", c.Window)
	case c.ActiveShare <= 0 || c.ActiveShare > 1:
		return fmt.Errorf("HABITS_ACTIVE_SHARE: %g; want more than 0, at most 1", c.ActiveShare)
	case c.ActiveMaxHours < 1 || c.ActiveMaxHours > 24:
		return fmt.Errorf("HABITS_ACTIVE_MAX_HOURS: %d; want 1 to 24", c.ActiveMaxHours)
	case c.ItemShare <= 0 || c.ItemShare > 1:
		return fmt.Errorf("HABITS_ITEM_SHARE: %g; want more than 0, at most 1", c.ItemShare)
	case c.LanguageMessages < 1:
		return fmt.Errorf("HABITS_LANGUAGE_MESSAGES: %d; want 1 or more", c.LanguageMessages)
	case c.ItemMinMessages < 1:
		return fmt.Errorf("HABITS_ITEM_MIN_MESSAGES: %d; want 1 or more", c.ItemMinMessages)
	case c.ShortChars < 1 || c.LongChars <= c.ShortChars:
		return fmt.Errorf("HABITS_SHORT_CHARS, HABITS_LONG_CHARS: %d, %d; want 1 <= short < long", c.ShortChars, c.LongChars)
	}
	return nil
}

// Message is one of the user's own messages as habits read it.
type Message struct {
	EventID    string
	OccurredAt time.Time
	SiteID     string
	AgentID    string
	// Chars is the length of the whole content, in characters.
	Chars int
	// Text is the content, or its beginning (enough to tell its language:
	// TextChars).
	Text string
}

// TextChars is how much of a message's content its language is told from.
const TextChars = 400

// Tally counts a user's messages, newest first, into what habits are
// derived from. It keeps counts and one length per message, never the
// texts, so the messages can be streamed through it.
type Tally struct {
	cfg    Config
	zone   *time.Location
	newest Message
	n      int
	hours  [24]int
	chars  []int
	// detected counts the messages whose language could be told.
	detected  int
	languages map[string]int
	channels  map[Channel]int
}

// Channel is where a message was written: the site and the agent (persona).
type Channel struct{ SiteID, AgentID string }

// String is how the attributes name a channel: "site/agent", or the one of
// them that is set.
func (c Channel) String() string {
	switch {
	case c.SiteID == "":
		return c.AgentID
	case c.AgentID == "":
		return c.SiteID
	}
	return c.SiteID + "/" + c.AgentID
}

// NewTally starts a tally whose hours are reckoned in zone (nil: UTC).
func NewTally(cfg Config, zone *time.Location) *Tally {
	if zone == nil {
		zone = time.UTC
	}
	return &Tally{cfg: cfg.WithDefaults(), zone: zone, languages: map[string]int{}, channels: map[Channel]int{}}
}

// Add counts a message. Messages come newest first; one older than Window
// before the first, or beyond MaxMessages, is left out. It reports whether
// the message was counted.
func (t *Tally) Add(m Message) bool {
	if t.n == 0 {
		t.newest = m
	} else if t.n >= t.cfg.MaxMessages || m.OccurredAt.Before(t.newest.OccurredAt.Add(-t.cfg.Window)) {
		return false
	}
	t.n++
	t.hours[m.OccurredAt.In(t.zone).Hour()]++
	t.chars = append(t.chars, m.Chars)
	if t.n <= t.cfg.LanguageMessages {
		if lang := Language(m.Text); lang != "" {
			t.detected++
			t.languages[lang]++
		}
	}
	t.channels[Channel{m.SiteID, m.AgentID}]++
	return true
}

// Habits are what a user's messages show: each empty where they show
// nothing clear.
type Habits struct {
	// Messages is how many messages were counted, and Newest the newest of
	// them: the event the habits are derived as of.
	Messages int
	Newest   Message
	// Enough: there were at least MinMessages; otherwise nothing below is
	// set, and nothing derived before changes.
	Enough bool
	// ActiveHours is "20:00–23:00 (Asia/Shanghai)": the fewest consecutive
	// hours holding ActiveShare of the messages, at most ActiveMaxHours.
	ActiveHours Item
	// Length is "short (median 25 characters)".
	Length Item
	// Languages and Channels are the ones with a fair share, most used
	// first. Languages are only known when the language of at least
	// ItemMinMessages messages could be told; otherwise those derived
	// before stay as they are.
	Languages      []Item
	LanguagesKnown bool
	Channels       []Item
}

// Item is a derived value and the share of the messages behind it (its
// confidence).
type Item struct {
	Value string
	Share float64
}

// Habits are the tally's habits.
func (t *Tally) Habits() Habits {
	h := Habits{Messages: t.n, Newest: t.newest, Enough: t.n > 0 && t.n >= t.cfg.MinMessages}
	if !h.Enough {
		return h
	}
	if start, hours, in, ok := ActiveSpan(t.hours, t.cfg.ActiveShare, t.cfg.ActiveMaxHours); ok {
		h.ActiveHours = Item{
			Value: fmt.Sprintf("%02d:00–%02d:00 (%s)", start, (start+hours)%24, t.zone.String()),
			Share: share(in, t.n),
		}
	}
	median := Median(t.chars)
	class, in := "medium", 0
	switch {
	case median <= t.cfg.ShortChars:
		class = "short"
		in = count(t.chars, func(c int) bool { return c <= t.cfg.ShortChars })
	case median >= t.cfg.LongChars:
		class = "long"
		in = count(t.chars, func(c int) bool { return c >= t.cfg.LongChars })
	default:
		in = count(t.chars, func(c int) bool { return c > t.cfg.ShortChars && c < t.cfg.LongChars })
	}
	h.Length = Item{Value: fmt.Sprintf("%s (median %d characters)", class, RoundLength(median)), Share: share(in, t.n)}
	h.LanguagesKnown = t.detected >= t.cfg.ItemMinMessages
	for lang, n := range t.languages {
		if n >= t.cfg.ItemMinMessages && float64(n) >= t.cfg.ItemShare*float64(t.detected) {
			h.Languages = append(h.Languages, Item{Value: lang, Share: share(n, t.detected)})
		}
	}
	for ch, n := range t.channels {
		if ch != (Channel{}) && n >= t.cfg.ItemMinMessages && float64(n) >= t.cfg.ItemShare*float64(t.n) {
			h.Channels = append(h.Channels, Item{Value: ch.String(), Share: share(n, t.n)})
		}
	}
	byShare := func(a, b Item) int { return cmp.Or(cmp.Compare(b.Share, a.Share), cmp.Compare(a.Value, b.Value)) }
	slices.SortFunc(h.Languages, byShare)
	slices.SortFunc(h.Channels, byShare)
	return h
}

// ActiveSpan is the fewest consecutive hours of the day (wrapping past
// midnight) that hold at least share of the messages counted by hour, at
// most maxHours of them: the first hour, the span's length and the messages
// in it. Of spans of one length, the one with the most messages wins, then
// the earliest. ok is false when no span short enough holds the share.
func ActiveSpan(byHour [24]int, share float64, maxHours int) (start, hours, in int, ok bool) {
	total := 0
	for _, n := range byHour {
		total += n
	}
	if total == 0 {
		return 0, 0, 0, false
	}
	for hours = 1; hours <= min(maxHours, 24); hours++ {
		best, bestAt := -1, 0
		for s := range 24 {
			sum := 0
			for i := range hours {
				sum += byHour[(s+i)%24]
			}
			if sum > best {
				best, bestAt = sum, s
			}
		}
		if float64(best) >= share*float64(total) {
			return bestAt, hours, best, true
		}
	}
	return 0, 0, 0, false
}

// Median is the middle length (the lower of the two middle ones for an
// even count); 0 for none.
func Median(chars []int) int {
	if len(chars) == 0 {
		return 0
	}
	s := slices.Clone(chars)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}

// RoundLength rounds a length for the attributes, so a median that moves by a
// character or two does not make a new value: exact below 10, to 5 below
// 100, to 10 below 1000, to 100 above.
func RoundLength(n int) int {
	step := 100
	switch {
	case n < 10:
		return n
	case n < 100:
		step = 5
	case n < 1000:
		step = 10
	}
	return int(math.Round(float64(n)/float64(step))) * step
}

func share(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return math.Round(float64(n)/float64(of)*100) / 100
}

func count(xs []int, f func(int) bool) int {
	n := 0
	for _, x := range xs {
		if f(x) {
			n++
		}
	}
	return n
}
