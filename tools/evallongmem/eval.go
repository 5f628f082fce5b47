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

// questionType is a LongMemEval question type and the short name the tables
// print it under.
type questionType struct{ Name, Short string }

// questionTypes are LongMemEval's question types in the order the paper
// lists them.
var questionTypes = []questionType{
	{"single-session-user", "ss-user"},
	{"single-session-assistant", "ss-assist"},
	{"single-session-preference", "ss-pref"},
	{"multi-session", "multi"},
	{"knowledge-update", "k-update"},
	{"temporal-reasoning", "temporal"},
}

// options configure one evaluation run.
type options struct {
	contexteval.Options
	Limit           int      // instances; 0: all
	Only            []string // question ids to evaluate, in the data's order; empty: all
	PostConcurrency int      // users posted at once
	// At sends the question's date as the context's time.
	At bool
	// Stored skips posting and settling: the API at APIURL serves a
	// database that holds the turns already.
	Stored bool
	// PadSessions pads every history to this many sessions (pad); 0: as
	// the data holds them. PadSeed draws the padding.
	PadSessions int
	PadSeed     uint64
}

// rowResult is one row of the tables, over one set of questions (the
// answerable ones, or the abstention ones).
type rowResult struct {
	Name           string             `json:"name"`
	EvidenceRecall float64            `json:"evidence_recall"`
	SessionRecall  float64            `json:"session_recall"`
	AnswerRecall   float64            `json:"answer_token_recall"`
	AnswerHits     float64            `json:"answer_hits"`
	PromptChars    float64            `json:"prompt_chars"`
	EvidenceByType map[string]float64 `json:"evidence_recall_by_type"`
	SessionsByType map[string]float64 `json:"session_recall_by_type"`
	EvidenceScored int                `json:"evidence_questions"`
	SessionScored  int                `json:"session_questions"`
	AnswerScored   int                `json:"answer_questions"`

	// AnswerWhere is where the answer's words are, averaged over the
	// questions (contexteval.AnswerWhere): in the prompt, in evidence
	// turns only, in other turns of the history only, nowhere.
	AnswerWhere [contexteval.Places]float64 `json:"answer_words_where"`

	ev, ses, ans, hits, chars contexteval.Mean
	where                     [contexteval.Places]contexteval.Mean
	evByType, sesByType       contexteval.Groups
}

// report is everything one run measured.
type report struct {
	Instances int   `json:"instances"`
	Sessions  int   `json:"sessions"`
	Turns     int   `json:"turns"`
	Stored    int64 `json:"stored_messages"`
	// Refused are the turns the API refused (one of LongMemEval's turns is
	// longer than a turn may be): never stored, still looked for.
	Refused     []refusal      `json:"refused_turns"`
	Questions   int            `json:"questions"` // answerable ones
	Abstentions int            `json:"abstention_questions"`
	ByType      map[string]int `json:"questions_by_type"` // answerable ones
	Evidence    int            `json:"evidence_turns"`
	// LateEvidence are the evidence turns dated at or after their
	// question (LongMemEval dates a few answer sessions later on the
	// question's day): those questions are asked just after their
	// history's newest turn instead (askedAt).
	LateEvidence  int `json:"evidence_turns_after_question"`
	LateQuestions int `json:"questions_with_evidence_after_question"`
	Budget        int `json:"budget"`
	// At says whether the question's date was sent as the context's time.
	At bool `json:"at"`
	// PaddedTo is the sessions every history was padded to (0: none).
	PaddedTo int `json:"padded_to,omitempty"`
	// LatencyMS are Recall's contexts' times, request to answer, as the
	// harness saw them at its concurrency: p50, p95, max, in ms.
	LatencyMS     map[string]float64 `json:"context_latency_ms"`
	Concurrency   int                `json:"concurrency"`
	Rows          []*rowResult       `json:"rows"`
	Abstention    []*rowResult       `json:"abstention_rows"`
	ContextMethod string             `json:"context_method"`
	Consumers     []string           `json:"consumers"`
	Database      string             `json:"database,omitempty"` // the database the run created
	// Seconds are the phases' timings: load, start, post, settle
	// (the pipeline), questions (asking and scoring), total.
	Seconds map[string]float64 `json:"seconds"`
}

