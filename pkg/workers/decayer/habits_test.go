package decayer_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/attribute"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/habits"
	"github.com/recallhq/recall/pkg/store"
	"github.com/recallhq/recall/pkg/workers/decayer"
)

const (
	// Texts whose language whatlanggo tells reliably, and their lengths.
	enEvening = "Could you recommend a few novels about the history of the sea?" // 62
	enMorning = "any good fantasy books like the name of the wind?"              // 49
	zhText    = "推荐几本科幻小说"                                                       // 8
)

// habitTurns are a user's turns: each day of days, one user message at each
// of the UTC hours (10 minutes past), in session, site shop and agent
// librarian, each answered by the assistant at 03:00 UTC (which must not
// count). text gives the message of a day and hour.
func habitTurns(user, session string, from time.Time, days int, hours []int, text func(day, hour int) string) []store.StoredTurn {
	var out []store.StoredTurn
	for d := range days {
		date := from.AddDate(0, 0, d)
		for _, h := range hours {
			at := date.Add(time.Duration(h)*time.Hour + 10*time.Minute)
			id := fmt.Sprintf("%s-%s-%02d-%02d", user, session, d, h)
			out = append(out,
				store.StoredTurn{Turn: events.Turn{V: events.Version, ID: id, TenantID: "acme", UserID: user, SessionID: session,
					SiteID: "shop", AgentID: "librarian", OccurredAt: at, Role: events.RoleUser, Content: text(d, h)}},
				store.StoredTurn{Turn: events.Turn{V: events.Version, ID: id + "-r", TenantID: "acme", UserID: user, SessionID: session,
					SiteID: "shop", AgentID: "librarian", OccurredAt: date.Add(27 * time.Hour), Role: events.RoleAssistant,
					Content: "Here are three suggestions for you, with a short note on each one of them."}})
		}
	}
	return out
}

func habitsConfig() decayer.Config {
	c := longTTL()
	c.Habits = habits.Config{Derive: true, Window: 10 * day}
	c.BatchSize = 1000
	return c
}

func (b *bundle) insert(t *testing.T, turns []store.StoredTurn) {
	t.Helper()
	_, err := b.db.Store.InsertTurns(context.Background(), turns)
	require.NoError(t, err)
}

func (b *bundle) assert(t *testing.T, user string, as ...attribute.Assertion) {
	t.Helper()
	var rows []store.AssertionRow
	for _, a := range as {
		require.NoError(t, attribute.Normalize(attribute.Default(), &a))
		rows = append(rows, store.AssertionRow{TenantID: "acme", UserID: user, Assertion: a})
	}
	_, err := b.db.Store.RecordAssertions(context.Background(), rows)
	require.NoError(t, err)
}

func (b *bundle) resolved(t *testing.T, user string) attribute.Resolved {
	t.Helper()
	as, err := b.db.Store.Tenant("acme").Assertions(context.Background(), user)
	require.NoError(t, err)
	return attribute.Resolve(attribute.Default(), as)
}

// currentOf lists a key's current values as value/source.
func currentOf(r attribute.Resolved, key string) []string {
	var out []string
	for _, v := range r.Current {
		if v.Key == key {
			out = append(out, v.Value+"/"+v.Source)
		}
	}
	return out
}

