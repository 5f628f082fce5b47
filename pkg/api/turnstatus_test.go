package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/workers/indexer"
	"github.com/recallhq/recall/pkg/workers/ingest"
	"github.com/recallhq/recall/pkg/workers/summarizer"
)

// Wire formats of the turn status route and of a POST's wait, spelled out
// as the other tests' are.
type (
	waitBody struct {
		For          string   `json:"for"`
		Reached      bool     `json:"reached"`
		WaitedMS     int64    `json:"waited_ms"`
		Pending      []string `json:"pending"`
		DeadLettered []string `json:"dead_lettered"`
	}
	waitedBody struct {
		Accepted []acceptedTurn `json:"accepted"`
		Wait     *waitBody      `json:"wait"`
	}
	workerBody struct {
		Done       bool   `json:"done"`
		DeadLetter uint64 `json:"dead_letter"`
	}
	turnStatusBody struct {
		ID         string                `json:"id"`
		Sequence   uint64                `json:"sequence"`
		SessionID  string                `json:"session_id"`
		UserID     string                `json:"user_id"`
		Stored     bool                  `json:"stored"`
		Searchable bool                  `json:"searchable"`
		Summarized bool                  `json:"summarized"`
		Workers    map[string]workerBody `json:"workers"`
	}
)

// postWait posts turns with the query q (wait=, timeout=).
func (b *bundle) postWait(t *testing.T, tenant, q string, turns ...turn) response {
	t.Helper()
	return b.do(t, http.MethodPost, "/v1/turns?"+q, tenant, mustJSON(t, turns))
}

// turnPath is GET /v1/turns/{id}, with ?seq= when seq is not 0.
func turnPath(id string, seq uint64) string {
	p := "/v1/turns/" + url.PathEscape(id)
	if seq != 0 {
		p += fmt.Sprintf("?seq=%d", seq)
	}
	return p
}

// A turn posted with wait=searchable is found by a search as soon as the
// answer comes, and its status says every worker that ran is done with it.
func TestPostTurnsWaitSearchable(t *testing.T) {
	t.Parallel()
	b := setup(t, withIngest)
	testenv.StartWorker(t, b.nats, b.db, indexer.Def, nil)
	at := testNow.Add(-time.Hour)

	res := b.postWait(t, "t1", "wait=searchable&timeout=10s",
		newTurn("w1", "u1", "s1", "My neighbour keeps bees on the roof of the old observatory.", at),
		newTurn("w2", "u1", "s1", "That sounds like a sweet hobby.", at.Add(time.Second)).with("role", "assistant"))
	require.Equal(t, http.StatusAccepted, res.Status, string(res.Body))
	got := decode[waitedBody](t, res)
	require.Len(t, got.Accepted, 2)
	require.NotNil(t, got.Wait)
	require.Equal(t, "searchable", got.Wait.For)
	require.True(t, got.Wait.Reached, string(res.Body))
	require.Empty(t, got.Wait.Pending)
	require.Empty(t, got.Wait.DeadLettered)

	// No polling: the search right after the answer finds it.
	res = b.get(t, "t1", "/v1/users/u1/search?q="+url.QueryEscape("bees observatory"))
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	hits := decode[searchBody](t, res).Hits
	require.NotEmpty(t, hits)
	require.Equal(t, "w1", hits[0].SourceID)

	res = b.get(t, "t1", turnPath("w1", 0))
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	st := decode[turnStatusBody](t, res)
	require.Equal(t, turnStatusBody{ID: "w1", Sequence: got.Accepted[0].Sequence, SessionID: "s1", UserID: "u1", Stored: true, Searchable: true,
		Workers: map[string]workerBody{"ingest": {Done: true}, "indexer": {Done: true}}}, st)

	// Summarized once a summary version has read it.
	testenv.StartWorker(t, b.nats, b.db, summarizer.Def, nil)
	res = b.do(t, http.MethodPost, sessionPath("s1", "summarize")+"?wait=10s", "t1", nil)
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	require.Equal(t, "summarized", decode[summarizeBody](t, res).Status)
	st = decodeStatus(b.get(t, "t1", turnPath("w1", 0)))
	require.True(t, st.Summarized)
	require.True(t, st.Stored && st.Searchable)

	// A resent turn (a duplicate) waits for its original, which is done.
	res = b.postWait(t, "t1", "wait=stored", newTurn("w1", "u1", "s1", "My neighbour keeps bees on the roof of the old observatory.", at))
	require.Equal(t, http.StatusAccepted, res.Status, string(res.Body))
	got = decode[waitedBody](t, res)
	require.True(t, got.Accepted[0].Duplicate)
	require.True(t, got.Wait.Reached)
	require.Equal(t, "stored", got.Wait.For)
}

