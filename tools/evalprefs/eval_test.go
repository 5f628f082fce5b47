package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/eval/contexteval"
	"github.com/recallhq/recall/internal/eval/datasets"
	"github.com/recallhq/recall/internal/eval/recallrun"
	"github.com/recallhq/recall/internal/testkit/testenv"
)

// prefEval is a small PrefEval in the loader's shape: two topics of three
// preferences, each also a choice.
func prefEval() *datasets.PrefEval {
	pe := &datasets.PrefEval{Topics: []string{"pets", "travel"}, Explicit: map[string][]datasets.PrefEvalItem{}, Choice: map[string][]datasets.PrefEvalChoice{}}
	for _, topic := range pe.Topics {
		for i := range 3 {
			it := datasets.PrefEvalItem{Topic: topic, Index: i,
				Preference: fmt.Sprintf("I strongly prefer quiet %s number %d.", topic, i), Question: fmt.Sprintf("What %s plans for me?", topic)}
			pe.Explicit[topic] = append(pe.Explicit[topic], it)
			opts := []string{fmt.Sprintf("A calm %s garden %d.", topic, i), "A loud fair.", "A packed stadium.", "A busy mall."}
			pe.Choice[topic] = append(pe.Choice[topic], datasets.PrefEvalChoice{PrefEvalItem: it, Options: opts, Chosen: opts[0],
				Query: "Ideas for Sunday?", AssistantOptions: "1. " + opts[2] + "\n2. " + opts[0] + "\n3. " + opts[1] + "\n4. " + opts[3],
				UserSelection: "Option 2, " + opts[0], AssistantAcknowledgment: "A calm choice."})
		}
	}
	return pe
}

// instances are n LongMemEval instances in the loader's shape, each of ten
// sessions given out of date order: session 3 holds an evidence turn,
// session 5 an empty turn, session 7 a request too long to open a passing
// preference, and session 8 is session 2 again.
func instances(n int) []datasets.LongMemEvalInstance {
	var out []datasets.LongMemEvalInstance
	for q := range n {
		u := fmt.Sprintf("lme-q%d", q)
		in := datasets.LongMemEvalInstance{Conversation: datasets.Conversation{SampleID: u}, Question: datasets.LongMemEvalQuestion{ID: fmt.Sprintf("q%d", q)}}
		for i := range 10 {
			dataID := fmt.Sprintf("s%d_%d", q, i)
			day := 10 - i
			if i == 8 {
				dataID, day = fmt.Sprintf("s%d_2", q), 30
			}
			sid := fmt.Sprintf("%s-%d-%s", u, i, dataID)
			in.Sessions = append(in.Sessions, datasets.Session{ID: sid, Turns: 2})
			at := time.Date(2023, 5, day, 14, 0, 0, 0, time.UTC)
			request := fmt.Sprintf("Request %s: how do I fix the chain of my bike?", dataID)
			reply := fmt.Sprintf("Reply %s: check the chain.", dataID)
			switch i {
			case 3:
				in.Question.Evidence = append(in.Question.Evidence, sid+"-0")
				request = "EVIDENCE " + request
			case 5:
				reply = " "
			case 7:
				request += strings.Repeat(" and more", 200)
			case 9:
				request = "hello"
			}
			in.Turns = append(in.Turns,
				datasets.Turn{ID: sid + "-0", SessionID: sid, Role: "user", Content: request, OccurredAt: at},
				datasets.Turn{ID: sid + "-1", SessionID: sid, Role: "assistant", Content: reply, OccurredAt: at.Add(30 * time.Second)})
		}
		slices.SortStableFunc(in.Turns, func(a, b datasets.Turn) int { return a.OccurredAt.Compare(b.OccurredAt) })
		out = append(out, in)
	}
	return out
}

