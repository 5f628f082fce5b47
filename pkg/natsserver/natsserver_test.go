package natsserver_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nkeys"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/deps"
	"github.com/recallhq/recall/pkg/natsserver"
	"github.com/recallhq/recall/pkg/queue"
)

// setup starts the server `recall run` starts without NATS_URL
// (deps.StartEmbeddedNATS), on a fresh data directory, with Recall's
// streams declared by its user; it returns the server, the user's seed file
// and that user's JetStream.
func setup(t *testing.T) (*server.Server, string, jetstream.JetStream) {
	t.Helper()
	data := deps.Data{Dir: t.TempDir()}
	srv, login, err := deps.StartEmbeddedNATS(deps.EmbeddedNATS{EmbeddedNATSHost: "127.0.0.1", EmbeddedNATSPort: -1}, data)
	require.NoError(t, err)
	t.Cleanup(func() { srv.Shutdown(); srv.WaitForShutdown() })
	require.Equal(t, data.NATSSeedFile(), login.NKeyFile)
	opts, err := login.Options()
	require.NoError(t, err)
	nc, err := nats.Connect(srv.ClientURL(), opts...)
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	require.NoError(t, queue.EnsureStreams(context.Background(), js, queue.DefaultStreamConfig))
	return srv, login.NKeyFile, js
}

// rawTurn is the attack as it was found: a client speaking the protocol on
// a bare socket, a CONNECT with no credentials, then a well-formed turn of
// tenant beta on its subject.
func rawTurn(t *testing.T, addr, connect string) string {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SetDeadline(time.Now().Add(10*time.Second)))
	r := bufio.NewReader(c)
	info, err := r.ReadString('\n')
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(info, "INFO "), info)
	body := `{"id":"bs1-1","tenant_id":"beta","user_id":"bob","session_id":"bs1","occurred_at":"2026-01-02T03:04:05Z","role":"user","content":"my PIN is 1234"}`
	hdr := "NATS/1.0\r\nNats-Msg-Id: beta:bs1-1\r\n\r\n"
	fmt.Fprintf(c, "CONNECT %s\r\nHPUB recall.turns.beta.bob.bs1 %d %d\r\n%s%s\r\nPUB recall.turns.beta.bob.bs1 %d\r\n%s\r\nPING\r\n",
		connect, len(hdr), len(hdr)+len(body), hdr, body, len(body), body)
	var got strings.Builder
	for {
		line, err := r.ReadString('\n')
		got.WriteString(line)
		if err != nil || strings.HasPrefix(line, "PONG") {
			return got.String()
		}
	}
}

func turnsStored(t *testing.T, js jetstream.JetStream) uint64 {
	t.Helper()
	s, err := js.Stream(context.Background(), queue.TurnsStream)
	require.NoError(t, err)
	info, err := s.Info(context.Background())
	require.NoError(t, err)
	return info.State.Msgs
}

// TestAnonymousPublisherIsRefused: a client without the user's key, on a
// raw socket or with nats.go, with no credentials, a password or another
// key, is refused at CONNECT, and nothing it sent is stored.
func TestAnonymousPublisherIsRefused(t *testing.T) {
	t.Parallel()
	srv, _, js := setup(t)
	addr := srv.Addr().String()

	for _, connect := range []string{
		`{}`,
		`{"verbose":false,"pedantic":false,"headers":true,"protocol":1}`,
		`{"headers":true,"user":"recall","pass":"recall"}`,
		`{"headers":true,"auth_token":"recall"}`,
	} {
		got := rawTurn(t, addr, connect)
		require.Contains(t, got, "-ERR 'Authorization Violation'", connect)
		require.NotContains(t, got, "PONG", "%s: the connection is closed, not served", connect)
	}

	// nats.go, with a password, a token, or an NKey of its own.
	other, err := nkeys.CreateUser()
	require.NoError(t, err)
	otherSeed, err := other.Seed()
	require.NoError(t, err)
	otherFile := filepath.Join(t.TempDir(), "other.nk")
	require.NoError(t, os.WriteFile(otherFile, otherSeed, 0o600))
	otherKey, err := nats.NkeyOptionFromSeed(otherFile)
	require.NoError(t, err)
	for name, opt := range map[string]nats.Option{
		"none":     func(*nats.Options) error { return nil },
		"password": nats.UserInfo("recall", "recall"),
		"token":    nats.Token("recall"),
		"nkey":     otherKey,
	} {
		nc, err := nats.Connect(srv.ClientURL(), opt, nats.NoReconnect())
		if err == nil {
			nc.Close()
		}
		require.ErrorIs(t, err, nats.ErrAuthorization, name)
	}

	require.Zero(t, turnsStored(t, js), "no refused client's turn was stored")
	require.Zero(t, srv.NumClients()-1, "only the test's own connection is left")
}

