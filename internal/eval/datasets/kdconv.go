package datasets

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// kdconvDomains are KdConv's folders.
var kdconvDomains = []string{"film", "music", "travel"}

// kdconvStart is when the KdConv conversations (which carry no dates) are
// posted as having happened: one an hour from here, in file order.
var kdconvStart = time.Date(2024, 1, 1, 8, 0, 0, 0, time.UTC)

// LoadKdConv reads dataDir/kdconv/<domain>/dev.json: each conversation one
// session of its own user, the first speaker the user, turns alternating.
func LoadKdConv(dataDir string) ([]Conversation, error) {
	var out []Conversation
	for _, domain := range kdconvDomains {
		path := filepath.Join(dataDir, "kdconv", domain, "dev.json")
		raw, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
		var convs []struct {
			Messages []struct {
				Message string `json:"message"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(raw, &convs); err != nil {
			return nil, fmt.Errorf("parse %s: %w", path, err)
		}
		for i, c := range convs {
			id := fmt.Sprintf("kdconv-%s-%d", domain, i)
			start := kdconvStart.Add(time.Duration(len(out)) * time.Hour)
			cv := Conversation{SampleID: id, Sessions: []Session{{ID: id, Turns: len(c.Messages)}}}
			for j, m := range c.Messages {
				cv.Turns = append(cv.Turns, Turn{
					ID: fmt.Sprintf("%s-%d", id, j), SessionID: id, Role: alternateRole(j), Content: m.Message, Text: m.Message,
					OccurredAt: start.Add(time.Duration(j) * turnSpacing),
				})
			}
			out = append(out, cv)
		}
	}
	return out, nil
}

// alternateRole is the role of the i-th utterance of a two-party
// conversation whose first speaker is the user.
func alternateRole(i int) string {
	if i%2 == 0 {
		return "user"
	}
	return "assistant"
}
