package summarize_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/deploycheck"
	"github.com/recallhq/recall/pkg/extract"
	"github.com/recallhq/recall/pkg/summarize"
)

var (
	rulesOnce sync.Once
	rules     *extract.Rules
	rulesErr  error
)

func sharedRules(t testing.TB) *extract.Rules {
	rulesOnce.Do(func() { rules, rulesErr = extract.NewRules(extract.RulesOptions{}) })
	require.NoError(t, rulesErr)
	return rules
}

// locomoSession is one dated session of a LoCoMo conversation, with the
// dataset's own summary of it.
type locomoSession struct {
	Name      string
	Turns     []summarize.Turn
	Speakers  []string
	Reference string
}

// locomoSessions reads every session of ../shared/data/locomo; speaker_a is the user.
func locomoSessions(t testing.TB) []locomoSession {
	raw, err := os.ReadFile(filepath.Join(deploycheck.RepoRoot(), "..", "shared", "data", "locomo", "locomo_conv1-5.json"))
	require.NoError(t, err, "the LoCoMo data must sit beside the repository in ../shared/data")
	var convs []struct {
		SampleID       string                     `json:"sample_id"`
		Conversation   map[string]json.RawMessage `json:"conversation"`
		SessionSummary map[string]string          `json:"session_summary"`
	}
	require.NoError(t, json.Unmarshal(raw, &convs))
	sessionKey := regexp.MustCompile(`^session_(\d+)$`)
	var out []locomoSession
	for _, c := range convs {
		var a, b string
		require.NoError(t, json.Unmarshal(c.Conversation["speaker_a"], &a))
		require.NoError(t, json.Unmarshal(c.Conversation["speaker_b"], &b))
		var nums []int
		for k := range c.Conversation {
			if m := sessionKey.FindStringSubmatch(k); m != nil {
				n, _ := strconv.Atoi(m[1])
				nums = append(nums, n)
			}
		}
		sort.Ints(nums)
		for _, n := range nums {
			k := "session_" + strconv.Itoa(n)
			var turns []struct{ Speaker, Text string }
			require.NoError(t, json.Unmarshal(c.Conversation[k], &turns))
			s := locomoSession{Name: c.SampleID + "/" + k, Speakers: []string{a, b}, Reference: c.SessionSummary[k+"_summary"]}
			for _, tu := range turns {
				role := "assistant"
				if tu.Speaker == a {
					role = "user"
				}
				s.Turns = append(s.Turns, summarize.Turn{Role: role, Text: tu.Text})
			}
			if len(s.Turns) > 0 {
				out = append(out, s)
			}
		}
	}
	return out
}

// rolling summarizes a session the way the worker does at the default
// threshold: every 10 messages, from the previous summary and those messages.
func rolling(t testing.TB, s *summarize.Extractive, turns []summarize.Turn) summarize.Summary {
	var prev *summarize.Previous
	var sum summarize.Summary
	for off := 0; off < len(turns); off += 10 {
		var err error
		sum, err = s.Summarize(context.Background(), summarize.Input{Previous: prev, Turns: turns[off:min(off+10, len(turns))]})
		require.NoError(t, err)
		prev = &summarize.Previous{Text: sum.Text, KeyTopics: sum.TopicNames()}
	}
	return sum
}

var wordRE = regexp.MustCompile(`[A-Za-z][A-Za-z'-]+`)

// mainTopics are a session's main topics by the dataset's own summary: the
// words of the reference summary (four letters or more, not function words,
// not the speakers' names) that the session itself uses at least twice.
func mainTopics(s locomoSession, r *extract.Rules) map[string]bool {
	inRef := map[string]bool{}
	for _, w := range r.Keywords(s.Reference) {
		if len(w) >= 4 {
			inRef[w] = true
		}
	}
	for _, sp := range s.Speakers {
		delete(inRef, strings.ToLower(sp))
	}
	counts := map[string]int{}
	for _, tu := range s.Turns {
		for _, w := range r.Keywords(tu.Text) {
			counts[w]++
		}
	}
	out := map[string]bool{}
	for w := range inRef {
		if counts[w] >= 2 {
			out[w] = true
		}
	}
	return out
}

func TestExtractiveOnLoCoMo(t *testing.T) {
	t.Parallel()
	r := sharedRules(t)
	e := summarize.NewExtractive(r, summarize.Options{})
	sessions := locomoSessions(t)
	require.Greater(t, len(sessions), 50)
	judged, hits := 0, 0
	sentences, smallTalk := 0, 0
	for _, s := range sessions {
		sum := rolling(t, e, s.Turns)
		n, small := smallTalkSentences(r, s, sum.Text)
		sentences, smallTalk = sentences+n, smallTalk+small
		require.NotEmpty(t, strings.TrimSpace(sum.Text), s.Name)
		require.LessOrEqual(t, utf8.RuneCountInString(sum.Text), summarize.DefaultOptions.MaxRunes, s.Name)
		require.LessOrEqual(t, len(sum.Topics), summarize.DefaultOptions.MaxTopics, s.Name)
		require.Equal(t, summarize.ModelExtractive, sum.Model)
		require.Equal(t, sum, rolling(t, e, s.Turns), "deterministic: %s", s.Name)

		main := mainTopics(s, r)
		if len(main) == 0 {
			continue
		}
		judged++
		said := map[string]bool{}
		for _, w := range r.Keywords(sum.Text + " " + strings.Join(sum.TopicNames(), " ")) {
			said[w] = true
		}
		hit := false
		for w := range main {
			hit = hit || said[w]
		}
		if hit {
			hits++
		} else {
			t.Logf("%s: summary %q, topics %v mention none of %v", s.Name, sum.Text, sum.TopicNames(), keys(main))
		}
	}
	t.Logf("%d of %d LoCoMo sessions: summary mentions a main topic of the reference summary", hits, judged)
	t.Logf("%d of %d summary sentences are small talk (under two content words besides the speakers' names)", smallTalk, sentences)
	require.Greater(t, judged, 50)
	require.GreaterOrEqual(t, float64(hits)/float64(judged), 0.9)
	require.LessOrEqual(t, float64(smallTalk)/float64(sentences), 0.02)
}

// smallTalkSentences counts a summary's sentences and those of them with
// fewer than two content words other than the speakers' names ("Thanks,
// Nate!", "Your words mean a lot.").
func smallTalkSentences(r *extract.Rules, s locomoSession, text string) (n, small int) {
	names := map[string]bool{}
	for _, sp := range s.Speakers {
		names[strings.ToLower(sp)] = true
	}
	for _, sent := range regexp.MustCompile(`(?:User|Assistant): `).Split(text, -1) {
		if strings.TrimSpace(sent) == "" {
			continue
		}
		n++
		content := 0
		for _, w := range r.Keywords(sent) {
			if !names[w] {
				content++
			}
		}
		if content < 2 {
			small++
		}
	}
	return n, small
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