// A user who writes in the evenings, Shanghai time: their habits are
// derived in UTC until they set their time zone, then in it; a second run
// stores nothing; a new batch of messages changes the values, the old ones
// kept in the history, ended at the new batch's time; what the user stated
// or the app set is never overridden.
func TestHabitsDerived(t *testing.T) {
	t.Parallel()
	b := setup(t, habitsConfig())
	start := t0.AddDate(0, 0, -14).Truncate(24 * time.Hour)
	// 20:00, 21:00 and 22:00 in Shanghai; English, one message a day in
	// Chinese (a third).
	evening := habitTurns("u1", "s1", start, 7, []int{12, 13, 14}, func(d, h int) string {
		if h == 13 {
			return zhText
		}
		return enEvening
	})
	b.insert(t, evening)
	// u2 set their active hours in the app, and u3 has written too little.
	b.assert(t, "u2", attribute.Assertion{Key: "active_hours", Value: "mornings", Op: attribute.Put, Source: attribute.Explicit,
		EventID: "edit-u2", Confidence: 1, At: start})
	b.insert(t, habitTurns("u2", "s2", start, 7, []int{20, 21}, func(int, int) string { return enEvening }))
	b.insert(t, habitTurns("u3", "s3", start, 3, []int{9}, func(int, int) string { return enEvening }))

	rep := b.runAt(t, t0)
	require.EqualValues(t, 3, rep.Count(decayer.StepHabits, decayer.OutcomeUsersDerived))
	newest := evening[len(evening)-2].Turn // the last user message
	r := b.resolved(t, "u1")
	require.Equal(t, []string{"12:00–15:00 (UTC)/derived"}, currentOf(r, "active_hours"), "reckoned in UTC without a zone")
	require.Equal(t, []string{"medium (median 60 characters)/derived"}, currentOf(r, "message_length"))
	require.ElementsMatch(t, []string{"English/derived", "Chinese/derived"}, currentOf(r, "languages"))
	require.Equal(t, []string{"shop/librarian/derived"}, currentOf(r, "channels"))
	for _, v := range r.Current {
		require.Equal(t, newest.OccurredAt, v.At, "event time: the newest message's")
		require.Equal(t, "derived:"+v.Key+":"+newest.ID, v.EventID)
		require.Empty(t, v.SessionID)
	}
	derivedAtFirst := rep.Count(decayer.StepHabits, decayer.OutcomeAttributesDerived)
	require.EqualValues(t, 5+4, derivedAtFirst, "u1's five values, u2's four (its active hours kept as ignored)")
	require.Equal(t, []string{"mornings/explicit"}, currentOf(b.resolved(t, "u2"), "active_hours"), "usage never overrides the app")
	require.Empty(t, b.resolved(t, "u3").Current, "three messages are too few")

	// Run again: nothing new, nobody due.
	rep = b.runAt(t, t0.Add(time.Hour))
	require.Zero(t, rep.Count(decayer.StepHabits, decayer.OutcomeUsersDerived))
	require.Zero(t, rep.Count(decayer.StepHabits, decayer.OutcomeAttributesDerived))

	// The user sets their time zone (an explicit edit, as the catalog worker
	// stores it) and states a language: the hours follow the zone, the old
	// value superseded as of the edit; the statement stays the user's.
	zoneAt := newest.OccurredAt.Add(2 * time.Hour)
	b.assert(t, "u1",
		attribute.Assertion{Key: "timezone", Value: "Asia/Shanghai", Op: attribute.Put, Source: attribute.Explicit, EventID: "edit-1", Confidence: 1, At: zoneAt},
		attribute.Assertion{Key: "languages", Value: "Chinese", Op: attribute.Put, Source: attribute.Stated, EventID: "turn-x", SessionID: "s1",
			Evidence: []string{"turn-x"}, Confidence: 0.9, At: zoneAt})
	rep = b.runAt(t, t0.Add(2*time.Hour))
	require.EqualValues(t, 1, rep.Count(decayer.StepHabits, decayer.OutcomeUsersDerived))
	require.EqualValues(t, 1, rep.Count(decayer.StepHabits, decayer.OutcomeAttributesDerived), "only the hours changed")
	r = b.resolved(t, "u1")
	require.Equal(t, []string{"20:00–23:00 (Asia/Shanghai)/derived"}, currentOf(r, "active_hours"))
	require.ElementsMatch(t, []string{"English/derived", "Chinese/stated"}, currentOf(r, "languages"))
	var utc attribute.Value
	for _, v := range r.History {
		if v.Key == "active_hours" && v.Value == "12:00–15:00 (UTC)" {
			utc = v
		}
	}
	require.Equal(t, attribute.Superseded, utc.Status)
	require.Equal(t, zoneAt, *utc.ValidTo)
	require.Equal(t, "derived:active_hours:"+newest.ID+":edit-1", utc.EndedBy)

	// A week of mornings in Shanghai, in English only (the window is ten
	// days): the hours and the length change, Chinese is no longer derived
	// (the statement stays), and the old values end at the new newest
	// message.
	mornings := habitTurns("u1", "s4", start.AddDate(0, 0, 14), 7, []int{0, 1}, func(int, int) string { return enMorning })
	b.insert(t, mornings)
	rep = b.runAt(t, t0.AddDate(0, 0, 8))
	require.EqualValues(t, 1, rep.Count(decayer.StepHabits, decayer.OutcomeUsersDerived))
	last := mornings[len(mornings)-2].Turn
	r = b.resolved(t, "u1")
	require.Equal(t, []string{"08:00–10:00 (Asia/Shanghai)/derived"}, currentOf(r, "active_hours"))
	require.Equal(t, []string{"medium (median 50 characters)/derived"}, currentOf(r, "message_length"))
	require.ElementsMatch(t, []string{"English/derived", "Chinese/stated"}, currentOf(r, "languages"))
	for _, v := range r.History {
		switch {
		case v.Key == "message_length" && v.Value == "medium (median 60 characters)":
			require.Equal(t, attribute.Superseded, v.Status)
			require.Equal(t, last.OccurredAt, *v.ValidTo)
		case v.Key == "languages" && v.Op == attribute.Remove:
			require.Equal(t, "Chinese", v.Value)
			require.Equal(t, attribute.Derived, v.Source)
			require.Equal(t, attribute.Ignored, v.Status, "a derived removal does not end what the user stated")
		}
	}
	rep = b.runAt(t, t0.AddDate(0, 0, 9))
	require.Zero(t, rep.Count(decayer.StepHabits, decayer.OutcomeAttributesDerived))
	require.Equal(t, []string{"mornings/explicit"}, currentOf(b.resolved(t, "u2"), "active_hours"))
}

