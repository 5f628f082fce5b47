package main

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/deps"
	"github.com/recallhq/recall/pkg/natsserver"
)

func streamNames(t *testing.T, js jetstream.JetStream) []string {
	t.Helper()
	var names []string
	l := js.StreamNames(context.Background())
	for n := range l.Name() {
		names = append(names, n)
	}
	require.NoError(t, l.Err())
	return names
}

// TestToolsFindTheirServer: with NATS_URL unset the tools use the server
// `recall run` recorded under DATA_DIR, say so, and leave another server on
// the machine untouched; pointed at a server without Recall's streams, tools
// that read or write stop with an error naming it and declare nothing there;
// without a record and without NATS_URL they use no server at all.
func TestToolsFindTheirServer(t *testing.T) {
	t.Parallel()
	bin := testenv.RecallBin(t)
	db := testenv.NewDB(t)
	data := deps.Data{Dir: t.TempDir()}
	dataDir := data.Dir
	// Recall's, as `recall run` starts it: the streams are there, and only
	// the user whose seed is in the data directory gets in.
	run, _ := testenv.NewLocalNATS(t, data)
	bare := testenv.NewBareNATS(t)
	otherURL, other := bare.URL, bare.JS

	remove, err := writeRunRecord(data, runRecord{URL: run.URL, ServerID: run.Server.ID(), PID: 4242, NKeyFile: "nats.nk"})
	require.NoError(t, err)

	tool := func(env []string, args ...string) (string, string, error) {
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), append([]string{"DATABASE_URL=" + db.URL, "NATS_URL=", "DATA_DIR=" + dataDir}, env...)...)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		return stdout.String(), stderr.String(), err
	}

	// The recorded server is found and named, and logged in to as its
	// user, whatever credentials the environment holds for other servers.
	otherLogins := []string{"NATS_USER=someone", "NATS_PASSWORD=x", "NATS_TOKEN=y", "NATS_TLS_CA_FILE=/nonexistent"}
	out, errOut, err := tool(otherLogins, "dlq", "list")
	require.NoError(t, err, errOut)
	require.Contains(t, out, "0 dead letter(s)")
	require.Contains(t, errOut, "recall: NATS at "+run.URL+" (the embedded server of `recall run` (pid 4242), recorded in "+filepath.Join(dataDir, "nats.json")+
		", as the user whose seed is "+filepath.Join(dataDir, "nats.nk")+")")
	_, errOut, err = tool(nil, "forget", "-tenant", "t1", "-user", "u1")
	require.NoError(t, err, errOut)
	require.Contains(t, errOut, `forgetting user "u1" of tenant "t1"`)
	require.Contains(t, errOut, "on NATS at "+run.URL)
	require.Empty(t, streamNames(t, other), "the other server is untouched")

	// NATS_URL wins, and a server without Recall's streams is an error that
	// changes nothing there, for tools that read and tools that write.
	for _, args := range [][]string{
		{"dlq", "list"},
		{"dlq", "show", "1"},
		{"dlq", "redrive", "-all"},
		{"dlq", "delete", "1"},
		{"forget", "-tenant", "t1", "-user", "u1"},
		{"replay", "-worker", "ingest"},
	} {
		out, errOut, err := tool([]string{"NATS_URL=" + otherURL}, args...)
		require.Error(t, err, "%v: %s", args, out)
		require.Contains(t, errOut, "recall: NATS at "+otherURL+" (NATS_URL)", args)
		require.Contains(t, errOut, "has no stream RECALL_TURNS, RECALL_SIGNALS, RECALL_TASKS, RECALL_DLQ", args)
		require.Contains(t, errOut, otherURL, args)
		require.Empty(t, streamNames(t, other), "%v declared streams on a server that is not Recall's", args)
	}

	// A record whose server has gone, or been replaced, is not used.
	_, _, err = natsserver.LocalUser(filepath.Join(dataDir, "other.nk")) // a seed the server does not know
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	deadURL := "nats://" + ln.Addr().String()
	require.NoError(t, ln.Close())
	for _, tc := range []struct {
		rec  runRecord
		says string
	}{
		{runRecord{URL: deadURL, ServerID: "x", PID: 1}, "does not answer: is `make run` still running?"},
		{runRecord{URL: otherURL, ServerID: run.Server.ID(), PID: 1}, "is not the one `recall run` recorded"},
		// A record without the user, or naming another seed: the server
		// refuses the tool, which says so.
		{runRecord{URL: run.URL, ServerID: run.Server.ID(), PID: 1}, "refused the login (no credentials)"},
		{runRecord{URL: run.URL, ServerID: run.Server.ID(), PID: 1, NKeyFile: "other.nk"}, "refused the login (the NKey seed in " + filepath.Join(dataDir, "other.nk") + ")"},
	} {
		_, err := writeRunRecord(data, tc.rec)
		require.NoError(t, err)
		_, errOut, err := tool(nil, "dlq", "list")
		require.Error(t, err)
		require.Contains(t, errOut, tc.says)
	}

	// Without a record and without NATS_URL no server is used.
	remove()
	_, errOut, err = tool(nil, "dlq", "list")
	require.Error(t, err)
	require.Contains(t, errOut, "no NATS server to use: NATS_URL is unset and no `recall run` is running with DATA_DIR="+dataDir)
	require.Empty(t, streamNames(t, other))
}

// TestRunRecord: the record is written whole, its owner's only, and removed by the function
// writeRunRecord returns.
func TestRunRecord(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "data")
	remove, err := writeRunRecord(deps.Data{Dir: dir}, runRecord{URL: "nats://127.0.0.1:4223", ServerID: "NABC", PID: 7, NKeyFile: "nats.nk"})
	require.NoError(t, err)
	fi, err := os.Stat(filepath.Join(dir, "nats.json"))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "its owner's only, as the seed it names")
	data, err := os.ReadFile(filepath.Join(dir, "nats.json"))
	require.NoError(t, err)
	var rec runRecord
	require.NoError(t, json.Unmarshal(data, &rec))
	require.Equal(t, runRecord{URL: "nats://127.0.0.1:4223", ServerID: "NABC", PID: 7, NKeyFile: "nats.nk"}, rec)
	remove()
	_, err = os.Stat(filepath.Join(dir, "nats.json"))
	require.ErrorIs(t, err, os.ErrNotExist)
}
