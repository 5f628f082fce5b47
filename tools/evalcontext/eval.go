package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/recallhq/recall/internal/datasets"
	"github.com/recallhq/recall/internal/recallrun"
)

// Row names, in the order they are printed.
const (
	rowRecall  = "recall"
	rowBM25    = "bm25"
	rowRecency = "recency"
	rowFull    = "full history"
)

var rowNames = []string{rowRecall, rowBM25, rowRecency, rowFull}

// categoryNames are LoCoMo's question categories by the number its data
// uses. The paper lists the types in another order (single-hop first); this
// is the mapping of the dataset's own evaluation code (task_eval), which
// scores category 1 by partial answers (multi-hop) and adds the session date
// to category 2 (temporal). 5 (adversarial) has no answer and is skipped.
var categoryNames = map[int]string{1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}

// options configure one evaluation run.
type options struct {
	DataDir            string
	Budget             int
	Tenant             string
	LimitConversations int // 0: all
	LimitQuestions     int // per conversation; 0: all
	Concurrency        int

	// QuestionsOut, when set, receives one JSON line per question: its
	// answer, evidence and every row's scores, with Recall's prompt.
	QuestionsOut io.Writer

	// An already running Recall; empty starts one.
	APIURL, NATSURL, APIKey string
	System                  recallrun.Options
	Settle                  recallrun.SettleOptions
}

// rowResult is one row of the table.
type rowResult struct {
	Name             string             `json:"name"`
	EvidenceRecall   float64            `json:"evidence_recall"`
	AnswerRecall     float64            `json:"answer_token_recall"`
	PromptChars      float64            `json:"prompt_chars"`
	EvidenceByCat    map[string]float64 `json:"evidence_recall_by_category"`
	EvidenceScored   int                `json:"evidence_questions"`
	AnswerScored     int                `json:"answer_questions"`
	evSum, ansSum    float64
	chars, questions int
	catSum           map[int]float64
	catN             map[int]int
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
	apiURL, natsURL := o.APIURL, o.NATSURL
	if apiURL == "" {
		t := time.Now()
		sys, stop, err := recallrun.Start(ctx, o.System, log)
		if err != nil {
			return nil, err
		}
		defer stop()
		apiURL, natsURL = sys.APIURL, sys.NATSURL
		rep.Database = sys.DBName
		rep.Seconds["start"] = time.Since(t).Seconds()
	}
	c := recallrun.NewClient(apiURL, o.Tenant, o.APIKey)

	t := time.Now()
	want := map[string]int64{}
	var total int64
	for _, cv := range convs {
		log.Info("posting turns", "user", cv.SampleID, "turns", len(cv.Turns), "sessions", len(cv.Sessions))
		turns := cv.Postable()
		refused, err := c.PostTurns(ctx, cv.SampleID, turns)
		if err != nil {
			return nil, err
		}
		if len(refused) > 0 {
			return nil, fmt.Errorf("the API refused turn %s of %s: %s", refused[0].Turn.ID, cv.SampleID, strings.Join(refused[0].Reasons, "; "))
		}
		for _, s := range cv.Sessions {
			want[s.ID] = int64(s.Turns)
			total += int64(s.Turns)
		}
	}
	rep.Seconds["post"] = time.Since(t).Seconds()

	t = time.Now()
	so := o.Settle
	so.NATSURL = natsURL
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

// prompts are the four rows' prompts for one question.
type prompts [4]string

// score asks Recall for the context of every question, builds the baselines
// on the same turns, and fills rep.Rows.
func score(ctx context.Context, c *recallrun.Client, convs []datasets.Conversation, o options, rep *report, log *slog.Logger) error {
	rows := make([]*rowResult, len(rowNames))
	for i, n := range rowNames {
		rows[i] = &rowResult{Name: n, catSum: map[int]float64{}, catN: map[int]int{}}
	}
	answered := 0
	for _, cv := range convs {
		content := make(map[string]string, len(cv.Turns))
		for _, t := range cv.Turns {
			content[t.DiaID] = t.Content
		}
		bm := newBM25(cv.Turns)
		recency := recencyPrompt(cv.Turns, o.Budget)
		full := fullHistoryPrompt(cv.Turns)

		recalled, err := askAll(ctx, c, cv, o)
		if err != nil {
			return err
		}
		for i, q := range cv.Questions {
			ps := prompts{recalled[i], bm.prompt(q.Text, o.Budget), recency, full}
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
	out := make([]string, len(cv.Questions))
	errs := make([]error, len(cv.Questions))
	work := make(chan int)
	var wg sync.WaitGroup
	for range max(o.Concurrency, 1) {
		wg.Go(func() {
			for i := range work {
				q := cv.Questions[i]
				out[i], errs[i] = c.ContextPrompt(ctx, recallrun.ContextRequest{
					UserID: cv.SampleID, SessionID: fmt.Sprintf("%s-q%d", cv.SampleID, q.Index), Query: q.Text, Budget: o.Budget,
				})
			}
		})
	}
	for i := range cv.Questions {
		if ctx.Err() != nil {
			break
		}
		work <- i
	}
	close(work)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("context for %s question %d: %w", cv.SampleID, cv.Questions[i].Index, err)
		}
	}
	return out, nil
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
	r.questions++
	r.chars += s.PromptChars
	if v, ok := evidenceRecall(prompt, evidence); ok {
		r.evSum += v
		r.EvidenceScored++
		r.catSum[q.Category] += v
		r.catN[q.Category]++
		s.EvidenceRecall = v
	}
	if v, ok := answerTokenRecall(prompt, q.Answer); ok {
		r.ansSum += v
		r.AnswerScored++
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
	r.EvidenceRecall = mean(r.evSum, r.EvidenceScored)
	r.AnswerRecall = mean(r.ansSum, r.AnswerScored)
	r.PromptChars = mean(float64(r.chars), r.questions)
	r.EvidenceByCat = map[string]float64{}
	for cat, sum := range r.catSum {
		r.EvidenceByCat[catKey(cat)] = mean(sum, r.catN[cat])
	}
}

func mean(sum float64, n int) float64 {
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

func catKey(cat int) string { return fmt.Sprintf("%d %s", cat, categoryNames[cat]) }

// printTable writes the human-readable report.
func printTable(w io.Writer, rep *report) {
	fmt.Fprintf(w, "context eval: %d conversations, %d turns, %d questions (categories 1-4), budget %d\n",
		rep.Conversations, rep.Turns, rep.Questions, rep.Budget)
	fmt.Fprintf(w, "%-13s %-9s %-14s %-13s %-6s %-6s %-6s %-6s\n", "row", "evidence", "answer-tokens", "prompt-chars", "cat1", "cat2", "cat3", "cat4")
	for _, r := range rep.Rows {
		fmt.Fprintf(w, "%-13s %-9.3f %-14.3f %-13.0f", r.Name, r.EvidenceRecall, r.AnswerRecall, r.PromptChars)
		for cat := 1; cat <= 4; cat++ {
			if v, ok := r.EvidenceByCat[catKey(cat)]; ok {
				fmt.Fprintf(w, " %-6.3f", v)
			} else {
				fmt.Fprintf(w, " %-6s", "-")
			}
		}
		fmt.Fprintln(w)
	}
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

// printJSON writes the report as one JSON document.
func printJSON(w io.Writer, rep *report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}
