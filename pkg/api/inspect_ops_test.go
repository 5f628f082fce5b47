package api_test

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/eventmsg"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/queue"
	"github.com/recallhq/recall/pkg/store"
)

type deadLettersBody struct {
	DeadLetters []struct {
		Seq      uint64 `json:"seq"`
		Consumer string `json:"consumer"`
		Subject  string `json:"subject"`
		EventID  string `json:"event_id"`
		Reason   string `json:"reason"`
		Data     string `json:"data"`
	} `json:"dead_letters"`
	NextAfter uint64 `json:"next_after"`
}

// deadLetter writes a turn to the dead-letter stream with the runner's own
// writer, as if ingest had given up on it.
func (b *bundle) deadLetter(t *testing.T, tr events.Turn, reason string) {
	t.Helper()
	// The stream sequence it came from names the dead letter (its dedupe id).
	b.deadLetterBy(t, tr, "ingest", uint64(len(b.nats.DeadLetters(t))+1000), reason)
}

// deadLetterBy writes a turn to the dead-letter stream as consumer's runner
// would, had it given up on the turn stored at stream sequence seq.
func (b *bundle) deadLetterBy(t *testing.T, tr events.Turn, consumer string, seq uint64, reason string) {
	t.Helper()
	msg, err := eventmsg.Turn(&tr)
	require.NoError(t, err)
	require.NoError(t, queue.DeadLetter(t.Context(), b.js, consumer, queue.TurnsStream,
		queue.Message{Subject: msg.Subject, Data: msg.Data, Header: msg.Header, Seq: seq, Deliveries: 5}, reason))
}