func TestNewPool(t *testing.T) {
	t.Parallel()
	p := newPool(instances(2))
	require.Equal(t, []string{"q0", "q1"}, p.Instances)
	var ids []string
	for _, s := range p.Haystack[0] {
		ids = append(ids, s.ID)
	}
	// Sessions 3 (evidence) and 5 (an empty turn) are left out, session 2
	// is kept once; the rest in date order (the data gives them newest
	// first).
	require.Equal(t, []string{"s0_9", "s0_7", "s0_6", "s0_4", "s0_2", "s0_1", "s0_0"}, ids)
	require.Len(t, p.Passing, 10, "each instance's five sessions with a request neither too long nor a greeting")
	for _, s := range p.Passing {
		require.NotContains(t, []string{"s0_7", "s0_9"}, s.ID)
	}
}

func buildTest(t *testing.T, perTopic int, ks []string, limit int, seed uint64) []item {
	t.Helper()
	items, err := buildItems(prefEval(), newPool(instances(5)), perTopic, 4, ks, limit, seed)
	require.NoError(t, err)
	return items
}

func TestBuildItemsKinds(t *testing.T) {
	t.Parallel()
	items := buildTest(t, 2, kinds, 0, 1)
	require.Len(t, items, 3*2*2, "three kinds, two topics, two preferences each")
	byUser := map[string]item{}
	for _, it := range items {
		byUser[it.User] = it
		require.Regexp(t, `^pe-(stated|passing|choice)-(pets|travel)-00[0-2]$`, it.User)
		require.Len(t, it.Conv.Sessions, 1+4)
		require.Equal(t, it.User+"-pref", it.Conv.Sessions[0].ID)
	}
	kindsOf := func(items []item) []string {
		var out []string
		for _, it := range items {
			out = append(out, it.Kind)
		}
		return slices.Compact(out)
	}
	require.Equal(t, kinds, kindsOf(items), "kind by kind")

	first := items[0]
	require.Equal(t, kindStated, first.Kind)
	told := first.Conv.Turns[:first.PrefTurns]
	require.Equal(t, []string{"user", "assistant"}, []string{told[0].Role, told[1].Role})
	require.Equal(t, first.Preference, told[0].Content)
	require.Equal(t, statedAck, told[1].Content)

	// The same preference told the other ways, over the same haystack.
	suffix := strings.TrimPrefix(first.User, "pe-stated-")
	passing, choice := byUser["pe-passing-"+suffix], byUser["pe-choice-"+suffix]
	told = passing.Conv.Turns[:passing.PrefTurns]
	require.Len(t, told, 2)
	require.Regexp(t, "^"+regexp.QuoteMeta(first.Preference)+` Request s\d_\d: how do I fix the chain of my bike\?$`, told[0].Content)
	require.Equal(t, "assistant", told[1].Role)
	require.True(t, strings.HasPrefix(told[1].Content, "Reply "+passing.Passing+":"), "the reply of the same session")
	told = choice.Conv.Turns[:choice.PrefTurns]
	require.Equal(t, []string{"Ideas for Sunday?", "user", "assistant"}, []string{told[0].Content, told[2].Role, told[3].Role})
	require.True(t, strings.HasPrefix(told[2].Content, "Option 2"))
	require.Equal(t, choice.Chosen, prefEval().Choice[choice.Topic][choice.Index].Options[0])
	require.Len(t, choice.Others, 3)
	for _, tr := range choice.Conv.Turns {
		require.NotContains(t, tr.Content, choice.Preference, "a choice never says the preference")
	}
	for _, it := range []item{passing, choice} {
		require.Equal(t, first.Haystack, it.Haystack)
		require.Equal(t, haystackOf(first), haystackOf(it), "the same sessions at the same times")
		require.Equal(t, first.Asked, it.Asked)
	}
	// The passing request is not one of the haystack's sessions.
	for _, tr := range passing.Conv.Turns[passing.PrefTurns:] {
		require.NotContains(t, tr.SessionID, "-"+passing.Passing)
	}
}

// haystackOf is an item's haystack turns without the user's name in their
// ids.
func haystackOf(it item) []string {
	var out []string
	for _, t := range it.Conv.Turns[it.PrefTurns:] {
		out = append(out, strings.TrimPrefix(t.ID, it.User)+" "+t.OccurredAt.Format(time.RFC3339)+" "+t.Content)
	}
	return out
}

