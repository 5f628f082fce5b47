package main

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/recallhq/recall/internal/eval/datasets"
	"github.com/recallhq/recall/pkg/events"
)

// The three ways a preference is told, each a kind of item.
const (
	kindStated  = "stated"
	kindPassing = "passing"
	kindChoice  = "choice"
)

// kinds are the kinds in the order the tables print them.
var kinds = []string{kindStated, kindPassing, kindChoice}

// statedAck is the assistant's turn after a stated preference: one fixed,
// neutral sentence, the evaluation's own scaffold (PrefEval has none).
const statedAck = "Thank you for letting me know."

// The calendar of an item: the preference session on prefDay, each
// haystack session gapMin to gapMax days after the one before (the first
// after the preference session), started between dayStart and dayStart +
// dayWindow; the question askMin to askMax days after the last haystack
// turn. 20 sessions so put the question 23 to 67 days after the
// preference.
var prefDay = time.Date(2024, 1, 8, 10, 0, 0, 0, time.UTC)

const (
	gapMin, gapMax = 1, 3
	askMin, askMax = 3, 7
	dayStart       = 9 * time.Hour
	dayWindow      = 10 * time.Hour
	turnSpacing    = 30 * time.Second
	// passingMinRunes and passingMaxRunes bound the request a passing
	// preference opens: a question to the assistant, not a greeting
	// ("hello") nor a pasted document (nine in ten of LongMemEval's first
	// user turns are between them).
	passingMinRunes, passingMaxRunes = 40, 1000
)

// item is one user: a preference told one way, buried under haystack
// sessions, and the question asked of the context weeks later.
type item struct {
	Kind, Topic string
	Index       int // the preference's place in its topic's list
	User        string
	Preference  string // the data's sentence; posted by stated and passing only
	Question    string
	// Chosen and Others are a choice's options: the one the user picked and
	// the three they did not; Offer and Pick its turns that offer them and
	// pick one.
	Chosen      string
	Others      []string
	Offer, Pick string
	// Haystack is the LongMemEval question whose history the haystack
	// sessions come from; Passing the LongMemEval session whose request a
	// passing preference opens.
	Haystack, Passing string
	// Conv holds every turn posted, in event-time order: the preference
	// session first, then the haystack sessions.
	Conv      datasets.Conversation
	PrefTurns int // turns of the preference session
	Asked     time.Time
}

// session is one LongMemEval session of the pool: its id in the data, its
// date and its turns as the data holds them.
type session struct {
	ID    string
	Start time.Time
	Turns []datasets.Turn
}

// pool is what items are built from: per LongMemEval instance, the
// sessions that may bury a preference, in date order; and the sessions
// whose request a passing preference may open.
type pool struct {
	Instances []string // question ids
	Haystack  [][]session
	Passing   []session
}

// newPool keeps, of every instance's history, the sessions without an
// evidence turn (has_answer) and with no turn the API refuses (empty, or
// longer than a turn may be), each once by its id in the data; and, over
// every instance, those that open with a user's request of
// passingMinRunes to passingMaxRunes followed by the assistant's reply, each
// once.
func newPool(insts []datasets.LongMemEvalInstance) pool {
	var p pool
	seenPassing := map[string]bool{}
	for _, in := range insts {
		evidence := map[string]bool{}
		for _, id := range in.Question.Evidence {
			evidence[id] = true
		}
		bySession := map[string][]datasets.Turn{}
		for _, t := range in.Turns {
			bySession[t.SessionID] = append(bySession[t.SessionID], t)
		}
		var kept []session
		seen := map[string]bool{}
		for i, s := range in.Sessions {
			id := strings.TrimPrefix(s.ID, fmt.Sprintf("%s-%d-", in.SampleID, i))
			turns := bySession[s.ID]
			if seen[id] || len(turns) == 0 || slices.ContainsFunc(turns, func(t datasets.Turn) bool {
				return evidence[t.ID] || strings.TrimSpace(t.Content) == "" || len(t.Content) > events.DefaultLimits.MaxContentBytes
			}) {
				continue
			}
			seen[id] = true
			kept = append(kept, session{ID: id, Start: turns[0].OccurredAt, Turns: turns})
		}
		slices.SortStableFunc(kept, func(a, b session) int { return a.Start.Compare(b.Start) })
		p.Instances = append(p.Instances, in.Question.ID)
		p.Haystack = append(p.Haystack, kept)
		for _, s := range kept {
			if seenPassing[s.ID] || len(s.Turns) < 2 || s.Turns[0].Role != "user" || s.Turns[1].Role != "assistant" ||
				utf8.RuneCountInString(s.Turns[0].Content) < passingMinRunes || utf8.RuneCountInString(s.Turns[0].Content) > passingMaxRunes {
				continue
			}
			seenPassing[s.ID] = true
			p.Passing = append(p.Passing, s)
		}
	}
	return p
}

// slot is one preference of the sample, told in every kind asked for over
// the same haystack at the same dates, so that the kinds differ only in
// how the preference was told.
type slot struct {
	Topic    string
	Index    int
	Haystack int       // instance in the pool
	Sessions []session // the haystack, in date order
	Starts   []time.Time
	Passing  session
	Asked    time.Time
}