// Deleting a session takes what was derived from the user's usage; the
// next run derives it again from the sessions left.
func TestHabitsAfterSessionDelete(t *testing.T) {
	t.Parallel()
	b := setup(t, habitsConfig())
	ctx := context.Background()
	start := t0.AddDate(0, 0, -7).Truncate(24 * time.Hour)
	b.insert(t, habitTurns("u1", "en", start, 5, []int{12, 13}, func(int, int) string { return enEvening }))
	b.insert(t, habitTurns("u1", "zh", start, 5, []int{14}, func(int, int) string { return zhText }))
	b.runAt(t, t0)
	require.ElementsMatch(t, []string{"English/derived", "Chinese/derived"}, currentOf(b.resolved(t, "u1"), "languages"))

	d, err := b.db.Store.Tenant("acme").DeleteSession(ctx, "zh")
	require.NoError(t, err)
	require.EqualValues(t, 5, d.Rows["attribute_assertions"], "every derived value")
	require.Empty(t, b.resolved(t, "u1").Current)

	rep := b.runAt(t, t0.Add(time.Hour))
	require.EqualValues(t, 1, rep.Count(decayer.StepHabits, decayer.OutcomeUsersDerived))
	r := b.resolved(t, "u1")
	require.Equal(t, []string{"English/derived"}, currentOf(r, "languages"))
	require.Equal(t, []string{"12:00–14:00 (UTC)/derived"}, currentOf(r, "active_hours"))
	for _, v := range r.History {
		require.NotContains(t, v.Value, "Chinese", "nothing of the deleted session is left")
	}
}

