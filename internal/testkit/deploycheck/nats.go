package deploycheck

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/stretchr/testify/require"
)

// NATSPasswordVar is the variable that holds a NATS user's password in the
// deployments: deploy/nats.conf reads it from the server's environment,
// compose passes it to the server and to the binary that logs in as the
// user (RECALL_NATS_PASSWORD_INGEST for recall-ingest).
func NATSPasswordVar(user string) string {
	return "RECALL_NATS_PASSWORD_" + strings.ToUpper(strings.ReplaceAll(strings.TrimPrefix(user, "recall-"), "-", "_"))
}

// NATSSecretKey is the key of a NATS user's password in the Kubernetes
// Secret recall-nats (ingest for recall-ingest).
func NATSSecretKey(user string) string { return strings.TrimPrefix(user, "recall-") }

// NATSSecret is the Secret the Kubernetes manifests read NATS passwords from.
const NATSSecret = "recall-nats"

// NATSTestPassword is the password the tests give a NATS user: each its
// own, so that a binary given another's is caught.
func NATSTestPassword(user string) string { return "test-password-of-" + user }

// natsPasswordVars matches the password variables a file names.
var natsPasswordVars = regexp.MustCompile(`RECALL_NATS_PASSWORD_[A-Z0-9_]+`)

// NATSTestEnv sets every NATS password variable text names to its user's
// test password, as an operator's deploy/.env sets them.
func NATSTestEnv(text string) map[string]string {
	env := map[string]string{}
	for _, v := range natsPasswordVars.FindAllString(text, -1) {
		user := "recall-" + strings.ReplaceAll(strings.ToLower(strings.TrimPrefix(v, "RECALL_NATS_PASSWORD_")), "_", "-")
		env[v] = NATSTestPassword(user)
	}
	return env
}

// LoadNATSConf parses deploy/nats.conf as nats-server does, with the
// password variables it reads defined as NATSTestEnv (variables defined at
// the top of a config win over the environment, so no test touches its
// process's environment).
func LoadNATSConf(t testing.TB) *server.Options {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(RepoRoot(), "deploy", "nats.conf"))
	require.NoError(t, err)
	return ParseNATSConf(t, string(raw), NATSTestEnv(string(raw)))
}

// ParseNATSConf parses a nats-server config with vars defined, from a
// file of its own (the parser reads files).
func ParseNATSConf(t testing.TB, conf string, vars map[string]string) *server.Options {
	t.Helper()
	var b strings.Builder
	for k, v := range vars {
		fmt.Fprintf(&b, "%s: %q\n", k, v)
	}
	b.WriteString(conf)
	path := filepath.Join(t.TempDir(), "nats.conf")
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o600))
	opts, err := server.ProcessConfigFile(path)
	require.NoError(t, err)
	return opts
}
