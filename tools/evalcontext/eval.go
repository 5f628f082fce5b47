package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/recallhq/recall/internal/eval/contexteval"
	"github.com/recallhq/recall/internal/eval/datasets"
	"github.com/recallhq/recall/internal/eval/recallrun"
)

// categoryNames are LoCoMo's question categories by the number its data
// uses. The paper lists the types in another order (single-hop first); this
// is the mapping of the dataset's own evaluation code (task_eval), which
// scores category 1 by partial answers (multi-hop) and adds the session date
// to category 2 (temporal). 5 (adversarial) has no answer and is skipped.
var categoryNames = map[int]string{1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}

// options configure one evaluation run.
type options struct {
	contexteval.Options
	LimitConversations int // 0: all
	LimitQuestions     int // per conversation; 0: all
}

// rowResult is one row of the table.
type rowResult struct {
	Name           string             `json:"name"`
	EvidenceRecall float64            `json:"evidence_recall"`
	AnswerRecall   float64            `json:"answer_token_recall"`
	PromptChars    float64            `json:"prompt_chars"`
	EvidenceByCat  map[string]float64 `json:"evidence_recall_by_category"`
	EvidenceScored int                `json:"evidence_questions"`
	AnswerScored   int                `json:"answer_questions"`
	ev, ans, chars contexteval.Mean
	evByCat        contexteval.Groups
}