// A turn's status goes from not stored (found by the sequence its POST
// answered) to stored and done by every worker; another tenant never sees
// it.
func TestTurnStatusFromPendingToDone(t *testing.T) {
	t.Parallel()
	b := setup(t)
	// The ingest consumer exists but nobody works it yet.
	_, stop := testenv.StartWorker(t, b.nats, b.db, ingest.Def, nil)
	stop()
	at := testNow.Add(-time.Hour)
	acc := b.postOK(t, "t1", newTurn("p0", "u1", "s1", "first", at), newTurn("p1", "u1", "s1", "second", at.Add(time.Second)))
	seq := acc[1].Sequence

	// Not stored, asked by id alone: not found, and the answer says how to ask.
	res := b.get(t, "t1", turnPath("p1", 0))
	requireCode(t, res, http.StatusNotFound, "not_found")
	require.Contains(t, decode[errorBody](t, res).Error.Message, "seq=")

	res = b.get(t, "t1", turnPath("p1", seq))
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	require.Equal(t, turnStatusBody{ID: "p1", Sequence: seq, SessionID: "s1", UserID: "u1",
		Workers: map[string]workerBody{"ingest": {Done: false}}}, decode[turnStatusBody](t, res))

	// The sequence must be this tenant's turn of this id.
	requireCode(t, b.get(t, "t2", turnPath("p1", seq)), http.StatusNotFound, "not_found")
	requireCode(t, b.get(t, "t1", turnPath("p0", seq)), http.StatusNotFound, "not_found")
	requireCode(t, b.get(t, "t1", turnPath("p1", seq+100)), http.StatusNotFound, "not_found")

	// A wait whose bound passes says so, within about the bound.
	start := time.Now()
	res = b.postWait(t, "t1", "wait=stored&timeout=300ms", newTurn("p2", "u1", "s1", "third", at.Add(2*time.Second)))
	elapsed := time.Since(start)
	require.Equal(t, http.StatusAccepted, res.Status, string(res.Body))
	got := decode[waitedBody](t, res)
	require.Equal(t, waitBody{For: "stored", Reached: false, WaitedMS: got.Wait.WaitedMS, Pending: []string{"p2"}}, *got.Wait)
	require.GreaterOrEqual(t, got.Wait.WaitedMS, int64(300))
	require.Less(t, elapsed, 3*time.Second)

	startIngest(t, b.db, b.nats, events.DefaultLimits)
	require.Eventually(t, func() bool {
		r, err := b.send(t.Context(), http.MethodGet, turnPath("p1", seq), "t1", nil)
		// The row is committed a moment before ingest acknowledges it.
		return err == nil && r.Status == http.StatusOK && decodeStatus(r).Stored && decodeStatus(r).Workers["ingest"].Done
	}, 30*time.Second, 20*time.Millisecond)
	// Stored: found by id alone, with the sequence it was stored from.
	res = b.get(t, "t1", turnPath("p1", 0))
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	require.Equal(t, turnStatusBody{ID: "p1", Sequence: seq, SessionID: "s1", UserID: "u1", Stored: true,
		Workers: map[string]workerBody{"ingest": {Done: true}}}, decode[turnStatusBody](t, res))
	// Another tenant's stored turn is not found, with or without a sequence.
	requireCode(t, b.get(t, "t2", turnPath("p1", 0)), http.StatusNotFound, "not_found")
	requireCode(t, b.get(t, "t2", turnPath("p1", seq)), http.StatusNotFound, "not_found")
}

// decodeStatus reads a turn status answer, zero when it is none.
func decodeStatus(r response) turnStatusBody {
	var st turnStatusBody
	_ = json.Unmarshal(r.Body, &st)
	return st
}