func TestBuildItemsDates(t *testing.T) {
	t.Parallel()
	for _, it := range buildTest(t, 3, kinds, 0, 7) {
		turns := it.Conv.Turns
		for i := 1; i < len(turns); i++ {
			require.True(t, turns[i].OccurredAt.After(turns[i-1].OccurredAt), "%s: turns in event-time order", it.User)
			if turns[i].SessionID == turns[i-1].SessionID {
				require.Equal(t, 30*time.Second, turns[i].OccurredAt.Sub(turns[i-1].OccurredAt))
			}
		}
		require.Equal(t, prefDay, turns[0].OccurredAt, "the preference first")
		// Each haystack session a day or a few after the one before, in
		// the history's order (their data ids count down as their dates
		// go up).
		starts := map[string]time.Time{}
		var order []string
		for _, tr := range turns[it.PrefTurns:] {
			if _, ok := starts[tr.SessionID]; !ok {
				starts[tr.SessionID] = tr.OccurredAt
				order = append(order, tr.SessionID)
			}
		}
		prev := prefDay
		for _, sid := range order {
			gap := starts[sid].Truncate(24*time.Hour).Sub(prev.Truncate(24*time.Hour)) / (24 * time.Hour)
			require.GreaterOrEqual(t, gap, time.Duration(1), "%s: %s", it.User, sid)
			require.LessOrEqual(t, gap, time.Duration(3), "%s: %s", it.User, sid)
			prev = starts[sid]
		}
		n := func(sid string) int {
			var k int
			_, err := fmt.Sscanf(sid[strings.LastIndex(sid, "_")+1:], "%d", &k)
			require.NoError(t, err)
			return k
		}
		for i := 1; i < len(order); i++ {
			require.Greater(t, n(order[i-1]), n(order[i]), "the history's date order")
		}
		last := turns[len(turns)-1].OccurredAt
		require.GreaterOrEqual(t, it.Asked.Sub(last), 3*24*time.Hour)
		require.LessOrEqual(t, it.Asked.Sub(last), 7*24*time.Hour)
	}
}

func TestBuildItemsNoEvidence(t *testing.T) {
	t.Parallel()
	for _, it := range buildTest(t, 3, kinds, 0, 3) {
		for _, tr := range it.Conv.Turns {
			require.NotContains(t, tr.Content, "EVIDENCE", it.User)
			require.NotEqual(t, "", strings.TrimSpace(tr.Content), it.User)
		}
	}
}

func TestBuildItemsBySeed(t *testing.T) {
	t.Parallel()
	a, b := buildTest(t, 2, kinds, 0, 5), buildTest(t, 2, kinds, 0, 5)
	require.Equal(t, a, b, "the same seed, the same items")
	c := buildTest(t, 2, kinds, 0, 6)
	require.NotEqual(t, a, c)
	// A subset of the kinds or a limit builds the same items, fewer.
	only := buildTest(t, 2, []string{kindChoice}, 0, 5)
	require.Equal(t, a[8:], only)
	limited := buildTest(t, 2, kinds, 1, 5)
	require.Equal(t, []item{a[0], a[4], a[8]}, limited, "the first of each kind")
	// Each slot's haystack from its own instance while there are enough.
	var hs []string
	for _, it := range a[:4] {
		hs = append(hs, it.Haystack)
	}
	require.Len(t, slices.Compact(slices.Sorted(slices.Values(hs))), 4)
}

func TestStems(t *testing.T) {
	t.Parallel()
	require.Equal(t, []string{"activities", "activity", "activiti", "activitie"}, stems("activities"))
	require.Equal(t, []string{"games", "gam", "game"}, stems("games"))
	require.Equal(t, []string{"cooking", "cook"}, stems("cooking"))
	require.Equal(t, []string{"bus"}, stems("bus"), "three letters are kept")
}

