package datasets

import (
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"
)

const prefEvalFile = "prefeval/prefeval_dev.json.gz"

// prefEvalStart is when the PrefEval items (which carry no dates) are posted
// as having happened by the data check: one user an hour from here, in the
// data's order.
var prefEvalStart = time.Date(2024, 3, 4, 9, 0, 0, 0, time.UTC)

// rawPrefEval is the file as far as it is read here.
type rawPrefEval struct {
	Explicit       map[string][]rawPrefEvalItem `json:"explicit"`
	ImplicitChoice map[string][]rawPrefEvalItem `json:"implicit_choice"`
}

type rawPrefEvalItem struct {
	Preference  string   `json:"preference"`
	Question    string   `json:"question"`
	Explanation string   `json:"explanation"`
	Options     []string `json:"options"`
	AlignedOp   string   `json:"aligned_op"`
	Convo       *struct {
		Query                   string `json:"query"`
		AssistantOptions        string `json:"assistant_options"`
		UserSelection           string `json:"user_selection"`
		AssistantAcknowledgment string `json:"assistant_acknowledgment"`
	} `json:"conversation"`
}

// PrefEval is the PrefEval subset of ../shared/data: per topic, the
// preferences a user states outright (explicit) and the ones a user shows
// only by which of four options they pick (implicit_choice), each with the
// later question whose good answer must respect it.
type PrefEval struct {
	Topics   []string // sorted
	Explicit map[string][]PrefEvalItem
	Choice   map[string][]PrefEvalChoice
}

// PrefEvalItem is one preference and the question asked later.
type PrefEvalItem struct {
	Topic string
	Index int // place in its topic's list
	// Preference is the user's sentence stating it ("I follow a strict
	// gluten-free and dairy-free diet").
	Preference string
	// Question is asked later; it shares few words with the preference.
	Question string
	// Explanation says what a good answer does; never posted.
	Explanation string
}

// PrefEvalChoice is a preference shown by a choice: the user asks, the
// assistant offers four options, the user picks one and the assistant
// acknowledges. The preference sentence itself is never said.
type PrefEvalChoice struct {
	PrefEvalItem
	// Options are the four options, the preferred one first (the data's
	// own order; the assistant's message lists them shuffled).
	Options []string
	// Chosen is the option the user picks: the data's aligned_op, which is
	// Options[0] in every item of the data (TestLoadPrefEval); Options[0]
	// when an item lacks it.
	Chosen string
	// The conversation, as the data holds it: the user's request, the
	// assistant's four options, the user's pick and the acknowledgment.
	Query, AssistantOptions, UserSelection, AssistantAcknowledgment string
}

// LoadPrefEval reads dataDir/prefeval/prefeval_dev.json.gz.
func LoadPrefEval(dataDir string) (*PrefEval, error) {
	path := filepath.Join(dataDir, prefEvalFile)
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var raw rawPrefEval
	if err := json.NewDecoder(gz).Decode(&raw); err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	pe, err := buildPrefEval(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return pe, nil
}

// buildPrefEval checks the items and names each by topic and place.
func buildPrefEval(raw rawPrefEval) (*PrefEval, error) {
	if len(raw.Explicit) == 0 {
		return nil, errors.New("no explicit preferences")
	}
	pe := &PrefEval{Explicit: map[string][]PrefEvalItem{}, Choice: map[string][]PrefEvalChoice{}}
	for topic := range raw.Explicit {
		pe.Topics = append(pe.Topics, topic)
	}
	for topic := range raw.ImplicitChoice {
		if _, ok := raw.Explicit[topic]; !ok {
			pe.Topics = append(pe.Topics, topic)
		}
	}
	slices.Sort(pe.Topics)
	for _, topic := range pe.Topics {
		for i, r := range raw.Explicit[topic] {
			it, err := prefEvalItem(topic, i, r)
			if err != nil {
				return nil, fmt.Errorf("explicit %s: %w", topic, err)
			}
			pe.Explicit[topic] = append(pe.Explicit[topic], it)
		}
		for i, r := range raw.ImplicitChoice[topic] {
			it, err := prefEvalItem(topic, i, r)
			if err != nil {
				return nil, fmt.Errorf("implicit_choice %s: %w", topic, err)
			}
			c := r.Convo
			if len(r.Options) == 0 || c == nil || c.Query == "" || c.AssistantOptions == "" || c.UserSelection == "" || c.AssistantAcknowledgment == "" {
				return nil, fmt.Errorf("implicit_choice %s %d: options or conversation missing", topic, i)
			}
			chosen := r.AlignedOp
			if chosen == "" {
				chosen = r.Options[0]
			}
			pe.Choice[topic] = append(pe.Choice[topic], PrefEvalChoice{
				PrefEvalItem: it, Options: r.Options, Chosen: chosen,
				Query: c.Query, AssistantOptions: c.AssistantOptions, UserSelection: c.UserSelection, AssistantAcknowledgment: c.AssistantAcknowledgment,
			})
		}
	}
	return pe, nil
}

func prefEvalItem(topic string, i int, r rawPrefEvalItem) (PrefEvalItem, error) {
	if r.Preference == "" || r.Question == "" {
		return PrefEvalItem{}, fmt.Errorf("%d: preference or question missing", i)
	}
	return PrefEvalItem{Topic: topic, Index: i, Preference: r.Preference, Question: r.Question, Explanation: r.Explanation}, nil
}

// LoadPrefEvalConversations reads PrefEval as the data check posts it: one
// user per item, its preference (explicit) or its choice's four turns
// (implicit_choice) in a session, and the question as the user's turn of a
// second session a day later. The user ids say which list and place:
// prefeval-explicit-<topic>-<n>, prefeval-choice-<topic>-<n>.
func LoadPrefEvalConversations(dataDir string) ([]Conversation, error) {
	pe, err := LoadPrefEval(dataDir)
	if err != nil {
		return nil, err
	}
	var out []Conversation
	add := func(id string, said []Turn, question string) {
		start := prefEvalStart.Add(time.Duration(len(out)) * time.Hour)
		cv := Conversation{SampleID: id}
		sessions := [][]Turn{said, {{Role: "user", Content: question}}}
		for s, turns := range sessions {
			sid := fmt.Sprintf("%s-s%d", id, s)
			cv.Sessions = append(cv.Sessions, Session{ID: sid, Turns: len(turns)})
			for j, t := range turns {
				t.ID, t.SessionID, t.Text = fmt.Sprintf("%s-%d", sid, j), sid, t.Content
				t.OccurredAt = start.Add(time.Duration(s)*24*time.Hour + time.Duration(j)*turnSpacing)
				cv.Turns = append(cv.Turns, t)
			}
		}
		out = append(out, cv)
	}
	for _, topic := range pe.Topics {
		for _, it := range pe.Explicit[topic] {
			add(fmt.Sprintf("prefeval-explicit-%s-%d", topic, it.Index), []Turn{{Role: "user", Content: it.Preference}}, it.Question)
		}
		for _, it := range pe.Choice[topic] {
			add(fmt.Sprintf("prefeval-choice-%s-%d", topic, it.Index), []Turn{
				{Role: "user", Content: it.Query}, {Role: "assistant", Content: it.AssistantOptions},
				{Role: "user", Content: it.UserSelection}, {Role: "assistant", Content: it.AssistantAcknowledgment},
			}, it.Question)
		}
	}
	return out, nil
}
