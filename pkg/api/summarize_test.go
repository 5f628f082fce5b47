package api_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/record"
	"github.com/recallhq/recall/pkg/store"
	"github.com/recallhq/recall/pkg/workers/summarizer"
)

type (
	summaryBody struct {
		SessionID    string    `json:"session_id"`
		Version      int       `json:"version"`
		FromCount    int64     `json:"from_count"`
		ThroughCount int64     `json:"through_count"`
		LastEventID  string    `json:"last_event_id"`
		LastAt       time.Time `json:"last_at"`
		CoversFrom   time.Time `json:"covers_from"`
		CoversTo     time.Time `json:"covers_to"`
		Summary      string    `json:"summary"`
		KeyTopics    []string  `json:"key_topics"`
		Model        string    `json:"model"`
		Reason       string    `json:"reason"`
	}
	summarizeBody struct {
		SessionID string       `json:"session_id"`
		Status    string       `json:"status"`
		Summary   *summaryBody `json:"summary"`
		Request   *struct {
			FromCount    int64 `json:"from_count"`
			ThroughCount int64 `json:"through_count"`
			Duplicate    bool  `json:"duplicate"`
		} `json:"request"`
	}
	contextSummary struct {
		SessionID    string    `json:"session_id"`
		Summary      string    `json:"summary"`
		KeyTopics    []string  `json:"key_topics"`
		MessageCount int64     `json:"message_count"`
		CoversFrom   time.Time `json:"covers_from"`
		CoversTo     time.Time `json:"covers_to"`
	}
	contextSummariesBody struct {
		Summaries struct {
			Previous []contextSummary `json:"previous"`
			Current  *contextSummary  `json:"current"`
		} `json:"summaries"`
		Window struct {
			Messages []messageBody `json:"messages"`
		} `json:"window"`
		Prompt string `json:"prompt"`
	}
)

// storedSummary writes a summary of a session as the summarizer would.
func (b *bundle) storedSummary(t *testing.T, tenant, session, text string, topics ...string) {
	t.Helper()
	in, err := b.db.Store.Tenant(tenant).SummaryInput(t.Context(), session, 20)
	require.NoError(t, err)
	require.NotEmpty(t, in.Messages)
	first, last := in.Messages[0], in.Messages[len(in.Messages)-1]
	version := 1
	if in.Previous != nil {
		version = in.Previous.Version + 1
	}
	coversFrom := first.OccurredAt
	if in.Previous != nil && in.Previous.CoversFrom.Before(coversFrom) {
		coversFrom = in.Previous.CoversFrom
	}
	_, err = b.db.Store.WriteSummary(t.Context(), store.SummaryWrite{TenantID: tenant, Read: in.EventIDs(), Summary: record.Summary{
		SessionID: session, UserID: in.State.UserID, Version: version, FromCount: in.State.Summarized, ThroughCount: in.State.Summarized + int64(len(in.Messages)),
		FirstEventID: first.EventID, FirstAt: first.OccurredAt, LastEventID: last.EventID, LastAt: last.OccurredAt,
		CoversFrom: coversFrom, CoversTo: last.OccurredAt,
		MessagesRead: len(in.Messages), Text: text, KeyTopics: topics, Model: "extractive", Reason: "threshold",
	}})
	require.NoError(t, err)
}

func chat(tenant, user, session string, n int, at time.Time) []events.Turn {
	out := make([]events.Turn, n)
	for i := range out {
		role := events.RoleUser
		if i%2 == 1 {
			role = events.RoleAssistant
		}
		out[i] = events.Turn{ID: fmt.Sprintf("%s-%d", session, i), TenantID: tenant, UserID: user, SessionID: session,
			OccurredAt: at.Add(time.Duration(i) * time.Second), Role: role, Content: fmt.Sprintf("message %d of %s", i, session)}
	}
	return out
}

