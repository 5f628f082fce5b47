package datasets

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// rawSample is the JSON of one LoCoMo sample, as far as the evaluation reads it.
type rawSample struct {
	SampleID     string                     `json:"sample_id"`
	Conversation map[string]json.RawMessage `json:"conversation"`
	QA           []rawQA                    `json:"qa"`
	// SessionSummary holds the dataset's own summary of each session, by
	// "session_<N>_summary".
	SessionSummary map[string]string `json:"session_summary"`
}

type rawQA struct {
	Question string          `json:"question"`
	Answer   json.RawMessage `json:"answer"`
	Evidence []string        `json:"evidence"`
	Category int             `json:"category"`
}

type rawTurn struct {
	Speaker     string `json:"speaker"`
	DiaID       string `json:"dia_id"`
	Text        string `json:"text"`
	BlipCaption string `json:"blip_caption"`
}

const locomoFile = "locomo/locomo_conv1-5.json"

// LoadLoCoMo reads dataDir/locomo/locomo_conv1-5.json into conversations.
func LoadLoCoMo(dataDir string) ([]Conversation, error) {
	path := filepath.Join(dataDir, locomoFile)
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	var samples []rawSample
	if err := json.Unmarshal(raw, &samples); err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	if len(samples) == 0 {
		return nil, fmt.Errorf("%s holds no conversations", path)
	}
	convs := make([]Conversation, 0, len(samples))
	for _, s := range samples {
		c, err := buildConversation(s)
		if err != nil {
			return nil, fmt.Errorf("%s: sample %s: %w", path, s.SampleID, err)
		}
		convs = append(convs, c)
	}
	return convs, nil
}

var sessionKey = regexp.MustCompile(`^session_(\d+)$`)

// buildConversation turns a sample into the turns to post and the questions
// to ask, each session with the dataset's summary of it. Sessions are taken
// in numeric order; a session date without turns (LoCoMo has some) is
// skipped.
func buildConversation(s rawSample) (Conversation, error) {
	c := Conversation{SampleID: s.SampleID}
	var speakerA, speakerB string
	if err := json.Unmarshal(s.Conversation["speaker_a"], &speakerA); err != nil {
		return c, fmt.Errorf("speaker_a: %w", err)
	}
	if err := json.Unmarshal(s.Conversation["speaker_b"], &speakerB); err != nil {
		return c, fmt.Errorf("speaker_b: %w", err)
	}
	c.Speakers = []string{speakerA, speakerB}
	var nums []int
	for k := range s.Conversation {
		if m := sessionKey.FindStringSubmatch(k); m != nil {
			n, _ := strconv.Atoi(m[1])
			nums = append(nums, n)
		}
	}
	sort.Ints(nums)
	known := map[string]bool{}
	for _, n := range nums {
		var turns []rawTurn
		if err := json.Unmarshal(s.Conversation[fmt.Sprintf("session_%d", n)], &turns); err != nil {
			return c, fmt.Errorf("session_%d: %w", n, err)
		}
		if len(turns) == 0 {
			continue
		}
		var when string
		if err := json.Unmarshal(s.Conversation[fmt.Sprintf("session_%d_date_time", n)], &when); err != nil {
			return c, fmt.Errorf("session_%d_date_time: %w", n, err)
		}
		start, err := parseLoCoMoDate(when)
		if err != nil {
			return c, fmt.Errorf("session_%d_date_time: %w", n, err)
		}
		sid := fmt.Sprintf("%s-s%d", s.SampleID, n)
		c.Sessions = append(c.Sessions, Session{ID: sid, Turns: len(turns), Summary: strings.TrimSpace(s.SessionSummary[fmt.Sprintf("session_%d_summary", n)])})
		for i, t := range turns {
			role := "assistant"
			switch t.Speaker {
			case speakerA:
				role = "user"
			case speakerB:
			default:
				return c, fmt.Errorf("%s: speaker %q is neither %q nor %q", t.DiaID, t.Speaker, speakerA, speakerB)
			}
			c.Turns = append(c.Turns, Turn{
				ID:         s.SampleID + "-" + t.DiaID,
				DiaID:      t.DiaID,
				SessionID:  sid,
				Role:       role,
				Content:    turnContent(t),
				Text:       t.Text,
				OccurredAt: start.Add(time.Duration(i) * turnSpacing),
			})
			known[t.DiaID] = true
		}
	}
	if len(c.Turns) == 0 {
		return c, errors.New("no turns")
	}
	sort.SliceStable(c.Turns, func(i, j int) bool { return c.Turns[i].OccurredAt.Before(c.Turns[j].OccurredAt) })
	for i, q := range s.QA {
		if q.Category < 1 || q.Category > 4 {
			continue // 5: adversarial, no answer in the conversation
		}
		ids, st := parseEvidence(q.Evidence, known)
		c.Questions = append(c.Questions, Question{
			Index: i, Text: q.Question, Answer: answerText(q.Answer), Category: q.Category, Evidence: ids, EvidenceStats: st,
		})
	}
	return c, nil
}

