package telemetry_test

// These tests install the process's tracer provider, a global, so none of
// them runs in parallel with another.

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/api"
	"github.com/recallhq/recall/pkg/eventmsg"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/queue"
	"github.com/recallhq/recall/pkg/record"
	"github.com/recallhq/recall/pkg/store"
	"github.com/recallhq/recall/pkg/telemetry"
	"github.com/recallhq/recall/pkg/workers/ingest"
)

// content is the turn's text: user content, which no span may carry.
const content = "推荐几本科幻小说 secret-user-content-4711"

// pipeline is the API and the ingest worker on a fresh database and JetStream
// server, built with tracing as the test started it.
type pipeline struct {
	srv *httptest.Server
	db  *testenv.DB
	n   *testenv.NATS
}

// startTracing starts tracing from cfg, every span handed to the returned
// exporter as it ends, until the test ends.
func startTracing(t *testing.T, cfg telemetry.Config) *tracetest.InMemoryExporter {
	t.Helper()
	exp := tracetest.NewInMemoryExporter()
	stop, err := telemetry.StartWith(t.Context(), cfg, "recall-test", testenv.Logger(t), exp)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, stop(context.Background())) })
	require.Equal(t, cfg.Enabled(), telemetry.Enabled())
	return exp
}

// setup starts tracing from cfg, then the API and the ingest worker, so
// that they see it.
func setup(t *testing.T, cfg telemetry.Config) (*pipeline, *tracetest.InMemoryExporter) {
	t.Helper()
	exp := startTracing(t, cfg)
	db := testenv.NewDB(t)
	n := testenv.NewNATS(t)
	srv, err := api.New(api.Options{Store: db.Store, JS: n.JS, Log: testenv.Logger(t)})
	require.NoError(t, err)
	hs := httptest.NewServer(srv.Handler(nil))
	t.Cleanup(hs.Close)
	testenv.StartWorker(t, n, db, ingest.Def, nil)
	return &pipeline{srv: hs, db: db, n: n}, exp
}

// post sends one turn to POST /v1/turns, with the header pairs given.
func (p *pipeline) post(t *testing.T, id string, hdr ...string) {
	t.Helper()
	body := fmt.Sprintf(`{"id":%q,"user_id":"u-42","session_id":"s-1","occurred_at":"2026-11-22T08:15:00Z","role":"user","content":%q}`, id, content)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, p.srv.URL+"/v1/turns", bytes.NewReader([]byte(body)))
	require.NoError(t, err)
	req.Header.Set("X-Tenant-ID", "acme")
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := p.srv.Client().Do(req)
	require.NoError(t, err)
	require.NoError(t, res.Body.Close())
	require.Equal(t, http.StatusAccepted, res.StatusCode)
}

// get sends a GET as the tenant and returns the status.
func (p *pipeline) get(t *testing.T, path string) int {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, p.srv.URL+path, nil)
	require.NoError(t, err)
	req.Header.Set("X-Tenant-ID", "acme")
	res, err := p.srv.Client().Do(req)
	require.NoError(t, err)
	require.NoError(t, res.Body.Close())
	return res.StatusCode
}

// stored waits until the turn is in the database.
func (p *pipeline) stored(t *testing.T, id string) {
	t.Helper()
	require.Eventually(t, func() bool {
		msgs, _, err := p.db.Store.Tenant("acme").Messages(context.Background(), "s-1", store.Cursor{}, 100)
		return err == nil && slices.ContainsFunc(msgs, func(m record.Message) bool { return m.EventID == id })
	}, 10*time.Second, 10*time.Millisecond)
}

// streamHeader is a header of the turn stream's message with the event id.
func (p *pipeline) streamHeader(t *testing.T, id, name string) string {
	t.Helper()
	s, err := p.n.JS.Stream(t.Context(), queue.TurnsStream)
	require.NoError(t, err)
	m, err := s.GetLastMsgForSubject(t.Context(), events.TurnSubject("acme", "u-42", "s-1"))
	require.NoError(t, err)
	require.Equal(t, events.MsgID("acme", id), m.Header.Get(jetstream.MsgIDHeader))
	return m.Header.Get(name)
}

// spans are the spans exported so far.
type spans []sdktrace.ReadOnlySpan

