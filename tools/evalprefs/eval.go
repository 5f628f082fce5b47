package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/recallhq/recall/internal/eval/contexteval"
	"github.com/recallhq/recall/internal/eval/datasets"
	"github.com/recallhq/recall/internal/eval/recallrun"
	"github.com/recallhq/recall/pkg/queue"
)

// options configure one evaluation run.
type options struct {
	contexteval.Options
	PerTopic        int      // preferences drawn per topic, told in every kind
	Kinds           []string // kinds to build, in kinds' order
	Haystack        int      // LongMemEval sessions burying each preference
	Limit           int      // items per kind; 0: all
	Seed            uint64
	PostConcurrency int // users posted at once
	// Stored skips posting and settling: the API at APIURL serves a
	// database that holds the turns already (the same seed and sample).
	Stored bool
}

// rowResult is one row of the tables: a prompt (Recall's or a baseline's)
// over every item.
type rowResult struct {
	Name    string             `json:"name"`
	Carried float64            `json:"carried"` // share of all items
	ByKind  map[string]float64 `json:"carried_by_kind"`
	// ByTopic is, per kind, the share carried per topic.
	ByTopic     map[string]map[string]float64 `json:"carried_by_kind_and_topic"`
	ByRule      map[string]int                `json:"carried_by_rule"`
	PromptChars float64                       `json:"prompt_chars"`
	// PickTurn is, over the choices, the share of prompts that hold the
	// user's pick turn (its first 60 characters, as contexteval finds an
	// evidence turn): what a choice's rule could find at best when the
	// pick names the option by its number or in a few words.
	PickTurn float64 `json:"choice_pick_turn"`

	all, chars, pick contexteval.Mean
	byKind           contexteval.Groups
	byTopic          map[string]contexteval.Groups
}

// report is everything one run measured.
type report struct {
	Items    int            `json:"items"`
	ByKind   map[string]int `json:"items_by_kind"`
	Topics   []string       `json:"topics"`
	PerTopic int            `json:"per_topic"`
	Seed     uint64         `json:"seed"`
	Haystack int            `json:"haystack_sessions_per_item"`
	Sessions int            `json:"sessions"`
	Turns    int            `json:"turns"`
	Stored   int64          `json:"stored_messages"`
	// Refused are the turns the API refused: never stored, still in the
	// baselines.
	Refused []string `json:"refused_turns"`
	// Days are the days from the preference to the question: the
	// shortest, the mean and the longest.
	Days          [3]float64   `json:"days_preference_to_question"`
	Budget        int          `json:"budget"`
	Rows          []*rowResult `json:"rows"`
	ContextMethod string       `json:"context_method"`
	Consumers     []string     `json:"consumers"`
	Database      string       `json:"database,omitempty"` // the database the run created
	// Seconds are the phases' timings: load, start, post, settle
	// (the pipeline), questions (asking and scoring), total.
	Seconds map[string]float64 `json:"seconds"`
}

// Row returns the row of the given name.
func (r *report) Row(name string) *rowResult {
	for _, row := range r.Rows {
		if row.Name == name {
			return row
		}
	}
	return nil
}

// load reads both data sets and builds the items.
func load(o options) ([]item, error) {
	pe, err := datasets.LoadPrefEval(o.DataDir)
	if err != nil {
		return nil, err
	}
	insts, err := datasets.LoadLongMemEvalInstances(o.DataDir)
	if err != nil {
		return nil, err
	}
	return buildItems(pe, newPool(insts), o.PerTopic, o.Haystack, o.Kinds, o.Limit, o.Seed)
}