// A wait for searchable while no indexer runs answers, at its bound, that
// the turns were stored but not indexed.
func TestPostTurnsWaitBoundPasses(t *testing.T) {
	t.Parallel()
	b := setup(t, withIngest)
	at := testNow.Add(-time.Hour)
	start := time.Now()
	res := b.postWait(t, "t1", "wait=searchable&timeout=0.4", newTurn("x1", "u1", "s1", "one", at), newTurn("x2", "u1", "s1", "two", at))
	elapsed := time.Since(start)
	require.Equal(t, http.StatusAccepted, res.Status, string(res.Body))
	got := decode[waitedBody](t, res)
	require.Len(t, got.Accepted, 2)
	require.False(t, got.Wait.Reached)
	require.Equal(t, []string{"x1", "x2"}, got.Wait.Pending)
	require.GreaterOrEqual(t, got.Wait.WaitedMS, int64(400))
	require.Less(t, elapsed, 3*time.Second)

	// Stored they are, which wait=stored says at once.
	res = b.postWait(t, "t1", "wait=stored&timeout=10s", newTurn("x3", "u1", "s1", "three", at))
	require.Equal(t, http.StatusAccepted, res.Status, string(res.Body))
	require.True(t, decode[waitedBody](t, res).Wait.Reached, string(res.Body))
	st := decodeStatus(b.get(t, "t1", turnPath("x1", 0)))
	require.True(t, st.Stored)
	require.False(t, st.Searchable)
	_, ok := st.Workers["indexer"]
	require.False(t, ok, "no indexer consumer, so no indexer progress")
}

// A turn the ingest worker gave up on is done by its floor, and its status
// and a wait name the dead letter.
func TestTurnStatusDeadLettered(t *testing.T) {
	t.Parallel()
	b := setup(t, withIngest)
	at := testNow.Add(-time.Hour)
	// Published straight to the stream, as a producer may: the body names
	// another user than its subject, which ingest refuses for good.
	tn := events.Turn{ID: "bad", TenantID: "t1", UserID: "someone-else", SessionID: "s1", Role: "user", Content: "x", OccurredAt: at}
	data := mustJSON(t, tn)
	msg := nats.NewMsg(events.TurnSubject("t1", "u1", "s1"))
	msg.Data = data
	msg.Header.Set(jetstream.MsgIDHeader, events.MsgID("t1", "bad"))
	ack, err := b.js.PublishMsg(t.Context(), msg)
	require.NoError(t, err)

	var st turnStatusBody
	require.Eventually(t, func() bool {
		r, err := b.send(t.Context(), http.MethodGet, turnPath("bad", ack.Sequence), "t1", nil)
		st = decodeStatus(r)
		return err == nil && st.Workers["ingest"].Done
	}, 30*time.Second, 20*time.Millisecond)
	require.False(t, st.Stored)
	require.NotZero(t, st.Workers["ingest"].DeadLetter)
	res := b.get(t, "t1", "/v1/ops/dead-letters?consumer=ingest")
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	require.Contains(t, string(res.Body), fmt.Sprintf(`"seq":%d`, st.Workers["ingest"].DeadLetter))
}

// Bad wait, timeout and seq values are a 400 naming them, and nothing is
// published.
func TestTurnWaitParamsRejected(t *testing.T) {
	t.Parallel()
	b := setup(t)
	tn := newTurn("r1", "u1", "s1", "x", testNow.Add(-time.Hour))
	for _, tc := range []struct {
		query  string
		fields []string
	}{
		{"wait=soon", []string{"wait"}},
		{"wait=stored&timeout=abc", []string{"timeout"}},
		{"wait=stored&timeout=11s", []string{"timeout"}},
		{"wait=stored&timeout=0", []string{"timeout"}},
		{"wait=stored&timeout=-1s", []string{"timeout"}},
		{"timeout=1s", []string{"timeout"}},
		{"wait=later&timeout=1h", []string{"wait", "timeout"}},
		{"wiat=stored", []string{"wiat"}},
	} {
		require.Equal(t, tc.fields, requireFields(t, b.postWait(t, "t1", tc.query, tn), http.StatusBadRequest), tc.query)
	}
	require.Zero(t, b.streamMsgs(t), "a request with a bad parameter publishes nothing")

	for _, q := range []string{"seq=abc", "seq=0", "seq=-3"} {
		require.Equal(t, []string{"seq"}, requireFields(t, b.get(t, "t1", "/v1/turns/r1?"+q), http.StatusBadRequest), q)
	}
	require.Equal(t, []string{"other"}, requireFields(t, b.get(t, "t1", "/v1/turns/r1?other=1"), http.StatusBadRequest))
}