// Each tenant sees and re-drives only its own dead letters; a re-driven
// turn is stored by ingest like any other.
func TestDeadLetters(t *testing.T) {
	t.Parallel()
	b := setup(t, withIngest)
	at := testNow.Add(-time.Hour)
	turn := func(tenant, id string) events.Turn {
		return events.Turn{V: events.Version, ID: id, TenantID: tenant, UserID: "u.1", SessionID: "s1", OccurredAt: at, Role: events.RoleUser, Content: "回来了 " + id}
	}
	b.deadLetter(t, turn("t1", "a"), "gave up after 5 deliveries: the database refused it")
	b.deadLetter(t, turn("t2", "theirs"), "gave up")
	b.deadLetter(t, turn("t1", "b"), "gave up")
	// A message on a subject of no tenant, rejected at once by ingest.
	_, err := b.js.PublishMsg(t.Context(), &nats.Msg{Subject: "recall.turns.x", Data: []byte("{}")})
	require.NoError(t, err)
	require.Eventually(t, func() bool { return len(b.nats.DeadLetters(t)) == 4 }, 10*time.Second, 20*time.Millisecond)

	all := decode[deadLettersBody](t, b.get(t, "t1", "/v1/ops/dead-letters"))
	require.Len(t, all.DeadLetters, 2, "the other tenant's and the tenant-less ones are left out")
	first := all.DeadLetters[0]
	require.Equal(t, "t1:a", first.EventID)
	require.Equal(t, "ingest", first.Consumer)
	require.Equal(t, events.TurnSubject("t1", "u.1", "s1"), first.Subject)
	require.Contains(t, first.Reason, "the database refused it")
	require.Contains(t, first.Data, "回来了 a", "the payload as text")
	require.Zero(t, all.NextAfter)

	page := decode[deadLettersBody](t, b.get(t, "t1", "/v1/ops/dead-letters?limit=1"))
	require.Len(t, page.DeadLetters, 1)
	require.Equal(t, first.Seq, page.NextAfter)
	rest := decode[deadLettersBody](t, b.get(t, "t1", "/v1/ops/dead-letters?limit=1&after="+strconv.FormatUint(page.NextAfter, 10)))
	require.Equal(t, "t1:b", rest.DeadLetters[0].EventID)
	require.Empty(t, decode[deadLettersBody](t, b.get(t, "t1", "/v1/ops/dead-letters?consumer=extractor")).DeadLetters)
	theirs := decode[deadLettersBody](t, b.get(t, "t2", "/v1/ops/dead-letters")).DeadLetters
	require.Len(t, theirs, 1)

	redrive := func(tenant string, seq uint64) response {
		return b.do(t, http.MethodPost, "/v1/ops/dead-letters/"+strconv.FormatUint(seq, 10)+"/redrive", tenant, nil)
	}
	requireCode(t, redrive("t1", theirs[0].Seq), http.StatusNotFound, "not_found")
	requireCode(t, redrive("t1", 9999), http.StatusNotFound, "not_found")
	require.Equal(t, []string{"seq"}, requireFields(t, redrive("t1", 0), http.StatusBadRequest))
	res := redrive("t1", first.Seq)
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	require.JSONEq(t, `{"seq":`+strconv.FormatUint(first.Seq, 10)+`,"subject":"`+first.Subject+`","event_id":"t1:a","consumer":"ingest","also_removed":[]}`, string(res.Body))
	require.Eventually(t, func() bool {
		return b.dbCount(t, "messages", "t1", "s1") == 1
	}, 10*time.Second, 20*time.Millisecond, "the re-driven turn is stored")
	left := decode[deadLettersBody](t, b.get(t, "t1", "/v1/ops/dead-letters")).DeadLetters
	require.Len(t, left, 1)
	require.Equal(t, "t1:b", left[0].EventID)
	requireCode(t, redrive("t1", first.Seq), http.StatusNotFound, "not_found")

	// A message two consumers gave up on is re-driven once, for both: the
	// other consumer's dead letter of it goes too.
	both := turn("t1", "both")
	b.deadLetterBy(t, both, "ingest", 5000, "gave up")
	b.deadLetterBy(t, both, "extractor", 5000, "the model answered no JSON")
	two := decode[deadLettersBody](t, b.get(t, "t1", "/v1/ops/dead-letters")).DeadLetters
	require.Len(t, two, 3)
	res = redrive("t1", two[2].Seq)
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	require.Equal(t, []uint64{two[1].Seq}, decode[struct {
		AlsoRemoved []uint64 `json:"also_removed"`
	}](t, res).AlsoRemoved)
	left = decode[deadLettersBody](t, b.get(t, "t1", "/v1/ops/dead-letters")).DeadLetters
	require.Len(t, left, 1)
	require.Equal(t, "t1:b", left[0].EventID)

	// Within the duplicate window the stream would drop the copy: refused,
	// kept, and the answer says when a re-drive will work: a window after
	// the stream stored the message.
	dup := turn("t1", "dup")
	b.postOK(t, "t1", turn2map(dup))
	b.deadLetter(t, dup, "gave up")
	after := decode[deadLettersBody](t, b.get(t, "t1", "/v1/ops/dead-letters")).DeadLetters
	res = redrive("t1", after[len(after)-1].Seq)
	requireCode(t, res, http.StatusConflict, "still_duplicate")
	turns, err := b.js.Stream(t.Context(), queue.TurnsStream)
	require.NoError(t, err)
	stored, err := turns.GetLastMsgForSubject(t.Context(), events.TurnSubject("t1", "u.1", "s1"))
	require.NoError(t, err)
	require.Equal(t, "t1:dup", stored.Header.Get("Nats-Msg-Id"))
	window := turns.CachedInfo().Config.Duplicates
	refused := decode[struct {
		Error struct {
			Message string    `json:"message"`
			RetryAt time.Time `json:"retry_at"`
		} `json:"error"`
	}](t, res).Error
	require.True(t, stored.Time.Add(window).Equal(refused.RetryAt), "retry at %s: stored at %s, window %s", refused.RetryAt, stored.Time, window)
	require.Contains(t, refused.Message, refused.RetryAt.Format(time.RFC3339))
	wait, err := strconv.Atoi(res.Header.Get("Retry-After"))
	require.NoError(t, err, "Retry-After: %q", res.Header.Get("Retry-After"))
	require.InDelta(t, time.Until(refused.RetryAt).Seconds(), float64(wait), 2)
	require.Len(t, decode[deadLettersBody](t, b.get(t, "t1", "/v1/ops/dead-letters")).DeadLetters, 2)
}

func turn2map(tr events.Turn) turn {
	return newTurn(tr.ID, tr.UserID, tr.SessionID, tr.Content, tr.OccurredAt)
}

