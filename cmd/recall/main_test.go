package main

import (
	"testing"

	"github.com/recallhq/recall/internal/deploycheck"
	"github.com/recallhq/recall/pkg/service"
	"github.com/stretchr/testify/require"
)

func TestComposeMigrateEnvMatchesConfig(t *testing.T) {
	t.Parallel()
	p := deploycheck.LoadCompose(t)
	deploycheck.CheckServiceEnv(t, p, "migrate", service.EnvVars[migrateConfig](), []string{"DATABASE_URL"})
}

func TestRunConfigDefaults(t *testing.T) {
	cfg, err := service.LoadConfig[runConfig]()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.EmbeddedNATSPort == 0 || cfg.Data.Dir == "" {
		t.Fatalf("want embedded NATS by default, got %+v", cfg)
	}
}

func TestK8sMigrateJobEnvMatchesConfig(t *testing.T) {
	t.Parallel()
	deploycheck.CheckK8sEnv(t, deploycheck.LoadK8s(t), "recall-migrate", service.EnvVars[migrateConfig](), []string{"DATABASE_URL"})
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
	require.NoError(t, service.LoadInto(&f, environ))
	require.Equal(t, "nats://elsewhere:4333", f.NATS.URL)
	require.Equal(t, "/creds", f.NATS.CredsFile)
	require.Equal(t, "postgres://db/recall", f.DB.URL)
	var d natsToolConfig
	require.NoError(t, service.LoadInto(&d, environ))
	require.Equal(t, "nats://elsewhere:4333", d.NATS.URL)
	for _, v := range []string{"NATS_URL", "NATS_CREDS_FILE", "DATABASE_URL"} {
		require.Contains(t, service.EnvVars[forgetConfig](), v)
	}
}