func snapshot(exp *tracetest.InMemoryExporter) spans {
	stubs := exp.GetSpans()
	out := make(spans, len(stubs))
	for i := range stubs {
		out[i] = stubs[i].Snapshot()
	}
	return out
}

// waitFor waits until the exporter holds a span matching ok, and returns
// every span by then.
func waitFor(t *testing.T, exp *tracetest.InMemoryExporter, what string, ok func(sdktrace.ReadOnlySpan) bool) spans {
	t.Helper()
	var all spans
	require.Eventually(t, func() bool {
		all = snapshot(exp)
		return slices.ContainsFunc(all, ok)
	}, 10*time.Second, 10*time.Millisecond, "no span: %s", what)
	return all
}

// one returns the only span named name in trace, failing otherwise.
func (ss spans) one(t *testing.T, trace trace.TraceID, name string) sdktrace.ReadOnlySpan {
	t.Helper()
	var found []sdktrace.ReadOnlySpan
	for _, s := range ss {
		if s.SpanContext().TraceID() == trace && s.Name() == name {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		require.FailNow(t, "not one span", "%d spans named %q in trace %s, which has %v", len(found), name, trace, ss.names(trace))
	}
	return found[0]
}

// names are the names of the spans of a trace, in the order they started.
func (ss spans) names(trace trace.TraceID) []string {
	var in spans
	for _, s := range ss {
		if s.SpanContext().TraceID() == trace {
			in = append(in, s)
		}
	}
	slices.SortStableFunc(in, func(a, b sdktrace.ReadOnlySpan) int { return a.StartTime().Compare(b.StartTime()) })
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = s.Name()
	}
	return out
}

// under reports whether s descends from ancestor, following parents within
// ss.
func (ss spans) under(s, ancestor sdktrace.ReadOnlySpan) bool {
	byID := map[trace.SpanID]sdktrace.ReadOnlySpan{}
	for _, x := range ss {
		byID[x.SpanContext().SpanID()] = x
	}
	for p := s.Parent(); p.IsValid(); {
		if p.SpanID() == ancestor.SpanContext().SpanID() {
			return true
		}
		x, ok := byID[p.SpanID()]
		if !ok {
			return false
		}
		p = x.Parent()
	}
	return false
}

func attr(s sdktrace.ReadOnlySpan, key string) attribute.Value {
	for _, kv := range s.Attributes() {
		if string(kv.Key) == key {
			return kv.Value
		}
	}
	return attribute.Value{}
}

func hasEvent(s sdktrace.ReadOnlySpan, name string) bool {
	return slices.ContainsFunc(s.Events(), func(e sdktrace.Event) bool { return e.Name == name })
}

// requireNoContent checks that no attribute or event of any span carries
// the turn's content (statements are recorded without their arguments).
func requireNoContent(t *testing.T, ss spans) {
	t.Helper()
	for _, s := range ss {
		for _, kv := range s.Attributes() {
			require.NotContains(t, kv.Value.Emit(), "secret-user-content", "span %s attribute %s", s.Name(), kv.Key)
			require.NotEqual(t, "pgx.query.parameters", string(kv.Key), "span %s records arguments", s.Name())
		}
		for _, e := range s.Events() {
			for _, kv := range e.Attributes {
				require.NotContains(t, kv.Value.Emit(), "secret-user-content", "span %s event %s", s.Name(), e.Name)
			}
		}
	}
}

// isIngestAck matches the ingest worker's span of a message it acked.
func isIngestAck(s sdktrace.ReadOnlySpan) bool {
	return s.Name() == "process RECALL_TURNS" && attr(s, "messaging.consumer.group.name").AsString() == "ingest" && hasEvent(s, "ack")
}

