package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/deploycheck"
	"github.com/recallhq/recall/internal/testenv"
	"github.com/recallhq/recall/pkg/decayer"
	"github.com/recallhq/recall/pkg/service"
	"github.com/recallhq/recall/pkg/store"
)

func TestDeployEnvMatchesConfig(t *testing.T) {
	t.Parallel()
	deploycheck.CheckDeployEnv(t, "decayer", service.EnvVars[config]())
}

func TestConfigDefaults(t *testing.T) {
	cfg, err := service.LoadConfig[config]()
	require.NoError(t, err)
	require.Equal(t, 24*time.Hour, cfg.Decayer.Interval)
	require.Equal(t, 10000, cfg.Decayer.BatchSize)
	require.Equal(t, 30*24*time.Hour, cfg.Decayer.PurgeAfter, "expired facts are purged after 30 days")
	require.Equal(t, store.DefaultDecayConfig, cfg.Decayer.Decay)
	require.Zero(t, cfg.Decayer.RetentionFor("any"), "retention: keep by default")
	_, err = decayer.New(decayer.Options{Config: cfg.Decayer})
	require.NoError(t, err)
}

func TestConfigFromEnv(t *testing.T) {
	t.Setenv("RETENTION_BY_TENANT", "acme=90d,beta=30d")
	t.Setenv("RETENTION_DEFAULT", "365d")
	t.Setenv("DECAY_FACTOR_BY_TYPE", "topic:0.8")
	t.Setenv("DECAY_PERIOD", "168h")
	cfg, err := service.LoadConfig[config]()
	require.NoError(t, err)
	require.Equal(t, 90*24*time.Hour, cfg.Decayer.RetentionFor("acme"))
	require.Equal(t, 365*24*time.Hour, cfg.Decayer.RetentionFor("other"))
	require.Equal(t, 0.8, cfg.Decayer.Decay.FactorByType["topic"])
	require.Equal(t, 168*time.Hour, cfg.Decayer.Decay.Period)

	t.Setenv("RETENTION_BY_TENANT", "acme=ninety")
	_, err = service.LoadConfig[config]()
	require.ErrorContains(t, err, "RETENTION_BY_TENANT")

	t.Setenv("RETENTION_BY_TENANT", "")
	t.Setenv("DECAY_FACTOR", "1.5")
	cfg, err = service.LoadConfig[config]()
	require.NoError(t, err)
	_, err = decayer.New(decayer.Options{Config: cfg.Decayer})
	require.ErrorContains(t, err, "DECAY_FACTOR: 1.5")
}

// TestOnce runs the real binary as a CronJob would: exit 0 after one run,
// exit 1 when the run cannot be done.
func TestOnce(t *testing.T) {
	t.Parallel()
	db := testenv.NewDB(t)
	nt := testenv.NewNATS(t)
	bin := filepath.Join(t.TempDir(), "decayer")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, string(out))

	_, err = db.Store.RecordMentions(context.Background(), []store.Mention{{TenantID: "acme", EventID: "e1", UserID: "u1", SessionID: "s1",
		Type: "topic", Value: "sf", Display: "sf", OccurredAt: time.Now().Add(-45 * 24 * time.Hour), ExpiresAt: time.Now().Add(24 * time.Hour), Source: "rules"}})
	require.NoError(t, err)

	cmd := exec.Command(bin, "--once")
	cmd.Env = append(os.Environ(), "DATABASE_URL="+db.URL, "NATS_URL="+nt.URL, "OPS_ADDR=127.0.0.1:0")
	out, err = cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	require.Contains(t, string(out), `"msg":"decay run done"`)
	require.Contains(t, string(out), `"decayed":1`)
	require.Contains(t, string(out), `"users_refreshed":1`)

	cmd = exec.Command(bin, "--once")
	cmd.Env = append(os.Environ(), "DATABASE_URL="+db.URL, "NATS_URL="+nt.URL, "DECAY_FACTOR=2")
	out, err = cmd.CombinedOutput()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, string(out))
	require.Equal(t, 1, exit.ExitCode())
	require.Contains(t, string(out), "DECAY_FACTOR: 2")
}