// The same messages and edits, stored in another order, with runs at other
// times and a batch size that splits them differently, make the same
// assertions: a replay rebuilds the same attributes.
func TestHabitsReplay(t *testing.T) {
	t.Parallel()
	start := t0.AddDate(0, 0, -14).Truncate(24 * time.Hour)
	var users [][]store.StoredTurn
	for i := range 5 {
		users = append(users, habitTurns(fmt.Sprintf("u%d", i), fmt.Sprintf("s%d", i), start.Add(time.Duration(i)*time.Hour), 4+i, []int{6 + i, 7 + 2*i},
			func(d, h int) string {
				if (d+h)%3 == 0 {
					return zhText
				}
				return enEvening[:20+d*5]
			}))
	}
	later := habitTurns("u1", "s9", start.AddDate(0, 0, 9), 4, []int{22}, func(int, int) string { return enMorning })
	zone := attribute.Assertion{Key: "timezone", Value: "Europe/Berlin", Op: attribute.Put, Source: attribute.Explicit, EventID: "edit-z",
		Confidence: 1, At: start.AddDate(0, 0, 12)}

	rows := func(batch int, seed uint64, runAt time.Time) []string {
		cfg := habitsConfig()
		cfg.BatchSize = batch
		b := setup(t, cfg)
		all := slices.Concat(users...)
		r := rand.New(rand.NewPCG(seed, 1))
		r.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
		b.insert(t, all)
		b.runAt(t, runAt)
		b.assert(t, "u1", zone)
		b.insert(t, later)
		b.runAt(t, runAt.Add(time.Hour))
		b.runAt(t, runAt.AddDate(0, 1, 0))
		got, err := b.db.Store.Pool().Query(context.Background(), `
			SELECT user_id || ' ' || event_id || ' ' || key || '=' || value || ' ' || op || ' ' || confidence || ' ' || occurred_at
			FROM attribute_assertions WHERE source = 'derived' ORDER BY 1`)
		require.NoError(t, err)
		var out []string
		for got.Next() {
			var s string
			require.NoError(t, got.Scan(&s))
			out = append(out, s)
		}
		require.NoError(t, got.Err())
		return out
	}
	a := rows(1000, 1, t0)
	require.NotEmpty(t, a)
	require.Equal(t, a, rows(1, 2, t0.AddDate(0, 2, 0)))
}

// The settings are checked at start, naming the variable; a step that is
// off derives nothing.
func TestHabitsConfig(t *testing.T) {
	t.Parallel()
	cfg := habitsConfig()
	cfg.Habits.ActiveShare = 2
	_, err := decayer.New(decayer.Options{Config: cfg, Store: testenv.NewDB(t).Store})
	require.ErrorContains(t, err, "HABITS_ACTIVE_SHARE")

	b := setup(t, longTTL())
	b.insert(t, habitTurns("u1", "s1", t0.AddDate(0, 0, -7), 7, []int{12, 13}, func(int, int) string { return enEvening }))
	rep := b.runAt(t, t0)
	require.Zero(t, rep.Count(decayer.StepHabits, decayer.OutcomeUsersDerived))
	require.Empty(t, b.resolved(t, "u1").Current)
}

// Retention deletes old turns, not what was derived from them: the derived
// values quote no turn and were true as of their event time.
func TestHabitsKeptByRetention(t *testing.T) {
	t.Parallel()
	b := setup(t, habitsConfig())
	start := t0.AddDate(0, 0, -20).Truncate(24 * time.Hour)
	b.insert(t, habitTurns("u1", "s1", start, 6, []int{12, 13}, func(int, int) string { return enEvening }))
	b.runAt(t, t0)
	before := b.resolved(t, "u1").Current
	require.Len(t, before, 4, "hours, length, English, channel")

	b.cfg.RetentionDefault = decayer.Retention(7 * day)
	b.d = b.newDecayer(t, nil)
	rep := b.runAt(t, t0.Add(time.Hour))
	require.EqualValues(t, 24, rep.Count(decayer.StepRetention, decayer.OutcomeMessagesDeleted))
	require.Zero(t, rep.Count(decayer.StepRetention, decayer.OutcomeAttributesDeleted))
	require.Zero(t, rep.Count(decayer.StepHabits, decayer.OutcomeAttributesDerived))
	require.Equal(t, before, b.resolved(t, "u1").Current)
}