// run builds the items, posts every user's turns to Recall (started here
// unless o.APIURL is set), waits for the pipeline, asks every question and
// scores every row.
func run(ctx context.Context, o options, log *slog.Logger) (*report, error) {
	if o.Stored && o.APIURL == "" {
		return nil, errors.New("-stored asks a running Recall: give its -api")
	}
	began := time.Now()
	items, err := load(o)
	if err != nil {
		return nil, err
	}
	rep := &report{Items: len(items), ByKind: map[string]int{}, PerTopic: o.PerTopic, Seed: o.Seed, Haystack: o.Haystack,
		Budget: o.Budget, Seconds: map[string]float64{}}
	days := contexteval.Mean{}
	for _, it := range items {
		rep.ByKind[it.Kind]++
		if !slices.Contains(rep.Topics, it.Topic) {
			rep.Topics = append(rep.Topics, it.Topic)
		}
		rep.Sessions += len(it.Conv.Sessions)
		rep.Turns += len(it.Conv.Turns)
		d := it.Asked.Sub(it.Conv.Turns[0].OccurredAt).Hours() / 24
		if days.N == 0 || d < rep.Days[0] {
			rep.Days[0] = d
		}
		rep.Days[2] = max(rep.Days[2], d)
		days.Add(d, true)
	}
	rep.Days[1] = days.Value()
	slices.Sort(rep.Topics)
	rep.Seconds["load"] = time.Since(began).Seconds()
	log.Info("built", "items", len(items), "turns", rep.Turns)

	apiURL, natsConn := o.APIURL, o.NATS
	if apiURL == "" {
		t := time.Now()
		sys, stop, err := recallrun.Start(ctx, o.System, log)
		if err != nil {
			return nil, err
		}
		defer stop()
		apiURL, natsConn = sys.APIURL, sys.NATS
		rep.Database = sys.DBName
		rep.Seconds["start"] = time.Since(t).Seconds()
	}
	c := recallrun.NewClient(apiURL, o.Tenant, o.APIKey)
	if !o.Stored {
		if err := feed(ctx, c, natsConn, items, o, rep, log); err != nil {
			return nil, err
		}
	}

	t := time.Now()
	if err := score(ctx, c, items, o, rep, log); err != nil {
		return nil, err
	}
	rep.ContextMethod = "POST"
	if c.GetOnly() {
		rep.ContextMethod = "GET"
	}
	rep.Seconds["questions"] = time.Since(t).Seconds()
	rep.Seconds["total"] = time.Since(began).Seconds()
	return rep, nil
}

// feed posts every item's turns and waits until the pipeline has stored
// and processed them.
func feed(ctx context.Context, c *recallrun.Client, natsConn queue.NATSConfig, items []item, o options, rep *report, log *slog.Logger) error {
	convs := make([]datasets.Conversation, len(items))
	for i, it := range items {
		convs[i] = it.Conv
	}
	t := time.Now()
	posted, err := contexteval.Post(ctx, c, convs, o.PostConcurrency, log)
	if err != nil {
		return err
	}
	rep.Seconds["post"] = time.Since(t).Seconds()
	for _, r := range posted.Refused {
		rep.Refused = append(rep.Refused, r.Error())
	}
	log.Info("posted", "turns", posted.Total, "refused", len(posted.Refused), "seconds", rep.Seconds["post"])
	want := map[string]int64{}
	for _, it := range items {
		for _, s := range it.Conv.Sessions {
			want[it.User] += posted.Want[s.ID]
		}
	}

	t = time.Now()
	so := o.Settle
	so.NATS = natsConn
	settled, err := recallrun.Settle(ctx, recallrun.UserCounter(c, want), posted.Total, so, log)
	if err != nil {
		return err
	}
	rep.Stored, rep.Consumers = settled.Stored, settled.Consumers
	rep.Seconds["settle"] = time.Since(t).Seconds()
	return nil
}

// score asks Recall for the context of every item's question, each in a
// new session at the item's question date (`at`), and fills rep's rows.
func score(ctx context.Context, c *recallrun.Client, items []item, o options, rep *report, log *slog.Logger) error {
	reqs := make([]recallrun.ContextRequest, len(items))
	for i, it := range items {
		reqs[i] = recallrun.ContextRequest{UserID: it.User, SessionID: it.User + "-question", Query: it.Question, Budget: o.Budget,
			At: it.Asked.UTC().Format(time.RFC3339)}
	}
	log.Info("asking", "questions", len(reqs), "concurrency", o.Concurrency)
	recalled, err := contexteval.Ask(ctx, c, reqs, o.Concurrency, func(i int) string { return "user " + items[i].User })
	if err != nil {
		return err
	}
	rep.Rows, err = tally(items, recalled, o)
	return err
}

