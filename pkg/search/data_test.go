package search_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/deploycheck"
	"github.com/recallhq/recall/pkg/events"
)

// The conversations in ../shared/data (see its README), turned into turns of
// one user: real text that nobody on this project wrote.

func dataPath(parts ...string) string {
	return filepath.Join(append([]string{deploycheck.RepoRoot(), "..", "shared", "data"}, parts...)...)
}

// kdconvConversation is a KdConv conversation: its topic entity and turns.
type kdconvConversation struct {
	Topic string
	Turns []events.Turn
}

// kdconv reads the first n conversations of a KdConv domain as sessions
// kd-<index> of one user; the first speaker is the user, and turns are a
// minute apart, conversations a day apart.
func kdconv(t *testing.T, domain string, n int, tenant, user string, start time.Time) []kdconvConversation {
	t.Helper()
	raw, err := os.ReadFile(dataPath("kdconv", domain, "dev.json"))
	require.NoError(t, err, "the KdConv data must sit beside the repository in ../shared/data")
	var convs []struct {
		Name     string `json:"name"`
		Messages []struct {
			Message string `json:"message"`
		} `json:"messages"`
	}
	require.NoError(t, json.Unmarshal(raw, &convs))
	out := make([]kdconvConversation, 0, n)
	for ci, c := range convs[:min(n, len(convs))] {
		conv := kdconvConversation{Topic: c.Name}
		session := fmt.Sprintf("kd-%s-%d", domain, ci)
		for mi, m := range c.Messages {
			role := events.RoleUser
			if mi%2 == 1 {
				role = events.RoleAssistant
			}
			conv.Turns = append(conv.Turns, events.Turn{
				V: events.Version, ID: fmt.Sprintf("%s-%d", session, mi), TenantID: tenant, UserID: user, SessionID: session,
				OccurredAt: start.AddDate(0, 0, ci).Add(time.Duration(mi) * time.Minute), Role: role, Content: m.Message,
			})
		}
		out = append(out, conv)
	}
	return out
}

// locomoQuestion is a LoCoMo question with the ids of the turns that hold
// its evidence.
type locomoQuestion struct {
	Question string
	Evidence []string
}

// locomo reads a LoCoMo conversation (0-4) as sessions lc-<n> of one user
// (speaker_a), each turn a minute apart from the session's dated start, turn
// ids being the dataset's dialogue ids; and its questions that have evidence
// (categories 1-4: the fifth has no answer in the conversation).
func locomo(t *testing.T, index int, tenant, user string) ([]events.Turn, []locomoQuestion) {
	t.Helper()
	raw, err := os.ReadFile(dataPath("locomo", "locomo_conv1-5.json"))
	require.NoError(t, err, "the LoCoMo data must sit beside the repository in ../shared/data")
	var convs []struct {
		QA []struct {
			Question string   `json:"question"`
			Evidence []string `json:"evidence"`
			Category int      `json:"category"`
		} `json:"qa"`
		Conversation map[string]json.RawMessage `json:"conversation"`
	}
	require.NoError(t, json.Unmarshal(raw, &convs))
	c := convs[index]
	var speakerA string
	require.NoError(t, json.Unmarshal(c.Conversation["speaker_a"], &speakerA))
	sessionKey := regexp.MustCompile(`^session_(\d+)$`)
	var nums []int
	for k := range c.Conversation {
		if m := sessionKey.FindStringSubmatch(k); m != nil {
			n, _ := strconv.Atoi(m[1])
			nums = append(nums, n)
		}
	}
	sort.Ints(nums)
	var turns []events.Turn
	for _, n := range nums {
		k := "session_" + strconv.Itoa(n)
		var date string
		require.NoError(t, json.Unmarshal(c.Conversation[k+"_date_time"], &date))
		start, err := time.Parse("3:04 pm on 2 January, 2006", date)
		require.NoError(t, err, date)
		var raw []struct {
			Speaker string `json:"speaker"`
			DiaID   string `json:"dia_id"`
			Text    string `json:"text"`
		}
		require.NoError(t, json.Unmarshal(c.Conversation[k], &raw))
		for i, tu := range raw {
			role := events.RoleAssistant
			if tu.Speaker == speakerA {
				role = events.RoleUser
			}
			turns = append(turns, events.Turn{
				V: events.Version, ID: tu.DiaID, TenantID: tenant, UserID: user, SessionID: fmt.Sprintf("lc-%d", n),
				OccurredAt: start.Add(time.Duration(i) * time.Minute), Role: role, Content: tu.Text,
			})
		}
	}
	var qs []locomoQuestion
	for _, qa := range c.QA {
		if qa.Category < 1 || qa.Category > 4 || len(qa.Evidence) == 0 {
			continue
		}
		q := locomoQuestion{Question: qa.Question}
		for _, e := range qa.Evidence {
			for _, id := range strings.Split(e, ";") {
				q.Evidence = append(q.Evidence, strings.TrimSpace(id))
			}
		}
		qs = append(qs, q)
	}
	return turns, qs
}

// topicName is a KdConv topic without the disambiguation in brackets
// (恋恋笔记本（美国2004年…爱情片） is 恋恋笔记本).
func topicName(topic string) string {
	if i := strings.IndexAny(topic, "（("); i > 0 {
		return strings.TrimSpace(topic[:i])
	}
	return topic
}