// TestTurnTrace follows one turn from POST /v1/turns to the ingest worker's
// statement, as one trace, and then the API's read of it.
func TestTurnTrace(t *testing.T) {
	p, exp := setup(t, telemetry.Config{Exporters: []string{"otlp"}})
	p.post(t, "turn-1")
	all := waitFor(t, exp, "ingest's processing of the turn", isIngestAck)

	root := all[slices.IndexFunc(all, func(s sdktrace.ReadOnlySpan) bool { return s.Name() == "POST /v1/turns" })]
	tr := root.SpanContext().TraceID()
	t.Logf("one turn's trace: %s", strings.Join(all.names(tr), ", "))
	require.False(t, root.Parent().IsValid(), "the trace starts at the API")
	require.Equal(t, trace.SpanKindServer, root.SpanKind())
	require.Equal(t, "/v1/turns", attr(root, "http.route").AsString())
	require.Equal(t, "acme", attr(root, "recall.tenant_id").AsString())
	require.EqualValues(t, http.StatusAccepted, attr(root, "http.response.status_code").AsInt64())

	send := all.one(t, tr, "send RECALL_TURNS")
	require.Equal(t, trace.SpanKindProducer, send.SpanKind())
	require.Equal(t, root.SpanContext().SpanID(), send.Parent().SpanID())
	require.Equal(t, events.MsgID("acme", "turn-1"), attr(send, "messaging.message.id").AsString())
	// The message carries the publish's context.
	require.Equal(t, fmt.Sprintf("00-%s-%s-01", tr, send.SpanContext().SpanID()), p.streamHeader(t, "turn-1", "traceparent"))

	process := all.one(t, tr, "process RECALL_TURNS")
	require.Equal(t, trace.SpanKindConsumer, process.SpanKind())
	require.Equal(t, send.SpanContext().SpanID(), process.Parent().SpanID())
	require.Equal(t, "nats", attr(process, "messaging.system").AsString())
	require.Equal(t, events.TurnSubject("acme", "u-42", "s-1"), attr(process, "messaging.destination.name").AsString())
	require.Equal(t, "ingest", attr(process, "messaging.consumer.group.name").AsString())
	require.Equal(t, events.MsgID("acme", "turn-1"), attr(process, "messaging.message.id").AsString())
	require.EqualValues(t, 1, attr(process, "messaging.nats.message.delivery_count").AsInt64())

	handle := all.one(t, tr, "handle RECALL_TURNS")
	require.Equal(t, process.SpanContext().SpanID(), handle.Parent().SpanID(), "a batch of one is handled under its message's span")
	require.EqualValues(t, 1, attr(handle, "messaging.batch.message_count").AsInt64())

	insert := all.one(t, tr, "query MessageInsertBatch")
	require.Equal(t, trace.SpanKindClient, insert.SpanKind())
	require.True(t, all.under(insert, handle))
	require.Contains(t, attr(insert, "db.query.text").AsString(), "INSERT INTO messages")
	require.Equal(t, "postgresql", attr(insert, "db.system.name").AsString())
	require.False(t, insert.EndTime().After(process.Events()[len(process.Events())-1].Time), "acked after the statement committed")
	require.True(t, hasEvent(process, "ack"))
	requireNoContent(t, all)

	// The API's read: a server span with the statements under it.
	p.stored(t, "turn-1")
	exp.Reset()
	require.Equal(t, http.StatusOK, p.get(t, "/v1/sessions/s-1"))
	all = waitFor(t, exp, "the read", func(s sdktrace.ReadOnlySpan) bool { return s.Name() == "GET /v1/sessions/{session_id}" })
	read := all[slices.IndexFunc(all, func(s sdktrace.ReadOnlySpan) bool { return s.Name() == "GET /v1/sessions/{session_id}" })]
	t.Logf("a session read's trace: %s", strings.Join(all.names(read.SpanContext().TraceID()), ", "))
	var statements int
	for _, s := range all {
		if attr(s, "db.query.text").AsString() != "" {
			require.True(t, all.under(s, read), "statement %s outside the request's span", s.Name())
			statements++
		}
	}
	require.NotZero(t, statements, "the read's statements are traced")
	requireNoContent(t, all)
}

