package summarizer_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/openaitest"
	"github.com/recallhq/recall/pkg/attribute"
	"github.com/recallhq/recall/pkg/events"
)

// profileSystem is how the fake model tells the profile's requests from
// the summary's.
const profileSystem = "You keep a user's profile"

// fakeProfileModel answers summaries with a fixed summary and the profile's
// requests with ops(prompt), where the prompt is the request's user message.
func fakeProfileModel(srv *openaitest.Server, ops func(prompt string) string) {
	srv.Respond(func(r openaitest.Request) openaitest.Reply {
		if len(r.Messages) == 2 && strings.HasPrefix(r.Messages[0].Content, profileSystem) {
			return openaitest.Reply{Content: ops(r.Messages[1].Content)}
		}
		return openaitest.Reply{Content: `{"summary": "The user talked about cooking for their family.", "key_topics": []}`}
	})
}

// idOf is the id the prompt gave the user's turn that contains text.
func idOf(prompt, text string) string {
	m := regexp.MustCompile(`\[(t\d+)\] User: [^\n]*` + regexp.QuoteMeta(text)).FindStringSubmatch(prompt)
	if m == nil {
		return "missing"
	}
	return m[1]
}

func profileTurns(tenant, user, session string, from int, start time.Time, lines ...string) []events.Turn {
	out := make([]events.Turn, len(lines))
	for i, l := range lines {
		role := events.RoleUser
		if (from+i)%2 == 1 {
			role = events.RoleAssistant
		}
		out[i] = events.Turn{ID: fmt.Sprintf("%s-%s-%03d", tenant, session, from+i), TenantID: tenant, UserID: user, SessionID: session,
			OccurredAt: start.Add(time.Duration(i) * time.Minute), Role: role, Content: l}
	}
	return out
}