// itemScore is one row's result for one item.
type itemScore struct {
	Row string `json:"row"`
	match
	// PickTurn says, for a choice, whether the prompt holds the user's
	// pick turn.
	PickTurn    *bool `json:"pick_turn,omitempty"`
	PromptChars int   `json:"prompt_chars"`
}

// tally scores every item's prompts: Recall's, recalled[i], and the
// baselines' over the same user's turns.
func tally(items []item, recalled []string, o options) ([]*rowResult, error) {
	rows := make([]*rowResult, len(contexteval.RowNames))
	for i, n := range contexteval.RowNames {
		rows[i] = &rowResult{Name: n, ByRule: map[string]int{}, byKind: contexteval.Groups{}, byTopic: map[string]contexteval.Groups{}}
	}
	for i, it := range items {
		tg := newTarget(it)
		ps := contexteval.NewBaselines(oneLine(it.Conv.Turns), o.Budget).Prompts(recalled[i], it.Question)
		scores := make([]itemScore, len(ps))
		for r, p := range ps {
			scores[r] = rows[r].add(it, p, tg.find(p))
		}
		if o.QuestionsOut != nil {
			if err := writeItem(o.QuestionsOut, it, ps[0], scores); err != nil {
				return nil, err
			}
		}
	}
	for _, r := range rows {
		r.finish()
	}
	return rows, nil
}

// oneLine is the turns with their white space collapsed, each turn one
// line, as Recall's prompt shows a remembered turn: the scoring looks for
// the preference in one line, and a line should be a turn in every row (the
// assistant's list of four options, one a line in the data, would otherwise
// give a baseline a line holding the picked option alone).
func oneLine(turns []datasets.Turn) []datasets.Turn {
	out := slices.Clone(turns)
	for i := range out {
		out[i].Content = strings.Join(strings.Fields(out[i].Content), " ")
	}
	return out
}

// add counts one item's prompt.
func (r *rowResult) add(it item, prompt string, m match) itemScore {
	s := itemScore{Row: r.Name, match: m, PromptChars: utf8.RuneCountInString(prompt)}
	v := 0.0
	if m.Carried {
		v = 1
		r.ByRule[m.Rule]++
	}
	r.all.Add(v, true)
	r.byKind.Add(it.Kind, v, true)
	if r.byTopic[it.Kind] == nil {
		r.byTopic[it.Kind] = contexteval.Groups{}
	}
	r.byTopic[it.Kind].Add(it.Topic, v, true)
	r.chars.Add(float64(s.PromptChars), true)
	if it.Kind == kindChoice {
		v, _ := contexteval.EvidenceRecall(prompt, []string{it.Pick})
		held := v == 1
		s.PickTurn = &held
		r.pick.Add(v, true)
	}
	return s
}

func (r *rowResult) finish() {
	r.Carried, r.PromptChars, r.PickTurn = r.all.Value(), r.chars.Value(), r.pick.Value()
	r.ByKind = r.byKind.Values()
	r.ByTopic = map[string]map[string]float64{}
	for k, g := range r.byTopic {
		r.ByTopic[k] = g.Values()
	}
}

