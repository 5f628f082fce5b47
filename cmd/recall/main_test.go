package main

import (
	"testing"

	"github.com/recallhq/recall/internal/deploycheck"
	"github.com/recallhq/recall/pkg/service"
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
	if cfg.EmbeddedNATSPort == 0 || cfg.DataDir == "" {
		t.Fatalf("want embedded NATS by default, got %+v", cfg)
	}
}

func TestK8sMigrateJobEnvMatchesConfig(t *testing.T) {
	t.Parallel()
	deploycheck.CheckK8sEnv(t, deploycheck.LoadK8s(t), "recall-migrate", service.EnvVars[migrateConfig](), []string{"DATABASE_URL"})
}
