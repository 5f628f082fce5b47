package datasets

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

const longMemEvalFile = "longmemeval/longmemeval_s_dev.jsonl.gz"

// longMemEvalDate is the layout of LongMemEval's dates: "2023/05/21 (Sun) 19:50".
const longMemEvalDate = "2006/01/02 (Mon) 15:04"

// longMemEvalAbstention ends the ids of the questions whose answer is not in
// the history: the right answer says so.
const longMemEvalAbstention = "_abs"

// rawLongMemEval is one LongMemEval instance, as far as it is read here.
type rawLongMemEval struct {
	QuestionID         string          `json:"question_id"`
	QuestionType       string          `json:"question_type"`
	Question           string          `json:"question"`
	QuestionDate       string          `json:"question_date"`
	Answer             json.RawMessage `json:"answer"`
	AnswerSessionIDs   []string        `json:"answer_session_ids"`
	HaystackDates      []string        `json:"haystack_dates"`
	HaystackSessionIDs []string        `json:"haystack_session_ids"`
	HaystackSessions   [][]struct {
		Role      string `json:"role"`
		Content   string `json:"content"`
		HasAnswer bool   `json:"has_answer"`
	} `json:"haystack_sessions"`
}

// LongMemEvalInstance is one LongMemEval question with the history it is
// asked over: one user, whose turns no other instance sees.
type LongMemEvalInstance struct {
	Conversation
	Question LongMemEvalQuestion
}

// LongMemEvalQuestion is what the evaluation asks and looks for: the
// evidence turns the data marks (has_answer) and the sessions it names as
// holding the answer, both by the ids the turns were posted under.
type LongMemEvalQuestion struct {
	ID   string // question_id
	Type string // question_type: single-session-user, multi-session, ...
	Text string
	// Date is when the question is asked, after (nearly always) the history.
	Date   time.Time
	Answer string // number answers stringified
	// Abstention marks a question whose answer is not in the history
	// (its id ends in _abs): its answer explains what is missing.
	Abstention bool
	// Evidence are the ids of the turns marked has_answer, in event-time order.
	Evidence []string
	// AnswerSessions are the answer sessions, each as the ids of every
	// place it holds in the history (a session recurs in a few histories).
	AnswerSessions [][]string
}

// LoadLongMemEval reads dataDir/longmemeval/longmemeval_s_dev.jsonl.gz: one
// user per instance, each of its history's sessions at its date, turns 30 s
// apart. Session ids are the instance's id, the session's place in its
// history and the data's session id: the same session recurs in several
// instances' histories, and a few times within one.
func LoadLongMemEval(dataDir string) ([]Conversation, error) {
	insts, err := LoadLongMemEvalInstances(dataDir)
	if err != nil {
		return nil, err
	}
	out := make([]Conversation, len(insts))
	for i, in := range insts {
		out[i] = in.Conversation
	}
	return out, nil
}

// LoadLongMemEvalInstances reads the instances as LoadLongMemEval does, each
// with its question, for the evaluation that asks them (tools/evallongmem).
// A history's sessions are not in date order in the data; its turns are put
// in event-time order, as every conversation's are.
func LoadLongMemEvalInstances(dataDir string) ([]LongMemEvalInstance, error) {
	path := filepath.Join(dataDir, longMemEvalFile)
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var out []LongMemEvalInstance
	sc := bufio.NewScanner(gz)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for line := 1; sc.Scan(); line++ {
		var r rawLongMemEval
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		in, err := buildLongMemEval(r)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		out = append(out, in)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// buildLongMemEval turns one instance into the turns to post and the
// question to ask.
func buildLongMemEval(r rawLongMemEval) (LongMemEvalInstance, error) {
	if len(r.HaystackDates) != len(r.HaystackSessions) || len(r.HaystackSessionIDs) != len(r.HaystackSessions) {
		return LongMemEvalInstance{}, fmt.Errorf("%d dates and %d ids for %d sessions", len(r.HaystackDates), len(r.HaystackSessionIDs), len(r.HaystackSessions))
	}
	asked, err := time.Parse(longMemEvalDate, r.QuestionDate)
	if err != nil {
		return LongMemEvalInstance{}, fmt.Errorf("question_date: %w", err)
	}
	cv := Conversation{SampleID: "lme-" + r.QuestionID}
	q := LongMemEvalQuestion{
		ID: r.QuestionID, Type: r.QuestionType, Text: r.Question, Date: asked, Answer: answerText(r.Answer),
		Abstention: strings.HasSuffix(r.QuestionID, longMemEvalAbstention),
	}
	places := map[string][]string{} // data's session id -> posted session ids
	evidence := map[string]bool{}
	for i, sess := range r.HaystackSessions {
		start, err := time.Parse(longMemEvalDate, r.HaystackDates[i])
		if err != nil {
			return LongMemEvalInstance{}, fmt.Errorf("session %d: %w", i, err)
		}
		sid := fmt.Sprintf("%s-%d-%s", cv.SampleID, i, r.HaystackSessionIDs[i])
		places[r.HaystackSessionIDs[i]] = append(places[r.HaystackSessionIDs[i]], sid)
		cv.Sessions = append(cv.Sessions, Session{ID: sid, Turns: len(sess), Source: r.HaystackSessionIDs[i]})
		for j, t := range sess {
			id := fmt.Sprintf("%s-%d", sid, j)
			cv.Turns = append(cv.Turns, Turn{
				ID: id, SessionID: sid, Role: t.Role, Content: t.Content, Text: t.Content,
				OccurredAt: start.Add(time.Duration(j) * turnSpacing),
			})
			if t.HasAnswer {
				evidence[id] = true
			}
		}
	}
	sort.SliceStable(cv.Turns, func(i, j int) bool { return cv.Turns[i].OccurredAt.Before(cv.Turns[j].OccurredAt) })
	for _, t := range cv.Turns {
		if evidence[t.ID] {
			q.Evidence = append(q.Evidence, t.ID)
		}
	}
	for _, id := range r.AnswerSessionIDs {
		sids, ok := places[id]
		if !ok {
			return LongMemEvalInstance{}, fmt.Errorf("answer session %s is not in the history", id)
		}
		q.AnswerSessions = append(q.AnswerSessions, sids)
	}
	return LongMemEvalInstance{Conversation: cv, Question: q}, nil
}