// TestProfileInferredWithSummaries: with a model, each summary version
// asks it once what the version's messages say about the user, showing the
// current profile; the operations it returns, with their evidence, become
// inferred values in the version's transaction. Operations that cite no
// user turn of the batch, name no key, or are unsure are dropped; a
// retraction read from a later batch ends the value; a repeat asks nothing.
func TestProfileInferredWithSummaries(t *testing.T) {
	t.Parallel()
	b := setup(t)
	srv := b.withLLM(t)
	b.cfg.Infer = true
	var mu sync.Mutex
	var asked []string
	prompts := func() []string { mu.Lock(); defer mu.Unlock(); return slices.Clone(asked) }
	fakeProfileModel(srv, func(prompt string) string {
		mu.Lock()
		asked = append(asked, prompt)
		mu.Unlock()
		if strings.Contains(prompt, "not allergic anymore") {
			return fmt.Sprintf(`{"operations": [{"op": "retract", "key": "allergies", "value": "peanuts (daughter)", "evidence": [%q], "confidence": 0.9},
				{"op": "retract", "key": "goals", "evidence": [%q], "confidence": 0.9}]}`,
				idOf(prompt, "not allergic anymore"), idOf(prompt, "not allergic anymore"))
		}
		allergy, trip := idOf(prompt, "allergic to peanuts"), idOf(prompt, "Kyoto")
		return "```json\n" + fmt.Sprintf(`{"operations": [
			{"op": "add", "key": "allergies", "value": "peanuts (daughter)", "evidence": [%q], "confidence": 0.95},
			{"op": "add", "key": "requests", "value": "never suggest recipes with peanuts", "evidence": [%q]},
			{"op": "add", "key": "goals", "value": "trip to Kyoto in April", "evidence": [%q, "t99"], "confidence": 0.8},
			{"op": "add", "key": "occupation", "value": "chef", "evidence": ["t2"], "confidence": 0.9},
			{"op": "add", "key": "shoe_size", "value": "42", "evidence": [%q], "confidence": 0.9},
			{"op": "add", "key": "pets", "value": "a cat", "evidence": [%q], "confidence": 0.2}
		]}`, allergy, allergy, trip, allergy, allergy) + "\n```"
	})
	b.start(t)
	first := profileTurns("t", "u", "s", 0, t0,
		"My daughter is allergic to peanuts, so please never suggest recipes with peanuts.",
		"Understood, no peanuts. What else?",
		"Also I'm planning a trip to Kyoto in April.",
		"Kyoto in April is lovely.", "Any tips for the cherry blossoms?", "Go early in the morning.",
		"Thanks, and maybe a dessert for tonight?", "How about a mango sorbet?", "Sounds good.", "Enjoy!")
	b.publish(t, first...)
	b.waitSummary(t, "t", "s", 10)
	b.waitSettled(t)

	ctx := context.Background()
	as, err := b.db.Store.Tenant("t").Assertions(ctx, "u")
	require.NoError(t, err)
	require.Len(t, as, 3, "the allergy, the request and the trip; the rest dropped: %+v", as)
	for _, a := range as {
		require.Equal(t, attribute.Inferred, a.Source)
		require.Equal(t, "s", a.SessionID)
		require.True(t, strings.HasPrefix(a.EventID, "summary\x1fs\x1f0-10"), "recorded under the version: %q", a.EventID)
	}
	cur := attribute.Resolve(attribute.Default(), as).Current
	values := map[string]attribute.Value{}
	for _, v := range cur {
		values[v.Key] = v
	}
	require.Equal(t, "peanuts (daughter)", values["allergies"].Value)
	require.Equal(t, []string{"t-s-000"}, values["allergies"].Evidence, "the evidence is the user's turn")
	require.Equal(t, first[0].OccurredAt, values["allergies"].At, "at the turn's event time")
	require.InDelta(t, 0.95, values["allergies"].Confidence, 1e-9)
	require.InDelta(t, 0.7, values["requests"].Confidence, 1e-9, "no confidence given: the default")
	require.Equal(t, []string{"t-s-002"}, values["goals"].Evidence, "an id the batch does not hold is not evidence")
	require.NotContains(t, prompts()[0], "t-s-", "the model sees short ids, not event ids")
	require.NotContains(t, prompts()[0], "[t2]", "assistant turns carry no id to cite")

	// The next batch sees the current profile, and the user takes the
	// allergy back.
	b.publish(t, profileTurns("t", "u", "s", 10, t0.Add(time.Hour),
		"Good news: the doctor says she is not allergic anymore.", "That is great news!",
		"Yes, what a relief.", "Indeed.", "Ok.", "Ok.", "Ok.", "Ok.", "Ok.", "Ok.")...)
	b.waitSummary(t, "t", "s", 20)
	b.waitSettled(t)
	require.Len(t, prompts(), 2, "one request per version, never one per turn")
	require.Contains(t, prompts()[1], "allergies: peanuts (daughter) (inferred)")
	as, err = b.db.Store.Tenant("t").Assertions(ctx, "u")
	require.NoError(t, err)
	require.Len(t, as, 4, "a set's retraction without a value is dropped: a model does not clear a list")
	cur = attribute.Resolve(attribute.Default(), as).Current
	require.Len(t, cur, 2)
	for _, v := range cur {
		require.NotEqual(t, "allergies", v.Key, "retracted")
	}

	// A repeat of a covered range asks the model nothing and stores nothing.
	w := b.worker(t)
	out, err := w.Summarize(ctx, "t", "s", 20, events.SummarizeRequested, false)
	require.NoError(t, err)
	require.Equal(t, "covered", out)
	require.Len(t, prompts(), 2)
	require.Empty(t, b.nats.DeadLetters(t))
}

// TestProfileInferenceFailureKeepsTheSummary: a model that fails the
// profile's request leaves the version written by it, without inferences.
func TestProfileInferenceFailureKeepsTheSummary(t *testing.T) {
	t.Parallel()
	b := setup(t)
	srv := b.withLLM(t)
	b.cfg.Infer = true
	srv.Respond(func(r openaitest.Request) openaitest.Reply {
		if strings.HasPrefix(r.Messages[0].Content, profileSystem) {
			return openaitest.Reply{Status: 500}
		}
		return openaitest.Reply{Content: `{"summary": "by the model", "key_topics": []}`}
	})
	b.start(t)
	b.publish(t, profileTurns("t", "u", "s", 0, t0, "I'm vegetarian.", "Noted.", "a", "b", "c", "d", "e", "f", "g", "h")...)
	sum := b.waitSummary(t, "t", "s", 10)
	require.Equal(t, "by the model", sum.Text)
	b.waitSettled(t)
	as, err := b.db.Store.Tenant("t").Assertions(context.Background(), "u")
	require.NoError(t, err)
	require.Empty(t, as)
	require.Len(t, b.versions(t, "t", "s"), 1)
	require.Empty(t, b.nats.DeadLetters(t))
}
