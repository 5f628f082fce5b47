package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/configdoc"
	"github.com/recallhq/recall/internal/testkit/deploycheck"
	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/deps"
	"github.com/recallhq/recall/pkg/envconfig"
	"github.com/recallhq/recall/pkg/mcpserver"
	"github.com/recallhq/recall/pkg/worker"
	"github.com/recallhq/recall/pkg/workers"
)

func TestComposeMigrateEnvMatchesConfig(t *testing.T) {
	t.Parallel()
	p := deploycheck.LoadCompose(t)
	deploycheck.CheckServiceEnv(t, p, "migrate", envconfig.EnvVars[migrateConfig](), []string{"DATABASE_URL"})
}

func TestRunConfigDefaults(t *testing.T) {
	cfg, err := envconfig.Load[runConfig]()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.EmbeddedNATSPort == 0 || cfg.Data.Dir == "" {
		t.Fatalf("want embedded NATS by default, got %+v", cfg)
	}
}

func TestK8sMigrateJobEnvMatchesConfig(t *testing.T) {
	t.Parallel()
	deploycheck.CheckK8sEnv(t, deploycheck.LoadK8s(t), "recall-migrate", envconfig.EnvVars[migrateConfig](), []string{"DATABASE_URL"})
}

// The tools read NATS_URL and NATS_CREDS_FILE like every binary (and no
// STREAM_*: they declare no stream):
// forget once embedded an unexported struct the env library skips, and
// purged nothing on the server it was pointed at.
func TestToolConfigsReadNATS(t *testing.T) {
	t.Parallel()
	environ := map[string]string{"NATS_URL": "nats://elsewhere:4333", "NATS_CREDS_FILE": "/creds", "STREAM_REPLICAS": "3",
		"DATABASE_URL": "postgres://db/recall"}
	var f forgetConfig
	require.NoError(t, envconfig.LoadInto(&f, environ))
	require.Equal(t, "nats://elsewhere:4333", f.NATS.URL)
	require.Equal(t, "/creds", f.NATS.CredsFile)
	require.Equal(t, "postgres://db/recall", f.DB.URL)
	var d natsToolConfig
	require.NoError(t, envconfig.LoadInto(&d, environ))
	require.Equal(t, "nats://elsewhere:4333", d.NATS.URL)
	for _, v := range []string{"NATS_URL", "NATS_CREDS_FILE", "DATABASE_URL"} {
		require.Contains(t, envconfig.EnvVars[forgetConfig](), v)
	}
}

// Every command answers -h and --help with its usage and exit status 0, and
// logs no error: flag.ErrHelp is what was asked for, not a failure. The
// environment points at nothing, so a command that did not stop at its
// flags would fail here rather than touch a real server.
func TestHelp(t *testing.T) {
	t.Parallel()
	bin := testenv.RecallBin(t)
	env := append(os.Environ(), "NATS_URL=nats://127.0.0.1:1", "DATABASE_URL=postgres://127.0.0.1:1/none", "LOG_LEVEL=info",
		"RECALL_URL=http://127.0.0.1:1", "RECALL_TENANT=acme")
	help := func(args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Env = env
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		require.NoError(t, err, "recall %s:\n%s", strings.Join(args, " "), out.String())
		require.Contains(t, strings.ToLower(out.String()), "usage", "recall %s", strings.Join(args, " "))
		require.NotContains(t, out.String(), `"level":"ERROR"`, "recall %s", strings.Join(args, " "))
		return out.String()
	}
	for _, a := range []string{"-h", "--help", "help"} {
		help(a)
	}
	for _, cmd := range [][]string{{"migrate"}, {"run"}, {"worker"}, {"replay"}, {"forget"}, {"sessions"}, {"dlq"}, {"dlq", "list"},
		{"dlq", "redrive"}, {"probe"}, {"mcp"}} {
		for _, h := range []string{"-h", "--help"} {
			out := help(append(cmd, h)...)
			if cmd[0] == "mcp" {
				for _, v := range envconfig.EnvVars[mcpserver.Config]() {
					require.Contains(t, out, v, "recall mcp -h lists what it reads")
				}
				tools := mcpserver.Tools()
				require.Greater(t, len(tools), 8)
				for _, tool := range tools {
					require.Regexp(t, `(?m)^  `+tool.Name+` +\S`, out, "recall mcp -h lists every tool, with what it does")
				}
			}
		}
	}
}

// The configuration reference lists what each command loads: its own config
// types, the log level service.Main reads, and DATA_DIR for the tools that
// find `recall run`'s NATS server (useNATS).
func TestConfigDocListsWhatCommandsRead(t *testing.T) {
	t.Parallel()
	workerVars := worker.EnvVars(workers.All...)
	for cmd, reads := range map[string][]string{
		"run":      append(envconfig.EnvVars[runConfig](), workerVars...),
		"worker":   append(envconfig.EnvVars[deps.Data](), workerVars...),
		"replay":   append(envconfig.EnvVars[deps.Data](), workerVars...),
		"migrate":  envconfig.EnvVars[migrateConfig](),
		"forget":   append(envconfig.EnvVars[forgetConfig](), envconfig.EnvVars[deps.Data]()...),
		"dlq":      append(envconfig.EnvVars[natsToolConfig](), envconfig.EnvVars[deps.Data]()...),
		"sessions": envconfig.EnvVars[sessionsConfig](),
		"mcp":      envconfig.EnvVars[mcpserver.Config](),
		"probe":    nil,
	} {
		reads = append(reads, "LOG_LEVEL")
		slices.Sort(reads)
		require.Equal(t, slices.Compact(reads), configdoc.Reads(cmd), cmd)
	}
}