// TestProducerTraceContinues: a producer that publishes straight to
// JetStream with its own traceparent has its trace continued by the
// workers, and a caller's traceparent is continued by the API.
func TestProducerTraceContinues(t *testing.T) {
	p, exp := setup(t, telemetry.Config{Endpoint: "http://127.0.0.1:4318"})

	const producerTrace, producerSpan = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	turn := events.Turn{ID: "turn-2", TenantID: "acme", UserID: "u-42", SessionID: "s-1",
		OccurredAt: time.Date(2026, 11, 22, 8, 16, 0, 0, time.UTC), Role: "user", Content: content}
	m, err := eventmsg.Turn(&turn)
	require.NoError(t, err)
	// Spelled as some client libraries spell it; NATS headers are case
	// sensitive, the runner reads it in any case.
	m.Header.Set("Traceparent", "00-"+producerTrace+"-"+producerSpan+"-01")
	_, err = p.n.JS.PublishMsg(t.Context(), m)
	require.NoError(t, err)

	all := waitFor(t, exp, "ingest's processing of the producer's turn", isIngestAck)
	process := all[slices.IndexFunc(all, isIngestAck)]
	require.Equal(t, producerTrace, process.SpanContext().TraceID().String())
	require.Equal(t, producerSpan, process.Parent().SpanID().String())
	require.True(t, process.Parent().IsRemote())
	tr := process.SpanContext().TraceID()
	t.Logf("a producer's turn: %s", strings.Join(all.names(tr), ", "))
	handle := all.one(t, tr, "handle RECALL_TURNS")
	require.True(t, all.under(all.one(t, tr, "query MessageInsertBatch"), handle))

	// A caller of the API that sends its own traceparent.
	exp.Reset()
	const callerTrace = "0af7651916cd43dd8448eb211c80319c"
	p.post(t, "turn-3", "traceparent", "00-"+callerTrace+"-b7ad6b7169203331-01")
	all = waitFor(t, exp, "ingest's processing of the caller's turn", isIngestAck)
	root := all[slices.IndexFunc(all, func(s sdktrace.ReadOnlySpan) bool { return s.Name() == "POST /v1/turns" })]
	require.Equal(t, callerTrace, root.SpanContext().TraceID().String())
	all.one(t, root.SpanContext().TraceID(), "query MessageInsertBatch")
}

// TestDeadLetterTraced: a turn the worker gives up on ends its span with
// the dead letter's reason, as an event, and the span failed.
func TestDeadLetterTraced(t *testing.T) {
	p, exp := setup(t, telemetry.Config{Exporters: []string{"otlp"}})
	m, err := eventmsg.Turn(&events.Turn{ID: "turn-5", TenantID: "acme", UserID: "u-42", SessionID: "s-1",
		OccurredAt: time.Date(2026, 11, 22, 8, 17, 0, 0, time.UTC), Role: "user", Content: content})
	require.NoError(t, err)
	m.Subject = events.TurnSubject("other", "u-42", "s-1") // the body claims another tenant
	m.Header.Set("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	_, err = p.n.JS.PublishMsg(t.Context(), m)
	require.NoError(t, err)

	isDead := func(s sdktrace.ReadOnlySpan) bool {
		return s.Name() == "process RECALL_TURNS" && hasEvent(s, "dead-lettered")
	}
	all := waitFor(t, exp, "the dead letter", isDead)
	dead := all[slices.IndexFunc(all, isDead)]
	require.Equal(t, "4bf92f3577b34da6a3ce929d0e0e4736", dead.SpanContext().TraceID().String())
	require.Equal(t, codes.Error, dead.Status().Code)
	event := dead.Events()[slices.IndexFunc(dead.Events(), func(e sdktrace.Event) bool { return e.Name == "dead-lettered" })]
	reason := ""
	for _, kv := range event.Attributes {
		if kv.Key == "recall.dlq.reason" {
			reason = kv.Value.AsString()
		}
	}
	require.Contains(t, reason, "tenant")
	require.Equal(t, reason, p.n.DeadLetters(t)[0].Header.Get(queue.HeaderReason))
	require.False(t, hasEvent(dead, "ack"))
}

// TestTracingOff: with no OTEL_* variable set nothing is exported, and
// neither a caller's traceparent nor one of Recall's own reaches the
// message.
func TestTracingOff(t *testing.T) {
	p, exp := setup(t, telemetry.Config{Protocol: "http/protobuf"})
	require.False(t, telemetry.Enabled())
	p.post(t, "turn-4", "traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
	p.stored(t, "turn-4")
	require.Equal(t, http.StatusOK, p.get(t, "/v1/sessions/s-1"))
	require.Empty(t, p.streamHeader(t, "turn-4", "traceparent"))
	require.Empty(t, p.streamHeader(t, "turn-4", "Traceparent"))
	p.n.WaitSettled(t, queue.TurnsStream, "ingest")
	require.Empty(t, exp.GetSpans())
}