// turnContent is the text posted for a turn: who said it, what, and the
// caption of a shared photo, which is all a text-only memory can hold of it.
func turnContent(t rawTurn) string {
	s := t.Speaker + ": " + t.Text
	if c := strings.TrimSpace(t.BlipCaption); c != "" {
		s += " [shares a photo: " + c + "]"
	}
	return s
}

// answerText stringifies an answer: most are strings, some JSON numbers.
func answerText(raw json.RawMessage) string {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s
	}
	return strings.TrimSpace(string(raw))
}

// locomoDateLayouts are the forms LoCoMo writes session times in
// ("1:56 pm on 8 May, 2023"); the later ones are tolerated variants.
var locomoDateLayouts = []string{
	"3:04 pm on 2 January, 2006",
	"3:04 pm on 2 Jan, 2006",
	"3:04 pm on January 2, 2006",
	"3:04 pm on 2 January 2006",
}

// parseLoCoMoDate reads a session time as UTC; LoCoMo gives no zone, and one
// zone for all is what keeps the order of sessions.
func parseLoCoMoDate(s string) (time.Time, error) {
	norm := strings.Join(strings.Fields(strings.ToLower(s)), " ")
	for _, layout := range locomoDateLayouts {
		if t, err := time.Parse(layout, titleMonth(norm)); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("unrecognised session time %q (want like \"1:56 pm on 8 May, 2023\")", s)
}

// titleMonth capitalises the words of a lowercased date so that Go's month
// names match ("may" → "May"), leaving "am"/"pm" and "on" as they are.
func titleMonth(s string) string {
	words := strings.Split(s, " ")
	for i, w := range words {
		switch w {
		case "am", "pm", "on":
			continue
		}
		if w != "" && w[0] >= 'a' && w[0] <= 'z' {
			words[i] = strings.ToUpper(w[:1]) + w[1:]
		}
	}
	return strings.Join(words, " ")
}

// evidenceID finds dialogue ids in an evidence entry. LoCoMo's entries are
// mostly one id ("D1:3"), but some hold several ("D8:6; D9:17"), a stray
// colon ("D:11:26") or nothing usable ("D").
var (
	evidenceID   = regexp.MustCompile(`D\s*:?\s*(\d+)\s*:\s*(\d+)`)
	wellFormedID = regexp.MustCompile(`^D\d+:\d+$`)
)

// parseEvidence returns the distinct ids of entries that exist in the
// conversation (known), in order, and what it had to repair or drop.
func parseEvidence(entries []string, known map[string]bool) ([]string, EvidenceStats) {
	st := EvidenceStats{Entries: len(entries)}
	var ids []string
	seen := map[string]bool{}
	for _, e := range entries {
		ms := evidenceID.FindAllStringSubmatch(e, -1)
		if len(ms) == 0 {
			st.Malformed++
			continue
		}
		if !wellFormedID.MatchString(strings.TrimSpace(e)) {
			st.Repaired++
		}
		for _, m := range ms {
			sess, _ := strconv.Atoi(m[1])
			n, _ := strconv.Atoi(m[2])
			id := fmt.Sprintf("D%d:%d", sess, n)
			if !known[id] {
				st.Unknown++
				continue
			}
			if !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	st.IDs = len(ids)
	if len(ids) == 0 {
		st.NoneLeft = 1
	}
	return ids, st
}
