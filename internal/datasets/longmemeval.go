package datasets

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

const longMemEvalFile = "longmemeval/longmemeval_s_dev.jsonl.gz"

// longMemEvalDate is the layout of LongMemEval's dates: "2023/05/21 (Sun) 19:50".
const longMemEvalDate = "2006/01/02 (Mon) 15:04"

// rawLongMemEval is one LongMemEval instance, as far as it is read here.
type rawLongMemEval struct {
	QuestionID         string   `json:"question_id"`
	HaystackDates      []string `json:"haystack_dates"`
	HaystackSessionIDs []string `json:"haystack_session_ids"`
	HaystackSessions   [][]struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"haystack_sessions"`
}

// LoadLongMemEval reads dataDir/longmemeval/longmemeval_s_dev.jsonl.gz: one
// user per instance, each of its history's sessions at its date, turns 30 s
// apart. Session ids are the instance's id, the session's place in its
// history and the data's session id: the same session recurs in several
// instances' histories, and a few times within one.
func LoadLongMemEval(dataDir string) ([]Conversation, error) {
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
	var out []Conversation
	sc := bufio.NewScanner(gz)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for line := 1; sc.Scan(); line++ {
		var r rawLongMemEval
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		if len(r.HaystackDates) != len(r.HaystackSessions) || len(r.HaystackSessionIDs) != len(r.HaystackSessions) {
			return nil, fmt.Errorf("%s:%d: %d dates and %d ids for %d sessions", path, line, len(r.HaystackDates), len(r.HaystackSessionIDs), len(r.HaystackSessions))
		}
		cv := Conversation{SampleID: "lme-" + r.QuestionID}
		for i, sess := range r.HaystackSessions {
			start, err := time.Parse(longMemEvalDate, r.HaystackDates[i])
			if err != nil {
				return nil, fmt.Errorf("%s:%d: session %d: %w", path, line, i, err)
			}
			sid := fmt.Sprintf("%s-%d-%s", cv.SampleID, i, r.HaystackSessionIDs[i])
			cv.Sessions = append(cv.Sessions, Session{ID: sid, Turns: len(sess)})
			for j, t := range sess {
				cv.Turns = append(cv.Turns, Turn{
					ID: fmt.Sprintf("%s-%d", sid, j), SessionID: sid, Role: t.Role, Content: t.Content,
					OccurredAt: start.Add(time.Duration(j) * turnSpacing),
				})
			}
		}
		out = append(out, cv)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}