// buildItems samples perTopic preferences of each topic (the same places
// for every kind) and builds their items of the given kinds, kind by kind,
// topic by topic, each kind cut to its first limit items when limit > 0.
// Everything drawn comes from seed: the sample, each slot's haystack
// instance (a different one for each slot while there are enough), its
// haystack sessions and their dates, the passing request and the
// question's date.
func buildItems(pe *datasets.PrefEval, p pool, perTopic, haystack int, kindsAsked []string, limit int, seed uint64) ([]item, error) {
	slots, err := sample(pe, p, perTopic, haystack, seed)
	if err != nil {
		return nil, err
	}
	var out []item
	for _, k := range kindsAsked {
		n := 0
		for _, s := range slots {
			if limit > 0 && n == limit {
				break
			}
			it, err := buildItem(pe, p, s, k)
			if err != nil {
				return nil, err
			}
			out = append(out, it)
			n++
		}
	}
	return out, nil
}

// sample draws the slots.
func sample(pe *datasets.PrefEval, p pool, perTopic, haystack int, seed uint64) ([]slot, error) {
	if len(p.Instances) == 0 || len(p.Passing) == 0 {
		return nil, fmt.Errorf("no LongMemEval sessions to bury a preference under")
	}
	r := rand.New(rand.NewPCG(seed, 0))
	instances := r.Perm(len(p.Instances))
	var slots []slot
	for _, topic := range pe.Topics {
		n := min(len(pe.Explicit[topic]), len(pe.Choice[topic]))
		places := r.Perm(n)[:min(perTopic, n)]
		slices.Sort(places)
		for _, i := range places {
			slots = append(slots, slot{Topic: topic, Index: i})
		}
	}
	for j := range slots {
		s := &slots[j]
		r := rand.New(rand.NewPCG(seed, uint64(j)+1))
		s.Haystack = instances[j%len(instances)]
		hay := p.Haystack[s.Haystack]
		if len(hay) < haystack {
			return nil, fmt.Errorf("LongMemEval %s has %d sessions without evidence, %d wanted", p.Instances[s.Haystack], len(hay), haystack)
		}
		picked := r.Perm(len(hay))[:haystack]
		slices.Sort(picked) // the history's date order
		ids := map[string]bool{}
		for _, k := range picked {
			s.Sessions = append(s.Sessions, hay[k])
			ids[hay[k].ID] = true
		}
		for {
			s.Passing = p.Passing[r.IntN(len(p.Passing))]
			if !ids[s.Passing.ID] {
				break
			}
		}
		day := prefDay.Truncate(24 * time.Hour)
		end := prefDay.Add(4 * turnSpacing) // the longest preference session
		for _, h := range s.Sessions {
			day = day.AddDate(0, 0, gapMin+r.IntN(gapMax-gapMin+1))
			start := day.Add(dayStart + time.Duration(r.IntN(int(dayWindow/time.Minute)))*time.Minute)
			if !start.After(end) { // a long session the day before
				start = end.Add(time.Hour)
			}
			s.Starts = append(s.Starts, start)
			end = start.Add(time.Duration(len(h.Turns)-1) * turnSpacing)
		}
		s.Asked = end.AddDate(0, 0, askMin+r.IntN(askMax-askMin+1))
	}
	return slots, nil
}

// buildItem is the slot's item of kind k.
func buildItem(pe *datasets.PrefEval, p pool, s slot, k string) (item, error) {
	ex := pe.Explicit[s.Topic][s.Index]
	it := item{
		Kind: k, Topic: s.Topic, Index: s.Index, User: fmt.Sprintf("pe-%s-%s-%03d", k, s.Topic, s.Index),
		Preference: ex.Preference, Question: ex.Question, Haystack: p.Instances[s.Haystack], Asked: s.Asked,
	}
	var said []datasets.Turn
	switch k {
	case kindStated:
		said = []datasets.Turn{{Role: "user", Content: ex.Preference}, {Role: "assistant", Content: statedAck}}
	case kindPassing:
		it.Passing = s.Passing.ID
		said = []datasets.Turn{
			{Role: "user", Content: ex.Preference + " " + s.Passing.Turns[0].Content},
			{Role: "assistant", Content: s.Passing.Turns[1].Content},
		}
	case kindChoice:
		c := pe.Choice[s.Topic][s.Index]
		it.Preference, it.Question, it.Chosen, it.Offer, it.Pick = c.Preference, c.Question, c.Chosen, c.AssistantOptions, c.UserSelection
		for _, o := range c.Options {
			if o != c.Chosen {
				it.Others = append(it.Others, o)
			}
		}
		said = []datasets.Turn{
			{Role: "user", Content: c.Query}, {Role: "assistant", Content: c.AssistantOptions},
			{Role: "user", Content: c.UserSelection}, {Role: "assistant", Content: c.AssistantAcknowledgment},
		}
	default:
		return item{}, fmt.Errorf("unknown kind %q", k)
	}
	it.Conv.SampleID = it.User
	it.PrefTurns = len(said)
	it.addSession(it.User+"-pref", prefDay, said)
	for i, h := range s.Sessions {
		it.addSession(fmt.Sprintf("%s-h%02d-%s", it.User, i, h.ID), s.Starts[i], h.Turns)
	}
	return it, nil
}

// addSession appends a session of turns from start, turnSpacing apart.
func (it *item) addSession(id string, start time.Time, turns []datasets.Turn) {
	it.Conv.Sessions = append(it.Conv.Sessions, datasets.Session{ID: id, Turns: len(turns)})
	for j, t := range turns {
		it.Conv.Turns = append(it.Conv.Turns, datasets.Turn{
			ID: fmt.Sprintf("%s-%d", id, j), SessionID: id, Role: t.Role, Content: t.Content, Text: t.Content,
			OccurredAt: start.Add(time.Duration(j) * turnSpacing),
		})
	}
}