// refusal is a turn the API refused, and whether it was evidence.
type refusal struct {
	Turn     string `json:"turn"`
	Reason   string `json:"reason"`
	Evidence bool   `json:"evidence"`
}

// refusals are the refused turns for the report, marked when a question
// looks for them.
func refusals(refused []contexteval.Refused, insts []datasets.LongMemEvalInstance) []refusal {
	evidence := map[string]bool{}
	for _, in := range insts {
		for _, id := range in.Question.Evidence {
			evidence[id] = true
		}
	}
	out := make([]refusal, len(refused))
	for i, r := range refused {
		out[i] = refusal{Turn: r.Turn.ID, Reason: strings.Join(r.Reasons, "; "), Evidence: evidence[r.Turn.ID]}
	}
	return out
}

// Row returns the row of the given name among the answerable questions'.
func (r *report) Row(name string) *rowResult { return findRow(r.Rows, name) }

func findRow(rows []*rowResult, name string) *rowResult {
	for _, row := range rows {
		if row.Name == name {
			return row
		}
	}
	return nil
}

// run posts every instance's history to Recall (started here unless
// o.APIURL is set), waits for the pipeline, asks every question and scores
// every row.
func run(ctx context.Context, o options, log *slog.Logger) (*report, error) {
	if o.Stored && o.APIURL == "" {
		return nil, errors.New("-stored asks a running Recall: give its -api")
	}
	began := time.Now()
	all, err := datasets.LoadLongMemEvalInstances(o.DataDir)
	if err != nil {
		return nil, err
	}
	insts, err := pick(all, o.Only, o.Limit)
	if err != nil {
		return nil, err
	}
	if insts, err = pad(insts, padPool(all), o.PadSessions, o.PadSeed); err != nil {
		return nil, err
	}
	rep := &report{Instances: len(insts), Budget: o.Budget, At: o.At, PaddedTo: o.PadSessions, Concurrency: o.Concurrency,
		ByType: map[string]int{}, Seconds: map[string]float64{}}
	convs := make([]datasets.Conversation, len(insts))
	for i, in := range insts {
		convs[i] = in.Conversation
		rep.Sessions += len(in.Sessions)
		rep.Turns += len(in.Turns)
		rep.Evidence += len(in.Question.Evidence)
		if n := lateEvidence(in); n > 0 {
			rep.LateEvidence += n
			rep.LateQuestions++
		}
		if in.Question.Abstention {
			rep.Abstentions++
		} else {
			rep.Questions++
			rep.ByType[in.Question.Type]++
		}
	}
	rep.Seconds["load"] = time.Since(began).Seconds()

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
		if err := feed(ctx, c, natsConn, insts, convs, o, rep, log); err != nil {
			return nil, err
		}
	}

	t := time.Now()
	if err := score(ctx, c, insts, o, rep, log); err != nil {
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

// feed posts every instance's turns and waits until the pipeline has
// stored and processed them, recording the phases in rep.
func feed(ctx context.Context, c *recallrun.Client, natsConn queue.NATSConfig, insts []datasets.LongMemEvalInstance, convs []datasets.Conversation,
	o options, rep *report, log *slog.Logger) error {
	t := time.Now()
	posted, err := contexteval.Post(ctx, c, convs, o.PostConcurrency, log)
	if err != nil {
		return err
	}
	rep.Seconds["post"] = time.Since(t).Seconds()
	rep.Refused = refusals(posted.Refused, insts)
	log.Info("posted", "turns", posted.Total, "refused", len(posted.Refused), "seconds", rep.Seconds["post"])
	// Awaited by user: forty sessions each would make thousands of requests
	// a pass.
	want := map[string]int64{}
	for _, in := range insts {
		for _, s := range in.Sessions {
			want[in.SampleID] += posted.Want[s.ID]
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

// pick keeps the instances of the given question ids (all when none), then
// the first limit of them (all when 0).
func pick(insts []datasets.LongMemEvalInstance, only []string, limit int) ([]datasets.LongMemEvalInstance, error) {
	if len(only) > 0 {
		var kept []datasets.LongMemEvalInstance
		for _, in := range insts {
			if slices.Contains(only, in.Question.ID) {
				kept = append(kept, in)
			}
		}
		if len(kept) != len(slices.Compact(slices.Sorted(slices.Values(only)))) {
			return nil, fmt.Errorf("-only names %d questions, the data holds %d of them", len(only), len(kept))
		}
		insts = kept
	}
	if limit > 0 && limit < len(insts) {
		insts = insts[:limit]
	}
	return insts, nil
}

// score asks Recall for the context of every question, each in a session
// of its own that was never used (so the context holds no window), builds
// the baselines on the same turns, and fills rep's rows.
func score(ctx context.Context, c *recallrun.Client, insts []datasets.LongMemEvalInstance, o options, rep *report, log *slog.Logger) error {
	reqs := make([]recallrun.ContextRequest, len(insts))
	for i, in := range insts {
		reqs[i] = recallrun.ContextRequest{UserID: in.SampleID, SessionID: in.SampleID + "-question", Query: in.Question.Text, Budget: o.Budget}
		if o.At {
			reqs[i].At = askedAt(in).UTC().Format(time.RFC3339)
		}
	}
	log.Info("asking", "questions", len(reqs), "concurrency", o.Concurrency)
	recalled, took, err := contexteval.AskTimed(ctx, c, reqs, o.Concurrency, func(i int) string {
		return "question " + insts[i].Question.ID
	})
	if err != nil {
		return err
	}
	rep.LatencyMS = latency(took)
	rep.Rows, rep.Abstention, err = tally(insts, recalled, o)
	return err
}

// tally scores every question's prompts (Recall's, recalled[i], and the
// baselines'), the abstention questions in rows of their own.
func tally(insts []datasets.LongMemEvalInstance, recalled []string, o options) (rows, abstention []*rowResult, err error) {
	rows, abstention = newRows(), newRows()
	for i, in := range insts {
		q := in.Question
		target := rows
		if q.Abstention {
			target = abstention
		}
		evidence, sessions := questionEvidence(in)
		history := make([]string, len(in.Turns))
		for k, t := range in.Turns {
			history[k] = t.Content
		}
		ps := contexteval.NewBaselines(in.Turns, o.Budget).Prompts(recalled[i], q.Text)
		scores := make([]questionScore, len(ps))
		for r, p := range ps {
			scores[r] = target[r].add(p, q, evidence, sessions)
			if !q.Abstention {
				target[r].addWhere(p, q.Answer, evidence, history)
			}
		}
		if o.QuestionsOut != nil {
			if err := writeQuestion(o.QuestionsOut, in, ps[0], scores); err != nil {
				return nil, nil, err
			}
		}
	}
	for _, r := range slices.Concat(rows, abstention) {
		r.finish()
	}
	return rows, abstention, nil
}

func newRows() []*rowResult {
	rows := make([]*rowResult, len(contexteval.RowNames))
	for i, n := range contexteval.RowNames {
		rows[i] = &rowResult{Name: n, evByType: contexteval.Groups{}, sesByType: contexteval.Groups{}}
	}
	return rows
}

// askedAt is when the question is asked: at its date, or a second after
// its history's newest turn when the history runs past that date. The
// history is what came before the question, by the data's own definition,
// yet 20 of LongMemEval_S's questions have sessions dated later on their
// day (35 evidence turns); a context as of the question's date would
// leave them out for a reason the data did not mean.
func askedAt(in datasets.LongMemEvalInstance) time.Time {
	at := in.Question.Date
	for _, t := range in.Turns {
		if !t.OccurredAt.Before(at) {
			at = t.OccurredAt.Add(time.Second)
		}
	}
	return at
}

// lateEvidence counts the question's evidence turns dated at or after it.
func lateEvidence(in datasets.LongMemEvalInstance) int {
	at := make(map[string]time.Time, len(in.Turns))
	for _, t := range in.Turns {
		at[t.ID] = t.OccurredAt
	}
	n := 0
	for _, id := range in.Question.Evidence {
		if !at[id].Before(in.Question.Date) {
			n++
		}
	}
	return n
}

// questionEvidence is what a prompt should hold for the question: the
// contents of its evidence turns, each once (a session that recurs in the
// history marks its turns in every place), and the turns' contents of each
// answer session, over every place the session holds.
func questionEvidence(in datasets.LongMemEvalInstance) (evidence []string, sessions [][]string) {
	bySession := map[string][]string{}
	content := make(map[string]string, len(in.Turns))
	for _, t := range in.Turns {
		content[t.ID] = t.Content
		bySession[t.SessionID] = append(bySession[t.SessionID], t.Content)
	}
	for _, id := range in.Question.Evidence {
		if c := content[id]; !slices.Contains(evidence, c) {
			evidence = append(evidence, c)
		}
	}
	for _, places := range in.Question.AnswerSessions {
		var turns []string
		for _, sid := range places {
			turns = append(turns, bySession[sid]...)
		}
		sessions = append(sessions, turns)
	}
	return evidence, sessions
}

// questionScore is one row's scores for one question; a score is -1 when the
// question has nothing to score it by (no evidence, no answer words).
type questionScore struct {
	Row            string  `json:"row"`
	EvidenceRecall float64 `json:"evidence_recall"`
	SessionRecall  float64 `json:"session_recall"`
	AnswerRecall   float64 `json:"answer_token_recall"`
	PromptChars    int     `json:"prompt_chars"`
}

// add scores one question's prompt. An abstention question's answer says
// what the history lacks, so its words are not looked for.
func (r *rowResult) add(prompt string, q datasets.LongMemEvalQuestion, evidence []string, sessions [][]string) questionScore {
	s := questionScore{Row: r.Name, EvidenceRecall: -1, SessionRecall: -1, AnswerRecall: -1, PromptChars: utf8.RuneCountInString(prompt)}
	r.chars.Add(float64(s.PromptChars), true)
	if v, ok := contexteval.EvidenceRecall(prompt, evidence); ok {
		r.ev.Add(v, true)
		r.evByType.Add(q.Type, v, true)
		s.EvidenceRecall = v
	}
	if v, ok := contexteval.SessionRecall(prompt, sessions); ok {
		r.ses.Add(v, true)
		r.sesByType.Add(q.Type, v, true)
		s.SessionRecall = v
	}
	if q.Abstention {
		return s
	}
	if v, ok := contexteval.AnswerTokenRecall(prompt, q.Answer); ok {
		r.ans.Add(v, true)
		r.hits.Add(hit(v), true)
		s.AnswerRecall = v
	}
	return s
}

// addWhere counts where the answer's words are for one prompt.
func (r *rowResult) addWhere(prompt, answer string, evidence, history []string) {
	share, ok := contexteval.AnswerWhere(prompt, answer, evidence, history)
	for i := range share {
		r.where[i].Add(share[i], ok)
	}
}

// hit is 1 when a prompt holds every content word of the answer.
func hit(answerRecall float64) float64 {
	if answerRecall == 1 {
		return 1
	}
	return 0
}

func (r *rowResult) finish() {
	r.EvidenceRecall, r.EvidenceScored = r.ev.Value(), r.ev.N
	r.SessionRecall, r.SessionScored = r.ses.Value(), r.ses.N
	r.AnswerRecall, r.AnswerScored = r.ans.Value(), r.ans.N
	r.AnswerHits = r.hits.Value()
	for i := range r.where {
		r.AnswerWhere[i] = r.where[i].Value()
	}
	r.PromptChars = r.chars.Value()
	r.EvidenceByType = r.evByType.Values()
	r.SessionsByType = r.sesByType.Values()
}

// writeQuestion writes one question's line of the -questions report.
func writeQuestion(w io.Writer, in datasets.LongMemEvalInstance, prompt string, scores []questionScore) error {
	q := in.Question
	b, err := json.Marshal(struct {
		User       string          `json:"user"`
		ID         string          `json:"question_id"`
		Type       string          `json:"question_type"`
		Abstention bool            `json:"abstention"`
		Date       time.Time       `json:"question_date"`
		Question   string          `json:"question"`
		Answer     string          `json:"answer"`
		Evidence   []string        `json:"evidence"`
		Sessions   [][]string      `json:"answer_sessions"`
		Scores     []questionScore `json:"scores"`
		Prompt     string          `json:"prompt"`
	}{in.SampleID, q.ID, q.Type, q.Abstention, q.Date, q.Text, q.Answer, q.Evidence, q.AnswerSessions, scores, prompt})
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// printTables writes the human-readable report: the answerable questions'
// rows, their evidence and session recall per question type, the
// abstention questions' rows, and the phases' timings.
func printTables(w io.Writer, rep *report) {
	fmt.Fprintf(w, "longmemeval context eval: %d instances, %d sessions, %d turns, %d questions (+%d abstention), budget %d\n",
		rep.Instances, rep.Sessions, rep.Turns, rep.Questions, rep.Abstentions, rep.Budget)
	cols := []contexteval.Column{{Head: "row", Width: 13}, {Head: "evidence", Width: 9}, {Head: "sessions", Width: 9},
		{Head: "answer-tokens", Width: 14}, {Head: "answer-hits", Width: 12}, {Head: "prompt-chars", Width: 12}}
	var cells [][]string
	for _, r := range rep.Rows {
		cells = append(cells, []string{r.Name, contexteval.Cell(r.EvidenceRecall, r.EvidenceScored > 0, 3), contexteval.Cell(r.SessionRecall, r.SessionScored > 0, 3),
			contexteval.Cell(r.AnswerRecall, r.AnswerScored > 0, 3), contexteval.Cell(r.AnswerHits, r.AnswerScored > 0, 3), contexteval.Cell(r.PromptChars, true, 0)})
	}
	contexteval.WriteTable(w, cols, cells)

	types := typesOf(rep)
	var legend []string
	for _, t := range types {
		legend = append(legend, fmt.Sprintf("%s %s (%d)", t.Short, t.Name, rep.ByType[t.Name]))
	}
	fmt.Fprintf(w, "question types (questions): %s\n", strings.Join(legend, ", "))
	for _, part := range []struct {
		head string
		of   func(*rowResult) map[string]float64
	}{
		{"evidence", func(r *rowResult) map[string]float64 { return r.EvidenceByType }},
		{"sessions", func(r *rowResult) map[string]float64 { return r.SessionsByType }},
	} {
		cols := []contexteval.Column{{Head: part.head, Width: 13}}
		for _, t := range types {
			cols = append(cols, contexteval.Column{Head: t.Short, Width: 9})
		}
		var cells [][]string
		for _, r := range rep.Rows {
			line := []string{r.Name}
			for _, t := range types {
				v, ok := part.of(r)[t.Name]
				line = append(line, contexteval.Cell(v, ok, 3))
			}
			cells = append(cells, line)
		}
		contexteval.WriteTable(w, cols, cells)
	}

	// Where the answers' words are: what retrieving the evidence can put in
	// a prompt (in the prompt or in evidence turns) and what only other
	// text brings in by chance (numbers and words said elsewhere).
	fmt.Fprintln(w, "answer words: in the prompt; else in evidence turns; else only in other turns of the history; else nowhere (a computed answer)")
	cols = []contexteval.Column{{Head: "row", Width: 13}, {Head: "in-prompt", Width: 10}, {Head: "evidence", Width: 9},
		{Head: "history-only", Width: 13}, {Head: "nowhere", Width: 8}, {Head: "reachable", Width: 10}}
	cells = nil
	for _, r := range rep.Rows {
		wh := r.AnswerWhere
		cells = append(cells, []string{r.Name, contexteval.Cell(wh[contexteval.InPrompt], true, 3), contexteval.Cell(wh[contexteval.InEvidence], true, 3),
			contexteval.Cell(wh[contexteval.InHistoryOnly], true, 3), contexteval.Cell(wh[contexteval.Nowhere], true, 3),
			contexteval.Cell(wh[contexteval.InPrompt]+wh[contexteval.InEvidence], true, 3)})
	}
	contexteval.WriteTable(w, cols, cells)

	if len(rep.Abstention) > 0 && rep.Abstentions > 0 {
		fmt.Fprintf(w, "abstention: %d questions whose answer is not in the history (%d with evidence turns)\n",
			rep.Abstentions, rep.Abstention[0].EvidenceScored)
		cols := []contexteval.Column{{Head: "row", Width: 13}, {Head: "evidence", Width: 9}, {Head: "sessions", Width: 9}, {Head: "prompt-chars", Width: 12}}
		var cells [][]string
		for _, r := range rep.Abstention {
			cells = append(cells, []string{r.Name, contexteval.Cell(r.EvidenceRecall, r.EvidenceScored > 0, 3),
				contexteval.Cell(r.SessionRecall, r.SessionScored > 0, 3), contexteval.Cell(r.PromptChars, true, 0)})
		}
		contexteval.WriteTable(w, cols, cells)
	}

	at := "at the time of the run (without -at)"
	if rep.At {
		at = "at the question's date (`at`)"
	}
	fmt.Fprintf(w, "stored %d of %d turns; context by %s /v1/context %s\n", rep.Stored, rep.Turns, rep.ContextMethod, at)
	if rep.PaddedTo > 0 {
		fmt.Fprintf(w, "every history padded to %d sessions with other histories' sessions that hold no evidence, dated before the question\n", rep.PaddedTo)
	}
	if l := rep.LatencyMS; l != nil {
		fmt.Fprintf(w, "recall's contexts (%d at a time): p50 %.1f ms, p95 %.1f ms, max %.1f ms\n", rep.Concurrency, l["p50"], l["p95"], l["max"])
	}
	if rep.LateEvidence > 0 {
		fmt.Fprintf(w, "%d of %d evidence turns (of %d questions) are dated at or after their question: those questions are asked a second after their history's newest turn\n",
			rep.LateEvidence, rep.Evidence, rep.LateQuestions)
	}
	for _, r := range rep.Refused {
		what := "not evidence"
		if r.Evidence {
			what = "evidence"
		}
		fmt.Fprintf(w, "refused by the API (%s): %s: %s\n", what, r.Turn, r.Reason)
	}
	fmt.Fprintf(w, "timings: load %.0fs, start %.0fs, post %.0fs, pipeline %.0fs, questions %.0fs, total %.0fs\n",
		rep.Seconds["load"], rep.Seconds["start"], rep.Seconds["post"], rep.Seconds["settle"], rep.Seconds["questions"], rep.Seconds["total"])
}

// typesOf are the question types to print: LongMemEval's in their order,
// then any other the data holds.
func typesOf(rep *report) []questionType {
	out := slices.Clone(questionTypes)
	var extra []string
	for name := range rep.ByType {
		if !slices.ContainsFunc(questionTypes, func(t questionType) bool { return t.Name == name }) {
			extra = append(extra, name)
		}
	}
	slices.Sort(extra)
	for _, name := range extra {
		out = append(out, questionType{name, name})
	}
	return out
}

// latency is p50, p95 and max of took, in milliseconds; nil for none.
func latency(took []time.Duration) map[string]float64 {
	if len(took) == 0 {
		return nil
	}
	sorted := slices.Sorted(slices.Values(took))
	at := func(q float64) float64 {
		i := min(int(q*float64(len(sorted))), len(sorted)-1)
		return float64(sorted[i].Microseconds()) / 1000
	}
	return map[string]float64{"p50": at(0.5), "p95": at(0.95), "max": float64(sorted[len(sorted)-1].Microseconds()) / 1000}
}