func TestPostSummarize(t *testing.T) {
	t.Parallel()
	b := setup(t)
	requireCode(t, b.do(t, http.MethodPost, sessionPath("nope", "summarize"), "t", nil), http.StatusNotFound, "not_found")
	b.insert(t, chat("t", "u", "s", 4, testNow.Add(-time.Hour))...)

	// New messages: a request is queued; asking again is the same request.
	res := b.do(t, http.MethodPost, sessionPath("s", "summarize"), "t", nil)
	require.Equal(t, http.StatusAccepted, res.Status, string(res.Body))
	body := decode[summarizeBody](t, res)
	require.Equal(t, "queued", body.Status)
	require.Nil(t, body.Summary)
	require.EqualValues(t, 0, body.Request.FromCount)
	require.EqualValues(t, 4, body.Request.ThroughCount)
	require.False(t, body.Request.Duplicate)
	body = decode[summarizeBody](t, b.do(t, http.MethodPost, sessionPath("s", "summarize"), "t", nil))
	require.True(t, body.Request.Duplicate, "the same range is one request")

	// Summarized: no new messages gives the existing summary, no new row.
	b.storedSummary(t, "t", "s", "The user sent four messages.", "messages")
	for range 2 {
		res = b.do(t, http.MethodPost, sessionPath("s", "summarize"), "t", nil)
		require.Equal(t, http.StatusOK, res.Status, string(res.Body))
		body = decode[summarizeBody](t, res)
		require.Equal(t, "current", body.Status)
		require.Nil(t, body.Request)
		require.Equal(t, "The user sent four messages.", body.Summary.Summary)
	}
	require.Equal(t, 1, b.dbCount(t, "session_summaries", "t", "s"))

	// Another tenant's session of the same id does not exist for it.
	requireCode(t, b.do(t, http.MethodPost, sessionPath("s", "summarize"), "other", nil), http.StatusNotFound, "not_found")
	require.Equal(t, []string{"wait"}, requireFields(t, b.do(t, http.MethodPost, sessionPath("s", "summarize")+"?wait=2m", "t", nil), http.StatusBadRequest))
}

func TestPostSummarizeWaits(t *testing.T) {
	t.Parallel()
	b := setup(t, withIngest)
	testenv.StartWorker(t, b.nats, b.db, summarizer.Def, nil)

	b.postOK(t, "t", newTurn("1", "u", "s", "我最近在读刘慈欣的《三体》，很喜欢科幻小说。", testNow.Add(-time.Minute)))
	b.waitIngested(t)
	res := b.do(t, http.MethodPost, sessionPath("s", "summarize")+"?wait=10s", "t", nil)
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	body := decode[summarizeBody](t, res)
	require.Equal(t, "summarized", body.Status)
	require.Equal(t, "request", body.Summary.Reason)
	require.Contains(t, body.Summary.Summary, "三体")
	require.Contains(t, body.Summary.KeyTopics, "三体")

	// The session and its messages carry the summary, with the range of
	// event time it covers.
	sess := decode[struct {
		Summary *summaryBody `json:"summary"`
	}](t, b.get(t, "t", sessionPath("s")))
	require.Equal(t, body.Summary.Summary, sess.Summary.Summary)
	require.Equal(t, testNow.Add(-time.Minute), sess.Summary.CoversFrom)
	require.Equal(t, testNow.Add(-time.Minute), sess.Summary.CoversTo)
	msgs := decode[struct {
		Messages []messageBody `json:"messages"`
		Summary  *summaryBody  `json:"summary"`
	}](t, b.get(t, "t", sessionPath("s", "messages")))
	require.Len(t, msgs.Messages, 1)
	require.Equal(t, 1, msgs.Summary.Version)
}

func TestSessionWithoutSummary(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.insert(t, chat("t", "u", "s", 2, testNow.Add(-time.Hour))...)
	for _, p := range []string{sessionPath("s"), sessionPath("s", "messages")} {
		res := b.get(t, "t", p)
		require.Equal(t, http.StatusOK, res.Status)
		require.Contains(t, string(res.Body), `"summary":null`, p)
	}
}