// Consumers with their backlog, and the decayer's last runs: no tenant's
// data, so any tenant reads them.
func TestOpsConsumersAndDecayer(t *testing.T) {
	t.Parallel()
	b := setup(t, withIngest)
	type consumer struct {
		Stream     string `json:"stream"`
		Name       string `json:"name"`
		Pending    uint64 `json:"pending"`
		AckPending uint64 `json:"ack_pending"`
	}
	cons := decode[struct {
		Consumers []consumer `json:"consumers"`
	}](t, b.get(t, "t1", "/v1/ops/consumers")).Consumers
	require.Contains(t, cons, consumer{Stream: queue.TurnsStream, Name: "ingest"})

	type run struct {
		Result string    `json:"result"`
		At     time.Time `json:"at"`
		Steps  []struct {
			Name   string           `json:"name"`
			Counts map[string]int64 `json:"counts"`
			Error  string           `json:"error"`
		} `json:"steps"`
		Error string `json:"error"`
	}
	type runs struct {
		LastRun     *run `json:"last_run"`
		LastSuccess *run `json:"last_success"`
	}
	require.Equal(t, runs{}, decode[runs](t, b.get(t, "t1", "/v1/ops/decayer")), "none before the first run")

	at := testNow.Add(-time.Hour)
	require.NoError(t, b.db.Store.SaveDecayerRun(t.Context(), store.DecayerRun{Result: store.DecayerRunOK, At: at, StartedAt: at, FinishedAt: at.Add(time.Second),
		Steps: []store.DecayerStep{{Name: "facts", Batches: 1, Counts: map[string]int64{"decayed": 3}}}}))
	got := decode[runs](t, b.get(t, "t2", "/v1/ops/decayer"))
	require.Equal(t, got.LastRun, got.LastSuccess)
	require.Equal(t, int64(3), got.LastRun.Steps[0].Counts["decayed"])

	require.NoError(t, b.db.Store.SaveDecayerRun(t.Context(), store.DecayerRun{Result: store.DecayerRunFailed, At: testNow, StartedAt: testNow, FinishedAt: testNow,
		Steps: []store.DecayerStep{{Name: "facts", Error: "boom"}}, Error: "step facts: boom"}))
	got = decode[runs](t, b.get(t, "t1", "/v1/ops/decayer"))
	require.Equal(t, "failed", got.LastRun.Result)
	require.Equal(t, "boom", got.LastRun.Steps[0].Error)
	require.Equal(t, "ok", got.LastSuccess.Result)
	require.Equal(t, at, got.LastSuccess.At)

	// A run that failed before its first step kept none: still a list.
	require.NoError(t, b.db.Store.SaveDecayerRun(t.Context(), store.DecayerRun{Result: store.DecayerRunFailed, At: testNow.Add(time.Minute),
		StartedAt: testNow.Add(time.Minute), FinishedAt: testNow.Add(time.Minute), Error: "facts: connection refused"}))
	res := b.get(t, "t1", "/v1/ops/decayer")
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	require.Contains(t, string(res.Body), `"last_run":{"result":"failed","at":"2026-11-22T12:01:00Z",`)
	require.Contains(t, string(res.Body), `"steps":[],"error":"facts: connection refused"}`)
}

// The inspector's files are served at /ui/ with a policy that lets them load
// nothing but their own files and talk to nothing but their own origin.
func TestInspectorFiles(t *testing.T) {
	t.Parallel()
	b := setup(t)
	res := b.get(t, "", "/ui/")
	require.Equal(t, http.StatusOK, res.Status)
	require.Contains(t, string(res.Body), `<script type="module" src="app.js">`)
	require.Contains(t, res.Header.Get("Content-Security-Policy"), "script-src 'self'")
	for _, f := range []string{"app.js", "core.js", "chart.js", "user.js", "session.js", "ops.js", "style.css"} {
		res := b.get(t, "", "/ui/"+f)
		require.Equal(t, http.StatusOK, res.Status, f)
		require.NotEmpty(t, res.Body, f)
	}
	require.Contains(t, b.get(t, "", "/ui/app.js").Header.Get("Content-Type"), "javascript")
	res = b.get(t, "", "/ui")
	require.Equal(t, http.StatusOK, res.Status, "redirected to /ui/")
	require.Equal(t, http.StatusMethodNotAllowed, b.do(t, http.MethodPost, "/ui/", "t1", []byte(`{}`)).Status)
	require.Equal(t, http.StatusNotFound, b.get(t, "", "/ui/nothing.js").Status)
}