// TestLocalUserPermissions: the local user publishes turns and uses
// JetStream, and is refused any subject outside Recall's.
func TestLocalUserPermissions(t *testing.T) {
	t.Parallel()
	srv, seed, js := setup(t)
	ctx := context.Background()
	ack, err := js.Publish(ctx, "recall.turns.beta.bob.bs1", []byte(`{}`))
	require.NoError(t, err)
	require.Equal(t, queue.TurnsStream, ack.Stream)
	require.EqualValues(t, 1, turnsStored(t, js))

	refused := make(chan error, 4)
	login, err := nats.NkeyOptionFromSeed(seed)
	require.NoError(t, err)
	nc, err := nats.Connect(srv.ClientURL(), login, nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) { refused <- err }))
	require.NoError(t, err)
	defer nc.Close()
	require.NoError(t, nc.Publish("payments.charge", []byte("x")))
	_, err = nc.SubscribeSync("$SYS.>")
	require.NoError(t, err) // refused asynchronously
	require.NoError(t, nc.Flush())
	var got []string
	for len(got) < 2 {
		select {
		case err := <-refused:
			require.True(t, errors.Is(err, nats.ErrPermissionViolation), err)
			got = append(got, err.Error())
		case <-time.After(5 * time.Second):
			t.Fatalf("refusals seen: %v", got)
		}
	}
	require.Contains(t, strings.Join(got, "\n"), `Publish to "payments.charge"`)
	require.Contains(t, strings.Join(got, "\n"), `Subscription to "$SYS.>"`)
}

// TestLocalUserKey: the seed file is made once, owner-only, and read again;
// one that others may read, or that holds no user seed, is refused.
func TestLocalUserKey(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "data")
	path := filepath.Join(dir, "nats.nk")
	pub, created, err := natsserver.LocalUser(path)
	require.NoError(t, err)
	require.True(t, created)
	require.True(t, nkeys.IsValidPublicUserKey(pub), pub)
	fi, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(raw), "SU"), "a user seed, as `nats --nkey` reads it")

	again, created, err := natsserver.LocalUser(path)
	require.NoError(t, err)
	require.False(t, created, "kept across starts")
	require.Equal(t, pub, again)

	require.NoError(t, os.Chmod(path, 0o640))
	_, _, err = natsserver.LocalUser(path)
	require.ErrorContains(t, err, "may be read by others (mode 0640)")

	bad := filepath.Join(dir, "bad.nk")
	require.NoError(t, os.WriteFile(bad, []byte("not a seed\n"), 0o600))
	_, _, err = natsserver.LocalUser(bad)
	require.ErrorContains(t, err, bad)
	account, err := nkeys.CreateAccount()
	require.NoError(t, err)
	accountSeed, err := account.Seed()
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(bad, accountSeed, 0o600))
	_, _, err = natsserver.LocalUser(bad)
	require.ErrorContains(t, err, "not the seed of a user key")

	_, err = natsserver.Start(natsserver.Options{Port: -1, StoreDir: t.TempDir(), Users: []natsserver.User{{NKey: "SUxyz"}}})
	require.ErrorContains(t, err, "not the public key of an NKey user")
}

// TestWithoutUsersAnyoneConnects: a server without users (the tests')
// takes the raw turn and stores it: what `recall run`'s server did before
// it had a user, and what the refusals above are measured against.
func TestWithoutUsersAnyoneConnects(t *testing.T) {
	t.Parallel()
	srv, err := natsserver.Start(natsserver.Options{Port: -1, StoreDir: t.TempDir()})
	require.NoError(t, err)
	t.Cleanup(func() { srv.Shutdown(); srv.WaitForShutdown() })
	nc, err := nats.Connect(srv.ClientURL())
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	require.NoError(t, queue.EnsureStreams(context.Background(), js, queue.DefaultStreamConfig))
	got := rawTurn(t, srv.Addr().String(), `{"verbose":false,"headers":true}`)
	require.Contains(t, got, "PONG")
	// The PONG says the server read both; the stream stores them a moment
	// later, through its own subscription.
	require.Eventually(t, func() bool { return turnsStored(t, js) == 2 }, 5*time.Second, 10*time.Millisecond, "the HPUB and the PUB")
}

// TestEmbeddedUserKeptAcrossRestarts: `recall run` started again on the
// same DATA_DIR lets the same user in, so a client that holds the seed (a
// tool, a `recall worker`) reconnects on its own.
func TestEmbeddedUserKeptAcrossRestarts(t *testing.T) {
	t.Parallel()
	data := deps.Data{Dir: t.TempDir()}
	srv, login, err := deps.StartEmbeddedNATS(deps.EmbeddedNATS{EmbeddedNATSHost: "127.0.0.1", EmbeddedNATSPort: -1}, data)
	require.NoError(t, err)
	port := srv.Addr().(*net.TCPAddr).Port
	opts, err := login.Options()
	require.NoError(t, err)
	reconnected := make(chan struct{}, 1)
	nc, err := nats.Connect(login.URL, append(opts, nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond),
		nats.ReconnectHandler(func(*nats.Conn) { reconnected <- struct{}{} }))...)
	require.NoError(t, err)
	defer nc.Close()
	srv.Shutdown()
	srv.WaitForShutdown()

	again, login2, err := deps.StartEmbeddedNATS(deps.EmbeddedNATS{EmbeddedNATSHost: "127.0.0.1", EmbeddedNATSPort: port}, data)
	require.NoError(t, err)
	defer func() { again.Shutdown(); again.WaitForShutdown() }()
	require.Equal(t, login, login2, "the same address and the same seed file")
	select {
	case <-reconnected:
	case <-time.After(10 * time.Second):
		t.Fatalf("the client did not get back in: %v", nc.LastError())
	}
	require.NoError(t, nc.Flush())
}
