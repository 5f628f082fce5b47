package queue

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"
)

// A server whose JetStream comes up after the binary asked for its streams
// (a cluster still electing its leader answers the same way): the streams
// are declared once it does, not given up on.
func TestEnsureStreamsWaitsForJetStream(t *testing.T) {
	t.Parallel()
	srv, js := startServer(t, &server.Options{})

	done := make(chan error, 1)
	start := time.Now()
	go func() { done <- ensureStreams(context.Background(), js, DefaultStreamConfig, 30*time.Second, nil) }()
	time.Sleep(time.Second)
	select {
	case err := <-done:
		t.Fatalf("declared without JetStream: %v", err)
	default:
	}
	require.NoError(t, srv.EnableJetStream(&server.JetStreamConfig{StoreDir: t.TempDir()}))
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(20 * time.Second):
		t.Fatal("the streams were not declared once JetStream was up")
	}
	require.Greater(t, time.Since(start), time.Second)
	for _, name := range []string{TurnsStream, SignalsStream, TasksStream, DLQStream} {
		_, err := js.Stream(context.Background(), name)
		require.NoError(t, err, name)
	}
}

// A declaration the server refuses for what it asks (a stream of somebody
// else's already holds the subjects) fails at once: asking again cannot
// help.
func TestEnsureStreamsFailsAtOnceOnARefusal(t *testing.T) {
	t.Parallel()
	_, js := startServer(t, &server.Options{JetStream: true, StoreDir: t.TempDir()})
	_, err := js.CreateStream(context.Background(), jetstream.StreamConfig{Name: "OTHER", Subjects: []string{"recall.turns.>"}})
	require.NoError(t, err)
	start := time.Now()
	err = ensureStreams(context.Background(), js, DefaultStreamConfig, 30*time.Second, nil)
	require.ErrorContains(t, err, "ensure stream "+TurnsStream)
	require.Less(t, time.Since(start), 5*time.Second, "a refusal is not retried")
}

func TestTransientDeclareError(t *testing.T) {
	t.Parallel()
	require.True(t, transientDeclareError(context.DeadlineExceeded))
	require.True(t, transientDeclareError(jetstream.ErrJetStreamNotEnabled))
	require.True(t, transientDeclareError(&jetstream.APIError{Code: 503, ErrorCode: 10008, Description: "JetStream system temporarily unavailable"}))
	require.False(t, transientDeclareError(&jetstream.APIError{Code: 400, ErrorCode: 10065, Description: "subjects overlap with an existing stream"}))
}

// startServer starts an in-process server with o (on a free loopback port)
// and connects to it; both are stopped when the test ends.
func startServer(t *testing.T, o *server.Options) (*server.Server, jetstream.JetStream) {
	t.Helper()
	o.Host, o.Port, o.NoLog, o.NoSigs = "127.0.0.1", -1, true, true
	srv, err := server.NewServer(o)
	require.NoError(t, err)
	go srv.Start()
	require.True(t, srv.ReadyForConnections(10*time.Second))
	t.Cleanup(func() { srv.Shutdown(); srv.WaitForShutdown() })
	nc, err := nats.Connect(srv.ClientURL())
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	return srv, js
}