func TestContextSummaries(t *testing.T) {
	t.Parallel()
	b := setup(t)
	// Four earlier sessions of the user, one of another user, one of another tenant.
	for i, s := range []string{"old1", "old2", "old3", "old4"} {
		b.insert(t, chat("t", "u", s, 2, testNow.Add(-time.Duration(10-i)*time.Hour))...)
		b.storedSummary(t, "t", s, fmt.Sprintf("用户在第%d次对话里聊了科幻小说。", i+1), "三体", fmt.Sprintf("话题%d", i+1))
	}
	b.insert(t, chat("t", "someone-else", "theirs", 2, testNow.Add(-time.Hour))...)
	b.storedSummary(t, "t", "theirs", "NOT-THIS-USER")
	b.insert(t, chat("other", "u", "x", 2, testNow.Add(-time.Hour))...)
	b.storedSummary(t, "other", "x", "NOT-THIS-TENANT")
	// The current session: 6 messages and a summary of them.
	b.insert(t, chat("t", "u", "now", 6, testNow.Add(-10*time.Minute))...)
	b.storedSummary(t, "t", "now", "The user opened this session with six messages.")

	body := decode[contextSummariesBody](t, b.get(t, "t", contextPath("u", "now", "lang", "zh")))
	prev := body.Summaries.Previous
	require.Len(t, prev, 3, "the latest three by default")
	require.Equal(t, []string{"old4", "old3", "old2"}, []string{prev[0].SessionID, prev[1].SessionID, prev[2].SessionID})
	require.Equal(t, []string{"三体", "话题4"}, prev[0].KeyTopics)
	require.Equal(t, testNow.Add(-7*time.Hour), prev[0].CoversFrom)
	require.Equal(t, testNow.Add(-7*time.Hour+time.Second), prev[0].CoversTo)
	require.Nil(t, body.Summaries.Current, "the window holds the session's start")
	require.Contains(t, body.Prompt, "之前的对话摘要：\n- [2026-11-22] 用户在第4次对话里聊了科幻小说。 用户曾提及：三体、话题4\n")
	require.NotContains(t, body.Prompt, "NOT-THIS")
	require.NotContains(t, body.Prompt, "本次会话较早的内容")

	// A window that misses the session's start carries its summary.
	body = decode[contextSummariesBody](t, b.get(t, "t", contextPath("u", "now", "max_messages", "2", "max_summaries", "1", "lang", "en")))
	require.Len(t, body.Summaries.Previous, 1)
	require.NotNil(t, body.Summaries.Current)
	require.Equal(t, "now", body.Summaries.Current.SessionID)
	require.EqualValues(t, 6, body.Summaries.Current.MessageCount)
	require.Contains(t, body.Prompt, "Earlier conversations:\n- [2026-11-22] 用户在第4次对话里聊了科幻小说。 The user mentioned: 三体, 话题4\n")
	require.Contains(t, body.Prompt, "Earlier in this session: The user opened this session with six messages.\n")
	require.Less(t, strings.Index(body.Prompt, "Earlier in this session"), strings.Index(body.Prompt, "Recent conversation in this session"))

	body = decode[contextSummariesBody](t, b.get(t, "t", contextPath("u", "now", "max_summaries", "0")))
	require.Empty(t, body.Summaries.Previous)
	require.Equal(t, []string{"max_summaries"}, requireFields(t, b.get(t, "t", contextPath("u", "now", "max_summaries", "21")), http.StatusBadRequest))

	// A user's first turn in a new session still gets the earlier sessions.
	body = decode[contextSummariesBody](t, b.get(t, "t", contextPath("u", "brand-new")))
	require.Len(t, body.Summaries.Previous, 3)
	require.Equal(t, "now", body.Summaries.Previous[0].SessionID, "the latest session first")
	require.Contains(t, body.Prompt, "之前的对话摘要：\n- [2026-11-22] The user opened this session with six messages.\n")
	// Another tenant's user of the same id sees only its own.
	body = decode[contextSummariesBody](t, b.get(t, "other", contextPath("u", "brand-new")))
	require.Len(t, body.Summaries.Previous, 1)
	require.Equal(t, "NOT-THIS-TENANT", body.Summaries.Previous[0].Summary)
}