// writeItem writes one item's line of the -questions report: what was
// told, what is looked for, every row's result with the line that carried
// it, and Recall's prompt.
func writeItem(w io.Writer, it item, prompt string, scores []itemScore) error {
	b, err := json.Marshal(struct {
		User       string      `json:"user"`
		Kind       string      `json:"kind"`
		Topic      string      `json:"topic"`
		Index      int         `json:"index"`
		Preference string      `json:"preference"`
		Chosen     string      `json:"chosen_option,omitempty"`
		Told       []string    `json:"told"`
		Haystack   string      `json:"haystack"`
		Passing    string      `json:"passing_session,omitempty"`
		Asked      time.Time   `json:"asked_at"`
		Question   string      `json:"question"`
		Scores     []itemScore `json:"scores"`
		Prompt     string      `json:"prompt"`
	}{it.User, it.Kind, it.Topic, it.Index, it.Preference, it.Chosen, told(it), it.Haystack, it.Passing, it.Asked, it.Question, scores, prompt})
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// told are the preference session's turns, "role: content".
func told(it item) []string {
	out := make([]string, it.PrefTurns)
	for i, t := range it.Conv.Turns[:it.PrefTurns] {
		out[i] = t.Role + ": " + t.Content
	}
	return out
}

// printTables writes the human-readable report: the share carried per row
// and kind, per topic for Recall and BM25, and the phases' timings.
func printTables(w io.Writer, rep *report) {
	var byKind []string
	present := presentKinds(rep)
	for _, k := range present {
		byKind = append(byKind, fmt.Sprintf("%s %d", k, rep.ByKind[k]))
	}
	fmt.Fprintf(w, "prefeval context eval: %d users (%s) over %d topics, each under %d LongMemEval sessions; %d sessions, %d turns; question %.0f–%.0f days (mean %.0f) after the preference; budget %d, seed %d\n",
		rep.Items, strings.Join(byKind, ", "), len(rep.Topics), rep.Haystack, rep.Sessions, rep.Turns, rep.Days[0], rep.Days[2], rep.Days[1], rep.Budget, rep.Seed)
	cols := []contexteval.Column{{Head: "carried", Width: 13}}
	for _, k := range present {
		cols = append(cols, contexteval.Column{Head: k, Width: 8})
	}
	cols = append(cols, contexteval.Column{Head: "all", Width: 8}, contexteval.Column{Head: "prompt-chars", Width: 12})
	var cells [][]string
	for _, r := range rep.Rows {
		line := []string{r.Name}
		for _, k := range present {
			v, ok := r.ByKind[k]
			line = append(line, contexteval.Cell(v, ok, 3))
		}
		line = append(line, contexteval.Cell(r.Carried, rep.Items > 0, 3), contexteval.Cell(r.PromptChars, rep.Items > 0, 0))
		cells = append(cells, line)
	}
	contexteval.WriteTable(w, cols, cells)

	if rep.Row(contexteval.RowRecall) != nil && rep.Row(contexteval.RowBM25) != nil {
		recall, bm25 := rep.Row(contexteval.RowRecall), rep.Row(contexteval.RowBM25)
		fmt.Fprintln(w, "carried per topic, recall / bm25:")
		cols := []contexteval.Column{{Head: "topic", Width: 26}}
		for _, k := range present {
			cols = append(cols, contexteval.Column{Head: k, Width: 12})
		}
		var cells [][]string
		for _, topic := range rep.Topics {
			line := []string{topic}
			for _, k := range present {
				a, ok := recall.ByTopic[k][topic]
				b := bm25.ByTopic[k][topic]
				line = append(line, contexteval.Cell(a, ok, 2)+" / "+contexteval.Cell(b, ok, 2))
			}
			cells = append(cells, line)
		}
		contexteval.WriteTable(w, cols, cells)
		fmt.Fprintf(w, "carried by rule (recall): %d by the preference's words, %d by the picked option's\n",
			recall.ByRule[rulePreference], recall.ByRule[ruleChoice])
	}

	if rep.ByKind[kindChoice] > 0 {
		var held []string
		for _, r := range rep.Rows {
			held = append(held, fmt.Sprintf("%s %.3f", r.Name, r.PickTurn))
		}
		fmt.Fprintf(w, "choice: the user's pick turn in the prompt: %s\n", strings.Join(held, ", "))
	}
	fmt.Fprintf(w, "stored %d of %d turns; context by %s /v1/context at the question's date (`at`)\n", rep.Stored, rep.Turns, rep.ContextMethod)
	for _, r := range rep.Refused {
		fmt.Fprintf(w, "refused by the API: %s\n", r)
	}
	fmt.Fprintf(w, "timings: load %.0fs, start %.0fs, post %.0fs, pipeline %.0fs, questions %.0fs, total %.0fs\n",
		rep.Seconds["load"], rep.Seconds["start"], rep.Seconds["post"], rep.Seconds["settle"], rep.Seconds["questions"], rep.Seconds["total"])
}

// presentKinds are the kinds the run built, in kinds' order.
func presentKinds(rep *report) []string {
	var out []string
	for _, k := range kinds {
		if rep.ByKind[k] > 0 {
			out = append(out, k)
		}
	}
	return out
}