func TestFind(t *testing.T) {
	t.Parallel()
	pref := item{Kind: kindStated, Preference: "I follow a strict gluten-free and dairy-free diet."}
	// Content words: follow strict gluten free dairy diet (six; "free" once).
	tg := newTarget(pref)
	require.Equal(t, []string{"follow", "strict", "gluten", "free", "dairy", "diet"}, tg.pref)
	cases := []struct {
		name, prompt string
		carried      bool
		share        float64
	}{
		{"the sentence in a snippet", "[Mon 8 Jan 2024] User: I follow a strict gluten-free and dairy-free diet.", true, 1},
		{"five of six words", "Memory:\n- diet: strictly gluten-free, dairy-free (follows it)", true, 5.0 / 6},
		{"four of six", "gluten-free and dairy-free diet", false, 4.0 / 6},
		{"split across lines", "I follow a strict diet\nit is gluten-free and dairy-free", false, 0.5},
		{"stopwords do not count", "I follow strict gluten free dairy diet", true, 1},
		{"nothing", "User: recommend cafes in San Francisco", false, 0},
	}
	for _, c := range cases {
		m := tg.find(c.prompt)
		require.Equal(t, c.carried, m.Carried, c.name)
		require.InDelta(t, c.share, m.PrefShare, 1e-9, c.name)
		if c.carried {
			require.Equal(t, rulePreference, m.Rule, c.name)
		}
	}

	choice := item{Kind: kindChoice, Preference: "I prefer quiet places.", Chosen: "Fresh fruits, nuts, and veggie sticks with hummus.",
		Others: []string{"Beef jerky, cheese sticks, and honey-roasted nuts.", "Trail mix with chocolate-covered raisins.", "Milk chocolate bars."}}
	tg = newTarget(choice)
	m := tg.find("[Tue 9 Jan] User: I'll go with the fresh fruits, nuts, and veggie sticks with hummus.")
	require.True(t, m.Carried)
	require.Equal(t, ruleChoice, m.Rule)
	require.Equal(t, 1.0, m.ChoiceShare)
	// The assistant's list holds every option: it shows what was offered.
	list := "Assistant: 1. Trail mix with chocolate-covered raisins. 2. Beef jerky, cheese sticks, and honey-roasted nuts. 3. Fresh fruits, nuts, and veggie sticks with hummus. 4. Milk chocolate bars."
	m = tg.find(list)
	require.False(t, m.Carried)
	require.Equal(t, 1.0, m.ChoiceShare)
	// The assistant's turn offering them, cut short where the picked
	// option is the only one left, shows the offer all the same.
	choice.Offer = "For a long road trip, some good snack options could be:\n1. Fresh fruits, nuts, and veggie sticks with hummus.\n2. Beef jerky, cheese sticks, and honey-roasted nuts.\n3. Trail mix with chocolate-covered raisins."
	tg = newTarget(choice)
	cut := "  Assistant: For a long road trip, some good snack options could be: 1. Fresh fruits, nuts, and veggie sticks with hummus. 2. Beef…"
	require.True(t, newTarget(item{Kind: kindChoice, Chosen: choice.Chosen, Others: choice.Others}).find(cut).Carried, "without the offer's turn it would count")
	require.False(t, tg.find(cut).Carried)
	m = tg.find(list + "\nUser: the fruit, nut and veggie stick one with hummus")
	require.True(t, m.Carried, "plurals meet their singulars")
	require.Equal(t, "User: the fruit, nut and veggie stick one with hummus", m.Line)
	// A list of most options shows what was offered, even when the
	// preference's words are in it; the user's pick, naming a rejected
	// option in saying why, shows the choice.
	games := item{Kind: kindChoice, Preference: "I do not like card games or deck-building games.", Chosen: "How about a strategy game like Chess or Go?",
		Others: []string{"A deck-building game like Dominion.", "A deck-builder game called Clank!", "A card game like Poker or Bridge."}}
	games.Offer = "How about:\n1. A strategy game like Chess or Go?\n2. A deck-building game like Dominion."
	m = newTarget(games).find("Assistant: How about: 1. A strategy game like Chess or Go? 2. A deck-building game like Dominion. 3. A deck-builder game called Clank! 4. A card game like Poker or Bridge.")
	require.False(t, m.Carried)
	require.Equal(t, 1.0, m.PrefShare)
	pick := "User: Let's go with option 1, a strategy game like Chess or Go. The other options involving cards or deck-building don't really appeal to me."
	m = newTarget(games).find(pick)
	require.True(t, m.Carried)
	require.Equal(t, rulePreference, m.Rule, "the preference's words first")
	// A choice carried by the preference's words counts too.
	m = tg.find("User: I prefer quiet places")
	require.True(t, m.Carried)
	require.Equal(t, rulePreference, m.Rule)
	// The option's rule is a choice's only.
	require.False(t, newTarget(item{Kind: kindStated, Preference: choice.Preference, Chosen: choice.Chosen}).find("fresh fruits nuts veggie sticks hummus").Carried)
}

