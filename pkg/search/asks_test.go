package search_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/envconfig"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/search"
)

// A message asks for the user's age in many forms, and "how many years"
// asks for one only when no verb follows "be": a duration is not an age.
func TestMessageAsks(t *testing.T) {
	t.Parallel()
	for _, m := range []string{
		"How old am I?",
		"how old will I be when my friend Rachel gets married?",
		"How old was I when I moved to the United States?",
		"How many years will I be when my sister graduates?",
		"How many years old will I be in May?",
		"Can you remind me how old I am?",
		"What age was I when I started running?",
		"Is it too late to learn the piano at my age?",
		"What's my current age?",
		"我今年多大了？",
		"我几岁开始学钢琴的？",
		"你记得我的年龄吗？",
	} {
		require.Equal(t, search.AskedAge, search.MessageAsks(m), m)
	}
	for _, m := range []string{
		"How many years will I be paying off this loan?",
		"How long have I been working in my current role?",
		"How old is the Eiffel Tower?",
		"What did I buy for my old apartment?",
		"Which stage of the project am I at?",
		"How many years has my brother lived in Lyon?",
		"我们多大的房子合适？",
		"",
	} {
		require.Equal(t, search.AskedNothing, search.MessageAsks(m), m)
	}
}

// A turn says the user's age when a number after "I'm" goes on as an age
// does, or in the other forms an age is told in; a number of minutes,
// percent or miles is not one.
func TestAskedAgeSays(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		"I'm 32, so I'm in my 30s. I'd say my skin type is normal.",
		"I am 45 years old and looking for a new hobby",
		"Well, I'm 28 now and still haven't traveled abroad",
		"I just turned 40 last week!",
		"I'm turning 30 in June and want to plan a party",
		"I'll be 50 next year.",
		"As a runner, I'm a 34-year-old with bad knees",
		"We celebrated my 21st birthday in Vegas",
		"my age is 63, is that too old for this?",
		"I'm in my late twenties",
		"I am 19",
		"我今年32岁，想换个工作",
		"我快三十岁了",
	} {
		require.True(t, search.AskedAge.Says(s), s)
	}
	for _, s := range []string{
		"I'm 5 minutes away",
		"I'm 100 percent sure about it",
		"I'm 30 miles from the coast",
		"I'm 3 chapters into the book",
		"My daughter is 7 and loves drawing",
		"I ran 10 km in 45 minutes",
		"I'll be 20 minutes late",
		"The building is 32 years old",
		"",
	} {
		require.False(t, search.AskedAge.Says(s), s)
	}
	require.False(t, search.AskedNothing.Says("I'm 32"))
}

// A context's recall lists what its message asks for by form, unless the
// list's weight is 0.
func TestQueryAsked(t *testing.T) {
	t.Parallel()
	cfg := envconfig.Defaults[search.Config]()
	q := "How old will I be when my friend Rachel gets married?"
	p := cfg.Query("t", "u", q, 10, t0).Params
	require.Equal(t, search.AskedAge, p.Asked)
	require.InDelta(t, 1, p.AskedWeight, 1e-12)
	require.Equal(t, search.AskedNothing, cfg.Query("t", "u", "What did I cook on Sunday?", 10, t0).Params.Asked)
	cfg.ContextRecallAskedWeight = 0
	require.Equal(t, search.AskedNothing, cfg.Query("t", "u", q, 10, t0).Params.Asked)
}

// The user's turn that says their age is found for a message that asks
// for it, though it shares no word with it, by the scan and through a
// large user's indexes alike: there it is the oldest of the history, out
// of reach of the newest entries and of the sessions the message's words
// choose, and is read by its mark (search.EntryMarks), which does not
// count in its length; the assistant saying a number, or the user saying
// one that is not an age, is not in the list; without the list the turn
// is not found.
func TestSearchAsked(t *testing.T) {
	t.Parallel()
	b := setup(t)
	var turns []events.Turn
	for d := range 40 {
		turns = append(turns, chat("acme", "u1", fmt.Sprintf("s%02d", d), t0.AddDate(0, 0, d-60),
			fmt.Sprintf("day %d: what should I do about the weather", d), "Check the forecast.",
			"I'm 5 minutes from the station, what should I bring", "An umbrella.")...)
	}
	for d := range 3 {
		turns = append(turns, chat("acme", "u1", fmt.Sprintf("w%d", d), t0.AddDate(0, 0, d-30),
			fmt.Sprintf("my friend Rachel is getting married, I need gift idea number %d", d), "Congratulations to Rachel!")...)
	}
	b.index(t, turns)
	age := chat("acme", "u1", "skin", t0.AddDate(0, 0, -90), "I'm 32, so I'm in my 30s. My skin has been dull lately.",
		"I'm 32 too, in a manner of speaking: try a gentle exfoliant.")
	b.index(t, age)
	var count int32
	var marked bool
	require.NoError(t, b.db.Store.Pool().QueryRow(b.ctx, `SELECT term_count, terms @@ '''§age'''::tsquery FROM search_entries WHERE source_id = 'skin-0'`).Scan(&count, &marked))
	require.True(t, marked)
	require.EqualValues(t, len(b.an.Terms("I'm 32, so I'm in my 30s. My skin has been dull lately.", nil)), count, "the mark is no term")
	require.NoError(t, b.db.Store.Pool().QueryRow(b.ctx, `SELECT terms @@ '''§age'''::tsquery FROM search_entries WHERE source_id = 'skin-1'`).Scan(&marked))
	require.False(t, marked, "the assistant's number is not the user's age")
	q := "How old will I be when my friend Rachel gets married?"
	large := envconfig.Defaults[search.Config]().Large()
	large.From, large.Sample = 10, 20 // the age turn is the oldest: no sample reaches it
	for _, l := range []struct {
		name string
		p    search.Params
	}{{"scan", search.Params{K: 6}}, {"indexes", search.Params{K: 6, Large: large}}} {
		p := l.p
		p.Asked, p.AskedWeight = search.AskedAge, 1
		res := b.search(t, "acme", "u1", q, p)
		require.Contains(t, sources(res.Hits), "skin-0", l.name)
		require.Equal(t, 1, res.Hits[sourceRank(res.Hits, "skin-0")].AskedRank, l.name)
		for _, h := range res.Hits {
			if h.SourceID != "skin-0" {
				require.Zero(t, h.AskedRank, "%s: %s is no age of the user's", l.name, h.Text)
			}
		}
		p.AskedWeight = 0
		res = b.search(t, "acme", "u1", q, p)
		require.NotContains(t, sources(res.Hits), "skin-0", "%s: no word of the message", l.name)
	}
}