// report is everything one run measured.
type report struct {
	Conversations int                    `json:"conversations"`
	Turns         int                    `json:"turns"`
	Stored        int64                  `json:"stored_messages"`
	Questions     int                    `json:"questions"`
	ByCategory    map[string]int         `json:"questions_by_category"`
	Budget        int                    `json:"budget"`
	Evidence      datasets.EvidenceStats `json:"evidence"`
	Rows          []*rowResult           `json:"rows"`
	ContextMethod string                 `json:"context_method"`
	Consumers     []string               `json:"consumers"`
	Database      string                 `json:"database,omitempty"` // the database the run created
	Seconds       map[string]float64     `json:"seconds"`
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

// run posts the conversations to Recall (started here unless o.APIURL is
// set), waits for the pipeline, asks every question and scores every row.
func run(ctx context.Context, o options, log *slog.Logger) (*report, error) {
	began := time.Now()
	convs, err := datasets.LoadLoCoMo(o.DataDir)
	if err != nil {
		return nil, err
	}
	if o.LimitConversations > 0 && o.LimitConversations < len(convs) {
		convs = convs[:o.LimitConversations]
	}
	if o.LimitQuestions > 0 {
		for i := range convs {
			if len(convs[i].Questions) > o.LimitQuestions {
				convs[i].Questions = convs[i].Questions[:o.LimitQuestions]
			}
		}
	}
	rep := &report{Conversations: len(convs), Budget: o.Budget, ByCategory: map[string]int{}, Seconds: map[string]float64{}}
	for _, c := range convs {
		rep.Turns += len(c.Turns)
		for _, q := range c.Questions {
			rep.Evidence.Add(q.EvidenceStats)
			rep.Questions++
			rep.ByCategory[catKey(q.Category)]++
		}
	}
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

	t := time.Now()
	// One user at a time: the order the turns were always posted in.
	posted, err := contexteval.Post(ctx, c, convs, 1, log)
	if err != nil {
		return nil, err
	}
	if len(posted.Refused) > 0 {
		return nil, posted.Refused[0]
	}
	want, total := posted.Want, posted.Total
	rep.Seconds["post"] = time.Since(t).Seconds()

	t = time.Now()
	so := o.Settle
	so.NATS = natsConn
	settled, err := recallrun.Settle(ctx, recallrun.SessionCounter(c, want), total, so, log)
	if err != nil {
		return nil, err
	}
	rep.Stored, rep.Consumers = settled.Stored, settled.Consumers
	rep.Seconds["settle"] = time.Since(t).Seconds()

	t = time.Now()
	if err := score(ctx, c, convs, o, rep, log); err != nil {
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

// score asks Recall for the context of every question, builds the baselines
// on the same turns, and fills rep.Rows.
func score(ctx context.Context, c *recallrun.Client, convs []datasets.Conversation, o options, rep *report, log *slog.Logger) error {
	rows := make([]*rowResult, len(contexteval.RowNames))
	for i, n := range contexteval.RowNames {
		rows[i] = &rowResult{Name: n, evByCat: contexteval.Groups{}}
	}
	answered := 0
	for _, cv := range convs {
		content := make(map[string]string, len(cv.Turns))
		for _, t := range cv.Turns {
			content[t.DiaID] = t.Content
		}
		base := contexteval.NewBaselines(cv.Turns, o.Budget)

		recalled, err := askAll(ctx, c, cv, o)
		if err != nil {
			return err
		}
		for i, q := range cv.Questions {
			ps := base.Prompts(recalled[i], q.Text)
			evidence := make([]string, len(q.Evidence))
			for j, id := range q.Evidence {
				evidence[j] = content[id]
			}
			scores := make([]questionScore, len(ps))
			for r, p := range ps {
				scores[r] = rows[r].add(p, q, evidence)
			}
			if o.QuestionsOut != nil {
				if err := writeQuestion(o.QuestionsOut, cv.SampleID, q, ps[0], scores); err != nil {
					return err
				}
			}
		}
		answered += len(cv.Questions)
		log.Info("questions answered", "user", cv.SampleID, "done", fmt.Sprintf("%d/%d", answered, rep.Questions))
	}
	for _, r := range rows {
		r.finish()
	}
	rep.Rows = rows
	return nil
}

// askAll gets Recall's prompt for every question of a conversation, each in a
// session of its own that was never used, so the context holds no window.
func askAll(ctx context.Context, c *recallrun.Client, cv datasets.Conversation, o options) ([]string, error) {
	reqs := make([]recallrun.ContextRequest, len(cv.Questions))
	for i, q := range cv.Questions {
		reqs[i] = recallrun.ContextRequest{
			UserID: cv.SampleID, SessionID: fmt.Sprintf("%s-q%d", cv.SampleID, q.Index), Query: q.Text, Budget: o.Budget,
		}
	}
	return contexteval.Ask(ctx, c, reqs, o.Concurrency, func(i int) string {
		return fmt.Sprintf("%s question %d", cv.SampleID, cv.Questions[i].Index)
	})
}

// questionScore is one row's scores for one question; a score is -1 when the
// question has nothing to score it by (no evidence, no answer words).
type questionScore struct {
	Row            string  `json:"row"`
	EvidenceRecall float64 `json:"evidence_recall"`
	AnswerRecall   float64 `json:"answer_token_recall"`
	PromptChars    int     `json:"prompt_chars"`
}

func (r *rowResult) add(prompt string, q datasets.Question, evidence []string) questionScore {
	s := questionScore{Row: r.Name, EvidenceRecall: -1, AnswerRecall: -1, PromptChars: utf8.RuneCountInString(prompt)}
	r.chars.Add(float64(s.PromptChars), true)
	if v, ok := contexteval.EvidenceRecall(prompt, evidence); ok {
		r.ev.Add(v, true)
		r.evByCat.Add(catKey(q.Category), v, true)
		s.EvidenceRecall = v
	}
	if v, ok := contexteval.AnswerTokenRecall(prompt, q.Answer); ok {
		r.ans.Add(v, true)
		s.AnswerRecall = v
	}
	return s
}

// writeQuestion writes one question's line of the -questions report.
func writeQuestion(w io.Writer, sample string, q datasets.Question, prompt string, scores []questionScore) error {
	b, err := json.Marshal(struct {
		Sample   string          `json:"sample"`
		Index    int             `json:"index"`
		Category int             `json:"category"`
		Question string          `json:"question"`
		Answer   string          `json:"answer"`
		Evidence []string        `json:"evidence"`
		Scores   []questionScore `json:"scores"`
		Prompt   string          `json:"prompt"`
	}{sample, q.Index, q.Category, q.Text, q.Answer, q.Evidence, scores, prompt})
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

func (r *rowResult) finish() {
	r.EvidenceRecall, r.EvidenceScored = r.ev.Value(), r.ev.N
	r.AnswerRecall, r.AnswerScored = r.ans.Value(), r.ans.N
	r.PromptChars = r.chars.Value()
	r.EvidenceByCat = r.evByCat.Values()
}

func catKey(cat int) string { return fmt.Sprintf("%d %s", cat, categoryNames[cat]) }

// printTable writes the human-readable report.
func printTable(w io.Writer, rep *report) {
	fmt.Fprintf(w, "context eval: %d conversations, %d turns, %d questions (categories 1-4), budget %d\n",
		rep.Conversations, rep.Turns, rep.Questions, rep.Budget)
	cols := []contexteval.Column{{Head: "row", Width: 13}, {Head: "evidence", Width: 9}, {Head: "answer-tokens", Width: 14}, {Head: "prompt-chars", Width: 13}}
	for cat := 1; cat <= 4; cat++ {
		cols = append(cols, contexteval.Column{Head: fmt.Sprintf("cat%d", cat), Width: 6})
	}
	var cells [][]string
	for _, r := range rep.Rows {
		line := []string{r.Name, contexteval.Cell(r.EvidenceRecall, true, 3), contexteval.Cell(r.AnswerRecall, true, 3), contexteval.Cell(r.PromptChars, true, 0)}
		for cat := 1; cat <= 4; cat++ {
			v, ok := r.EvidenceByCat[catKey(cat)]
			line = append(line, contexteval.Cell(v, ok, 3))
		}
		cells = append(cells, line)
	}
	contexteval.WriteTable(w, cols, cells)
	var cats []string
	for cat := 1; cat <= 4; cat++ {
		cats = append(cats, fmt.Sprintf("cat%d %s (%d)", cat, categoryNames[cat], rep.ByCategory[catKey(cat)]))
	}
	fmt.Fprintf(w, "categories (evidence recall; questions): %s\n", strings.Join(cats, ", "))
	e := rep.Evidence
	fmt.Fprintf(w, "evidence ids: %d used; %d entries repaired, %d dropped (%d malformed, %d not in the conversation); %d questions without evidence\n",
		e.IDs, e.Repaired, e.Dropped(), e.Malformed, e.Unknown, e.NoneLeft)
	fmt.Fprintf(w, "stored %d of %d turns; context by %s /v1/context; %.0fs (post %.0fs, pipeline %.0fs, questions %.0fs)\n",
		rep.Stored, rep.Turns, rep.ContextMethod, rep.Seconds["total"], rep.Seconds["post"], rep.Seconds["settle"], rep.Seconds["questions"])
}