// TestChosenIsTheNamedOption holds the data to what the scoring assumes of
// it: where the user's pick names an option by its number in a list of one
// option a line, the option so listed shares more content words with the
// data's first option (Chosen) than with any other.
func TestChosenIsTheNamedOption(t *testing.T) {
	t.Parallel()
	dir, err := datasets.Dir(datasets.DefaultDir)
	require.NoError(t, err)
	pe, err := datasets.LoadPrefEval(dir)
	require.NoError(t, err)
	named := regexp.MustCompile(`(?i)\boption\s*(\d)\b`)
	listed := regexp.MustCompile(`(?m)^\s*(\d)[.)]\s*(.+)$`)
	checked := 0
	for _, topic := range pe.Topics {
		for _, c := range pe.Choice[topic] {
			nums := map[string]bool{}
			for _, m := range named.FindAllStringSubmatch(c.UserSelection, -1) {
				nums[m[1]] = true
			}
			lines := listed.FindAllStringSubmatch(c.AssistantOptions, -1)
			if len(nums) != 1 || len(lines) != len(c.Options) {
				continue
			}
			var pick string
			for _, l := range lines {
				if nums[l[1]] {
					pick = l[2]
				}
			}
			require.NotEmpty(t, pick, "%s %d", topic, c.Index)
			l := newLine(pick)
			best := slices.MaxFunc(c.Options, func(a, b string) int {
				sa, sb := l.share(words(a)), l.share(words(b))
				switch {
				case sa < sb:
					return -1
				case sa > sb:
					return 1
				}
				return 0
			})
			require.Equal(t, c.Chosen, best, "%s %d: %q", topic, c.Index, pick)
			checked++
		}
	}
	require.Equal(t, 127, checked)
}

func TestTally(t *testing.T) {
	t.Parallel()
	items := buildTest(t, 1, kinds, 0, 2)
	recalled := make([]string, len(items))
	for i, it := range items {
		if it.Kind == kindStated {
			recalled[i] = "User: " + it.Preference
		}
	}
	var lines bytes.Buffer
	rows, err := tally(items, recalled, options{Options: contexteval.Options{Budget: 8000, QuestionsOut: &lines}})
	require.NoError(t, err)
	require.Len(t, rows, 4)
	r := rows[0]
	require.Equal(t, contexteval.RowRecall, r.Name)
	require.Equal(t, map[string]float64{kindStated: 1, kindPassing: 0, kindChoice: 0}, r.ByKind)
	require.InDelta(t, 1.0/3, r.Carried, 1e-9)
	require.Equal(t, map[string]float64{"pets": 1, "travel": 1}, r.ByTopic[kindStated])
	full := rows[3]
	require.Equal(t, contexteval.RowFull, full.Name)
	require.Equal(t, 1.0, full.Carried, "the full history holds every preference, and every choice's pick")
	require.Equal(t, 2, full.ByRule[ruleChoice])
	require.Equal(t, 1.0, full.PickTurn)
	require.Equal(t, 0.0, r.PickTurn)
	// The assistant's list, one option a line in the data, is one line in
	// the baselines as in Recall's prompt: alone it carries nothing, where
	// the data's own line breaks would give its picked option a line.
	ch := items[len(items)-1]
	require.Equal(t, kindChoice, ch.Kind)
	listOnly := func(turns []datasets.Turn) string {
		return contexteval.NewBaselines(turns[:2], 8000).Prompts("", "")[3]
	}
	require.False(t, newTarget(ch).find(listOnly(oneLine(ch.Conv.Turns))).Carried)
	require.True(t, newTarget(ch).find(listOnly(ch.Conv.Turns)).Carried)

	require.Equal(t, len(items), strings.Count(lines.String(), "\n"), "one line per item")
	var first struct {
		User   string
		Told   []string
		Scores []itemScore
	}
	require.NoError(t, json.Unmarshal([]byte(strings.SplitN(lines.String(), "\n", 2)[0]), &first))
	require.Equal(t, items[0].User, first.User)
	require.Equal(t, []string{"user: " + items[0].Preference, "assistant: " + statedAck}, first.Told)
	require.True(t, first.Scores[0].Carried)
	require.Equal(t, "User: "+items[0].Preference, first.Scores[0].Line)
}

// TestEndToEnd runs the whole harness on one preference told the three
// ways over the real data: a fresh database, a real `recall run` child with
// embedded JetStream, every turn through the API and the workers, the
// question asked weeks later at `at`, and the tables printed. It skips only
// under -short.
func TestEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL-backed recall run as a child process")
	}
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	dir, err := datasets.Dir(datasets.DefaultDir)
	require.NoError(t, err)
	root, err := recallrun.RepoRoot()
	require.NoError(t, err)
	o := options{
		Options: contexteval.Options{DataDir: dir, Budget: 8000, Tenant: "eval", Concurrency: 2,
			System: recallrun.Options{AdminURL: testenv.AdminURL(), Root: root, StopTimeout: 30 * time.Second},
			Settle: recallrun.SettleOptions{Quiet: 3 * time.Second, Timeout: 2 * time.Minute, Poll: 200 * time.Millisecond}},
		PerTopic: 1, Kinds: kinds, Haystack: 20, Limit: 1, Seed: 1, PostConcurrency: 3,
	}
	log := slog.New(slog.NewTextHandler(t.Output(), nil))
	rep, err := run(ctx, o, log)
	require.NoError(t, err)

	var out bytes.Buffer
	printTables(&out, rep)
	t.Log("\n" + out.String())

	require.Equal(t, 3, rep.Items)
	require.Equal(t, map[string]int{kindStated: 1, kindPassing: 1, kindChoice: 1}, rep.ByKind)
	require.Equal(t, 3*21, rep.Sessions)
	require.Empty(t, rep.Refused)
	require.Equal(t, int64(rep.Turns), rep.Stored, "every turn was stored")
	require.Contains(t, rep.Consumers, "RECALL_TURNS/ingest", "the workers' consumers were found and awaited")
	require.GreaterOrEqual(t, rep.Days[0], 23.0)
	require.Len(t, rep.Rows, 4)
	full, recall := rep.Row(contexteval.RowFull), rep.Row(contexteval.RowRecall)
	require.Equal(t, 1.0, full.ByKind[kindStated], "the full history holds the preference")
	require.Equal(t, 1.0, full.ByKind[kindPassing])
	require.Greater(t, recall.PromptChars, 0.0, "Recall answered with a prompt")
	require.LessOrEqual(t, rep.Row(contexteval.RowBM25).PromptChars, 8000.0)
	for _, phase := range []string{"load", "start", "post", "settle", "questions", "total"} {
		require.Contains(t, rep.Seconds, phase)
	}
	require.Contains(t, out.String(), "carried per topic, recall / bm25:")
	require.Contains(t, out.String(), "/v1/context at the question's date (`at`)")

	// The run dropped its database.
	conn, err := pgx.Connect(ctx, testenv.AdminURL())
	require.NoError(t, err)
	defer conn.Close(context.WithoutCancel(ctx))
	var exists bool
	require.NoError(t, conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, rep.Database).Scan(&exists))
	require.NotEmpty(t, rep.Database)
	require.False(t, exists, "database %s left behind", rep.Database)
}
